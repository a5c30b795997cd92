"""The words both the notation and the engine use for the board: sides, off and bar, and their
names as a person reads them.

It sits beneath ``record.py`` and ``position.py`` alike (the notation may not import the engine,
the engine may not import the notation), so each of these is defined here once and nowhere else.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Literal

Side = Literal["white", "black"]

#: the point numbers of the two places off the 24 points, as the notation writes them and as the
#: position numbers its locations
OFF = 0
BAR = 25

_SIDE_NAMES: dict[str, str] = {"white": "White", "black": "Black"}


def side_name(side: Side) -> str:
    """``White`` or ``Black``: a side as every message, board and page shows it."""
    return _SIDE_NAMES[side]


def point_name(point: int) -> str:
    """The canonical spelling of a point: ``off`` for 0, ``bar`` for 25, else the number."""
    if point == OFF:
        return "off"
    if point == BAR:
        return "bar"
    return str(point)


def move_text(start: int, end: int, hit: bool = False, count: int = 1) -> str:
    """The canonical spelling of one move, the one every writer, message and page uses:
    ``13/7``, ``bar/22``, ``6/off``, ``13/7*`` (a hit), ``13/7(2)`` (two men)."""
    text = f"{point_name(start)}/{point_name(end)}{'*' if hit else ''}"
    return text if count == 1 else f"{text}({count})"


def pairs_text(pairs: Iterable[Sequence[int]]) -> str:
    """Moves given as ``(start, end)`` pairs, spelt one after another: ``24/18 18/13``."""
    return " ".join(move_text(start, end) for start, end in pairs)


def shifted_point(point: int) -> int:
    """A point in the other side's numbering when both move the same way round (Jacquet: the
    sides' numberings are 12 points apart); off and the bar stay as they are."""
    if point in (OFF, BAR):
        return point
    return point + 12 if point <= 12 else point - 12
