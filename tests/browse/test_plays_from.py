"""The plays from a position, summed from ``plies`` (browse/position_page.py): for every position
of a real archive, with and without a filter, the same rows as the sum written over the view
``turns``, which spells each play as a visitor reads it."""

from __future__ import annotations

import asyncio
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, SHARED_MAT, build_archive

from jacquet_notation.archive.plays import REACHING, STARTING_FROM
from jacquet_notation.browse.position_page import (
    GAME_COST_IN_PLAYS,
    games_first,
    plays_from,
    plays_sql,
)
from jacquet_notation.browse.server import build_datasette
from jacquet_notation.browse.shared import forget_kept
from jacquet_notation.browse.tree_filter import TreeFilter

#: every position of the archive summed both ways: over 2 s on the two-core machine, so out of
#: the unit tier (the README's leg runs it)
pytestmark = [pytest.mark.slow]

SHARED_FILES = sorted((SHARED_MAT / "Llabba").glob("*.txt"))[:2] if SHARED_MAT else []

#: the sum over the view, as a visitor would write it: each play with its spelling
_OVER_TURNS = (
    "select t.dice, min(t.steps) as steps, t.key_after, count(*) as games, "
    "sum(g.winner = t.side) as wins, sum(g.winner is not null and g.winner != t.side) "
    "as losses, sum(case when g.winner = t.side then g.points else 0 end) as points_won, "
    "sum(case when g.winner != t.side then g.points else 0 end) as points_lost "
    "from turns t join games g on g.id = t.game_id "
    "where t.key_before = ? and t.key_after is not null{filter} "
    "group by t.dice, t.key_after"
)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("plays-from") / "archive.db"
    # a play of missing-play.jqt is left out, so the play after it stores its position before
    # past the first ply (the one place a start's query must not take it for a start)
    build_archive(
        db,
        [ROOT / "corpus" / "valid", ROOT / "corpus" / "broken" / "missing-play.jqt", *SHARED_FILES],
    )
    return db


def _over_turns(archive: Path, key: str, narrowed: TreeFilter) -> list[dict[str, Any]]:
    conditions, arguments = narrowed.sql()
    with sqlite3.connect(archive) as conn:
        conn.row_factory = sqlite3.Row
        rows = conn.execute(_OVER_TURNS.format(filter=conditions), [key, *arguments])
        return [dict(row) for row in rows]


