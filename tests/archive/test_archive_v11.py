"""Schema version 11: plays stored once, positions of one game without a row, and the views that
read them back as version 10's tables did."""

from __future__ import annotations

import sqlite3
import zlib
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import as_version_10, check_consistent, dump, one, rows

from jacquet_notation import stored_text
from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive, rebuild
from jacquet_notation.archive.groups import refresh_groups
from jacquet_notation.archive.rows import game_hash
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import read_games, write_game
from jacquet_notation.position import Position
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules

pytestmark = pytest.mark.unit

CORPUS = Path(__file__).parents[2] / "corpus"


def test_an_archive_of_version_10_is_migrated_to_the_same_rows(tmp_path: Path) -> None:
    """Version 10's tables carried into version 11's by SQL read back the same through the views
    (the corpus has passes, missing plays, illegal plays, set positions, shares)."""
    db = tmp_path / "a.db"
    import_paths(db, [str(CORPUS)])
    fresh = dump(db)
    assert fresh["turns"] and fresh["positions"]
    with sqlite3.connect(db) as conn:
        as_version_10(conn)
        # and its texts as version 10 stored them: TEXT, with their canonical text beside
        texts = conn.execute("SELECT rowid, original FROM games").fetchall()
        conn.executemany(
            "UPDATE games SET original = ?, canonical = 'as stored' WHERE rowid = ?",
            [(stored_text.unpack(packed), rowid) for rowid, packed in texts],
        )
    assert one(db, "PRAGMA user_version") == 10
    assert one(db, "SELECT type FROM sqlite_master WHERE name = 'turns'") == "table"
    open_archive(db).conn.close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION >= 11
    assert one(db, "SELECT type FROM sqlite_master WHERE name = 'turns'") == "view"
    migrated = dump(db)
    assert {name: rows for name, rows in migrated.items() if name != "games"} == {
        name: rows for name, rows in fresh.items() if name != "games"
    }
    check_consistent(db)
    # the texts stay as they were until a rebuild packs them: then the archive is a new one's
    assert one(db, "SELECT count(*) FROM games WHERE typeof(original) = 'text'") > 20
    rebuild(db)
    assert one(db, "SELECT count(*) FROM games WHERE typeof(original) = 'text'") == 0
    assert dump(db) == fresh
    check_consistent(db)


def test_a_play_stores_only_what_the_play_before_does_not_say(tmp_path: Path) -> None:
    """A game's first play keeps its position before; the plays after it read theirs off the
    play before (NULL), unless a missing play came between; the text as written is kept only
    where it is not ``dice: steps``."""
    db = tmp_path / "a.db"
    import_paths(db, [str(CORPUS)])
    stored = rows(db, "SELECT before IS NOT NULL, ply = 1 FROM plies")
    firsts = sum(first for _, first in stored)
    assert sum(kept for kept, _ in stored) >= firsts - 5  # a refused [Position] keeps none
    assert sum(kept for kept, first in stored if not first) < len(stored) // 50
    assert one(db, "SELECT count(*) FROM plies WHERE written IS NULL") > len(stored) // 2
    # and every play's position before, read back, is the one its replay made it from (a
    # Versailles tied lead's second play too, whose position before is not the play's after)
    checked = 0
    for path in sorted(CORPUS.rglob("*.jqt")):
        for record in read_games(path):
            if record.errors:
                continue
            game = replay(record)
            befores = rows(
                db,
                "SELECT key_before FROM turns WHERE game_id = ? ORDER BY ply",
                game_hash(write_game(record)),
            )
            expected = []
            for ply in game.plies:
                expected.append(ply.before.key() if ply.before is not None else None)
                if ply.play is None and ply.after is None:
                    break
            assert [key for (key,) in befores][: len(expected)] == expected, path
            checked += 1
    assert checked > 20


def test_every_search_by_a_key_is_an_index_lookup(tmp_path: Path) -> None:
    """The position page, the opening tree, the games through a position and the search by key
    read the views by key: no full scan of the plays or the positions."""
    db = tmp_path / "a.db"
    import_paths(db, [str(CORPUS)])
    for sql in (
        "SELECT * FROM positions WHERE key = ?",
        "SELECT * FROM turns WHERE key_before = ?",
        "SELECT * FROM turns WHERE key_after = ?",
        "SELECT * FROM turns WHERE game_id = ? ORDER BY ply",
        "select 1 from positions where key = ? limit 1",  # position_lookup.stored_key
    ):
        plan = " | ".join(str(step[-1]) for step in rows(db, f"EXPLAIN QUERY PLAN {sql}", "x"))
        scans = [step for step in plan.split(" | ") if step.startswith("SCAN ")]
        # the one scan allowed: of the co-routine's own rows, a view's answer
        assert scans in ([], ["SCAN positions"]), (sql, plan)


