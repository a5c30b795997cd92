"""The home page's counts, each against a plain scan of the same archive.

The page counts a column by walking its index and adds a player's games as White and as Black
afterwards, and adds the decades up from the years; these tests hold both to the obvious SQL.
"""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from datasette.app import Datasette
from helpers import corpus_archive, query

from jacquet_notation.browse.home import decades_of, top_names

pytestmark = pytest.mark.unit


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = corpus_archive(tmp_path_factory.mktemp("home-counts"), games=40)
    # years and repeated players, so that the counts have something to add up
    with sqlite3.connect(db) as connection:
        ids = [row[0] for row in connection.execute("select id from players order by id")]
        for index, (game,) in enumerate(connection.execute("select id from games").fetchall()):
            connection.execute(
                "update games set year = ?, white_id = ?, black_id = ? where id = ?",
                [1790 + 7 * index, ids[index % 3], ids[(index * 5) % len(ids)], game],
            )
    return db


def answer(db: Path, counted: Any) -> Any:
    datasette = Datasette([str(db)], immutables=[])
    return asyncio.run(counted(datasette.get_database()))


def test_the_players_with_most_games_count_both_sides(archive: Path) -> None:
    shown = answer(archive, lambda db: top_names(db, "game_list", "player", "players", 100))
    scanned = query(
        archive,
        "select p.id, p.name, count(*) as n from game_list g join players p "
        "on p.id in (g.white_id, g.black_id) group by p.id order by n desc, p.name",
    )
    assert len(shown) > 3
    # a player who plays himself counts once a game in the scan, twice on the page
    selves = query(
        archive,
        "select white_id, count(*) from game_list where white_id = black_id group by white_id",
    )
    doubled = {row[0]: row[1] for row in selves}
    expected = sorted(
        ((row["id"], row["name"], row["n"] + doubled.get(row["id"], 0)) for row in scanned),
        key=lambda row: (-row[2], row[1]),
    )
    assert [(row["id"], row["name"], row["n"]) for row in shown] == expected


def test_events_with_most_games(archive: Path) -> None:
    shown = answer(archive, lambda db: top_names(db, "game_list", "event_id", "events", 100))
    scanned = query(
        archive,
        "select e.id, e.name, count(*) as n from game_list g join events e on e.id = g.event_id "
        "group by e.id order by n desc, e.name",
    )
    assert [tuple(row.values()) for row in shown] == [tuple(row) for row in scanned]
    assert scanned


def test_decades_add_up_the_years(archive: Path) -> None:
    per_year = [
        {"year": row[0], "n": row[1]}
        for row in query(
            archive,
            "select year, count(*) from game_list where year is not null group by year "
            "order by year",
        )
    ]
    scanned = query(
        archive,
        "select (year / 10) * 10 as decade, count(*) as n from game_list "
        "where year is not null group by decade order by decade",
    )
    assert len(scanned) > 5
    assert decades_of(per_year) == [{"decade": row[0], "n": row[1]} for row in scanned]
