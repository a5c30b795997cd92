"""The board as docs/rules.md draws it from White's side, as text and as a layout for the SVG.

From White's side: the far row runs W13 … W18 | W19 … W24 from left to right, the near row
W12 … W7 | W6 … W1. Black's point p stands where White's p ± 12 does, or, when the sides move in
opposite directions (backgammon), where White's 25 - p does: Black's home is then the far right
table, facing White's.
"""

from __future__ import annotations

from dataclasses import dataclass

from .board_terms import Side, side_name
from .position import Direction, Position, other_point

#: White's point numbers of the far row (left to right), then of the near row
FAR_ROW: tuple[int, ...] = tuple(range(13, 25))
NEAR_ROW: tuple[int, ...] = tuple(range(12, 0, -1))


def to_white(side: Side, point: int, direction: Direction = "same") -> int:
    """White's number for ``side``'s point ``point`` (1..24)."""
    if side == "white":
        return point
    return other_point(point, direction)


@dataclass(frozen=True, slots=True)
class Stack:
    """The men on one point, in White's numbering, with the owner's own number for the point."""

    white_point: int
    side: Side
    own_point: int
    count: int
    courier: bool


def stacks(position: Position) -> dict[int, Stack]:
    """Every occupied point keyed by White's number (both sides may share one in hitting games,
    never on the board at rest in Jacquet; the later side wins the key there)."""
    result: dict[int, Stack] = {}
    for side in ("white", "black"):
        courier_point = courier_of(position, side)
        for point, count in position.men(side).items():
            where = to_white(side, point, position.direction)
            result[where] = Stack(where, side, point, count, point == courier_point)
    return result


def courier_of(position: Position, side: Side) -> int | None:
    """The point of ``side``'s courier while it is out (the one man off the 24-point), else None."""
    if not position.in_courier_phase(side):
        return None
    others = [point for point in position.men(side) if point != 24]
    return others[0] if len(others) == 1 and position.men(side)[others[0]] == 1 else None


def _cell(stack: Stack | None) -> str:
    if stack is None:
        return "  ."
    mark = "W" if stack.side == "white" else "B"
    text = f"{mark}{stack.count}"
    if stack.courier:
        text = f"{mark}c"
    return text.rjust(3)


def render_text(position: Position) -> str:
    """The position as a few lines of text, from White's side (used by ``jacquet replay``)."""
    occupied = stacks(position)
    numbers_far = (
        " ".join(f"{p:>3}" for p in FAR_ROW[:6]) + " |" + " ".join(f"{p:>3}" for p in FAR_ROW[6:])
    )
    cells_far = (
        " ".join(_cell(occupied.get(p)) for p in FAR_ROW[:6])
        + " |"
        + " ".join(_cell(occupied.get(p)) for p in FAR_ROW[6:])
    )
    cells_near = (
        " ".join(_cell(occupied.get(p)) for p in NEAR_ROW[:6])
        + " |"
        + " ".join(_cell(occupied.get(p)) for p in NEAR_ROW[6:])
    )
    numbers_near = (
        " ".join(f"{p:>3}" for p in NEAR_ROW[:6]) + " |" + " ".join(f"{p:>3}" for p in NEAR_ROW[6:])
    )
    rule = "-" * len(numbers_far)
    lines = [
        numbers_far,
        cells_far,
        rule,
        cells_near,
        numbers_near,
        (
            f"White: {position.pips('white')} pips, {position.off('white')} off"
            + (f", {position.bar('white')} on the bar" if position.bar("white") else "")
            + f"   Black: {position.pips('black')} pips, {position.off('black')} off"
            + (f", {position.bar('black')} on the bar" if position.bar("black") else "")
        ),
        f"{side_name(position.turn)} to move   (points in White's numbering; Wc/Bc = courier)",
    ]
    return "\n".join(lines)
