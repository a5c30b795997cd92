"""Backgammon drawn from White's side: the sides facing each other (25 - p), both bars, men borne
off and the doubling cube; as text, as SVG parsed with lxml, and as Chromium lays it out."""

from __future__ import annotations

from typing import Any

import pytest
from lxml import etree

from jacquet_notation.board import render_text, stacks, to_white
from jacquet_notation.engine import validate_play
from jacquet_notation.position import Position
from jacquet_notation.rules import Rules
from jacquet_notation.svg import SVG_NS, board_svg

NS = {"s": SVG_NS}
BG = Rules.named("backgammon")
START = Position.start(BG)
#: a middle game: both sides on the bar, both with men off, blots on both sides
MIDDLE = Position.from_json(
    {
        "white": {"6": 3, "5": 2},
        "black": {"24": 2, "1": 3, "13": 4},
        "white_off": 8,
        "white_bar": 2,
        "black_bar": 1,
        "black_off": 5,
    },
    BG,
)


def groups(svg: str) -> dict[str, etree._Element]:
    root = etree.fromstring(svg.encode())
    return {
        f"{g.get('class')} {g.get('data-point', '')}".strip(): g for g in root.iterfind("s:g", NS)
    }


def test_black_stands_where_white_numbers_25_minus_p() -> None:
    assert to_white("black", 1, "opposite") == 24 and to_white("black", 24, "opposite") == 1
    assert to_white("black", 1) == 13  # Jacquet's p + 12 stays the default
    where = {(s.side, s.own_point): s.white_point for s in stacks(START).values()}
    assert where == {
        ("white", 24): 24,
        ("white", 13): 13,
        ("white", 8): 8,
        ("white", 6): 6,
        ("black", 24): 1,
        ("black", 13): 12,
        ("black", 8): 17,
        ("black", 6): 19,
    }
    assert sum(s.count for s in stacks(START).values()) == 30


def test_the_start_as_text() -> None:
    lines = render_text(START).splitlines()
    # far row 13..24: White's 5 on 13, Black's 3 on 17 (its 8), 5 on 19 (its 6), White's 2 on 24
    assert lines[1].split() == ["W5", ".", ".", ".", "B3", ".", "|", "B5", ".", ".", ".", ".", "W2"]
    # near row 12..1: Black's 5 on 12 (its 13), White's 3 on 8 and 5 on 6, Black's 2 on 1 (its 24)
    assert lines[3].split() == ["B5", ".", ".", ".", "W3", ".", "|", "W5", ".", ".", ".", ".", "B2"]


def test_svg_draws_both_bars_and_the_men_borne_off() -> None:
    found = groups(board_svg(MIDDLE))
    assert found["stack black 1"].get("data-count") == "3"  # Black's 1-point, White's 24
    bar_white, bar_black = found["bar white"], found["bar black"]
    assert bar_white.get("data-count") == "2" and len(bar_white.findall("s:circle", NS)) == 2
    assert bar_black.get("data-count") == "1" and len(bar_black.findall("s:circle", NS)) == 1
    # White's bar men in the far half (where they enter), Black's in the near half
    assert max(float(c.get("cy", "0")) for c in bar_white.iterfind("s:circle", NS)) < min(
        float(c.get("cy", "0")) for c in bar_black.iterfind("s:circle", NS)
    )
    off_white, off_black = found["borne-off white"], found["borne-off black"]
    assert len(off_white.findall("s:rect", NS)) == 8
    assert len(off_black.findall("s:rect", NS)) == 5
    # each pile beside its own home table: White's near (below), Black's far (above)
    assert min(float(r.get("y", "0")) for r in off_white.iterfind("s:rect", NS)) > max(
        float(r.get("y", "0")) for r in off_black.iterfind("s:rect", NS)
    )
    root = etree.fromstring(board_svg(MIDDLE).encode())
    assert root.get("data-direction") == "opposite"
    assert (root.findtext("s:title", namespaces=NS) or "").startswith("Backgammon position")
    assert "cube" not in " ".join(found)  # no cube unless asked


