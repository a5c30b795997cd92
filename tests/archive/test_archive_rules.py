"""The archive keeps each game's consistent rulesets (schema version 7): ``games``'
``consistent_rules``, the ``game_rules`` rows the games list filters by, on import, on rebuild
and after a migration."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from helpers import as_version_10, one, rows

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive, rebuild
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import read_games, write_game
from jacquet_notation.replay import infer
from jacquet_notation.rules import Rules


def _records(folder: Path) -> Path:
    """Untagged games of jacquet, murray and backgammon, and a record that does not parse."""
    texts = []
    for seed, name in enumerate(("jacquet", "murray", "backgammon")):
        for record in generate_records(2, seed, Rules.named(name)):
            del record.tags["Rules"]
            texts.append(write_game(record))
    texts.append('[Event "broken"]\n\n1. 6-5: 24/ZZ\n')
    path = folder / "games.jqt"
    path.write_text("\n".join(texts), encoding="utf-8")
    return path


def _expected(path: Path) -> dict[int, str | None]:
    return {
        record.index: None if record.errors else " ".join(infer(record).consistent)
        for record in read_games(path)
    }


def test_import_stores_each_games_consistent_rulesets_and_their_rows(tmp_path: Path) -> None:
    path = _records(tmp_path)
    db = tmp_path / "a.db"
    import_paths(db, [str(path)])
    stored = dict(rows(db, "SELECT game_index, consistent_rules FROM games"))
    assert stored == _expected(path)
    assert stored[7] is None  # the record that does not parse
    assert "murray" in (stored[3] or "").split() and "backgammon" in (stored[5] or "").split()
    pairs = set(rows(db, "SELECT rules, game_id FROM game_rules"))
    assert pairs == {
        (name, game_id)
        for game_id, names in rows(db, "SELECT id, consistent_rules FROM games")
        for name in (names or "").split()
    }
    plan = " ".join(
        str(row[-1])
        for row in rows(
            db,
            "EXPLAIN QUERY PLAN SELECT count(*) FROM game_list WHERE id IN "
            "(SELECT game_id FROM game_rules WHERE rules = ?)",
            "murray",
        )
    )
    # one ruleset's games are a range of game_rules' key, not a scan of every game's names
    assert "SEARCH game_rules USING PRIMARY KEY (rules=?)" in plan, plan


def test_rebuild_keeps_them_and_a_version_6_archive_migrates_then_rebuilds(
    tmp_path: Path,
) -> None:
    path = _records(tmp_path)
    db = tmp_path / "a.db"
    import_paths(db, [str(path)])
    before = set(rows(db, "SELECT rules, game_id FROM game_rules"))
    rebuild(db, rules=None)
    assert set(rows(db, "SELECT rules, game_id FROM game_rules")) == before
    # the same archive as version 6 wrote it: no column, no table
    with sqlite3.connect(db) as conn:
        as_version_10(conn)
        for trigger in ("insert", "update", "delete"):
            conn.execute(f"DROP TRIGGER game_rules_{trigger}")
        conn.execute("DROP TABLE game_rules")
        conn.execute("ALTER TABLE games DROP COLUMN consistent_rules")
        conn.execute("PRAGMA user_version = 6")
    conn.close()
    open_archive(db).close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION >= 7
    assert one(db, "SELECT count(*) FROM games WHERE consistent_rules IS NOT NULL") == 0
    assert one(db, "SELECT count(*) FROM game_rules") == 0
    rebuild(db, rules=None)
    assert set(rows(db, "SELECT rules, game_id FROM game_rules")) == before
    stored = dict(rows(db, "SELECT game_index, consistent_rules FROM games"))
    assert stored == _expected(path)
    # a game deleted takes its rows with it
    game_id = one(db, "SELECT id FROM games WHERE consistent_rules != '' LIMIT 1")
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM occurrences WHERE game_id = ?", (game_id,))
        number = " = (SELECT number FROM game_numbers WHERE game_id = ?)"
        for table in ("ply_notes", "plies"):
            conn.execute(f"DELETE FROM {table} WHERE game{number}", (game_id,))
        conn.execute("DELETE FROM game_numbers WHERE game_id = ?", (game_id,))
        conn.execute("DELETE FROM games WHERE id = ?", (game_id,))
    conn.close()
    assert one(db, "SELECT count(*) FROM game_rules WHERE game_id = ?", game_id) == 0