def _sorted(rows: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return sorted(tuple(map(repr, row.values())) for row in rows)


def test_every_position_sums_as_over_the_view(archive: Path) -> None:
    with sqlite3.connect(archive) as conn:
        keys = [
            row[0]
            for row in conn.execute(
                "select distinct key_before from turns where key_before is not null"
            )
        ]
        implied = conn.execute("select count(*) from plies where before is null").fetchone()[0]
        player = conn.execute(
            "select white_id from games where white_id is not null "
            "group by white_id order by count(*) desc limit 1"
        ).fetchone()[0]
    assert len(keys) > 1500 and implied > 1000  # both halves of the view are summed
    filters = [TreeFilter(), TreeFilter(player=player, side="white"), TreeFilter(player=player)]
    db = build_datasette(archive).get_database("archive")
    forget_kept()
    compared = 0
    for index, key in enumerate(keys[::6]):  # a sixth of them: every kind, in a second
        for narrowed in filters if index % 7 == 0 else filters[:1]:
            found = asyncio.run(plays_from(db, key, 1000, narrowed))
            expected = _over_turns(archive, key, narrowed)
            assert _sorted(found) == _sorted(expected), (key, narrowed)
            games = [play["games"] for play in found]
            assert games == sorted(games, reverse=True)
            compared += bool(expected)
    assert compared > 250


def _filters(conn: sqlite3.Connection) -> list[TreeFilter]:
    """A filter of every kind the archive can answer: a player (either side, one side, with
    years), a ruleset, an event, a range of years."""
    player, event = conn.execute(
        "select white_id, max(event_id) from games where white_id is not null "
        "group by white_id order by count(*) desc limit 1"
    ).fetchone()
    first, last = conn.execute("select min(year), max(year) from games").fetchone()
    middle = (first + last) // 2
    return [
        TreeFilter(player=player),
        TreeFilter(player=player, side="white"),
        TreeFilter(player=player, side="black", year_from=first, year_to=middle),
        TreeFilter(rules="backgammon"),
        TreeFilter(event=event),
        TreeFilter(year_from=middle, year_to=last),
    ]


def test_both_ways_to_a_narrowed_sum_give_the_views_rows(archive: Path) -> None:
    with sqlite3.connect(archive) as conn:
        conn.row_factory = sqlite3.Row
        keys = [
            row[0]
            for row in conn.execute(
                "select key_before from turns where key_before is not null "
                "group by key_before order by count(*) desc, key_before"
            )
        ]
        filters = _filters(conn)
        compared = 0
        for key in keys[:25] + keys[25::23]:  # the most played positions, and others
            for narrowed in filters:
                conditions, arguments = narrowed.sql()
                expected = _sorted(_over_turns(archive, key, narrowed))
                for first in (False, True):
                    found = conn.execute(plays_sql(conditions, first), [key, *arguments])
                    assert _sorted([dict(row) for row in found]) == expected, (key, narrowed)
                compared += bool(expected)
    assert compared > 120  # 210 here, 177 without the shared match files (a clean clone)


def test_a_few_games_are_read_game_by_game_from_a_position_many_reach(archive: Path) -> None:
    with sqlite3.connect(archive) as conn:
        start, plays = conn.execute(
            "select key_before, count(*) from turns where key_before is not null "
            "group by key_before order by count(*) desc limit 1"
        ).fetchone()
        rare = conn.execute(
            "select key_before from turns where key_before is not null "
            "group by key_before having count(*) = 1 limit 1"
        ).fetchone()[0]
        player, games = conn.execute(
            "select white_id, count(*) from games where white_id is not null "
            "group by white_id order by count(*), white_id limit 1"
        ).fetchone()
        assert games * GAME_COST_IN_PLAYS < plays  # the archive holds the case
        few = TreeFilter(player=player, side="white").sql()
        assert games_first(conn, start, *few)
        assert not games_first(conn, rare, *few)  # one play: read it
        assert not games_first(conn, start, *TreeFilter().sql())  # every game: the plays
        # the games of the most common ruleset: with or without the shared match files (a clean
        # clone has none), more than the plays from the start are worth
        rules, kept = conn.execute(
            "select rules, count(*) from game_list group by rules order by count(*) desc limit 1"
        ).fetchone()
        assert kept * GAME_COST_IN_PLAYS >= plays  # the archive holds this case too
        assert not games_first(conn, start, *TreeFilter(rules=rules).sql())


def test_the_plays_reaching_a_position_come_in_the_archives_order(archive: Path) -> None:
    """``plays.REACHING`` (the position page's title, its games) and ``plays.STARTING_FROM``,
    against scans of ``turns`` in import order (the game's number), then the ply."""
    order = "order by n.number, t.ply limit ?"
    scan = (
        "select t.game_id, t.ply from turns t join game_numbers n on n.game_id = t.game_id "
        f"where t.key_after = ? {order}"
    )
    starts = (
        "select t.game_id, 0 from turns t join game_numbers n on n.game_id = t.game_id "
        f"where t.key_before = ? and t.ply = 1 {order}"
    )
    with sqlite3.connect(archive) as conn:
        keys = [
            row[0]
            for row in conn.execute(
                "select key_after from plies where key_after is not null "
                "group by key_after order by count(*) desc, key_after"
            )
        ]
        # the start positions, which no play reaches but games start from
        keys += [
            row[0] for row in conn.execute("select distinct key_before from turns where ply = 1")
        ]
        # and a position stored before a play past the first (after a missing play): no start
        later = [row[0] for row in conn.execute("select before from plies where ply > 1")]
        assert [key for key in later if key is not None]
        keys += [key for key in later if key is not None]
        checked = started = 0
        for key in keys[:20] + keys[20::7] + keys[-3:]:
            for most in (1, 5, 1000):
                expected = conn.execute(scan, [key, most]).fetchall()
                assert conn.execute(REACHING, [key, most]).fetchall() == expected, key
                expected = conn.execute(starts, [key, most]).fetchall()
                assert conn.execute(STARTING_FROM, [key, most]).fetchall() == expected, key
                started += len(expected) > 1
            checked += 1
        assert conn.execute(REACHING, ["no such key", 1]).fetchall() == []
    assert checked > 200 and started
