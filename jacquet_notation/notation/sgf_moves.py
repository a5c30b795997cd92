"""gnubg's move values (``63mgjg``, ``double``) as the record's dice and moves, each read once.

gnubg writes a play one pair of letters a die (:func:`.sgf_analysis.letter_point`); the record
groups a move repeated (``13/11(2)``), as a match file writes it. A match repeats its plays, so
each value is read once a side and kept (bounded), the moves shared (they are immutable).
"""

from __future__ import annotations

import functools
from typing import Any

from ..record import Action, Move, Side
from .sgf_analysis import letter_point

#: the cube's words of a move node
CUBE_ACTIONS: dict[str, Action] = {"double": "double", "take": "take", "drop": "drop"}
#: the 36 rolls as gnubg writes them (``63``, ``36``), high die first
ROLLS = {f"{a}{b}": (max(a, b), min(a, b)) for a in range(1, 7) for b in range(1, 7)}


def dice_of(text: str) -> tuple[int, int] | None:
    """Two dice as gnubg writes them (``63``), high first; None for anything else."""
    return ROLLS.get(text)


#: the plain move nodes read so far, by their side and value (``W[31hefe``: a match repeats
#: its plays): at most ``PLAIN_KEPT`` of them, forgotten together past that
PLAIN_READ: dict[str, Any] = {}
PLAIN_KEPT = 20_000
UNREAD = object()

#: a plain move's reading: its side, dice, cube action, moves and the play's text
PlainPlay = tuple[Side, tuple[int, int] | None, Action | None, tuple[Move, ...], str]


def plain_play(key: str) -> PlainPlay | None:
    """A move node's side and value (``W[31hefe``) read once for every play written so; None
    where the value is neither a cube action nor a roll and its moves."""
    side: Side = "black" if key[0] == "B" else "white"
    value = key[2:]
    action = CUBE_ACTIONS.get(value)
    if action is not None:
        return side, None, action, (), value
    dice = ROLLS.get(value[:2])
    moves = play_moves(value[2:], side) if dice is not None else None
    if dice is None or moves is None:
        return None
    return side, dice, None, moves, value if moves else value + ":"


def _pair_moves(side: Side) -> dict[str, Move]:
    """Every pair of gnubg's letters (``a``..``z``) as the move it writes for ``side``."""
    letters = [chr(code) for code in range(97, 123)]
    pairs = {}
    for first in letters:
        for second in letters:
            start, end = letter_point(first, side), letter_point(second, side)
            assert start is not None and end is not None
            pairs[first + second] = Move(start, end)
    return pairs


#: the moves of gnubg's pairs of letters, by side: a play is read a pair at a time by look-up
PAIR_MOVES: dict[Side, dict[str, Move]] = {
    "white": _pair_moves("white"),
    "black": _pair_moves("black"),
}


@functools.lru_cache(maxsize=4096)
def play_moves(letters: str, side: Side) -> tuple[Move, ...] | None:
    """A play's letters as its moves, grouped as :func:`grouped` groups them; None past four
    pairs or for a letter out of range. Kept by the letters: a match repeats the same plays
    (Moves are immutable, so one tuple serves every play written so)."""
    if len(letters) % 2 or len(letters) > 8:
        return None
    pairs = PAIR_MOVES[side]
    kept: list[Move] = []
    last = ""
    for at in range(0, len(letters), 2):
        pair = letters[at : at + 2]
        move = pairs.get(pair)
        if move is None:
            return None
        if pair == last:  # the same move again (one letter, one point): counted
            kept[-1] = kept[-1]._replace(count=kept[-1].count + 1)
        else:
            kept.append(move)
        last = pair
    return tuple(kept)


def grouped(moves: tuple[Move, ...]) -> tuple[Move, ...]:
    """gnubg's one move a die, the same move repeated written once with its count (``13/11(2)``,
    as a match file writes it)."""
    kept: list[Move] = []
    for move in moves:
        if kept and kept[-1][:2] == move[:2]:
            kept[-1] = kept[-1]._replace(count=kept[-1].count + 1)
        else:
            kept.append(move)
    return tuple(kept)


def play_text(moves: tuple[Move, ...]) -> str:
    """A play of an analysis's options in the project's notation (``13/11(2) 6/5``)."""
    return " ".join(move.notation() for move in grouped(moves))
