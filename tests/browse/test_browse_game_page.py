"""The game and position pages' polish: the score sheet follows the play, the moved men are
marked, the caption says the roll once, the legend, the position's human title.

``jacquet serve`` on the corpus archive; Chromium (the ``browser`` fixture) where a page's
script or layout is what is tested, plain HTTP where the HTML is.
"""

from __future__ import annotations

import json
import re
import urllib.request
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, corpus_archive, query

from jacquet_notation.position import Position

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus_archive(tmp_path_factory.mktemp("polish"), extra=[ROOT / "corpus"])


@pytest.fixture
def page_options() -> dict[str, Any]:
    """A short window, so that a long game's score sheet scrolls."""
    return {"viewport": {"width": 1280, "height": 600}}


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return str(response.read().decode())


def longest(archive: Path) -> Any:
    return query(archive, "select id, plies from games where status = 'valid' order by plies desc")[
        0
    ]


def expected_marks(archive: Path, game_id: str, ply: int) -> dict[int, str]:
    """The marks a ply should carry, from its steps as replayed (not from the positions the
    page compares): the points left and reached, net, in White's numbering."""
    (turn,) = query(
        archive, "select side, steps from turns where game_id = ? and ply = ?", [game_id, ply]
    )
    starts: Counter[int] = Counter()
    ends: Counter[int] = Counter()
    for step in (turn["steps"] or "").split():
        start, end = (int(part) for part in step.split("/"))
        starts[start] += 1
        ends[end] += 1
    marks: dict[int, str] = {}
    for point, what in [*((p, "from") for p in starts - ends), *((p, "to") for p in ends - starts)]:
        if 1 <= point <= 24:
            marks[Position.to_absolute(turn["side"], point)] = what
    return marks


def board_marks(page: Any) -> dict[int, str]:
    found: dict[int, str] = {}
    outlines = page.locator(".jacquet-board-holder svg polygon.moved")
    for index in range(outlines.count()):
        outline = outlines.nth(index)
        kind = "from" if "from" in (outline.get_attribute("class") or "") else "to"
        found[int(outline.get_attribute("data-point"))] = kind
    return found


@pytest.mark.browser
def test_score_sheet_keeps_the_current_play_in_view(server: str, archive: Path, page: Any) -> None:
    game = longest(archive)
    page.goto(f"{server}/archive/-/game/{game['id']}?ply=0")

    def in_view() -> bool:
        return bool(
            page.evaluate(
                """() => {
                  const sheet = document.getElementById("sheet");
                  const link = sheet.querySelector(".jacquet-sheet-ply.current");
                  const box = sheet.getBoundingClientRect(), row = link.getBoundingClientRect();
                  return row.top >= box.top && row.bottom <= box.bottom;
                }"""
            )
        )

    scrolls = page.evaluate("document.getElementById('sheet').scrollHeight")
    height = page.evaluate("document.getElementById('sheet').clientHeight")
    assert scrolls > height * 1.5, "the game is too short for its sheet to scroll"
    page.keyboard.press("End")
    page.wait_for_function(
        f"document.getElementById('board').dataset.current === '{game['plies']}'"
    )
    assert in_view()
    page.keyboard.press("Home")
    page.keyboard.press("ArrowRight")
    assert in_view()
    # the page itself stays where it was: only the sheet scrolled
    assert page.evaluate("window.scrollY") == 0
    # arriving at a late ply by its address shows it too
    page.goto(f"{server}/archive/-/game/{game['id']}?ply={game['plies'] - 1}")
    assert in_view()


@pytest.mark.browser
def test_moved_men_are_marked(server: str, archive: Path, page: Any) -> None:
    game = longest(archive)
    page.goto(f"{server}/archive/-/game/{game['id']}?ply=0")
    assert board_marks(page) == {}  # the start: nothing moved yet
    for ply in range(1, 7):
        page.keyboard.press("ArrowRight")
        key = query(
            archive,
            "select key_after from turns where game_id = ? and ply = ?",
            [game["id"], ply],
        )[0]["key_after"]
        page.wait_for_function(
            f"document.querySelector('.jacquet-board-holder').dataset.key === '{key}'"
        )
        assert board_marks(page) == expected_marks(archive, game["id"], ply), ply
        assert board_marks(page), ply
    # without the script too: the page as served draws the same marks
    page.goto(f"{server}/archive/-/game/{game['id']}?ply=5")
    assert board_marks(page) == expected_marks(archive, game["id"], 5)
    assert page.locator(".jacquet-legend").first.is_visible()


def test_caption_says_the_roll_once(server: str, archive: Path) -> None:
    ids = [row["id"] for row in query(archive, "select id from games")]
    captions = []
    for game_id in ids:
        html = get(f"{server}/archive/-/game/{game_id}")
        found = re.search(
            r'<script type="application/json" id="jacquet-states">(.*?)</script>', html
        )
        assert found
        captions += [state["caption"] for state in json.loads(found.group(1))]
    assert any(re.search(r"\d-\d: ", caption) for caption in captions)
    assert [c for c in captions if re.search(r"(\d-\d):? \1", c)] == []


def test_position_title_is_human(server: str, archive: Path) -> None:
    (turn,) = query(
        archive,
        "select key_after, turn, side, dice from turns where key_after is not null "
        "order by rowid limit 1 offset 4",
    )
    position = Position.from_key(turn["key_after"])
    html = get(f"{server}/archive/-/position/{turn['key_after']}")
    heading = re.search(r'<h1 class="jacquet-position-title">(.*?)</h1>', html)
    assert heading
    mover = "White" if position.turn == "white" else "Black"
    pips = f"{position.pips('white')}–{position.pips('black')}"
    assert heading.group(1).startswith(f"{mover} to move, {pips} pips, after ")
    assert f"<title>{heading.group(1)}" in html
    assert f"<code>{turn['key_after']}</code>" in html  # the key, as a detail
    start = get(f"{server}/archive/-/position/{Position.start().key()}")
    assert '<h1 class="jacquet-position-title">White to move, ' in start
    assert "pips, the start</h1>" in start
