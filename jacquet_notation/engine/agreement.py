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

from ..bits import FLAG, OPP_SHIFT, POINTS, highest, occupied, rotate, runs_of_six, two_or_more
from ..position import Position, Side, other
from ..rules import Rules
from .context import Context
from .plays import Play

#: every six points in a row of a side's 1-24, round the corner from 1 to 24 as well (the
#: block conventions look along the opponent's route, which wraps in the mover's numbering)
_WINDOWS: Final = tuple(
    sum(FLAG[(start + offset - 1) % 24 + 1] for offset in range(6)) for start in range(1, 25)
)
#: a point of the home table is at most this far from off
_HOME = 6


def could_bear_off(position: Position, pips: int) -> bool:
    """Whether ``pips`` could bring every man of the mover home (on the bar counting 25): no
    bear-off rule binds before then."""
    packed = position.packed(position.turn)
    if highest(packed) - pips > _HOME:
        return False  # the rearmost man alone cannot come home
    counts = position.counts(position.turn)
    return sum((point - _HOME) * counts[point] for point in range(_HOME + 1, 26)) <= pips


def could_hold_six(position: Position, dice: tuple[int, int], steps: int, hitting: bool) -> bool:
    """Whether ``steps`` steps of ``dice`` could leave the mover holding six points in a row
    (wrapping), which every block convention needs before it can forbid anything: a point it
    does not hold yet is made only by a man landing there at the end of the turn, from a point
    it holds, by a sum of the roll's steps; each step makes at most one more point."""
    counts = position.counts(position.turn)
    mover = position.packed(position.turn)
    held = (two_or_more(mover) if hitting else occupied(mover)) & POINTS
    if held.bit_count() < 6 - steps:
        return False
    a, b = dice
    sums = {a, b, a + b} if a != b else {a * count for count in range(1, steps + 1)}
    reach = 0
    for start in range(1, 26):
        if counts[start]:
            for distance in sums:
                if start - distance > 0:
                    reach |= FLAG[start - distance]
    for window in _WINDOWS:
        missing = window & ~held
        if missing.bit_count() <= steps and not missing & ~reach:
            return True
    return False


def holds_six(position: Position, side: Side, hitting: bool) -> bool:
    """Whether ``side`` holds six points in a row in ``position``, round the corner from 1 to
    24 as well: what every block convention needs before it can forbid a position."""
    packed = position.packed(side)
    held = (two_or_more(packed) if hitting else occupied(packed)) & POINTS
    if held.bit_count() < 6:
        return False  # the common case, found without looking for a run
    return bool(runs_of_six(held) or runs_of_six(rotate(held)))


def allows_final(before: Position, play: Play, rules: Rules, six: bool | None = None) -> bool:
    """Whether the structural rules of ``rules`` (blocks, Murray's limits) allow the mover's
    position after ``play``, a turn from ``before`` with no share: the one thing they judge.
    ``six``: :func:`holds_six` of that position, when the caller knows it already."""
    mover, opponent = before.turn, other(before.turn)
    if rules.start_table_points is None and rules.midpoint_men is None:
        if six is None:
            six = holds_six(play.position, mover, rules.hitting)
        if not six:
            return True  # no six points in a row: no block to judge
    state = play.position.packed(mover)
    if rules.hitting:
        state |= play.position.packed(opponent) << OPP_SHIFT
    return Context(before, rules).valid(state)


def unstructured(rules: Rules) -> Rules:
    """``rules`` without its structural rules and the share (``every_die_used``): the turn's
    steps alone, whose final position the structural rules then judge."""
    plain = _UNSTRUCTURED.get(rules)
    if plain is None:
        if len(_UNSTRUCTURED) > 256:
            _UNSTRUCTURED.clear()
        plain = _UNSTRUCTURED[rules] = rules.replace(
            blocks="unrestricted", start_table_points=None, midpoint_men=None, every_die_used=False
        )
    return plain


_UNSTRUCTURED: dict[Rules, Rules] = {}


