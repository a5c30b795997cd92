"""The words both the notation and the engine use for the board: sides, off and bar, and their
names as a person reads them.

It sits beneath ``record.py`` and ``position.py`` alike (the notation may not import the engine,
the engine may not import the notation), so each of these is defined here once and nowhere else.
"""

from __future__ import annotations

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
