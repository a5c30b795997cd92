"""An analysed game's worst plays and a player's error rate chart in Chromium, on ``jacquet
serve`` of an archive of an ``.xg`` file written by ``xg_files`` (losses and luck chosen by
hand): the better play's board is the position the engine reaches, and the chart's points the
rates counted here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
import xg_files as xg
from helpers import build_archive, query

from jacquet_notation.engine import validate_play
from jacquet_notation.position import Position
from jacquet_notation.rules import Rules

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("analysed")
    (folder / "m.xg").write_bytes(xg.analysed_match())
    db = folder / "archive.db"
    build_archive(db, [folder / "m.xg"])
    return db


def test_the_worst_plays_are_drawn_beside_the_better_play(
    server: str, archive: Path, page: Any
) -> None:
    (game,) = query(archive, "select id from games where game_index = 1")
    page.goto(f"{server}/archive/-/game/{game['id']}")
    worst = page.locator("li.jacquet-worst")
    assert worst.count() == 3
    first = worst.nth(0)
    assert first.get_attribute("data-ply") == "3"
    boards = first.locator("svg")
    assert boards.count() == 2 and boards.nth(0).is_visible() and boards.nth(1).is_visible()
    (turn,) = query(
        archive,
        "select key_before, key_after from turns where game_id = ? and ply = 3",
        [game["id"]],
    )
    # XG's best for White's 6-4 was 24/18 18/14: the engine's position after it
    better = validate_play(
        Position.from_key(turn["key_before"]),
        (6, 4),
        [(24, 18), (18, 14)],
        Rules.named("backgammon"),
    ).position.key()
    made = first.locator("figure.jacquet-worst-made svg > title").first.text_content()
    best = first.locator("figure.jacquet-worst-best svg > title").first.text_content()
    assert (made, best) == (turn["key_after"], better)
    assert made != best
    # side by side, not one under the other
    left, right = boards.nth(0).bounding_box(), boards.nth(1).bounding_box()
    assert left is not None and right is not None and right["x"] > left["x"]


def test_a_players_chart_draws_each_analysed_games_error_rate(
    server: str, archive: Path, page: Any
) -> None:
    (alice,) = query(archive, "select id from players where name = 'Alice'")
    page.goto(f"{server}/archive/-/player/{alice['id']}")
    drawn = page.eval_on_selector_all(
        ".jacquet-analysis-chart circle[data-series='error rate']",
        "els => els.map(e => [e.dataset.x, e.dataset.y])",
    )
    want = []
    for number in (1, 2):  # White's (Alice's) loss per decision counted, in millipoints
        plays = [p for p in xg.ANALYSED_PLAYS if p[0] == number and p[1] == 1]
        cubes = [c for c in xg.ANALYSED_CUBES if c[0] == number and c[1] == 1]
        loss = sum(-p[5] for p in plays) + sum(c[2] for c in cubes)
        counted = sum(len(p[4]) > 1 for p in plays) + len(cubes)
        want.append([str(number), str(round(1000 * loss / counted))])
    assert drawn == want
    assert page.locator(".jacquet-analysis-chart svg").is_visible()