def test_a_record_text_is_packed_once_and_read_back_exactly() -> None:
    """Packed with the dictionary (smaller than zlib alone on a record this size), read back
    byte for byte; a text stored before version 11 reads as it is; a damaged or oversized cell
    is an error, never a page's worth of memory."""
    text = sorted(CORPUS.rglob("*.jqt"))[0].read_text(encoding="utf-8")
    packed = stored_text.pack(text)
    assert stored_text.unpack(packed) == text
    assert len(packed) < len(zlib.compress(text.encode("utf-8"), 9))
    assert stored_text.unpack("as stored by version 10") == "as stored by version 10"
    assert stored_text.unpack(None) is None
    for damaged in (b"\x02" + packed[1:], packed[:-3], b"\x01not zlib"):
        with pytest.raises(ValueError, match="not a packed record text"):
            stored_text.unpack(damaged)
    packer = zlib.compressobj(9, zdict=stored_text.dictionary_1())
    bomb = stored_text.PACKED_1 + packer.compress(b"0" * (stored_text.MAX_TEXT + 1))
    bomb += packer.flush()
    with pytest.raises(ValueError, match="too long"):
        stored_text.unpack(bomb)


def test_the_groups_read_the_views_by_index(tmp_path: Path) -> None:
    """``groups.refresh_groups`` (a line by its game and a window of it, read from ``plies`` in
    its key's order; the games through a last position, from the view ``turns``) looks each up
    by an index: every statement it sends is traced and its plan read."""
    long = next(r for r in generate_records(40, 3, Rules.named("backgammon")) if len(r.plays) >= 50)
    tags = {**long.tags, "Event": "Early", "Result": "*"}
    fragment = replace(long, tags=tags, plays=long.plays[:30], result="*")
    path = tmp_path / "g.jqt"
    # the fragment first: its line is looked up among the longer game's plays, then compared
    path.write_text(write_game(fragment) + "\n" + write_game(long), encoding="utf-8")
    db = tmp_path / "a.db"
    import_paths(db, [str(path)])
    assert one(db, "SELECT count(DISTINCT group_id) FROM game_groups") == 1
    sent: list[str] = []
    conn = sqlite3.connect(db)
    conn.set_trace_callback(sent.append)
    with conn:
        refresh_groups(conn)
    conn.set_trace_callback(None)
    reading = [sql for sql in sent if " turns " in sql or " plies " in sql]
    assert any("key_after = " in sql for sql in reading), reading
    assert any("BETWEEN" in sql for sql in reading), reading
    for sql in reading:
        plan = [str(step[-1]) for step in conn.execute(f"EXPLAIN QUERY PLAN {sql}")]
        # the keys of a line given as a JSON list (``groups.HELD``) are read whole: no table
        scans = [s for s in plan if s.startswith("SCAN ") and "VIRTUAL TABLE" not in s]
        assert scans in ([], ["SCAN turns"]), (sql, plan)
    conn.close()
    assert one(db, "SELECT count(DISTINCT group_id) FROM game_groups") == 1


def test_every_position_answers_with_its_counts_as_version_10_did(tmp_path: Path) -> None:
    """``positions`` answers every column for every position, those one game reaches included:
    its turn, pips and men off are the key's, and ``games`` the distinct games through it (a
    play's position before or after), read against a scan of ``turns``; a set start that no play
    reaches answers too."""
    db = tmp_path / "a.db"
    import_paths(db, [str(CORPUS)])
    answered = rows(db, "SELECT * FROM positions")
    assert len({key for key, *_ in answered}) == len(answered)  # a row a position
    through: dict[str, set[str]] = {}
    for game_id, before, after in rows(db, "SELECT game_id, key_before, key_after FROM turns"):
        for key in (before, after):
            if key is not None:
                through.setdefault(key, set()).add(game_id)
    assert {key for key, *_ in answered} == set(through)
    singles = 0
    for key, turn, white_pips, black_pips, white_off, black_off, games in answered:
        position = Position.from_key(key)
        assert (turn, white_pips, black_pips, white_off, black_off) == (
            position.turn,
            position.pips("white"),
            position.pips("black"),
            position.off("white"),
            position.off("black"),
        ), key
        assert games == len(through[key]), key
        singles += games == 1
    assert singles > len(answered) // 2
    # the position a game's [Position] tag sets, reached by no play, has a row of its own
    started = rows(db, "SELECT start_key FROM games WHERE start_key IS NOT NULL")
    assert started
    for (key,) in started:
        assert one(db, "SELECT count(*) FROM positions WHERE key = ?", key) == 1
