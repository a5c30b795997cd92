"""The archive keeps matches: the ``matches`` table, cube actions in the turns, the migration to
version 3, the match checks across games, the players' match records (real SQLite files)."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from helpers import SHARED_MAT, as_version_10, one, rows

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive, rebuild

# the shared real match files beside the checkout (../shared/data/backgammon-mat)
SHARED = SHARED_MAT
MATCHES = Path(__file__).resolve().parents[2] / "corpus" / "valid" / "backgammon-mat"
MATCH_FILES = sorted(p for p in MATCHES.iterdir() if p.suffix in (".mat", ".txt"))
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/data/backgammon-mat")

BROKEN_SCORE = """; [Player 1 "anna"]
; [Player 2 "bert"]
; [Crawford "On"]

3 point match

 Game 1
 anna : 0                        bert : 0
  1) 31: 8/5 6/5                  Doubles => 2
  2)  Drops                       Wins 1 point

 Game 2
 anna : 0                        bert : 2
  1) 42: 8/4 6/4                 63: 24/18 13/10
      Wins 1 point
"""


def _import(db: Path, *paths: Path) -> None:
    database = open_archive(db)
    database.conn.close()
    import_paths(str(db), [str(p) for p in paths], rules=None, encoding="utf-8")


@needs_shared
def test_a_real_match_becomes_a_matches_row_with_its_games_in_order(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    file = SHARED / "lasse" / "match2516058.txt"
    _import(db, file)
    [match] = rows(
        db,
        "SELECT match_id, site, white, black, length, crawford, game_count, score_white, "
        "score_black, winner, status, errors FROM matches",
    )
    # the file: 3 point match, lasse v yueda; 1-0, 1-1, then lasse wins 2 (the cube at 2)
    assert match == ("2516058", "BackgammonGalaxy", "lasse", "yueda", 3, 1, 3, 3, 1, "white",
                     "valid", None)  # fmt: skip
    games = json.loads(one(db, "SELECT games FROM matches"))
    in_order = [r[0] for r in rows(db, "SELECT game_id FROM occurrences ORDER BY game_index")]
    assert games == in_order and len(games) == 3
    assert [r[0] for r in rows(db, "SELECT json_extract(tags, '$.Score') FROM games g "
            "JOIN occurrences o ON o.game_id = g.id ORDER BY o.game_index")] == [
        "0-0", "1-0", "1-1"]  # fmt: skip


@needs_shared
def test_cube_actions_are_in_the_turn_rows(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    _import(db, SHARED / "lasse" / "match2516058.txt")
    # game 3: line 46 "Doubles => 2" (yueda, Black), line 47 "Takes" (lasse, White)
    third = one(db, "SELECT game_id FROM occurrences WHERE game_index = 3")
    cube = rows(
        db,
        "SELECT ply, side, written, cube, dice FROM turns WHERE game_id = ? AND cube IS NOT NULL "
        "ORDER BY ply",
        third,
    )
    assert cube == [(3, "black", "Doubles => 2", "double 2", None), (4, "white", "Takes", "take",
                     None)]  # fmt: skip
    assert one(db, "SELECT count(*) FROM turns WHERE cube IS NOT NULL AND dice IS NOT NULL") == 0


def test_a_match_whose_scores_disagree_is_an_invalid_match(tmp_path: Path) -> None:
    source = tmp_path / "m.mat"
    source.write_text(BROKEN_SCORE)
    db = tmp_path / "a.db"
    _import(db, source)
    status, errors = rows(db, "SELECT status, errors FROM matches")[0]
    assert status == "invalid"
    assert [(e["game"], e["kind"]) for e in json.loads(errors)] == [(2, "score")]
    # the game whose score disagrees is invalid, as validate calls it (the match's error is
    # its game's too)
    statuses = (
        "SELECT g.status FROM occurrences o JOIN games g ON g.id = o.game_id ORDER BY o.game_index"
    )
    assert [r[0] for r in rows(db, statuses)] == ["valid", "invalid"]


def test_a_games_cube_errors_are_the_games(tmp_path: Path) -> None:
    source = tmp_path / "m.mat"
    source.write_text(BROKEN_SCORE.replace("Wins 1 point\n\n", "Wins 2 point\n\n", 1))
    db = tmp_path / "a.db"
    _import(db, source)
    [(status, errors)] = rows(db, "SELECT status, errors FROM games WHERE game_index = 1")
    assert status == "invalid" and json.loads(errors)[0]["kind"] == "points"


def test_players_have_match_records(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    _import(db, *MATCH_FILES)
    records = {
        r[0]: r[1:]
        for r in rows(db, "SELECT name, matches, won, lost, unfinished FROM player_matches")
    }
    finished = one(db, "SELECT count(*) FROM matches WHERE winner IS NOT NULL")
    assert finished >= 1
    assert sum(won for _, won, _, _ in records.values()) == finished
    assert sum(lost for _, _, lost, _ in records.values()) == finished
    assert "lasse" in records


def test_an_archive_of_version_3_is_migrated_to_matches(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    _import(db, *MATCH_FILES)
    expected = rows(db, "SELECT * FROM matches ORDER BY id")
    cubes = rows(db, "SELECT game_id, ply, cube FROM turns WHERE cube IS NOT NULL ORDER BY 1, 2")
    assert expected and cubes
    # what version 3 wrote: no matches table, no cube column
    with sqlite3.connect(db) as conn:
        as_version_10(conn)
        conn.execute("DROP VIEW player_matches")
        conn.execute("DROP TABLE matches")
        conn.execute("ALTER TABLE turns DROP COLUMN cube")
        conn.execute("PRAGMA user_version = 3")
    open_archive(db).conn.close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    assert rows(db, "SELECT * FROM matches ORDER BY id") == expected
    assert rows(
        db, "SELECT game_id, ply, cube FROM turns WHERE cube IS NOT NULL ORDER BY 1, 2"
    ) == (cubes)


def test_a_rebuild_derives_the_matches_again(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    _import(db, *MATCH_FILES)
    expected = rows(db, "SELECT import_id, games, score_white, score_black, winner FROM matches")
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM matches")
    rebuild(str(db), rules=None)
    assert rows(db, "SELECT import_id, games, score_white, score_black, winner FROM matches") == (
        expected
    )
