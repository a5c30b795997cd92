"""What the engine hands out: ``Step`` and ``Play``, the dice of a roll, and fast constructors.

``make_position`` and ``make_play`` skip the frozen dataclasses' slower ``__init__``: building
the plays is a quarter of a search's time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ..bits import MOVER, OPP_SHIFT
from ..board_terms import move_text
from ..errors import IllegalPlayError
from ..position import Direction, Position, Side
from ..rules import Rules
from .facts import facts_of


@dataclass(frozen=True, slots=True)
class Step:
    """One die played by one man, in the mover's numbering (25 = bar, 0 = off)."""

    start: int
    end: int
    die: int
    hit: bool = False

    def notation(self) -> str:
        """``24/18``, ``bar/22``, ``5/off``, ``13/7*`` (``*`` marks a hit)."""
        return move_text(self.start, self.end, self.hit)


@dataclass(frozen=True, slots=True)
class Play:
    """A legal play: its steps in the order played, and the position it leads to (turn passed).

    Under ``every_die_used`` (Versailles) a play is the whole turn: ``opponent_steps`` are the
    opponent's share of the dice the mover could not use, in the opponent's own numbering, and
    ``position`` is the position after both parts, the opponent to move.
    """

    steps: tuple[Step, ...]
    position: Position
    opponent_steps: tuple[Step, ...] = ()

    def notation(self) -> str:
        """The steps one die at a time, ``24/19 19/14``; empty for a pass.

        With a share: ``13/7 + 24/23``, or ``+ 24/18 18/17`` when the mover used no die.
        """
        own = " ".join(step.notation() for step in self.steps)
        if not self.opponent_steps:
            return own
        share = " ".join(step.notation() for step in self.opponent_steps)
        return f"{own} + {share}" if own else f"+ {share}"


_DIE_VALUES = frozenset(range(1, 7))


def dice_steps(dice: Sequence[int], rules: Rules) -> list[int]:
    """The steps a roll gives: two dice, or a double's four (or n, squared) steps."""
    try:
        first, second = dice
        # exactly int: 3.0, True and Decimal(3) equal a die's value but are not a die's number
        ok = (
            type(first) is int
            and type(second) is int
            and first in _DIE_VALUES
            and second in _DIE_VALUES
        )
    except (TypeError, ValueError):
        ok = False
    if not ok:
        try:
            shown: object = tuple(dice)
        except TypeError:
            shown = dice  # not even a sequence (None): said as it is, never a TypeError
        raise IllegalPlayError(f"dice must be two numbers from 1 to 6, not {shown!r}")
    high, low = (first, second) if first >= second else (second, first)
    if high == low:
        return [high] * (facts_of(rules).double_steps or high)  # (0: squared, n steps of n)
    return [high, low]


DEFAULT_RULES = Rules()


# the one place that builds positions and plays fast. A frozen dataclass guards its fields in
# __setattr__, so each is built as an instance of a plain twin with the same slots (whose fields
# are set by the interpreter's fast slot stores), then given its real class: the same object a
# constructor makes, in about half the time of object.__new__ and the slots' setters.


class _PositionTwin:
    __slots__ = Position.__slots__


class _PlayTwin:
    __slots__ = Play.__slots__


def make_position(white: int, black: int, turn: Side, direction: Direction = "same") -> Position:
    """``Position(white, black, turn, direction)`` without the frozen dataclass's slower
    ``__init__``."""
    twin = _PositionTwin()
    twin.packed_white = white  # type: ignore[attr-defined]
    twin.packed_black = black  # type: ignore[attr-defined]
    twin.turn = turn  # type: ignore[attr-defined]
    twin.direction = direction  # type: ignore[attr-defined]
    twin.__class__ = Position  # type: ignore[assignment]
    return twin  # type: ignore[return-value]


def make_play(
    steps: tuple[Step, ...], position: Position, opponent_steps: tuple[Step, ...] = ()
) -> Play:
    """``Play(steps, position, opponent_steps)``, as fast as :func:`make_position`."""
    twin = _PlayTwin()
    twin.steps = steps  # type: ignore[attr-defined]
    twin.position = position  # type: ignore[attr-defined]
    twin.opponent_steps = opponent_steps  # type: ignore[attr-defined]
    twin.__class__ = Play  # type: ignore[assignment]
    return twin  # type: ignore[return-value]


def play_after(
    steps: tuple[Step, ...], mover: int, opp: int, white_moves: bool, direction: Direction
) -> Play:
    """The play of ``steps`` leading to the packed sides ``mover`` and ``opp``, the turn passed:
    :func:`make_play` of :func:`make_position` in one call, for validation's quick path."""
    position = _PositionTwin()
    if white_moves:
        position.packed_white = mover  # type: ignore[attr-defined]
        position.packed_black = opp  # type: ignore[attr-defined]
        position.turn = "black"  # type: ignore[attr-defined]
    else:
        position.packed_white = opp  # type: ignore[attr-defined]
        position.packed_black = mover  # type: ignore[attr-defined]
        position.turn = "white"  # type: ignore[attr-defined]
    position.direction = direction  # type: ignore[attr-defined]
    position.__class__ = Position  # type: ignore[assignment]
    play = _PlayTwin()
    play.steps = steps  # type: ignore[attr-defined]
    play.position = position  # type: ignore[attr-defined]
    play.opponent_steps = ()  # type: ignore[attr-defined]
    play.__class__ = Play  # type: ignore[assignment]
    return play  # type: ignore[return-value]


def plays_of_states(
    paths_by_state: dict[int, tuple[Step, ...]],
    mover_side: Side,
    hitting: bool,
    opp: int,
    direction: Direction,
) -> list[Play]:
    """The plays of a search's final states (each with the steps reaching it), the turn passed.

    A state is the mover's packed side, or with hitting ``mover | opponent << OPP_SHIFT``
    (:mod:`..bits`); without hitting the opponent's side is ``opp`` throughout. Inline
    :func:`play_after`: building the plays is a quarter of a search's time.
    """
    white_moves = mover_side == "white"
    turn: Side = "black" if white_moves else "white"
    position_twin, play_twin = _PositionTwin, _PlayTwin
    plays: list[Play] = []
    for state, path in paths_by_state.items():
        if hitting:
            mover, opp = state & MOVER, state >> OPP_SHIFT
        else:
            mover = state
        position = position_twin()
        if white_moves:
            position.packed_white = mover  # type: ignore[attr-defined]
            position.packed_black = opp  # type: ignore[attr-defined]
        else:
            position.packed_white = opp  # type: ignore[attr-defined]
            position.packed_black = mover  # type: ignore[attr-defined]
        position.turn = turn  # type: ignore[attr-defined]
        position.direction = direction  # type: ignore[attr-defined]
        position.__class__ = Position  # type: ignore[assignment]
        play = play_twin()
        play.steps = path  # type: ignore[attr-defined]
        play.position = position  # type: ignore[attr-defined]
        play.opponent_steps = ()  # type: ignore[attr-defined]
        play.__class__ = Play  # type: ignore[assignment]
        plays.append(play)  # type: ignore[arg-type]
    return plays


def notation_of(path: Sequence[Step]) -> str:
    return " ".join(step.notation() for step in path) or "pass"
