"""One game, many books in Chromium: the game page says where else the game is printed ("also
in", the archive's ``game_groups``), and one click collates it with that printing side by
side, the differing ply marked and each reading on its board; "compare with…" collates it
with any game named by its id."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import query

from jacquet_notation.archive import import_paths
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, write_game
from jacquet_notation.record import GameRecord, Move
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: the misprinted ply (0-based): its first move borne off, which the position does not allow
MISPRINT = 30


def _game() -> GameRecord:
    for record in generate_records(50, 2, Rules.named("backgammon")):
        if len(record.plays) >= 60:
            return parse_game(write_game(record))
    raise AssertionError("no long game")


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compare")
    game = _game()
    plays = list(game.plays)
    move = plays[MISPRINT].moves[0]
    plays[MISPRINT] = replace(
        plays[MISPRINT], moves=(Move(move.start, 0, 1), *plays[MISPRINT].moves[1:])
    )
    assert not replay(replace(game, plays=plays)).is_valid
    misprint = replace(game, tags={**game.tags, "Event": "Misprint"}, plays=plays)
    other = next(iter(generate_records(1, 9, Rules.named("backgammon"))))
    path = folder / "books.jqt"
    path.write_text("\n".join(write_game(r) for r in (game, misprint, other)), encoding="utf-8")
    db = folder / "archive.db"
    import_paths(db, [str(path)])
    return db


def _id(archive: Path, event: str) -> str:
    [row] = query(archive, "select id from games where event = ?", [event])
    return str(row["id"])


def test_also_in_links_the_other_printing_and_one_click_collates_them(
    server: str, archive: Path, page: Any
) -> None:
    page.goto(f"{server}/archive/-/game/{_id(archive, 'Self-play, seed 2')}")
    also = page.locator(".jacquet-also-game")
    assert also.count() == 1 and "Misprint" in also.inner_text()
    page.locator("a.jacquet-compare-link").click()
    page.wait_for_selector(".jacquet-compare-summary")
    assert page.locator(".jacquet-compare-summary").inner_text() == "1 ply differing."
    marked = page.locator("tr.jacquet-differs")
    assert marked.count() == 1
    assert marked.locator("td").first.inner_text() == str(MISPRINT + 1)
    difference = page.locator(f"section.jacquet-difference#ply-{MISPRINT + 1}")
    readings = difference.locator("figure.jacquet-reading")
    assert readings.count() == 2
    # each reading on its board; the chosen one is the legal one, this game's
    assert difference.locator("figure svg").count() == 2
    chosen = difference.locator("figure.jacquet-chosen figcaption").inner_text()
    assert "this game; legal" in chosen
    assert "illegal" in difference.locator("figure.jacquet-illegal figcaption").inner_text()
    width = difference.locator("figure svg").first.bounding_box()
    assert width is not None and width["width"] > 100


def test_compare_with_collates_any_game_named_by_its_id(
    server: str, archive: Path, page: Any
) -> None:
    page.goto(f"{server}/archive/-/game/{_id(archive, 'Misprint')}")
    page.fill(".jacquet-compare-form input[name=with]", _id(archive, "Self-play, seed 9"))
    page.locator(".jacquet-compare-form button").click()
    page.wait_for_selector(".jacquet-compare-summary, .jacquet-compare-problem")
    other = page.locator("a.jacquet-compare-other").inner_text()
    assert other.startswith("random bot A v random bot B")
    assert page.locator("tr.jacquet-differs").count() > 10
    # a game that is not in the archive is a 404, not an error page of the server's
    missing = page.goto(f"{server}/archive/-/compare/{_id(archive, 'Misprint')}?with=nothing")
    assert missing is not None and missing.status == 404
