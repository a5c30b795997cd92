"""In Chromium: positions searched by what they look like (docs/browse.md, "Searching
positions"): a query typed in the search page's form, the count and rows the test's own scan
of the archive gives, each row's board drawn, a result followed to its position page and its
games, paging that keeps the query, a mistake shown in one line with its column."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, SHARED_MAT, build_archive, fetch

from jacquet_notation.position import Position

SHARED_FILES = sorted((SHARED_MAT / "Llabba").glob("*.txt"))[:2]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("search-page") / "archive.db"
    build_archive(db, [ROOT / "corpus" / "valid", *SHARED_FILES])
    return db


def _scan(archive: Path, wanted: Callable[[Position], bool]) -> set[str]:
    """The positions the archive's plays reach that ``wanted`` keeps, read from their keys."""
    with sqlite3.connect(archive) as conn:
        keys = {row[0] for row in conn.execute("SELECT key_after FROM turns") if row[0]}
    return {key for key in keys if wanted(Position.from_key(key))}


def _search(page: Any, server: str, query: str) -> None:
    page.goto(f"{server}/archive/-/search")
    page.fill("#jacquet-search-q", query)
    page.press("#jacquet-search-q", "Enter")
    page.wait_for_url("**/-/search?q=*")


def test_a_query_typed_shows_the_scans_positions_linked(
    server: str, archive: Path, page: Any
) -> None:
    expected = _scan(
        archive,
        lambda p: p.turn == "black" and p.off("white") >= 3 and p.pips("black") > 40,
    )
    assert 0 < len(expected) <= 50
    _search(page, server, "turn:black off-white:>=3 pips-black:>40")
    count = page.locator(".jacquet-search-count")
    assert count.inner_text().startswith(f"{len(expected)} position")
    assert count.get_attribute("data-exact") == "1"
    shown = page.locator(".jacquet-search-position code").all_inner_texts()
    assert set(shown) == expected
    # each row's board is drawn (the SVG served and decoded; loaded lazily, once in view)
    for image in page.locator(".jacquet-search-position img").all()[:3]:
        image.scroll_into_view_if_needed()
        page.wait_for_function(
            "img => img.complete && img.naturalWidth > 0", arg=image.element_handle()
        )
    first = shown[0]
    page.locator(".jacquet-search-games").first.click()
    page.wait_for_url(f"**/-/position/{first}#games")
    assert page.locator("#games").count() == 1
    assert page.locator("#games a").count() >= 1
    page.go_back()
    page.locator(".jacquet-search-position").first.click()
    page.wait_for_url(f"**/-/position/{first}")


def test_paging_keeps_the_query(server: str, archive: Path, page: Any) -> None:
    expected = _scan(archive, lambda p: p.turn == "white")
    assert len(expected) > 50
    _search(page, server, "turn:white")
    assert f"{len(expected) - 50} more" in page.locator(".jacquet-search-count").inner_text()
    seen = set(page.locator(".jacquet-search-position code").all_inner_texts())
    page.get_by_text("next page").click()
    page.wait_for_url("**page=1*")
    assert page.locator("#jacquet-search-q").input_value() == "turn:white"
    seen |= set(page.locator(".jacquet-search-position code").all_inner_texts())
    assert len(seen) == min(100, len(expected)) and seen <= expected


def test_a_mistake_is_one_line_with_its_column(server: str, page: Any) -> None:
    _search(page, server, "turn:white point:30-black>1")
    error = page.locator(".jacquet-search-error").inner_text()
    assert error == "query:1:18: point 30 is not on the board (1 to 24)"
    assert page.locator(".jacquet-search-position").count() == 0


def test_a_mistake_answers_400_and_a_page_past_the_results_none(server: str) -> None:
    status, body = fetch(f"{server}/archive/-/search?q=turn%3Agreen")
    assert status == 400 and "query:1:6: cannot read &#39;green&#39;" in body
    status, body = fetch(f"{server}/archive/-/search?q=diff%3A%3E400")
    assert status == 200 and "0 positions." in body
