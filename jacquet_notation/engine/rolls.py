"""Which rolls a play fits: the dice of a play written without them (docs/notation.md, "Plays
without dice"), inferred from the steps and the position alone.

An engine question, asked with the engine's own validation: a roll fits when ``validate_play``
accepts the moves with it, so that every rule (the courier, blocks, the higher die, the opponent's
share under every die used, hits) decides the inference exactly as it decides a play with dice.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import IllegalPlayError
from ..position import Position
from ..rules import Rules
from .plays import Play
from .validate import validate_play

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

    Empty when no roll fits; then :func:`why_no_roll` says why, in a player's words.
    """
    fits: list[tuple[tuple[int, int], Play]] = []
    for roll in ROLLS:
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
