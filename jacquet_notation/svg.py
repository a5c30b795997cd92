"""Board diagrams as SVG, built with lxml so that every text is escaped by construction.

The drawing follows docs/rules.md from White's side: far row W13 … W24 left to right, near row
W12 … W1. Men are stacked five high with a count beyond that; borne-off men are counted in a tray
on the right; a courier that is out is ringed.
"""

from __future__ import annotations

from collections.abc import Mapping

from lxml import etree

from .board import FAR_ROW, NEAR_ROW, Stack, stacks
from .board_terms import Side, side_name
from .position import Position

SVG_NS = "http://www.w3.org/2000/svg"

_POINT_W = 30
_MARGIN = 18
_BAR_W = 20
_TRAY_W = 44
_HALF_W = 6 * _POINT_W
_BOARD_W = 2 * _HALF_W + _BAR_W
_WIDTH = _MARGIN * 2 + _BOARD_W + _TRAY_W
_BOARD_H = 300
_HEIGHT = _BOARD_H + 2 * _MARGIN
_MAN_R = 13
_SHOWN = 5

_COLOURS = {
    "board": "#f3e3c3",
    "frame": "#6b4226",
    "dark_point": "#a0522d",
    "light_point": "#deb887",
    "white_man": "#fdfdf8",
    "black_man": "#2a2a2a",
    "courier": "#c0392b",
    "moved": "#1565c0",
}


def _el(parent: etree._Element, tag: str, **attributes: object) -> etree._Element:
    element = etree.SubElement(parent, f"{{{SVG_NS}}}{tag}")
    for name, value in attributes.items():
        element.set(name.rstrip("_").replace("_", "-"), str(value))
    return element


def _x_of(white_point: int) -> float:
    """The x of the centre of a point's column."""
    row = FAR_ROW if white_point >= 13 else NEAR_ROW
    column = row.index(white_point)
    left = _MARGIN + column * _POINT_W + (_BAR_W if column >= 6 else 0)
    return left + _POINT_W / 2


def board_svg(
    position: Position,
    *,
    width: int | None = None,
    title: str | None = None,
    marks: Mapping[int, str] | None = None,
) -> str:
    """The position as a standalone SVG document (a string).

    ``width`` scales the drawing (the aspect ratio is kept); ``title`` becomes the accessible
    ``<title>`` (by default the position key and whose turn it is). ``marks`` outlines points
    (White's numbering, 1-24) by what happened there, ``from`` (dashed) or ``to`` (solid): the
    last play's men, so that a reader stepping through a game sees what moved.
    """
    root = etree.Element(f"{{{SVG_NS}}}svg", nsmap={None: SVG_NS})  # type: ignore[dict-item]
    root.set("viewBox", f"0 0 {_WIDTH} {_HEIGHT}")
    root.set("class", "jacquet-board")
    root.set("role", "img")
    if width is not None:
        root.set("width", str(width))
        root.set("height", str(round(width * _HEIGHT / _WIDTH)))
    key = position.key()
    root.set("data-key", key)
    turn = side_name(position.turn)
    _el(root, "title").text = (
        title if title is not None else f"Jacquet position {key}, {turn} to move"
    )

    _el(root, "rect", x=0, y=0, width=_WIDTH, height=_HEIGHT, fill=_COLOURS["frame"], rx=6)
    _el(root, "rect", x=_MARGIN, y=_MARGIN, width=_BOARD_W, height=_BOARD_H, fill=_COLOURS["board"])
    _el(
        root,
        "rect",
        x=_MARGIN + _HALF_W,
        y=_MARGIN,
        width=_BAR_W,
        height=_BOARD_H,
        fill=_COLOURS["frame"],
    )
    top, bottom = _MARGIN, _MARGIN + _BOARD_H
    depth = _BOARD_H * 0.42
    for row, downward in ((FAR_ROW, True), (NEAR_ROW, False)):
        for column, point in enumerate(row):
            x = _x_of(point)
            base = top if downward else bottom
            tip = base + depth if downward else base - depth
            half = _POINT_W / 2
            fill = _COLOURS["dark_point"] if column % 2 == 0 else _COLOURS["light_point"]
            _el(
                root,
                "polygon",
                points=f"{x - half:.1f},{base} {x + half:.1f},{base} {x:.1f},{tip:.1f}",
                fill=fill,
            )
            label_y = top - 5 if downward else bottom + 14
            label = _el(
                root,
                "text",
                x=f"{x:.1f}",
                y=label_y,
                font_size=10,
                text_anchor="middle",
                fill="#fff",
                font_family="sans-serif",
            )
            label.text = str(point)

    for stack in stacks(position).values():
        _draw_stack(root, stack, top, bottom)
    for point, mark in sorted((marks or {}).items()):
        if 1 <= point <= 24 and mark in ("from", "to"):  # over the men, so that it shows
            _draw_mark(root, point, mark, top + depth if point >= 13 else bottom - depth)
    _draw_tray(root, position)
    marker = _el(
        root,
        "text",
        x=_MARGIN + _HALF_W + _BAR_W / 2,
        y=bottom - 6 if position.turn == "white" else top + 14,
        font_size=11,
        text_anchor="middle",
        fill="#fff",
        font_family="sans-serif",
    )
    marker.text = "▲" if position.turn == "white" else "▼"
    marker.set("class", "turn")
    return etree.tostring(root, encoding="unicode")


