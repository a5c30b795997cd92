"""When two rulesets must judge a roll alike: the options that can matter for one roll in one
position, so that ``jacquet infer`` checks a play once for every ruleset that agrees on it.

Most of a ruleset's options bind only in some positions: the bear-off convention only once the
mover's rearmost man can come home this turn, the doubles convention only on a double, the block
conventions only where the mover could end the turn holding six points in a row. :class:`Agreement`
leaves out every option that cannot matter here, so equal keys promise the same verdict.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from ..bits import FLAG, POINTS, highest, occupied, two_or_more
from ..position import Position
from ..rules import Rules
from .plays import dice_steps

#: every six points in a row of a side's 1-24, round the corner from 1 to 24 as well (the
#: block conventions look along the opponent's route, which wraps in the mover's numbering)
_WINDOWS: Final = tuple(
    sum(FLAG[(start + offset - 1) % 24 + 1] for offset in range(6)) for start in range(1, 25)
)
#: a point of the home table is at most this far from off
_HOME = 6


def could_bear_off(position: Position, pips: int) -> bool:
    """Whether the mover's rearmost man (on the bar counting 25) can reach its home table with
    ``pips`` to play: no bear-off rule binds before every man is home."""
    return highest(position.packed(position.turn)) - pips <= _HOME


def could_hold_six(position: Position, steps: int, hitting: bool) -> bool:
    """Whether ``steps`` steps could leave the mover holding six points in a row (wrapping),
    which every block convention needs before it can forbid anything: each step makes at most
    one more point held."""
    mover = position.packed(position.turn)
    held = (two_or_more(mover) if hitting else occupied(mover)) & POINTS
    need = 6 - steps
    if held.bit_count() < need:
        return False
    return any((held & window).bit_count() >= need for window in _WINDOWS)


class Agreement:
    """One roll in one position, asked of several rulesets: :meth:`key` for each, the facts of
    the position it reads worked out once for all of them."""

    __slots__ = ("_bear_off", "_dice", "_double", "_position", "_six")

    def __init__(self, position: Position, dice: Sequence[int]) -> None:
        self._position = position
        self._dice = dice
        self._double = dice[0] == dice[1]
        self._bear_off: dict[int, bool] = {}
        self._six: dict[tuple[int, bool], bool] = {}

    def key(self, rules: Rules) -> tuple[object, ...]:
        """The options of ``rules`` that can change ``validate_play``'s verdict on this roll.

        Two rulesets with equal keys, neither under ``every_die_used``, accept the same written
        plays (reaching the same positions) and refuse the same. ``every_die_used`` is left
        out: it changes nothing for a play that uses every die (nothing is shared), and the
        caller checks the rest. The opening and the scoring never reach ``validate_play``.
        """
        steps = dice_steps(self._dice, rules)
        pips = sum(steps)
        bear_off = self._bear_off.get(pips)
        if bear_off is None:
            bear_off = self._bear_off[pips] = could_bear_off(self._position, pips)
        structural = rules.structural
        if structural:
            wanted = (len(steps), rules.hitting)
            six = self._six.get(wanted)
            if six is None:
                six = self._six[wanted] = could_hold_six(self._position, *wanted)
            structural = six
        return (
            rules.hitting,
            rules.courier,
            rules.direction,
            rules.start,
            rules.doubles if self._double else None,
            rules.bear_off if bear_off else None,
            (rules.blocks, rules.return_men) if structural else None,
            rules.start_table_points,
            rules.midpoint_men,
        )

