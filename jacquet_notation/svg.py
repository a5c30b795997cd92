"""Board diagrams as SVG, built with lxml so that every text is escaped by construction.

The drawing follows docs/rules.md from White's side: far row W13 … W24 left to right, near row
W12 … W1. Men are stacked five high with a count beyond that; borne-off men are drawn on edge in
the tray on the right (White's below, Black's above, each beside its home table) and counted
there; men on the bar stand on the bar in the half where they enter (White's in the far half,
Black's in the near half); a courier that is out is ringed. A backgammon position (sides moving in
opposite directions) may carry the doubling cube: in the middle of the tray while centred, else
beside its owner's borne-off men.
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
_BAR_MAN_R = _BAR_W / 2 - 1  #: a man on the bar, narrower than on a point
_OFF_H = 4  #: one borne-off man, drawn on edge
_CUBE = 26  #: the cube's side
#: what a centred cube shows (its value is 1; it shows its highest face, as boards do)
_CENTRED_FACE = 64

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
    cube: int | None = None,
    cube_owner: Side | None = None,
) -> str:
    """The position as a standalone SVG document (a string).

    ``width`` scales the drawing (the aspect ratio is kept); ``title`` becomes the accessible
    ``<title>`` (by default the position key and whose turn it is). ``marks`` outlines points
    (White's numbering, 1-24) by what happened there, ``from`` (dashed) or ``to`` (solid): the
    last play's men, so that a reader stepping through a game sees what moved. ``cube`` draws the
    doubling cube with that value, owned by ``cube_owner`` (None: centred); without ``cube`` none
    is drawn.
    """
    if cube is not None and (cube < 1 or cube & (cube - 1)):
        raise ValueError(f"the cube's value is a power of two, not {cube}")
    if cube is None and cube_owner is not None:
        raise ValueError("a cube owner needs a cube value")
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
    game = "Jacquet"
    if position.direction == "opposite":
        root.set("data-direction", "opposite")
        game = "Backgammon"
    _el(root, "title").text = (
        title if title is not None else f"{game} position {key}, {turn} to move"
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
    _draw_points(root, top, bottom, depth)

    for stack in stacks(position).values():
        _draw_stack(root, stack, top, bottom)
    for point, mark in sorted((marks or {}).items()):
        if 1 <= point <= 24 and mark in ("from", "to"):  # over the men, so that it shows
            _draw_mark(root, point, mark, top + depth if point >= 13 else bottom - depth)
    _draw_tray(root, position)
    _draw_bar_men(root, position, top, bottom)
    _draw_borne_off(root, position, top, bottom)
    if cube is not None:
        _draw_cube(root, cube, cube_owner, top, bottom)
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


def _draw_points(root: etree._Element, top: float, bottom: float, depth: float) -> None:
    """The 24 points, alternately dark and light, each with its number (White's numbering) at
    its base: the far row pointing down from ``top``, the near row up from ``bottom``."""
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
    downward = stack.white_point >= 13
    group = _el(
        root,
        "g",
        class_=f"stack {stack.side}",
        data_point=stack.own_point,
        data_count=stack.count,
    )
    _draw_pile(
        group,
        stack.side,
        stack.count,
        _x_of(stack.white_point),
        top if downward else bottom,
        downward=downward,
        first=_MAN_R + 1,
        radius=_MAN_R,
        font_size=12,
        courier=stack.courier,
    )


def _man_colours(side: Side) -> tuple[str, str]:
    """A side's men's fill and outline (the outline is also their count's colour)."""
    if side == "white":
        return _COLOURS["white_man"], "#333"
    return _COLOURS["black_man"], "#ddd"


def _draw_pile(
    group: etree._Element,
    side: Side,
    count: int,
    x: float,
    origin: float,
    *,
    downward: bool,
    first: float,
    radius: float,
    font_size: int,
    courier: bool = False,
) -> None:
    """Men stacked from ``origin`` (the first one ``first`` from it), ``_SHOWN`` at most: past
    that, the last one shown carries the count. A point's men and the bar's alike; ``courier``
    rings the first (a courier stands alone, so no count covers the ring)."""
    fill, stroke = _man_colours(side)

    def y_of(i: int) -> float:
        offset = first + i * (2 * radius + 1)
        return origin + offset if downward else origin - offset

    for i in range(min(count, _SHOWN)):
        _el(group, "circle", cx=f"{x:.1f}", cy=f"{y_of(i):.1f}", r=radius, fill=fill, stroke=stroke)
    if courier:
        ring = _el(
            group,
            "circle",
            cx=f"{x:.1f}",
            cy=f"{y_of(0):.1f}",
            r=radius + 2,
            fill="none",
            stroke=_COLOURS["courier"],
            stroke_width=3,
        )
        ring.set("class", "courier")
    if count > _SHOWN:
        label = _el(
            group,
            "text",
            x=f"{x:.1f}",
            y=f"{y_of(_SHOWN - 1) + 4:.1f}",
            font_size=font_size,
            text_anchor="middle",
            font_family="sans-serif",
            fill=stroke,
        )
        label.text = str(count)


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


def _draw_bar_men(root: etree._Element, position: Position, top: float, bottom: float) -> None:
    """Men on the bar, stacked from the middle towards the half where they enter."""
    x = _MARGIN + _HALF_W + _BAR_W / 2
    middle = (top + bottom) / 2
    for side in ("white", "black"):
        count = position.bar(side)
        if not count:
            continue
        group = _el(root, "g", class_=f"bar {side}", data_count=count)
        _draw_pile(
            group,
            side,
            count,
            x,
            middle,
            downward=side == "black",  # White enters in the far half (its 19-24)
            first=2 * _BAR_MAN_R + 4,
            radius=_BAR_MAN_R,
            font_size=10,
        )


def _draw_borne_off(root: etree._Element, position: Position, top: float, bottom: float) -> None:
    """Borne-off men on edge in the tray: White's rising from above its count, Black's hanging
    below its count, so that each side's pile stands beside its home table."""
    left = _MARGIN + _BOARD_W + 6
    for side in ("white", "black"):
        count = position.off(side)
        if not count:
            continue
        group = _el(root, "g", class_=f"borne-off {side}", data_count=count)
        fill, stroke = _man_colours(side)
        for i in range(count):
            y = bottom - 40 - (i + 1) * _OFF_H if side == "white" else top + 42 + i * _OFF_H
            _el(
                group,
                "rect",
                x=left,
                y=f"{y:.1f}",
                width=_TRAY_W - 12,
                height=_OFF_H - 1,
                fill=fill,
                stroke=stroke,
                stroke_width=0.5,
            )


def _draw_cube(
    root: etree._Element, value: int, owner: Side | None, top: float, bottom: float
) -> None:
    """The doubling cube: centred in the tray's middle, or at its owner's end of the tray."""
    x = _MARGIN + _BOARD_W + 6 + (_TRAY_W - 12 - _CUBE) / 2
    if owner is None:
        y = (top + bottom - _CUBE) / 2
    elif owner == "white":
        y = bottom - 40 - 15 * _OFF_H - _CUBE - 4
    else:
        y = top + 42 + 15 * _OFF_H + 4
    group = _el(root, "g")
    group.set("class", f"cube {owner or 'centred'}")
    group.set("data-value", str(value))
    _el(
        group,
        "rect",
        x=f"{x:.1f}",
        y=f"{y:.1f}",
        width=_CUBE,
        height=_CUBE,
        rx=4,
        fill="#fff",
        stroke="#333",
    )
    face = _el(
        group,
        "text",
        x=f"{x + _CUBE / 2:.1f}",
        y=f"{y + _CUBE / 2 + 5:.1f}",
        font_size=13,
        text_anchor="middle",
        font_family="sans-serif",
        fill="#111",
    )
    face.text = str(_CENTRED_FACE if owner is None and value == 1 else value)
