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
        ok = first in _DIE_VALUES and second in _DIE_VALUES
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise IllegalPlayError(f"dice must be two numbers from 1 to 6, not {tuple(dice)!r}")
    high, low = (first, second) if first >= second else (second, first)
    if high == low:
        return [high] * (facts_of(rules).double_steps or high)  # (0: squared, n steps of n)
    return [high, low]


DEFAULT_RULES = Rules()


# the one place that builds positions and plays fast: object.__new__ and the slots' own setters,
# which a frozen dataclass's __setattr__ does not guard
_new = object.__new__
_set_white = Position.__dict__["packed_white"].__set__
_set_black = Position.__dict__["packed_black"].__set__
_set_turn = Position.__dict__["turn"].__set__
_set_direction = Position.__dict__["direction"].__set__
_set_steps = Play.__dict__["steps"].__set__
_set_position = Play.__dict__["position"].__set__
_set_opponent_steps = Play.__dict__["opponent_steps"].__set__


def make_position(white: int, black: int, turn: Side, direction: Direction = "same") -> Position:
    """``Position(white, black, turn, direction)`` without the frozen dataclass's slower
    ``__init__``."""
    position: Position = _new(Position)
    _set_white(position, white)
    _set_black(position, black)
    _set_turn(position, turn)
    _set_direction(position, direction)
    return position


def make_play(
    steps: tuple[Step, ...], position: Position, opponent_steps: tuple[Step, ...] = ()
) -> Play:
    """``Play(steps, position, opponent_steps)``, as fast as :func:`make_position`."""
    play: Play = _new(Play)
    _set_steps(play, steps)
    _set_position(play, position)
    _set_opponent_steps(play, opponent_steps)
    return play


def play_after(
    steps: tuple[Step, ...], mover: int, opp: int, white_moves: bool, direction: Direction
) -> Play:
    """The play of ``steps`` leading to the packed sides ``mover`` and ``opp``, the turn passed:
    :func:`make_play` of :func:`make_position` in one call, for validation's quick path."""
    position: Position = _new(Position)
    if white_moves:
        _set_white(position, mover)
        _set_black(position, opp)
        _set_turn(position, "black")
    else:
        _set_white(position, opp)
        _set_black(position, mover)
        _set_turn(position, "white")
    _set_direction(position, direction)
    play: Play = _new(Play)
    _set_steps(play, steps)
    _set_position(play, position)
    _set_opponent_steps(play, ())
    return play


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
    new, set_white, set_black, set_turn = _new, _set_white, _set_black, _set_turn
    set_steps, set_position, set_share = _set_steps, _set_position, _set_opponent_steps
    set_direction = _set_direction
    plays = []
    for state, path in paths_by_state.items():
        if hitting:
            mover, opp = state & MOVER, state >> OPP_SHIFT
        else:
            mover = state
        position = new(Position)
        if white_moves:
            set_white(position, mover)
            set_black(position, opp)
        else:
            set_white(position, opp)
            set_black(position, mover)
        set_turn(position, turn)
        set_direction(position, direction)
        play = new(Play)
        set_steps(play, path)
        set_position(play, position)
        set_share(play, ())
        plays.append(play)
    return plays


def notation_of(path: Sequence[Step]) -> str:
    return " ".join(step.notation() for step in path) or "pass"
