"""The position page's opening tree narrowed (docs/browse.md, "The opening tree narrowed"):
each filter's counts are a scan's, written here over the turns and games rows; in Chromium, a
filter chosen changes the counts to the scan's and is kept when a play is followed."""

from __future__ import annotations

import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import lxml.html
import pytest
from helpers import ROOT, SHARED_MAT, build_archive, fetch

from jacquet_notation.position import Position
from jacquet_notation.rules import Rules

SHARED_FILES = sorted((SHARED_MAT / "Llabba").glob("*.txt"))[:3] if SHARED_MAT else []
JACQUET_START = Position.start().key()
BACKGAMMON_START = Position.start(Rules.named("backgammon")).key()

#: a play's row as compared: the position it reaches, games, won, lost
_Row = tuple[str, int, int, int]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("tree") / "archive.db"
    build_archive(db, [ROOT / "corpus" / "valid", *SHARED_FILES])
    return db


def _scan(archive: Path, key: str, params: dict[str, str]) -> Counter[_Row]:
    """The plays from ``key`` over the games ``params`` keep, counted here in Python."""
    with sqlite3.connect(archive) as conn:
        conn.row_factory = sqlite3.Row
        games = {row["id"]: row for row in conn.execute("select * from games")}
        turns = conn.execute(
            "select game_id, side, dice, key_after from turns "
            "where key_before = ? and key_after is not null",
            (key,),
        ).fetchall()

    def kept(game: Any) -> bool:
        player = int(params["player"]) if "player" in params else None
        sides = [params["side"]] if params.get("side") else ["white", "black"]
        return (
            (player is None or any(game[f"{side}_id"] == player for side in sides))
            and ("from" not in params or (game["year"] or 0) >= int(params["from"]))
            and (
                "to" not in params
                or (game["year"] is not None and game["year"] <= int(params["to"]))
            )
            and ("rules" not in params or game["rules"] == params["rules"])
            and ("event" not in params or game["event_id"] == int(params["event"]))
            and ("source" not in params or game["source_id"] == int(params["source"]))
        )

    plays: dict[tuple[str, str], list[int]] = {}
    for turn in turns:
        game = games[turn["game_id"]]
        if not kept(game):
            continue
        counts = plays.setdefault((turn["dice"], turn["key_after"]), [0, 0, 0])
        counts[0] += 1
        counts[1] += game["winner"] == turn["side"]
        counts[2] += game["winner"] is not None and game["winner"] != turn["side"]
    return Counter((after, *counts) for (_, after), counts in plays.items())  # type: ignore[misc]


def _table(html: str) -> Counter[_Row]:
    tree: Any = lxml.html.fromstring(html)
    found: Counter[_Row] = Counter()
    for row in tree.xpath("//table[@class='jacquet-play-tree']/tbody/tr"):
        href = row.xpath(".//a[@class='jacquet-play-link']")[0].get("href")
        cells = [cell.text_content() for cell in row.xpath("td")]
        found[(href.split("/-/position/")[1].split("?")[0], *map(int, cells[2:5]))] += 1
    return found


def _most(archive: Path, column: str, rules: str) -> int:
    with sqlite3.connect(archive) as conn:
        return int(
            conn.execute(
                f"select {column} from games where rules = ? and {column} is not null "
                f"group by {column} order by count(*) desc limit 1",
                (rules,),
            ).fetchone()[0]
        )


@pytest.mark.parametrize(
    "case",
    ["none", "rules", "player", "player-white", "player-black", "years", "event", "source"],
)
def test_each_filter_counts_as_the_scan(server: str, archive: Path, case: str) -> None:
    key, rules = BACKGAMMON_START, "backgammon"
    params = {
        "none": {},
        "rules": {"rules": "murray"},
        "player": {"player": str(_most(archive, "white_id", rules))},
        "player-white": {"player": str(_most(archive, "white_id", rules)), "side": "white"},
        "player-black": {"player": str(_most(archive, "black_id", rules)), "side": "black"},
        "years": {"from": "2024", "to": "2024"},
        "event": {"event": str(_most(archive, "event_id", "jacquet"))},
        "source": {"source": str(_most(archive, "source_id", "jacquet"))},
    }[case]
    if case in ("rules", "event", "source"):
        key = JACQUET_START
    status, html = fetch(f"{server}/archive/-/position/{key}?{urlencode(params)}")
    assert status == 200
    expected = _scan(archive, key, params)
    assert _table(html) == expected
    if case != "none":
        every = sum(row[1] for row in _scan(archive, key, {}))
        assert 0 < sum(row[1] for row in expected) < every
    tree: Any = lxml.html.fromstring(html)
    links: list[str] = tree.xpath("//a[@class='jacquet-play-link']/@href")
    kept = f"?{urlencode(params)}" if params else ""
    assert links and all(link.endswith(kept) and link.count("?") == bool(params) for link in links)


def test_a_bad_filter_is_one_line_and_a_400(server: str) -> None:
    status, html = fetch(f"{server}/archive/-/position/{JACQUET_START}?player=x")
    assert status == 400
    assert "player: a number in ASCII digits expected" in html


def test_a_filter_chosen_is_kept_along_the_tree(server: str, archive: Path, page: Any) -> None:
    page.goto(f"{server}/archive/-/position/{JACQUET_START}")
    assert _table(page.content()) == _scan(archive, JACQUET_START, {})
    page.select_option(".jacquet-tree-filter select[name=rules]", "murray")
    page.click(".jacquet-tree-filter button[type=submit]")
    page.wait_for_url("**rules=murray*")
    assert _table(page.content()) == _scan(archive, JACQUET_START, {"rules": "murray"})
    link = page.locator("a.jacquet-play-link").first
    after = link.get_attribute("href").split("/-/position/")[1].split("?")[0]
    link.click()
    page.wait_for_url(f"**/-/position/{after}?*rules=murray*")
    assert page.locator(".jacquet-tree-filter select[name=rules]").input_value() == "murray"
    assert _table(page.content()) == _scan(archive, after, {"rules": "murray"})