class Agreement:
    """One roll in one position, asked of several rulesets: :meth:`key` for each, the facts of
    the position it reads worked out once for all of them."""

    __slots__ = ("_bear_off", "_double", "_position", "_six", "dice")

    def __init__(self, position: Position, dice: tuple[int, int]) -> None:
        self._position = position
        self.dice = dice
        self._double = dice[0] == dice[1]
        self._bear_off: dict[int, bool] = {}
        self._six: dict[tuple[int, bool], bool] = {}

    def situation(self) -> tuple[bool, ...]:
        """What :meth:`key` reads of this roll here, for any ruleset: whether it is a double,
        whether its pips, and a squared double's, could bring every man home."""
        a, b = self.dice
        if not self._double:
            return (False, self._could_bear_off(a + b))
        return (True, self._could_bear_off(4 * a), self._could_bear_off(a * a))

    def _could_bear_off(self, pips: int) -> bool:
        bear_off = self._bear_off.get(pips)
        if bear_off is None:
            bear_off = self._bear_off[pips] = could_bear_off(self._position, pips)
        return bear_off

    def key(self, rules: Rules) -> tuple[object, ...]:
        """The options of ``rules`` but its structural ones that can change ``validate_play``'s
        verdict on this roll here.

        Two rulesets with equal keys, neither under ``every_die_used``, have the same
        :func:`unstructured` verdict on every written play: the same plays accepted, reaching the
        same positions. ``every_die_used`` is left out: it changes nothing for a play that uses
        every die (nothing is shared), and the caller checks the rest. The opening and the
        scoring never reach ``validate_play``.
        """
        pips = self.steps(rules) * self.dice[0] if self._double else self.dice[0] + self.dice[1]
        bear_off = self._could_bear_off(pips)
        return (
            rules.hitting,
            rules.courier,
            rules.direction,
            rules.start,
            rules.doubles if self._double else None,
            rules.bear_off if bear_off else None,
        )

    def binds(self, rules: Rules) -> bool:
        """Whether the structural rules of ``rules`` can forbid any final position of this roll
        here (else its verdict is its :func:`unstructured` one)."""
        if not rules.structural:
            return False
        if rules.start_table_points is not None or rules.midpoint_men is not None:
            return True  # Murray's limits: no quick bound is worth it
        steps = self.steps(rules)
        wanted = (steps, rules.hitting)
        six = self._six.get(wanted)
        if six is None:
            six = self._six[wanted] = could_hold_six(
                self._position, self.dice, steps, rules.hitting
            )
        return six

    def whole_key(self, rules: Rules) -> tuple[object, ...]:
        """Every option of ``rules`` that can matter for this roll here, the structural rules
        and the share included: equal whole keys, every verdict and every legal play alike."""
        structure = (
            (rules.blocks, rules.return_men, rules.start_table_points, rules.midpoint_men)
            if self.binds(rules)
            else None
        )
        return (*self.key(rules), structure, rules.every_die_used)

    def steps(self, rules: Rules) -> int:
        """The steps this roll gives under ``rules`` (a double: four, or its number)."""
        if not self._double:
            return 2
        return 4 if rules.doubles == "four" else self.dice[0]


def keys_agree(one: Rules, another: Rules) -> bool | None:
    """Whether :meth:`Agreement.key` is the same for ``one`` and ``another`` on every roll in
    every position (True), on none (False: the options it weighs always differ), or on some
    (None: they differ in the doubles or the bear-off, which it weighs on some rolls alone):
    read from the options, so that a caller asking the key of many rolls asks only where it
    can differ."""
    if (one.hitting, one.courier, one.direction, one.start) != (
        another.hitting,
        another.courier,
        another.direction,
        another.start,
    ):
        return False
    if one.doubles != another.doubles or one.bear_off != another.bear_off:
        return None
    return True


def judged_alike(
    position: Position, rolls: Sequence[tuple[int, int]], rules: Rules
) -> tuple[object, ...]:
    """:meth:`Agreement.whole_key` of ``rules`` for each of ``rolls`` here, with either side to
    move: equal for two rulesets, whatever the engine is asked of these rolls in this position
    (a refused play's diagnosis: the roll, its neighbours' rolls, the other side's play) it
    answers alike for both."""
    flipped = position.with_turn(other(position.turn))
    return tuple(
        Agreement(where, roll).whole_key(rules) for where in (position, flipped) for roll in rolls
    )
