"""Which rolls a play fits: the dice of a play written without them (docs/notation.md, "Plays
without dice"), inferred from the steps and the position alone.

An engine question, asked with the engine's own validation: a roll fits when ``validate_play``
accepts the moves with it, so that every rule (the courier, blocks, the higher die, the opponent's
share under every die used, hits) decides the inference exactly as it decides a play with dice.
Only the rolls whose dice could make the written distances are asked (:func:`candidate_rolls`):
a validation costs milliseconds in an open backgammon position, and the steps leave few rolls.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import lru_cache

from ..board_terms import OFF
from ..budget import check_time, deadline
from ..errors import IllegalPlayError
from ..position import Position
from ..rules import Rules
from .facts import facts_of
from .legal import validate_play
from .plays import Play

#: the 21 rolls, high die first, in the order the notation lists them (6-6, 6-5, ..., 1-1)
ROLLS: tuple[tuple[int, int], ...] = tuple(
    (high, low) for high in range(6, 0, -1) for low in range(high, 0, -1)
)


def rolls_for_play(
    position: Position,
    moves: Sequence[tuple[int, int]],
    rules: Rules,
    opponent_moves: Sequence[tuple[int, int]] = (),
) -> list[tuple[tuple[int, int], Play]]:
    """Every roll with which ``moves`` (and the share) are legal here, with the play each gives.

    Empty when no roll fits; then :func:`why_no_roll` says why, in a player's words. Asks only
    the :func:`candidate_rolls` (the same answer as asking all 21:
    ``tests/engine/test_rolls_candidates.py``), and gives up between rolls once a :mod:`..budget`
    deadline has passed.
    """
    fits: list[tuple[tuple[int, int], Play]] = []
    limit = deadline()
    for roll in candidate_rolls(moves, opponent_moves, rules):
        if limit is not None:
            check_time(limit)
        try:
            play = validate_play(position, roll, moves, rules, opponent_moves)
        except IllegalPlayError:
            continue
        fits.append((roll, play))
    return fits


def why_no_roll(
    position: Position,
    moves: Sequence[tuple[int, int]],
    rules: Rules,
    opponent_moves: Sequence[tuple[int, int]] = (),
) -> IllegalPlayError:
    """Why no roll fits: the refusal of the likeliest roll, the one the steps' lengths spell
    (two steps of 6 and 5: 6-5), else the refusal under 6-6 (the roll that allows the most).
    """
    lengths = sorted(
        (abs(start - end) for start, end in moves if 0 < abs(start - end) <= 6), reverse=True
    )
    roll = (lengths[0], lengths[1]) if len(lengths) == 2 else (6, 6)
    try:
        validate_play(position, roll, moves, rules, opponent_moves)
    except IllegalPlayError as refusal:
        return IllegalPlayError(
            f"no roll allows this play (with {roll[0]}-{roll[1]}: {refusal.message})",
            move=refusal.move,
        )
    return IllegalPlayError("no roll allows this play", move=0)  # pragma: no cover


def candidate_rolls(
    moves: Sequence[tuple[int, int]],
    opponent_moves: Sequence[tuple[int, int]],
    rules: Rules,
) -> tuple[tuple[int, int], ...]:
    """The rolls (in :data:`ROLLS`' order) whose dice could make the written moves' distances.

    A step of a die d moves a man d points (``point - die``), or bears it off with a die at
    least the point's number; a written move is one or more steps, each die used once, the
    opponent's share (Versailles) taking its dice from the same roll. So a roll can fit only if
    the moves' distances can be made of disjoint parts of its dice: exactly, or at least for a
    move borne off. Every other rule is the engine's, asked for these rolls only. A necessary
    condition, never a sufficient one: no roll the engine would accept is left out.
    """
    written = (*moves, *opponent_moves)
    distances = tuple(sorted(((start - end, end == OFF) for start, end in written), reverse=True))
    return _candidates(distances, facts_of(rules).double_steps)


@lru_cache(maxsize=4096)
def _candidates(
    distances: tuple[tuple[int, bool], ...], double_steps: int
) -> tuple[tuple[int, int], ...]:
    """:func:`candidate_rolls` for distances (largest first) and the steps a double gives."""
    found = []
    for high, low in ROLLS:
        dice = (high, double_steps or high, 0, 0) if high == low else (high, 1, low, 1)
        if _made_of(distances, *dice):
            found.append((high, low))
    return tuple(found)


def _made_of(
    distances: tuple[tuple[int, bool], ...], high: int, highs: int, low: int, lows: int
) -> bool:
    """Whether each distance is made of its own dice among ``highs`` dice of ``high`` and
    ``lows`` of ``low`` (a distance borne off: at least its length). A roll has two values at
    most, so a move's part of it is how many of each it takes."""
    if not distances:
        return True
    (distance, off), rest = distances[0], distances[1:]
    for taken_high in range(highs + 1):
        for taken_low in range(lows + 1):
            if not taken_high and not taken_low:
                continue
            made = taken_high * high + taken_low * low
            if (made == distance or (off and made > distance)) and _made_of(
                rest, high, highs - taken_high, low, lows - taken_low
            ):
                return True
    return False
