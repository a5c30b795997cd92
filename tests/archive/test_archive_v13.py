"""Schema version 13: a new archive's 8 KiB pages, and ``game_rules`` kept by its triggers
through its own key, without the index on ``game_id`` (docs/archive.md, "Version 13")."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from helpers import one, rows

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive
from jacquet_notation.archive.groups import HOLDING
from jacquet_notation.archive.schema import PAGE_SIZE
from jacquet_notation.archive.stored_steps import steps_sql
from jacquet_notation.archive.stored_written import written_sql
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
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    assert one(db, "SELECT count(*) FROM sqlite_master WHERE name = 'game_rules_game_id'") == 0
    assert _agree(db) == before
    first = _edit_games(db)  # the triggers made again fill the rows as well as clear them
    assert {rules for rules, game in _agree(db) if game == first} == {"spanish"}


#: version 12's plays and notes, ``WITHOUT ROWID`` and keyed (game, ply), as its create_plies
_V12_PLAYS = (
    "CREATE TABLE plies (game INTEGER NOT NULL REFERENCES game_numbers(number), ply INTEGER, "
    "turn INTEGER, side INTEGER, dice INTEGER, written TEXT, steps TEXT, pips INTEGER, "
    "before TEXT, key_after TEXT, counts INTEGER, PRIMARY KEY (game, ply)) WITHOUT ROWID",
    "CREATE TABLE ply_notes (game INTEGER, ply INTEGER, annotation TEXT, nags TEXT, "
    "comment TEXT, error TEXT, opponent_steps TEXT, cube TEXT, PRIMARY KEY (game, ply), "
    "FOREIGN KEY (game, ply) REFERENCES plies(game, ply)) WITHOUT ROWID",
)


#: a play's text as versions 7 to 14 stored it: NULL, empty, or whole (stored_written.py)
_WHOLE_TEXT = (
    "CASE WHEN typeof(written) IN ('integer', 'blob') THEN "
    f"{written_sql('written', 'dice', steps_sql('steps'))} ELSE written END"
)


def _as_version_12_plays(db: Path) -> None:
    """Lay ``plies`` and ``ply_notes`` out again as version 12 stored them."""
    conn = sqlite3.connect(db)
    conn.execute("PRAGMA legacy_alter_table = ON")  # the views read plies still
    conn.execute("ALTER TABLE plies RENAME TO _new_plies")
    conn.execute("ALTER TABLE ply_notes RENAME TO _new_notes")
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '_new_plies' "
        "AND sql IS NOT NULL"
    ).fetchall():
        conn.execute(f"DROP INDEX {name}")
    for sql in _V12_PLAYS:
        conn.execute(sql)
    conn.execute(  # the steps as version 12 stored them, as text, and the texts whole
        f"INSERT INTO plies SELECT game, ply, turn, side, dice, {_WHOLE_TEXT}, "
        f"{steps_sql('steps')}, pips, before, key_after, counts FROM _new_plies ORDER BY id"
    )
    conn.execute("INSERT INTO ply_notes SELECT * FROM _new_notes")
    conn.execute("DROP TABLE _new_notes")
    conn.execute("DROP TABLE _new_plies")
    conn.execute("CREATE INDEX idx_plies_key_after ON plies (key_after)")
    conn.execute("PRAGMA user_version = 12")
    conn.commit()
    conn.close()


@pytest.mark.integration
def test_the_step_from_version_12_keys_the_plays_by_one_integer(tmp_path: Path) -> None:
    db = _archive(tmp_path)
    turns = "SELECT * FROM turns ORDER BY game_id, ply"
    positions = "SELECT * FROM positions ORDER BY key"
    expected = rows(db, turns), rows(db, positions)
    conn = sqlite3.connect(db)
    conn.execute(  # a note, so that ply_notes is carried over too
        "INSERT INTO ply_notes (game, ply, comment) SELECT game, ply, 'kept' FROM plies LIMIT 1"
    )
    conn.commit()
    conn.close()
    expected = rows(db, turns), rows(db, positions)
    assert sum(row[12] == "kept" for row in expected[0]) == 1
    _as_version_12_plays(db)
    assert "id" not in {row[1] for row in rows(db, "PRAGMA table_xinfo(plies)")}
    open_archive(db).close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    assert (rows(db, turns), rows(db, positions)) == expected
    # the play's key is its rowid, game and ply read back from it; the indexes made again
    assert one(db, "SELECT count(*) FROM plies WHERE id != (game << 12) | ply") == 0
    indexes = {
        row[0]
        for row in rows(
            db, "SELECT name FROM sqlite_master WHERE tbl_name = 'plies' AND type = 'index'"
        )
    }
    assert {"idx_plies_key_after", "idx_plies_before", "idx_plies_search_diff"} <= indexes


@pytest.mark.integration
def test_a_play_past_the_4095th_is_not_stored_and_the_next_game_is_whole(
    tmp_path: Path,
) -> None:
    """The key leaves 12 bits to a ply: the writer stores no ply past them rather than one
    under the next game's number."""
    from jacquet_notation.archive.plays import MAX_STORED_PLY, NOTE_INSERT, PLY_INSERT

    assert MAX_STORED_PLY == 4095
    db = _archive(tmp_path)
    conn = sqlite3.connect(db)
    before = conn.execute("SELECT count(*) FROM plies").fetchone()[0]
    conn.execute(PLY_INSERT, (1, 4096, 1, 0, 65, None, "24/18", 6, None, "x" * 14, 0))
    conn.execute(PLY_INSERT, (1, 0, 1, 0, 65, None, "24/18", 6, None, "x" * 14, 0))
    conn.execute(NOTE_INSERT, (1, 4096, None, None, "lost", None, None, None))
    assert conn.execute("SELECT count(*) FROM plies").fetchone()[0] == before
    assert conn.execute("SELECT count(*) FROM ply_notes WHERE comment = 'lost'").fetchone()[0] == 0
    conn.execute(PLY_INSERT, (1, 4095, 1, 0, 65, None, "24/18", 6, None, "y" * 14, 0))
    assert conn.execute(
        "SELECT game, ply FROM plies WHERE key_after = ?", ("y" * 14,)
    ).fetchall() == [(1, 4095)]
    conn.close()


