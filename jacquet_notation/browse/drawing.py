"""What the plugin draws: a position key as an SVG board, a roll as die faces.

Shared by the table cells (:mod:`.hooks`) and the pages (:mod:`.pages`). The diagrams are built
by lxml from a decoded position, never from record text.
"""

from __future__ import annotations

from functools import lru_cache

from ..board import courier_of
from ..numerals import ascii_int
from ..position import SIDES, Position, Side
from ..svg import board_svg

#: cell diagrams: small enough for a table row
CELL_WIDTH = 132

BOARD_WIDTH = 520
_DIE_FACES = "⚀⚁⚂⚃⚄⚅"


@lru_cache(maxsize=16384)
def diagram(
    key: str,
    width: int = CELL_WIDTH,
    before: str | None = None,
    cube: int | None = None,
    owner: Side | None = None,
) -> str | None:
    """The SVG diagram of a position key, or None if ``key`` is not one. With ``before``, the
    key of the position the last play was made from, the points it moved men from and to are
    outlined (:func:`moved_points`). ``cube`` (a power of two) draws the doubling cube, centred
    or on its ``owner``'s side; a cube value that is none draws no cube.

    Cached: a key always draws the same board, and table pages repeat the same positions.
    """
    if not key or len(key) > 32:
        return None
    try:
        position = Position.from_key(key)
    except (ValueError, IndexError):
        return None
    marks = moved_points(before, position) if before else None
    if cube is not None and (cube < 1 or cube & (cube - 1) or cube > 1 << 30):
        cube = owner = None
    if cube is None:
        owner = None
    return board_svg(position, width=width, title=key, marks=marks, cube=cube, cube_owner=owner)


def moved_points(before_key: str, after: Position) -> dict[int, str]:
    """The points (White's numbering) the mover of ``before_key`` left (``from``) and reached
    (``to``) on the way to ``after``, each point mapped through the position's direction (in
    backgammon Black's p is White's 25 - p, in Jacquet p ± 12). Read from the two positions
    rather than the play's text, so that any spelling of a play (``24/13`` or ``24/18 18/13``)
    marks the same men; a point a man passed over is not marked. Nothing when ``before_key`` is
    no position or no play."""
    if len(before_key) > 32:
        return {}
    try:
        before = Position.from_key(before_key)
    except (ValueError, IndexError):
        return {}
    mover = before.turn
    was, now = before.men(mover), after.men(mover)
    marks: dict[int, str] = {}
    for point in set(was) | set(now):
        change = now.get(point, 0) - was.get(point, 0)
        if change:
            where = Position.to_absolute(mover, point, after.direction)
            marks[where] = "to" if change > 0 else "from"
    return marks


def rings_a_courier(position: Position) -> bool:
    """True when the diagram of ``position`` rings a courier (a side's one man out of the
    24-point): the position page's legend explains the ring only where it is drawn."""
    return any(courier_of(position, side) is not None for side in SIDES)


@lru_cache(maxsize=65536)
def is_key(key: str) -> bool:
    """True when ``key`` decodes to a position (checked, not drawn)."""
    if not key or len(key) > 32:
        return False
    try:
        Position.from_key(key)
    except (ValueError, IndexError):
        return False
    return True


def dice_text(dice: str | None) -> str:
    """``6-5`` with die faces, as the pages show a roll."""
    if not dice:
        return ""
    faces = []
    for part in dice.split("-"):
        die = ascii_int(part)
        faces.append(_DIE_FACES[die - 1] if die is not None and 1 <= die <= 6 else "")
    return f"{''.join(faces)} {dice}".strip()
