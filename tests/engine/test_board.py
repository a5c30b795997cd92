"""The board drawn from White's side, as text and as SVG (parsed back with lxml)."""

from __future__ import annotations

from lxml import etree

from jacquet_notation.board import courier_of, render_text, stacks, to_white
from jacquet_notation.engine import validate_play
from jacquet_notation.position import Position
from jacquet_notation.svg import SVG_NS, board_svg

NS = {"s": SVG_NS}


def _after(*plays: tuple[tuple[int, int], list[tuple[int, int]]]) -> Position:
    position = Position.start()
    for dice, moves in plays:
        position = validate_play(position, dice, moves).position
    return position


def test_numbering_follows_rules_md() -> None:
    # Black's start (B24) is White's 12; Black's home B1..B6 is W13..W18.
    assert to_white("black", 24) == 12
    assert [to_white("black", p) for p in range(1, 7)] == list(range(13, 19))
    assert to_white("white", 7) == 7


def test_start_as_text() -> None:
    lines = render_text(Position.start()).splitlines()
    # far row: W24 is the right end; near row: W12 (Black's start) is the left end
    assert lines[0].split()[:1] == ["13"] and lines[0].split()[-1] == "24"
    assert lines[1].split()[-1] == "W15"
    assert lines[3].split()[0] == "B15"
    assert "White to move" in lines[-1]


def test_courier_marked_while_out_and_not_after() -> None:
    position = _after(((6, 5), [(24, 13)]))
    assert courier_of(position, "white") == 13
    assert "Wc" in render_text(position)
    home = _after(((6, 5), [(24, 13)]), ((4, 3), [(24, 17)]), ((5, 4), [(13, 4)]))
    assert courier_of(home, "white") is None


def test_svg_is_valid_xml_with_every_man() -> None:
    position = _after(((6, 5), [(24, 13)]), ((4, 3), [(24, 17)]))
    root = etree.fromstring(board_svg(position, width=240).encode())
    assert root.tag == f"{{{SVG_NS}}}svg"
    assert root.get("data-key") == position.key()
    assert root.get("width") == "240"
    counted = {
        (g.get("class"), int(g.get("data-point", "0"))): int(g.get("data-count", "0"))
        for g in root.iterfind("s:g", NS)
    }
    assert counted == {
        ("stack white", 24): 14,
        ("stack white", 13): 1,
        ("stack black", 24): 14,
        ("stack black", 17): 1,
    }
    # five circles at most per point, a count beyond
    white_start = next(g for g in root.iterfind("s:g", NS) if g.get("data-count") == "14")
    assert len(white_start.findall("s:circle", NS)) == 5
    assert white_start.findtext("s:text", namespaces=NS) == "14"
    assert len(root.findall(".//s:circle[@class='courier']", NS)) == 2
    assert position.key() in (root.findtext("s:title", namespaces=NS) or "")


def test_svg_escapes_title() -> None:
    svg = board_svg(Position.start(), title="<script>alert(1)</script>")
    assert "<script>" not in svg
    assert etree.fromstring(svg.encode()).findtext("s:title", namespaces=NS) == (
        "<script>alert(1)</script>"
    )


def test_stacks_cover_all_men() -> None:
    position = _after(((6, 5), [(24, 13)]))
    assert sum(s.count for s in stacks(position).values()) == 30