@pytest.mark.integration
@pytest.mark.parametrize("name", ["murray", "versailles"])
def test_steps_are_stored_packed_and_read_back_as_the_replay_spells_them(
    tmp_path: Path, name: str
) -> None:
    from jacquet_notation.archive.stored_steps import spelled_as_parts
    from jacquet_notation.board_terms import move_text
    from jacquet_notation.replay import replay

    assert spelled_as_parts()
    records = list(generate_records(6, 3, Rules.named(name)))
    path = tmp_path / "games.jqt"
    path.write_text("\n".join(write_game(record) for record in records), encoding="utf-8")
    db = tmp_path / "a.db"
    import_paths(db, [str(path)])
    expected = sorted(
        " ".join(move_text(s.start, s.end, s.hit) for s in ply.play.steps)
        for record in records
        for ply in replay(record).plies
        if ply.play is not None
    )
    assert sorted(
        row[0] for row in rows(db, "SELECT steps FROM turns WHERE steps IS NOT NULL")
    ) == (expected)
    assert any("*" in steps for steps in expected) == (name == "murray")  # murray hits
    # packed up to four steps; a Versailles turn of more (the opponent's share) keeps its text
    stored = dict(rows(db, "SELECT typeof(steps), count(*) FROM plies GROUP BY 1"))
    longer = sum(steps.count(" ") >= 4 for steps in expected)
    assert stored["integer"] == len(expected) - longer and stored.get("text", 0) == longer
    assert longer == 0 if name == "murray" else longer > 0


# -- version 14: the key index with the ply ------------------------------------------------------


def _key_index_sql(db: Path) -> str:
    return str(one(db, "SELECT sql FROM sqlite_master WHERE name = 'idx_plies_key_after'"))


@pytest.mark.integration
def test_the_step_from_version_13_indexes_the_key_with_the_ply_and_groups_seek_it(
    tmp_path: Path,
) -> None:
    db = _archive(tmp_path)
    groups = "SELECT game_id, group_id FROM game_groups ORDER BY game_id"
    expected = rows(db, groups), rows(db, "SELECT * FROM turns ORDER BY game_id, ply")
    conn = sqlite3.connect(db)
    conn.execute("DROP INDEX idx_plies_key_after")
    conn.execute("CREATE INDEX idx_plies_key_after ON plies (key_after)")  # version 13's
    conn.execute("PRAGMA user_version = 13")
    conn.commit()
    conn.close()
    open_archive(db).close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    assert _key_index_sql(db).endswith("ON plies (key_after, ply)")
    assert (rows(db, groups), rows(db, "SELECT * FROM turns ORDER BY game_id, ply")) == expected
    # the groups' lookup of the plays reaching a position late enough is one range of it
    plan = rows(db, f"EXPLAIN QUERY PLAN {HOLDING}", 39, "x", 40, 1, "y", 50)
    details = " ".join(str(row[3]) for row in plan)
    assert "idx_plies_key_after (key_after=? AND ply>?)" in details, details
    assert "TEMP B-TREE" not in details  # in the index's order: no sort
