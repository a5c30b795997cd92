"""The archive keeps what an analyser wrote: the ``decisions`` table, the games' format and
analyser, kept by a rebuild and added by the migration to version 7 (real SQLite files, an
``.xg`` file written by ``xg_files`` with losses and luck chosen by hand)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import xg_files as xg
from helpers import as_version_10, one, rows

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive, rebuild

JQT = '[White "Ann"]\n[Black "Ben"]\n\n1. 6-5: 24/18 18/13\n'
MAT = " 1 point match\n\n Game 1\n anna : 0      bert : 0\n  1) 31: 8/5 6/5\n"

#: the decisions of game 1 as the file gives them: (ply, number, side, kind, chosen, loss,
#: luck), read off xg_files.ANALYSED_PLAYS and ANALYSED_CUBES by hand
GAME_1 = [
    (1, 0, "white", "move", 1, 0.11, 0.2),
    (2, 0, "black", "move", 1, 0.03, -0.1),
    (3, 0, "white", "cube", 1, 0.02, None),  # no double, before White's roll
    (3, 1, "white", "move", 1, 0.15, 0.05),
    (4, 0, "black", "move", 0, 0.0, 0.3),  # forced: one option
    (5, 0, "white", "cube", 1, 0.0, None),  # the double
    (6, 0, "black", "cube", 0, 0.05, None),  # the drop
]


def _archive(tmp_path: Path) -> Path:
    db = tmp_path / "a.db"
    (tmp_path / "m.xg").write_bytes(xg.analysed_match())
    (tmp_path / "g.jqt").write_text(JQT)
    (tmp_path / "g.mat").write_text(MAT)
    open_archive(db).conn.close()
    paths = [str(tmp_path / name) for name in ("m.xg", "g.jqt", "g.mat")]
    import_paths(str(db), paths, rules=None, encoding="utf-8")
    return db


def _decisions(db: Path, game: str) -> list[tuple[object, ...]]:
    return rows(
        db,
        "SELECT ply, number, side, kind, chosen, round(loss, 6), round(luck, 6) FROM decisions "
        "WHERE game_id = (SELECT id FROM games WHERE file LIKE '%m.xg' AND game_index = ?) "
        "ORDER BY ply, number",
        game,
    )


def test_an_xg_files_decisions_are_rows_with_their_options(tmp_path: Path) -> None:
    db = _archive(tmp_path)
    assert _decisions(db, "1") == GAME_1
    assert _decisions(db, "2") == [
        (1, 0, "black", "move", 1, 0.04, 0.3),
        (2, 0, "white", "move", 0, 0.0, -0.15),
    ]
    options = json.loads(one(db, "SELECT options FROM decisions WHERE ply = 3 AND number = 1"))
    assert options == [["24/18 18/14", 0.25], ["24/18 13/9", 0.1]]
    cube = json.loads(one(db, "SELECT options FROM decisions WHERE ply = 6"))
    assert cube == [["pass", -1.0], ["take", -1.25]]
    assert rows(db, "SELECT DISTINCT level FROM decisions") == [("4-ply",)]
    formats = rows(
        db,
        "SELECT substr(file, -5), format, analyser, analyser_settings, analyser_units "
        "FROM games ORDER BY file, game_index",
    )
    assert formats == [
        ("g.jqt", "jacquet", None, None, None),
        ("g.mat", "mat", None, None, None),
        ("/m.xg", "xg", "eXtreme Gammon", "4-ply", "equity"),
        ("/m.xg", "xg", "eXtreme Gammon", "4-ply", "equity"),
    ]


def test_a_rebuild_keeps_the_analysis_and_the_format(tmp_path: Path) -> None:
    db = _archive(tmp_path)
    before = rows(db, "SELECT * FROM decisions ORDER BY 1, 2, 3")
    games = "SELECT id, format, analyser, analyser_settings FROM games ORDER BY id"
    columns = rows(db, games)
    assert len(before) == 9
    rebuild(db)
    assert rows(db, "SELECT * FROM decisions ORDER BY 1, 2, 3") == before
    assert rows(db, games) == columns


def test_decisions_follow_a_game_whose_id_a_rebuild_changes(tmp_path: Path) -> None:
    db = _archive(tmp_path)
    real = one(db, "SELECT id FROM games WHERE file LIKE '%m.xg' AND game_index = 1")
    with sqlite3.connect(db) as conn:  # as if an older reader had given the game another id
        conn.execute("PRAGMA foreign_keys = OFF")
        for table, column in (
            ("games", "id"),
            ("game_numbers", "game_id"),
            ("occurrences", "game_id"),
        ):
            conn.execute(f"UPDATE {table} SET {column} = 'old' WHERE {column} = ?", (real,))
        conn.execute("UPDATE decisions SET game_id = 'old' WHERE game_id = ?", (real,))
    rebuild(db)
    assert one(db, "SELECT count(*) FROM decisions WHERE game_id = 'old'") == 0
    assert _decisions(db, "1") == GAME_1
    assert one(db, "SELECT format FROM games WHERE id = ?", real) == "xg"


def test_an_archive_of_version_6_gains_the_decisions_table(tmp_path: Path) -> None:
    db = _archive(tmp_path)
    with sqlite3.connect(db) as conn:  # what version 6 wrote
        as_version_10(conn)
        conn.execute("DROP TABLE decisions")
        for column in ("format", "analyser", "analyser_settings", "analyser_units"):
            conn.execute(f"ALTER TABLE games DROP COLUMN {column}")
        conn.execute("PRAGMA user_version = 6")
    open_archive(db).conn.close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    assert one(db, "SELECT count(*) FROM decisions") == 0
    assert rows(db, "SELECT DISTINCT format, analyser FROM games") == [(None, None)]
    # a file imported now keeps its analysis
    (tmp_path / "n.xg").write_bytes(xg.analysed_match("Carl", "Dora"))
    import_paths(str(db), [str(tmp_path / "n.xg")], rules=None, encoding="utf-8")
    assert one(db, "SELECT count(*) FROM decisions") == 9
