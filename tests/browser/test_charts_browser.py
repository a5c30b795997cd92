"""The charts in Chromium: the game's race, a player's years, the home page's games by year and
by ruleset. Each chart's figures, read off the page, equal what the test counts itself from the
archive's rows (pips from the positions' keys, wins from the winners), not only its presence."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, corpus_archive, query

from jacquet_notation.board_terms import Side
from jacquet_notation.position import Position

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus_archive(tmp_path_factory.mktemp("charts"), extra=[ROOT / "corpus" / "valid"])


def drawn(page: Any, selector: str, *fields: str) -> list[tuple[str, ...]]:
    return [
        tuple(item)
        for item in page.eval_on_selector_all(
            selector, f"els => els.map(e => [{', '.join(f'e.dataset.{f}' for f in fields)}])"
        )
    ]


def test_the_race_is_the_pips_of_every_board_and_marks_the_doubles(
    server: str, archive: Path, page: Any
) -> None:
    (game,) = query(
        archive,
        "select g.id from games g where g.status = 'valid' and g.rules = 'backgammon' and exists "
        "(select 1 from turns t where t.game_id = g.id and t.cube like 'double%') "
        "order by g.plies desc limit 1",
    )
    turns = query(
        archive,
        "select ply, key_before, key_after, cube from turns where game_id = ? order by ply",
        [game["id"]],
    )
    keys = [turns[0]["key_before"]] + [t["key_after"] or t["key_before"] for t in turns]
    page.goto(f"{server}/archive/-/game/{game['id']}")
    sides: tuple[tuple[Side, str], ...] = (("white", "White"), ("black", "Black"))
    for side, name in sides:
        want = [(str(ply), str(Position.from_key(key).pips(side))) for ply, key in enumerate(keys)]
        got = drawn(page, f'.jacquet-race circle[data-series="{name}"]', "x", "y")
        assert got == want
    doubles = [str(t["ply"]) for t in turns if (t["cube"] or "").startswith(("double", "beaver"))]
    assert doubles
    assert [x for (x,) in drawn(page, ".jacquet-race line.jacquet-chart-mark", "x")] == doubles


def test_the_home_page_counts_games_by_year_and_by_ruleset(
    server: str, archive: Path, page: Any
) -> None:
    rows = query(archive, "select year, rules from games")
    years = Counter(str(row["year"]) for row in rows if row["year"] is not None)
    rulesets = Counter(row["rules"] or "unknown" for row in rows)
    page.goto(f"{server}/")
    charts = page.locator(".jacquet-charts svg")
    assert charts.count() == 2
    got_years = drawn(page, '.jacquet-charts svg[data-chart="bar"]:first-child rect', "label", "y")
    assert got_years == sorted((year, str(n)) for year, n in years.items())
    got_rules = {
        label: count
        for label, count in drawn(
            page, '.jacquet-charts svg[data-chart="bar"]:last-child rect', "label", "y"
        )
    }
    assert got_rules == {rules: str(n) for rules, n in rulesets.items()}


def test_a_players_years_are_his_wins_and_losses(server: str, archive: Path, page: Any) -> None:
    rows = query(
        archive, "select year, winner, white_id, black_id from games where year is not null"
    )
    by_player: Counter[int] = Counter()
    for row in rows:
        by_player[row["white_id"]] += 1
        by_player[row["black_id"]] += 1
    player = max(
        by_player,
        key=lambda p: (
            len({r["year"] for r in rows if p in (r["white_id"], r["black_id"])}),
            by_player[p],
        ),
    )
    won: Counter[int] = Counter()
    lost: Counter[int] = Counter()
    for row in rows:
        for side in ("white", "black"):
            if row[f"{side}_id"] != player or row["winner"] is None:
                continue
            (won if row["winner"] == side else lost)[row["year"]] += 1
    years = sorted({r["year"] for r in rows if player in (r["white_id"], r["black_id"])})
    page.goto(f"{server}/archive/-/player/{player}")
    for name, counts in (("won", won), ("lost", lost)):
        got = drawn(page, f'.jacquet-years-chart circle[data-series="{name}"]', "x", "y")
        assert got == [(str(year), str(counts[year])) for year in years]