@pytest.mark.parametrize(
    ("value", "owner", "face"),
    [(1, None, "64"), (2, None, "2"), (4, "white", "4"), (16, "black", "16")],
)
def test_svg_draws_the_cube_and_its_owner(value: int, owner: Any, face: str) -> None:
    cube = groups(board_svg(MIDDLE, cube=value, cube_owner=owner))[f"cube {owner or 'centred'}"]
    assert cube.get("data-value") == str(value)
    assert cube.findtext("s:text", namespaces=NS) == face


def test_the_cubes_place_says_its_owner() -> None:
    def cube_y(owner: Any) -> float:
        cube = groups(board_svg(MIDDLE, cube=2, cube_owner=owner))[f"cube {owner or 'centred'}"]
        return float(cube.find("s:rect", NS).get("y", "0"))  # type: ignore[union-attr]

    assert cube_y("black") < cube_y(None) < cube_y("white")


@pytest.mark.parametrize(("value", "owner"), [(3, None), (0, "white"), (None, "black")])
def test_a_bad_cube_is_refused(value: int | None, owner: Any) -> None:
    with pytest.raises(ValueError, match="cube"):
        board_svg(MIDDLE, cube=value, cube_owner=owner)


def test_a_hit_is_drawn_on_the_bar() -> None:
    # White's 20-point is Black's 5-point, where a black blot stands
    before = Position.from_json({"white": {"24": 1, "6": 14}, "black": {"5": 1, "6": 14}}, BG)
    after = validate_play(before, (4, 1), [(24, 20), (6, 5)], BG).position
    found = groups(board_svg(after))
    assert found["bar black"].get("data-count") == "1"
    assert found["stack white 20"].get("data-count") == "1"
    assert "stack black 5" not in found


def test_jacquet_drawings_gain_nothing_without_bar_or_borne_off_men() -> None:
    found = groups(board_svg(Position.start()))
    assert set(found) == {"stack white 24", "stack black 24"}
    root = etree.fromstring(board_svg(Position.start()).encode())
    assert root.get("data-direction") is None
    assert (root.findtext("s:title", namespaces=NS) or "").startswith("Jacquet position")


def test_chromium_lays_the_board_out_as_rules_md_says(browser: Any) -> None:
    """Where the men land on screen: Black's 1-point at the far right, its home facing White's,
    the bar men in the middle column, each borne-off pile beside its home, the cube right."""
    page = browser.new_page(viewport={"width": 800, "height": 600})
    try:
        page.set_content(
            "<!doctype html><body style='margin:0'>"
            + board_svg(MIDDLE, width=780, cube=8, cube_owner="white")
            + "</body>"
        )

        def box(selector: str) -> dict[str, float]:
            found: dict[str, float] | None = page.locator(selector).first.bounding_box()
            assert found is not None, selector
            return found

        svg = box("svg")
        black_home = box("g.stack.black[data-point='1']")
        white_home = box("g.stack.white[data-point='6']")
        black_back = box("g.stack.black[data-point='24']")
        # Black's 1-point: far row, right end; White's 6: near row, right half; Black's 24: near
        # row, right end (White's 1-point)
        bar_white, bar_black = box("g.bar.white"), box("g.bar.black")
        bar_x = bar_white["x"] + bar_white["width"] / 2
        assert abs(bar_black["x"] + bar_black["width"] / 2 - bar_x) < 1
        assert abs(bar_x - svg["width"] * 0.45) < svg["width"] * 0.05  # the middle column
        assert bar_white["y"] + bar_white["height"] <= bar_black["y"]
        assert black_home["y"] < svg["height"] / 3 and black_home["x"] > svg["width"] * 0.7
        assert white_home["y"] > svg["height"] / 2 and white_home["x"] > bar_x
        assert black_back["y"] > svg["height"] / 2 and black_back["x"] > white_home["x"]
        off_white, off_black = box("g.borne-off.white"), box("g.borne-off.black")
        assert off_black["y"] < svg["height"] / 2 < off_white["y"]
        cube = box("g.cube")
        assert cube["x"] > black_home["x"] and off_black["y"] < cube["y"] < off_white["y"]
        assert page.locator("g.cube text").text_content() == "8"
    finally:
        page.close()
