"""The charts' SVG (browse/charts.py): every figure given is drawn and carried, in order, and a
label is escaped; lxml parses what is drawn."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from lxml import etree

from jacquet_notation.browse.charts import Chart, Series, bar_chart, line_chart

pytestmark = [pytest.mark.unit]

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> etree._Element:
    return etree.fromstring(svg.encode())


def attr(element: etree._Element, name: str) -> str:
    value = element.get(name)
    assert value is not None, name
    return str(value)


@given(
    st.lists(
        st.tuples(st.integers(0, 400), st.integers(0, 170)),
        min_size=1,
        max_size=60,
        unique_by=lambda p: p[0],
    )
)
def test_a_line_carries_every_point_it_is_given(points: list[tuple[int, int]]) -> None:
    points.sort()
    root = parse(line_chart(Chart("t", "x", "y"), [Series("White", points, "w")]))
    drawn = [
        (int(attr(dot, "data-x")), int(attr(dot, "data-y"))) for dot in root.iter(f"{SVG}circle")
    ]
    assert drawn == points
    # each dot stands inside the drawing, and a higher figure higher up
    for dot in root.iter(f"{SVG}circle"):
        assert 0 <= float(attr(dot, "cx")) <= 640 and 0 <= float(attr(dot, "cy")) <= 220
    ys = {int(attr(dot, "data-y")): float(attr(dot, "cy")) for dot in root.iter(f"{SVG}circle")}
    ordered = sorted(ys)
    assert [ys[y] for y in ordered] == sorted((ys[y] for y in ordered), reverse=True)


def test_bars_carry_their_labels_and_counts_and_escape_them() -> None:
    bars = [("1850", 3), ('<a & "b">', 7), ("unknown", 0)]
    svg = bar_chart(Chart("Games by <year>", "year", "games"), bars)
    root = parse(svg)
    assert [
        (attr(r, "data-label"), int(attr(r, "data-y"))) for r in root.iter(f"{SVG}rect")
    ] == bars
    title = root.find(f"{SVG}title")
    assert title is not None and title.text == "Games by <year>"
    heights = [float(attr(r, "height")) for r in root.iter(f"{SVG}rect")]
    assert heights[1] > heights[0] > heights[2] == 0


def test_marks_and_several_lines() -> None:
    chart = Chart("race", "ply", "pips", marks=[(4, "White doubles to 2")])
    root = parse(
        line_chart(
            chart,
            [
                Series("White", [(0, 167), (1, 160)], "w"),
                Series("Black", [(0, 167), (1, 158)], "b"),
            ],
        )
    )
    assert [
        m.get("data-x") for m in root.iter(f"{SVG}line") if "jacquet-chart-mark" in attr(m, "class")
    ] == ["4"]
    assert {d.get("data-series") for d in root.iter(f"{SVG}circle")} == {"White", "Black"}


def test_nothing_to_draw_draws_nothing() -> None:
    assert line_chart(Chart("t", "x", "y"), [Series("a", [], "a")]) == ""
    assert bar_chart(Chart("t", "x", "y"), []) == ""
