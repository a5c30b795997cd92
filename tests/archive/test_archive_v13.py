"""Schema version 13: a new archive's 8 KiB pages, and ``game_rules`` kept by its triggers
through its own key, without the index on ``game_id`` (docs/archive.md, "Version 13")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import one, rows

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive
from jacquet_notation.archive.schema import PAGE_SIZE
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import Rules

#: every game's rulesets as ``games`` says, split, against the rows of ``game_rules``
_SPLIT = (
    "SELECT j.value, g.id FROM games g, json_each('[\"' || replace(g.consistent_rules, ' ', "
    "'\",\"') || '\"]') j WHERE coalesce(g.consistent_rules, '') != ''"
)


def _archive(folder: Path) -> Path:
    texts = [
        write_game(record)
        for seed, name in enumerate(("jacquet", "backgammon"))
        for record in generate_records(3, seed, Rules.named(name))
    ]
    path = folder / "games.jqt"
    path.write_text("\n".join(texts), encoding="utf-8")
    db = folder / "a.db"
    import_paths(db, [str(path)])
    return db


def _agree(db: Path) -> set[tuple[str, str]]:
    stored = set(rows(db, "SELECT rules, game_id FROM game_rules"))
    assert stored == set(rows(db, _SPLIT))
    return stored


def _edit_games(db: Path) -> str:
    """An update, a delete and a re-insert of a game (INSERT OR REPLACE) under other rulesets."""
    conn = sqlite3.connect(db)
    first, second, third = (row[0] for row in conn.execute("SELECT id FROM games LIMIT 3"))
    conn.execute("UPDATE games SET consistent_rules = 'spanish' WHERE id = ?", (first,))
    conn.execute("DELETE FROM games WHERE id = ?", (second,))
    conn.execute(
        "INSERT OR REPLACE INTO games SELECT * FROM games WHERE id = ?", (third,)
    )  # the same row again: its rulesets once, not twice nor none
    conn.execute("UPDATE games SET consistent_rules = '' WHERE id = ?", (third,))
    conn.execute("INSERT OR REPLACE INTO games SELECT * FROM games WHERE id = ?", (first,))
    conn.commit()
    conn.close()
    return str(first)


@pytest.mark.integration
def test_a_new_archive_has_8_kib_pages_and_game_rules_no_second_index(tmp_path: Path) -> None:
    db = _archive(tmp_path)
    assert one(db, "PRAGMA page_size") == PAGE_SIZE == 8192
    assert (
        rows(db, "SELECT name FROM sqlite_master WHERE tbl_name = 'game_rules' AND type = 'index'")
        == []
    )
    before = _agree(db)
    assert before
    first = _edit_games(db)
    after = _agree(db)
    assert {rules for rules, game in after if game == first} == {"spanish"}
    assert after != before
    # a game's rows are cleared through the key, not by a scan of every game's
    conn = sqlite3.connect(db)
    plan = conn.execute(
        "EXPLAIN QUERY PLAN DELETE FROM game_rules WHERE game_id = 'x' AND rules IN "
        "(SELECT value FROM json_each('[\"jacquet\"]'))"
    ).fetchall()
    conn.close()
    assert any("USING PRIMARY KEY (rules=? AND game_id=?)" in row[3] for row in plan), plan


@pytest.mark.integration
def test_the_step_from_version_12_drops_the_index_and_keeps_the_rows(tmp_path: Path) -> None:
    db = _archive(tmp_path)
    before = _agree(db)
    conn = sqlite3.connect(db)
    # version 12's index and triggers, which cleared a game's rows by game_id alone
    conn.execute("CREATE INDEX game_rules_game_id ON game_rules (game_id)")
    for event in ("insert", "update", "delete"):
        conn.execute(f"DROP TRIGGER game_rules_{event}")
        old = "new.id" if event == "insert" else "old.id"
        conn.execute(
            f"CREATE TRIGGER game_rules_{event} AFTER {event.upper()} ON games BEGIN "
            f"DELETE FROM game_rules WHERE game_id = {old}; END"
        )
    conn.execute("PRAGMA user_version = 12")
    conn.commit()
    conn.close()
    open_archive(db).close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION == 13
    assert one(db, "SELECT count(*) FROM sqlite_master WHERE name = 'game_rules_game_id'") == 0
    assert _agree(db) == before
    first = _edit_games(db)  # the triggers made again fill the rows as well as clear them
    assert {rules for rules, game in _agree(db) if game == first} == {"spanish"}
