"""The games list within a range of years, sorted by date, read along the index of dates
(browse/list_rows.py): every page the same games as the plain query's, in the same order, games
whose date is not one (a month 13: a year, no date) and games of no date included."""

from __future__ import annotations

import asyncio
import random
import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import build_archive

from jacquet_notation.browse import games_list
from jacquet_notation.browse.games_list import LIST_ROWS, Filters, order_by, where
from jacquet_notation.browse.list_rows import date_range, dated_page, dense_enough
from jacquet_notation.browse.server import build_datasette
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import Rules

_SELECT = "select id, date, rules, status from game_list"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """180 games of 1800 to 1829 in two rulesets, many on a day shared with others; one in
    nine of a year but no date (a month 13), a few of no date at all."""
    folder = tmp_path_factory.mktemp("list-rows")
    rng = random.Random(4)
    texts = []
    for number, record in enumerate(
        [
            *generate_records(90, 1, Rules.named("jacquet")),
            *generate_records(90, 2, Rules.named("bouchon")),
        ]
    ):
        year = 1800 + rng.randrange(30)
        if number % 9 == 4:
            record.tags["Date"] = f"{year}.13.??"  # a year, no date
        elif number % 31 == 7:
            record.tags.pop("Date", None)
        else:
            record.tags["Date"] = f"{year}.{rng.randint(1, 2):02d}.??"
        texts.append(write_game(record))
    path = folder / "games.jqt"
    path.write_text("\n".join(texts), encoding="utf-8")
    db = folder / "archive.db"
    build_archive(db, [path])
    return db


def _plain(archive: Path, filters: Filters, offset: int) -> list[tuple[Any, ...]]:
    clause, params = where(filters)
    with sqlite3.connect(archive) as conn:
        sql = (
            f"{_SELECT}{clause} order by {order_by(filters.sort)} limit {LIST_ROWS} offset {offset}"
        )
        return [tuple(row) for row in conn.execute(sql, params)]


def _walked(db: Any, filters: Filters, offset: int, total: int) -> list[tuple[Any, ...]]:
    bounds = date_range(filters)
    assert bounds is not None
    clause, params = where(filters, indexed=False)
    descending = filters.sort.startswith("-")
    rows = asyncio.run(
        dated_page(db, _SELECT, clause, params, bounds, descending, total, offset, LIST_ROWS)
    )
    return [tuple(row.values()) for row in rows]


def test_the_archive_holds_the_cases(archive: Path) -> None:
    with sqlite3.connect(archive) as conn:
        undated, unknown = conn.execute(
            "select sum(year is not null and date is null), sum(year is null) from game_list"
        ).fetchone()
    assert undated >= 20 and unknown >= 5


@pytest.mark.parametrize("sort", ["-date", "date"])
@pytest.mark.parametrize(
    "chosen",
    [
        {"year_from": 1805, "year_to": 1824},
        {"year_from": 1812},
        {"year_to": 1811},
        {"year_from": 1800, "year_to": 1829, "rules": "bouchon"},
        {"year_from": 1803, "year_to": 1826, "status": "valid", "rules": "jacquet"},
        {"year_from": 1810, "year_to": 1810},
        {"year_from": 1790, "year_to": 1799},  # none
        {"year_from": 0, "year_to": 9999},
    ],
)
def test_every_page_is_the_plain_querys(archive: Path, chosen: dict[str, Any], sort: str) -> None:
    filters = Filters(sort=sort, **chosen)
    clause, params = where(filters)
    with sqlite3.connect(archive) as conn:
        total = conn.execute(f"select count(*) from game_list{clause}", params).fetchone()[0]
    db = build_datasette(archive).get_database("archive")
    pages = 0
    for offset in [*range(0, total + LIST_ROWS, LIST_ROWS), 7, max(total - 3, 0)]:
        expected = _plain(archive, filters, offset)
        assert _walked(db, filters, offset, total) == expected, (chosen, sort, offset)
        pages += bool(expected)
    assert pages >= (1 if total else 0)


def test_the_walk_is_taken_only_where_it_pays() -> None:
    assert date_range(Filters(year_from=1850, year_to=1871)) == ("1850", "1872")
    assert date_range(Filters(year_to=9999)) == (None, None)
    assert date_range(Filters(year_from=1850, sort="plies")) is None  # another sort
    assert date_range(Filters(sort="-date")) is None  # no years
    assert date_range(Filters(year_from=1850, player=3)) is None  # a player's own index
    assert date_range(Filters(year_from=1850, event=3)) is None
    assert dense_enough(total=100, in_range=5_000)
    assert not dense_enough(total=99, in_range=5_000)  # rarer than one in fifty
    assert not dense_enough(total=0, in_range=0)


def test_the_walk_reads_the_dates_index(archive: Path) -> None:
    filters = Filters(year_from=1805, year_to=1824, status="valid")
    clause, params = where(filters, indexed=False)
    plan = "SELECT * FROM game_list" + clause + " and date >= :low and date < :high"
    plan += " order by date desc, rowid desc limit 50"
    with sqlite3.connect(archive) as conn:
        steps = conn.execute(
            "explain query plan " + plan, {**params, "low": "1805", "high": "1825"}
        ).fetchall()
    assert [step[3] for step in steps] == [
        "SEARCH game_list USING INDEX idx_game_list_date (date>? AND date<?)"
    ]


@pytest.mark.parametrize("query", ["year_from=1805&year_to=1824", "year_to=1815&sort=date&page=2"])
def test_the_list_page_walks_the_dates_and_shows_the_plain_querys_games(
    archive: Path, query: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    walked: list[int] = []

    async def counted(*args: Any) -> list[dict[str, Any]]:
        walked.append(1)
        return await dated_page(*args)

    monkeypatch.setattr(games_list, "dated_page", counted)
    datasette = build_datasette(archive)

    async def fetch() -> str:
        response = await datasette.client.get(f"/archive/-/games?{query}")
        assert response.status_code == 200
        return str(response.text)

    html = asyncio.run(fetch())
    shown = re.findall(r'class="jacquet-game-link" href="[^"]*/-/game/([0-9a-f]+)"', html)
    filters = games_list.read_filters(dict(pair.split("=") for pair in query.split("&")))
    expected = [row[0] for row in _plain(archive, filters, (filters.page - 1) * LIST_ROWS)]
    assert walked and shown == expected


@pytest.mark.parametrize(
    "chosen",
    [
        {"year_from": 1805, "year_to": 1824, "status": "valid"},
        {"year_to": 1811, "rules": "bouchon"},
    ],
)
def test_the_counts_of_a_range_of_years_are_the_plain_group_bys(
    archive: Path, chosen: dict[str, Any]
) -> None:
    filters = Filters(**chosen)
    db = build_datasette(archive).get_database("archive")
    total, groups = asyncio.run(games_list._counted(db, "game_list", filters, True))
    assert groups and "year" in groups[0]  # grouped by the year first, the index's order
    counted = games_list.tally(groups, filters)
    clause, params = where(filters)
    with sqlite3.connect(archive) as conn:
        plain = f"select count(*) from game_list{clause}"
        assert total == conn.execute(plain, params).fetchone()[0]
        for column in games_list.COUNTED:
            others, values = where(Filters(**{k: v for k, v in chosen.items() if k != column}))
            expected = conn.execute(
                f"select {column}, count(*) from game_list{others} and {column} != '' "
                f"group by {column}",
                values,
            ).fetchall()
            assert sorted(counted[column]) == sorted(expected), column
