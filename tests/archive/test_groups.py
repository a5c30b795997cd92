"""One game, many books (docs/archive.md, ``game_groups``): a game printed again under other
tags, printed with a misprint, a fragment from a set position, a record that stops early, all
found as one group on import in either order, a game of its own left out; a row a game."""

from __future__ import annotations

import sqlite3
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from helpers import SHARED_MAT, as_version_10, one, rows

from jacquet_notation.archive import SCHEMA_VERSION, groups, import_paths, open_archive, rebuild
from jacquet_notation.archive.groups import refresh_groups
from jacquet_notation.archive.plays import GAME_LINE
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, read_games, write_game
from jacquet_notation.record import GameRecord, Move
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules

#: a real 13-point match of the shared files (Backgammon Studio's export)
REAL_MATCH = (
    SHARED_MAT / "Llabba" / "Llabba - Iandaurca 13pt Backgammon Studio 2023_03_24 12_56_54.txt"
)


def _long_game(seed: int) -> GameRecord:
    for record in generate_records(50, seed, Rules.named("backgammon")):
        if len(record.plays) >= 60:
            return parse_game(write_game(record))
    raise AssertionError("no long game")


def _printings(game: GameRecord) -> dict[str, GameRecord]:
    """The game, and four other printings of it, each tagged with its book."""
    played = replay(game)
    plays = game.plays
    misprint = list(plays)
    move = plays[30].moves[0]
    misprint[30] = replace(plays[30], moves=(Move(move.start, 0, 1), *plays[30].moves[1:]))
    start = played.plies[20].before
    fragment_tags = {**game.tags, "Event": "Fragment", "Position": start.key(), "Result": "*"}
    return {
        "game": game,
        "again": replace(game, tags={**game.tags, "Event": "Reprinted", "Date": "1901.??.??"}),
        "misprint": replace(game, tags={**game.tags, "Event": "Misprint"}, plays=misprint),
        "fragment": replace(game, tags=fragment_tags, plays=plays[20:45], result="*"),
        "early": replace(
            game, tags={**game.tags, "Event": "Early", "Result": "*"}, plays=plays[:25], result="*"
        ),
    }


def _write(path: Path, records: list[GameRecord]) -> str:
    path.write_text("\n".join(write_game(r) for r in records), encoding="utf-8")
    return str(path)


def _groups(db: Path) -> dict[str, set[str]]:
    """Each group as the events of its games."""
    found: dict[str, set[str]] = {}
    for group, event in rows(
        db, "SELECT gg.group_id, g.event FROM game_groups gg JOIN games g ON g.id = gg.game_id"
    ):
        found.setdefault(group, set()).add(event)
    return found


@pytest.mark.parametrize("longest_first", [True, False])
def test_the_printings_of_one_game_are_one_group_in_either_order(
    tmp_path: Path, longest_first: bool
) -> None:
    printed = _printings(_long_game(2))
    assert not replay(printed["misprint"]).is_valid and replay(printed["fragment"]).is_valid
    other = _long_game(9)
    longer = _write(tmp_path / "long.jqt", [printed["game"], printed["again"], other])
    shorter = _write(
        tmp_path / "short.jqt", [printed["misprint"], printed["fragment"], printed["early"]]
    )
    db = tmp_path / "a.db"
    import_paths(db, [longer, shorter] if longest_first else [shorter, longer])
    events = {"Self-play, seed 2", "Reprinted", "Misprint", "Fragment", "Early"}
    assert list(_groups(db).values()) == [events]
    # a row a game in a group, none for the game alone; the group named by its earliest game
    assert one(db, "SELECT count(*) FROM game_groups") == 5
    first = one(
        db,
        "SELECT game_id FROM game_groups gg JOIN games g ON g.id = gg.game_id "
        "ORDER BY g.rowid LIMIT 1",
    )
    assert set(_groups(db)) == {first}
    # a rebuild finds them again from nothing
    rebuild(db)
    assert list(_groups(db).values()) == [events]


def test_a_game_imported_after_its_fragments_finds_them(tmp_path: Path) -> None:
    """The longer game comes in a later import: it finds the shorter lines it holds through
    their last positions (``_held``), a fragment from ply 21 as well as a record that stops."""
    printed = _printings(_long_game(2))
    db = tmp_path / "a.db"
    import_paths(db, [_write(tmp_path / "short.jqt", [printed["fragment"], printed["early"]])])
    assert one(db, "SELECT count(*) FROM game_groups") == 0
    import_paths(db, [_write(tmp_path / "long.jqt", [printed["game"], _long_game(9)])])
    assert list(_groups(db).values()) == [{"Self-play, seed 2", "Fragment", "Early"}]


def test_a_short_record_of_a_common_opening_joins_no_group(tmp_path: Path) -> None:
    game = _long_game(2)
    short = replace(game, tags={**game.tags, "Event": "Short"}, plays=game.plays[:6], result="*")
    db = tmp_path / "a.db"
    import_paths(db, [_write(tmp_path / "g.jqt", [game, short])])
    assert one(db, "SELECT count(*) FROM game_groups") == 0


def test_an_archive_of_version_6_is_migrated_to_groups(tmp_path: Path) -> None:
    printed = _printings(_long_game(2))
    db = tmp_path / "a.db"
    import_paths(db, [_write(tmp_path / "g.jqt", [printed["game"], printed["fragment"]])])
    with sqlite3.connect(db) as conn:  # what version 6 wrote: no groups, no final_key index
        as_version_10(conn)
        conn.execute("DROP TABLE game_groups")
        conn.execute("DROP INDEX idx_games_final_key")
        conn.execute("PRAGMA user_version = 6")
    open_archive(db).conn.close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    assert list(_groups(db).values()) == [{"Self-play, seed 2", "Fragment"}]


