"""The analysis an ``.xg`` file carries, on the game, match and player pages: each side's error
rate (XG's PR) and luck against figures added up here from the file's own numbers
(``xg_files.ANALYSED_PLAYS``, ``ANALYSED_CUBES``), and the worst plays with the better one's
board (a real archive served by Datasette, its HTML parsed by lxml)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
import xg_files as xg
from helpers import one
from lxml import html

from jacquet_notation.archive import import_paths, open_archive
from jacquet_notation.browse.server import build_datasette
from jacquet_notation.engine import validate_play
from jacquet_notation.position import Position
from jacquet_notation.rules import Rules

SIDES = {1: "white", -1: "black"}


def expected(games: set[int]) -> dict[str, dict[str, float]]:
    """Each side's decisions counted, loss and luck over ``games``, added up from the file's
    numbers: a play with one option is forced (not counted), every cube decision counts."""
    sums = {side: {"counted": 0.0, "loss": 0.0, "luck": 0.0, "rolls": 0.0} for side in SIDES}
    for game, side, _, _, options, error, luck in xg.ANALYSED_PLAYS:
        if game in games:
            sums[side]["counted"] += len(options) > 1
            sums[side]["loss"] += -error
            sums[side]["luck"] += luck
            sums[side]["rolls"] += 1
    for game, side, loss in xg.ANALYSED_CUBES:
        if game in games:
            sums[side]["counted"] += 1
            sums[side]["loss"] += loss
    return {SIDES[side]: {**s, "pr": 500 * s["loss"] / s["counted"]} for side, s in sums.items()}


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("analysis")
    (folder / "m.xg").write_bytes(xg.analysed_match())
    db = folder / "a.db"
    open_archive(db).conn.close()
    import_paths(str(db), [str(folder / "m.xg")], rules=None, encoding="utf-8")
    return db


@pytest.fixture(scope="module")
def ds(archive: Path) -> Any:
    return build_datasette(archive)


def page(ds: Any, path: str) -> html.HtmlElement:
    response = asyncio.run(ds.client.get(path))
    assert response.status_code == 200, response.text
    return html.fromstring(response.text)


def figures(doc: html.HtmlElement) -> dict[str, dict[str, float]]:
    return {
        row.get("data-side"): {
            "counted": float(row.get("data-counted")),
            "loss": float(row.get("data-loss")),
            "luck": float(row.get("data-luck")),
            "pr": float(row.get("data-pr")),
        }
        for row in doc.xpath("//table[@class='jacquet-analysis-figures']/tbody/tr")
    }


def close(found: dict[str, float], wanted: dict[str, float]) -> None:
    for name in ("counted", "loss", "luck", "pr"):
        assert found[name] == pytest.approx(wanted[name], abs=0.006), name


def test_the_game_page_gives_each_sides_pr_and_luck_and_the_worst_plays(
    ds: Any, archive: Path
) -> None:
    game_id = one(archive, "SELECT id FROM games WHERE game_index = 1")
    doc = page(ds, f"/a/-/game/{game_id}")
    title = doc.xpath("//section[@id='analysis']/h2")[0].text_content()
    assert title == "Analysis by eXtreme Gammon (level 4-ply)"
    found = figures(doc)
    wanted = expected({1})
    assert set(found) == {"White", "Black"}
    close(found["White"], wanted["white"])
    close(found["Black"], wanted["black"])
    assert found["White"]["pr"] == pytest.approx(35.0)  # 500 x 0.28 / 4, by hand
    worst = doc.xpath("//li[@class='jacquet-worst']")
    # the largest losses first: White's 6-4 (0.15), White's 3-1 (0.11), Black's 6-3 (0.03)
    assert [(w.get("data-ply"), float(w.get("data-loss"))) for w in worst] == [
        ("3", 0.15),
        ("1", 0.11),
        ("2", 0.03),
    ]
    assert worst[0].xpath(".//span[@class='jacquet-worst-better']")[0].text == "24/18 18/14"
    assert len(worst[0].xpath(".//*[local-name()='svg']")) == 2
    # the better play's board: the position the engine reaches from the ply's position
    before = one(archive, "SELECT key_before FROM turns WHERE game_id = ? AND ply = 3", game_id)
    after = one(archive, "SELECT key_after FROM turns WHERE game_id = ? AND ply = 3", game_id)
    better = validate_play(
        Position.from_key(before), (6, 4), [(24, 18), (18, 14)], Rules.named("backgammon")
    )
    assert (
        worst[0].xpath(".//figure[@class='jacquet-worst-best']")[0].get("data-key")
        == better.position.key()
    )
    assert worst[0].xpath(".//figure[@class='jacquet-worst-made']")[0].get("data-key") == after
    assert better.position.key() != after


def test_the_match_and_player_pages_add_up_every_game(ds: Any, archive: Path) -> None:
    wanted = expected({1, 2})
    match_id = one(archive, "SELECT id FROM matches")
    found = figures(page(ds, f"/a/-/match/{match_id}"))
    close(found["Alice"], wanted["white"])
    close(found["Bob"], wanted["black"])
    alice = one(archive, "SELECT id FROM players WHERE name = 'Alice'")
    doc = page(ds, f"/a/-/player/{alice}")
    close(figures(doc)["Alice"], wanted["white"])
    # the chart: a point a game, its error rate per decision in millipoints
    points = doc.xpath(
        "//div[@class='jacquet-analysis-chart']"
        "//*[local-name()='circle'][@data-series='error rate']"
    )
    rates = [
        round(1000 * e["loss"] / e["counted"])
        for e in (expected({1})["white"], expected({2})["white"])
    ]
    assert [(int(p.get("data-x")), int(p.get("data-y"))) for p in points] == [
        (1, rates[0]),
        (2, rates[1]),
    ]
