"""Schema version 17: ``game_list`` holds each game's winner and points, which the opening tree
sums through it rather than through the wide ``games`` rows (docs/archive.md, "Version 17")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
import sqlite_utils
from helpers import copy_archive, one, rows

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive
from jacquet_notation.archive.game_list import (
    GAME_LIST_COLUMNS,
    GAME_LIST_TRIGGERS,
    create_game_list_triggers,
)
from jacquet_notation.browse.position_page import plays_sql
from jacquet_notation.browse.tree_filter import TreeFilter
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
MATCHES = ROOT / "tests" / "data" / "mat"

#: a game's copied cells, side by side with the row they copy
_COPIED = (
    "SELECT g.id, g.winner, g.points, l.winner, l.points FROM games g "
    "LEFT JOIN game_list l ON l.id = g.id ORDER BY g.id"
)
_TRIGGERS = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"


def _archive(folder: Path, name: str) -> Path:
    """Self-play games of two rulesets (won by either side, single and double) and match files
    (games won by points, one resigned), imported."""
    texts = [
        write_game(record)
        for seed, ruleset in enumerate(("jacquet", "backgammon"))
        for record in generate_records(6, seed, Rules.named(ruleset))
    ]
    games = folder / "games.jqt"
    games.write_text("\n".join(texts), encoding="utf-8")
    db = folder / name
    import_paths(db, [str(games), *map(str, sorted(MATCHES.glob("*.mat")))])
    return db


def _as_version_16(db: Path) -> None:
    """``game_list`` laid out as version 16 made it: without the two columns, its triggers
    copying the others."""
    older = GAME_LIST_COLUMNS[: GAME_LIST_COLUMNS.index("winner")]
    database = sqlite_utils.Database(db)
    with database.conn:
        for trigger in GAME_LIST_TRIGGERS:
            database.execute(f"DROP TRIGGER {trigger}")
        database.execute("ALTER TABLE game_list DROP COLUMN points")
        database.execute("ALTER TABLE game_list DROP COLUMN winner")
        create_game_list_triggers(database, older)
        database.execute("PRAGMA user_version = 16")
    database.close()


def _copies_every_change(db: Path) -> None:
    """A game's winner and points changed in ``games`` are changed in ``game_list``."""
    game = one(db, "SELECT id FROM games WHERE winner IS NOT NULL ORDER BY id LIMIT 1")
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET winner = 'black', points = 7 WHERE id = ?", [game])
    conn.close()
    assert rows(db, "SELECT winner, points FROM game_list WHERE id = ?", game) == [("black", 7)]


def test_a_new_archive_lists_each_games_winner_and_points(tmp_path: Path) -> None:
    db = _archive(tmp_path, "a.db")
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION >= 17
    assert [row[1] for row in rows(db, "PRAGMA table_info(game_list)")] == list(GAME_LIST_COLUMNS)
    copied = rows(db, _COPIED)
    assert copied and all(row[1:3] == row[3:5] for row in copied)
    # the archive holds games won by either side and by several points, and a game unfinished
    assert {row[1] for row in copied} >= {"white", "black"}
    assert len({row[2] for row in copied}) >= 3
    _copies_every_change(db)


@pytest.mark.integration
def test_the_step_from_version_16_lists_them_as_a_new_archive_does(tmp_path: Path) -> None:
    new = _archive(tmp_path, "new.db")
    old = tmp_path / "old.db"
    copy_archive(new, old)
    _as_version_16(old)
    assert "winner" not in {row[1] for row in rows(old, "PRAGMA table_info(game_list)")}
    assert all("winner" not in sql for _, sql in rows(old, _TRIGGERS))
    open_archive(old).close()
    assert one(old, "PRAGMA user_version") == SCHEMA_VERSION
    info = "PRAGMA table_info(game_list)"
    assert rows(old, info) == rows(new, info)
    assert rows(old, "SELECT * FROM game_list ORDER BY id") == rows(
        new, "SELECT * FROM game_list ORDER BY id"
    )
    assert rows(old, _TRIGGERS) == rows(new, _TRIGGERS)
    assert one(old, "PRAGMA integrity_check") == "ok"
    _copies_every_change(old)


@pytest.mark.parametrize(
    ("narrowed", "games_first"),
    [
        (None, False),
        (TreeFilter(rules="backgammon"), False),
        (TreeFilter(rules="backgammon"), True),
    ],
)
def test_the_tree_reads_the_list_not_the_games_rows(
    tmp_path: Path, narrowed: TreeFilter | None, games_first: bool
) -> None:
    db = _archive(tmp_path, "a.db")
    conditions, arguments = (narrowed or TreeFilter()).sql()
    start = one(
        db,
        "SELECT t.key_before FROM turns t JOIN games g ON g.id = t.game_id "
        "WHERE t.ply = 1 AND g.rules = 'backgammon' LIMIT 1",
    )
    statement = plays_sql(conditions, games_first)
    plan = rows(db, "EXPLAIN QUERY PLAN " + statement, start, *arguments)
    read = " / ".join(row[3] for row in plan)
    indexes = "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ?"
    assert any(f"INDEX {name} " in read for (name,) in rows(db, indexes, "game_list")), read
    assert not any(f"INDEX {name} " in read for (name,) in rows(db, indexes, "games")), read
    plays = rows(db, statement, start, *arguments)
    assert plays and sum(row[3] for row in plays) > 1