def _draw_mark(root: etree._Element, point: int, mark: str, tip: float) -> None:
    """A point's outline: dashed where the last play's men left, solid where they arrived."""
    x, half = _x_of(point), _POINT_W / 2 - 1
    base = _MARGIN if point >= 13 else _MARGIN + _BOARD_H
    outline = _el(
        root,
        "polygon",
        points=f"{x - half:.1f},{base} {x + half:.1f},{base} {x:.1f},{tip:.1f}",
        fill="none",
        stroke=_COLOURS["moved"],
        stroke_width=2.5,
        stroke_dasharray="5 3" if mark == "from" else "none",
    )
    outline.set("class", f"moved {mark}")
    outline.set("data-point", str(point))


def _draw_stack(root: etree._Element, stack: Stack, top: float, bottom: float) -> None:
    x = _x_of(stack.white_point)
    downward = stack.white_point >= 13
    fill = _COLOURS["white_man"] if stack.side == "white" else _COLOURS["black_man"]
    stroke = "#333" if stack.side == "white" else "#ddd"
    group = _el(root, "g")
    group.set("class", f"stack {stack.side}")
    group.set("data-point", str(stack.own_point))
    group.set("data-count", str(stack.count))
    for i in range(min(stack.count, _SHOWN)):
        offset = _MAN_R + 1 + i * (2 * _MAN_R + 1)
        y = top + offset if downward else bottom - offset
        _el(group, "circle", cx=f"{x:.1f}", cy=f"{y:.1f}", r=_MAN_R, fill=fill, stroke=stroke)
    if stack.courier:
        offset = _MAN_R + 1
        y = top + offset if downward else bottom - offset
        ring = _el(
            group,
            "circle",
            cx=f"{x:.1f}",
            cy=f"{y:.1f}",
            r=_MAN_R + 2,
            fill="none",
            stroke=_COLOURS["courier"],
            stroke_width=3,
        )
        ring.set("class", "courier")
    if stack.count > _SHOWN:
        offset = _MAN_R + 1 + (_SHOWN - 1) * (2 * _MAN_R + 1)
        y = top + offset if downward else bottom - offset
        count = _el(
            group,
            "text",
            x=f"{x:.1f}",
            y=f"{y + 4:.1f}",
            font_size=12,
            text_anchor="middle",
            font_family="sans-serif",
            fill=stroke,
        )
        count.text = str(stack.count)


def _draw_tray(root: etree._Element, position: Position) -> None:
    left = _MARGIN + _BOARD_W + 6
    sides: tuple[tuple[Side, int], ...] = (
        ("black", _MARGIN + 20),
        ("white", _MARGIN + _BOARD_H - 30),
    )
    for side, y in sides:
        for what, number, dy in (("off", position.off(side), 0), ("bar", position.bar(side), 16)):
            if what == "bar" and not number:
                continue
            text = _el(
                root,
                "text",
                x=left,
                y=y + dy,
                font_size=11,
                fill="#fff",
                font_family="sans-serif",
            )
            text.set("class", f"{what} {side}")
            text.text = f"{'W' if side == 'white' else 'B'} {what} {number}"