@pytest.mark.skipif(not REAL_MATCH.is_file(), reason="no shared/data/backgammon-mat")
def test_a_real_game_reprinted_misprinted_and_cut_is_one_group(tmp_path: Path) -> None:
    games = list(read_games(REAL_MATCH))
    game = max(games, key=lambda record: len(record.plays))
    assert len(game.plays) >= 40
    printed = _printings(game)
    books = [printed[name] for name in ("again", "misprint", "fragment", "early")]
    db = tmp_path / "a.db"
    import_paths(db, [str(REAL_MATCH), _write(tmp_path / "books.jqt", books)])
    groups = list(_groups(db).values())
    assert len(groups) == 1 and {"Reprinted", "Misprint", "Fragment", "Early"} < groups[0]
    # the match's other games are printings of nothing: the group is the game and its books
    assert one(db, "SELECT count(*) FROM game_groups") == 5


def _whole_window(
    conn: Any, game_id: str, first: int, last: int, line: list[Any], kept: Any = None
) -> bool:
    """The reference for ``groups._holds``: the candidate's whole window read, then compared
    (its line kept by the refresh, ``kept``, not used)."""
    query = GAME_LINE.format(plies=" AND p.ply BETWEEN ? AND ?")
    return [tuple(ply) for ply in conn.execute(query, (game_id, first, last))] == line


def _any_window(line: list[Any], dice: str | None, after: str | None) -> bool:
    """The reference for ``groups._may_hold``: no candidate left out by its first ply."""
    return True


def _any_stretch(starts: Any, ends: Any, first: Any) -> bool:
    """The reference for ``groups._may_be_held``: no candidate left out by its first ply."""
    return True


@pytest.mark.slow
def test_a_window_read_until_it_differs_finds_the_groups_a_whole_one_finds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    printed = _printings(_long_game(5))
    whole = [printed[name] for name in ("game", "again", "misprint")]
    files = [_write(tmp_path / "books.jqt", whole)]
    more = list(generate_records(30, 9, Rules.named("jacquet")))
    files.append(_write(tmp_path / "more.jqt", more))
    if SHARED_MAT.is_dir():
        files += [str(path) for path in sorted(SHARED_MAT.rglob("*.txt"))[::25]]
    db = tmp_path / "a.db"
    import_paths(db, files)
    # the lines held by the games before: found through their last positions (``_holds``)
    import_paths(db, [_write(tmp_path / "parts.jqt", [printed["fragment"], printed["early"]])])
    last = one(db, "SELECT max(id) FROM imports")
    found = []
    # each candidate's first ply weighed first (``_may_hold``, ``_may_be_held``), and every
    # candidate read whole
    for reading, weighed, held in (
        (groups._holds, groups._may_hold, groups._may_be_held),
        (_whole_window, _any_window, _any_stretch),
    ):
        monkeypatch.setattr(groups, "_holds", reading)
        monkeypatch.setattr(groups, "_may_hold", weighed)
        monkeypatch.setattr(groups, "_may_be_held", held)
        conn = sqlite3.connect(db)
        with conn:
            conn.execute("DELETE FROM game_groups")
            refresh_groups(conn, last)
        found.append(conn.execute("SELECT * FROM game_groups ORDER BY game_id").fetchall())
        with conn:  # every game from nothing: the longer games meet the shorter ones held
            refresh_groups(conn)
        found.append(conn.execute("SELECT * FROM game_groups ORDER BY game_id").fetchall())
        conn.close()
    assert found[:2] == found[2:] and len(found[0]) >= 3 and len(found[1]) >= 5


@pytest.mark.integration
def test_the_games_ending_at_a_position_are_the_earliest_few_read_from_the_index(
    tmp_path: Path,
) -> None:
    """``groups.HELD``: for each key, the earliest games ending there, outside the group and
    not the game itself, at most the limit; one range of the final-key index that stops at the
    limit, where a numbering window read every game ending there (checked against a scan)."""
    db = tmp_path / "archive.db"
    records = list(generate_records(12, 5, Rules.named("jacquet")))
    path = tmp_path / "games.jqt"
    path.write_text("\n\n".join(write_game(record) for record in records) + "\n", "utf-8")
    import_paths(db, [str(path)])
    ids = [row[0] for row in rows(db, "SELECT id FROM games ORDER BY rowid")]
    with sqlite3.connect(db) as conn:  # eight games end at K, four at L; two in a group
        conn.executemany(
            "UPDATE games SET final_key = ? WHERE id = ?",
            [("K" if n % 3 else "L", game) for n, game in enumerate(ids)],
        )
        conn.execute("DELETE FROM game_groups")
        conn.executemany(
            "INSERT INTO game_groups (game_id, group_id) VALUES (?, ?)",
            [(ids[1], ids[1]), (ids[2], ids[1])],
        )
    ends = dict(rows(db, "SELECT id, final_key FROM games"))
    for game, limit in [(ids[1], 3), (ids[4], 2), (ids[0], 50)]:
        found = [row[:2] for row in rows(db, groups.HELD, '["K", "L", "M"]', ids[1], game, limit)]
        outside = [g for g in ids if g != game and g not in (ids[1], ids[2])]
        expected = [
            (g, key) for key in "KL" for g in [g for g in outside if ends[g] == key][:limit]
        ]
        assert sorted(found) == sorted(expected)
    plan = " ".join(
        str(row[3]) for row in rows(db, f"EXPLAIN QUERY PLAN {groups.HELD}", "[]", "x", "y", 3)
    )
    assert "idx_games_final_key (final_key=?)" in plan, plan
    assert "CO-ROUTINE" not in plan  # no window over every game ending at a key
