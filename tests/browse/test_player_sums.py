"""The player page's figures, each against a plain scan of the same archive, on a new archive
and on one migrated from version 15.

Since version 16 the page reads each side's games through indexes of their own: the sums by
opponent along ``idx_games_{side}_sums``, the newest games along ``idx_games_{side}_newest``
(each side cut at the page's end, then merged), the spellings along ``game_list``'s index of
the side. These tests hold each answer to the obvious Python over every game's row, and the
plans to those indexes (no statement of the page scans ``games``).
"""

from __future__ import annotations

import asyncio
import shutil
import sqlite3
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest
from datasette.app import Datasette
from datasette.database import Database
from helpers import as_before_16, corpus_archive, query, rows

from jacquet_notation.archive import SCHEMA_VERSION, open_archive
from jacquet_notation.browse.analysis import player_analysis
from jacquet_notation.browse.pictures import player_years_chart
from jacquet_notation.browse.player_page import _opponents, _player_games, _side_record
from jacquet_notation.browse.shared import PAGE_ROWS
from jacquet_notation.browse.spellings import player_spellings

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = corpus_archive(tmp_path_factory.mktemp("player-sums"), games=150)
    # a few players met often, on both sides and against themselves, some games without a
    # named opponent, dates shared and missing: what the page's sums and order must get right
    with sqlite3.connect(db) as connection:
        ids = [row[0] for row in connection.execute("select id from players order by id")][:4]
        games = [row[0] for row in connection.execute("select id from games order by id")]
        for index, game in enumerate(games):
            white, black = ids[index % len(ids)], ids[(index // 3) % len(ids)]
            connection.execute(
                "update games set white_id = ?, black_id = ?, date = ?, year = ? where id = ?",
                [
                    white,
                    black,
                    None if index % 4 == 0 else f"18{index % 5:02d}-01-01",
                    None if index % 4 == 0 else 1800 + index % 5,
                    game,
                ],
            )
            if index % 7 == 3:
                connection.execute(
                    "update games set black_id = null, black = ? where id = ?",
                    ["?" if index % 2 else "", game],
                )
    return db


@pytest.fixture(scope="module")
def migrated(archive: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same archive laid out as version 15 indexed a player's games, then opened."""
    old = tmp_path_factory.mktemp("player-sums-15") / "old.db"
    shutil.copy(archive, old)
    with sqlite3.connect(old) as connection:
        as_before_16(connection)
        connection.execute("PRAGMA user_version = 15")
    open_archive(old).close()
    return old


def _answers(db: Path, player_id: int) -> tuple[Any, ...]:
    """Every figure of the player page for ``player_id``, every list read to its last page,
    and the SQL the page ran."""
    datasette = Datasette([str(db)], immutables=[])
    name = next(iter(datasette.databases.keys() - {"_internal", "_memory"}))
    database = datasette.get_database(name)
    statements: list[tuple[str, Any]] = []
    execute = Database.execute

    async def recorded(self: Database, sql: str, params: Any = None, **options: Any) -> Any:
        statements.append((sql, params))
        return await execute(self, sql, params, **options)

    async def read() -> tuple[Any, ...]:
        sides, record = await _side_record(database, player_id)
        opponents: list[dict[str, Any]] = []
        listed: list[dict[str, Any]] = []
        for page in range(100):
            found, more = await _opponents(datasette, database, name, player_id, page)
            opponents += found
            if not more:
                break
        for page in range(100):
            found, more = await _player_games(datasette, database, name, player_id, page)
            listed += found
            if not more:
                break
        spellings = await player_spellings(datasette, database, name, player_id)
        await player_years_chart(database, player_id)  # their statements, for the plans
        await player_analysis(database, player_id)
        return sides, record, opponents, listed, spellings

    Database.execute = recorded
    try:
        answers = asyncio.run(read())
    finally:
        Database.execute = execute
    return (*answers, statements)


def _scan(db: Path, player_id: int) -> dict[str, Any]:
    """The same figures from every game's row, in Python."""
    games = [dict(row) for row in query(db, "select * from games order by id")]
    names = {row["id"]: row["name"] for row in query(db, "select id, name from players")}
    sides = {}
    for side, other in (("white", "black"), ("black", "white")):
        mine = [game for game in games if game[f"{side}_id"] == player_id]
        won = [game for game in mine if game["winner"] == side]
        lost = [game for game in mine if game["winner"] == other]
        sides[side] = (
            len(mine),
            len(won),
            len(lost),
            sum(game["points"] or 0 for game in won),
            sum(game["points"] or 0 for game in lost),
        )
    by_opponent: dict[Any, list[int]] = defaultdict(lambda: [0, 0, 0, 0, 0])
    written: dict[Any, list[str]] = defaultdict(list)
    for side, other in (("white", "black"), ("black", "white")):
        for game in games:
            if game[f"{side}_id"] != player_id:
                continue
            sums = by_opponent[game[f"{other}_id"]]
            sums[0] += 1
            sums[1] += game["winner"] == side
            sums[2] += game["winner"] == other
            sums[3] += (game["points"] or 0) if game["winner"] == side else 0
            sums[4] += (game["points"] or 0) if game["winner"] == other else 0
            written[game[f"{other}_id"]].append(game[other])
    opponents = sorted(
        (
            (ident, names[ident] if ident is not None else max(written[ident]), *sums)
            for ident, sums in by_opponent.items()
        ),
        key=lambda row: (-row[2], row[1]),
    )
    own = [game for game in games if player_id in (game["white_id"], game["black_id"])]
    own.sort(key=lambda game: game["id"])
    own.sort(key=lambda game: game["date"] or "", reverse=True)  # NULL last, as SQL's DESC
    spellings: dict[str, list[Any]] = {}
    for side in ("white", "black"):
        for game in games:
            if game[f"{side}_id"] == player_id:
                entry = spellings.setdefault(game[side] or "?", [0, set()])
                entry[0] += 1
                entry[1].add(game["year"])
    return {
        "sides": sides,
        "opponents": opponents,
        "games": [game["id"] for game in own],
        "spellings": {
            spelling: (count, min({y for y in years if y is not None}, default=None))
            for spelling, (count, years) in spellings.items()
        },
    }


def _players(db: Path) -> list[int]:
    return [row[0] for row in rows(db, "select id from players order by id")]


@pytest.mark.parametrize("which", ["new", "migrated"])
def test_the_player_page_adds_up_as_a_scan_does(archive: Path, migrated: Path, which: str) -> None:
    db = archive if which == "new" else migrated
    players = _players(db)
    assert len(players) >= 4
    for player_id in players[:5]:
        sides, record, opponents, listed, spellings, _ = _answers(db, player_id)
        scan = _scan(db, player_id)
        figures = ("games", "wins", "losses", "points_won", "points_lost")
        assert {side["side"]: tuple(side[key] or 0 for key in figures) for side in sides} == (
            scan["sides"]
        )
        assert record["games"] == sum(side[0] for side in scan["sides"].values())
        assert [
            (row["opponent_id"], row["opponent"], *(row[key] or 0 for key in figures))
            for row in opponents
        ] == scan["opponents"]
        assert [game["id"] for game in listed] == scan["games"]
        assert {entry["spelling"]: (entry["games"], entry["first"]) for entry in spellings} == scan[
            "spellings"
        ]


def test_the_scan_has_something_to_tell(archive: Path) -> None:
    """The fixture holds what the page must get right: several pages of games, a player met
    as both colours, a game against himself, games with no named opponent."""
    assert max(len(_scan(archive, player)["games"]) for player in _players(archive)) > PAGE_ROWS
    assert rows(archive, "select count(*) from games where white_id = black_id")[0][0] > 0
    assert rows(archive, "select count(*) from games where black_id is null")[0][0] > 0


@pytest.mark.parametrize("which", ["new", "migrated"])
def test_no_statement_of_the_player_page_scans_the_games(
    archive: Path, migrated: Path, which: str
) -> None:
    db = archive if which == "new" else migrated
    *_, statements = _answers(db, _players(db)[0])
    connection = sqlite3.connect(db)
    used: set[str] = set()
    for sql, params in statements:
        for *_, detail in connection.execute(f"EXPLAIN QUERY PLAN {sql}", params or {}):
            assert not detail.startswith(("SCAN games", "SCAN game_list")), (detail, sql)
            used.update(word for word in detail.split() if word.startswith("idx_"))
    assert {
        "idx_games_white_sums",
        "idx_games_black_sums",
        "idx_games_white_newest",
        "idx_games_black_newest",
        "idx_games_white_analysed",
        "idx_games_black_analysed",
    } <= used
    assert any(name.startswith("idx_game_list_white_id_white") for name in used)


def test_a_migrated_archive_indexes_a_players_games_as_a_new_one(
    archive: Path, migrated: Path
) -> None:
    indexes = (
        "select name, sql from sqlite_master where type = 'index' "
        "and tbl_name in ('games', 'game_list') order by name"
    )
    assert rows(migrated, indexes) == rows(archive, indexes)
    assert rows(migrated, "PRAGMA user_version")[0][0] == SCHEMA_VERSION
    assert not [
        name for (name, _) in rows(archive, indexes) if name.endswith(("_white_id", "_black_id"))
    ]
