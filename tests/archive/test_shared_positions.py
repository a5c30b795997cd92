"""Each file's import counts the games through its positions onto the counts before it
(``shared_positions.share_positions``): the counts must be those of every game, as counting
afresh gives.

An import of many small files (a club's match files) is where the two could part: the
positions every game passes (the start, the common openings) are counted once a file, and a
position one earlier game reached has no row until a later file reaches it too.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from pathlib import Path

from helpers import ROOT, SHARED_MAT, check_consistent, generated

from jacquet_notation.archive import import_paths
from jacquet_notation.notation import write_game


def _expected(db: Path) -> dict[str, int]:
    """shared_positions' rows as docs/archive.md defines them, counted in Python from the plays:
    a position several games reach, with their number, and one that a single game reaches only
    as a play's position before (a set start, after a missing play), with 1."""
    games_at: dict[str, set[str]] = defaultdict(set)
    played_to: set[str] = set()
    conn = sqlite3.connect(db)
    for game, before, after in conn.execute("SELECT game_id, key_before, key_after FROM turns"):
        if before is not None:
            games_at[before].add(game)
        if after is not None:
            games_at[after].add(game)
            played_to.add(after)
    conn.close()
    return {
        key: len(games) for key, games in games_at.items() if len(games) > 1 or key not in played_to
    }


def _stored(db: Path) -> dict[str, int]:
    conn = sqlite3.connect(db)
    found = dict(conn.execute("SELECT key, games FROM shared_positions"))
    conn.close()
    return found


def test_positions_counted_file_by_file_are_counted_as_afresh(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    # two games a file: every file passes the start and the commonest openings again
    records = generated(24, seed=5)
    small = []
    for number in range(0, len(records), 2):
        path = folder / f"part-{number:02d}.jqt"
        path.write_text("\n\n".join(write_game(r) for r in records[number : number + 2]) + "\n")
        small.append(path)
    # set starts, missing plays, Versailles and backgammon records of the corpus
    corpus = sorted((ROOT / "corpus").rglob("*.jqt"))
    matches = sorted(SHARED_MAT.rglob("*.txt"))[:20] if SHARED_MAT.is_dir() else []
    db = tmp_path / "archive.db"
    import_paths(db, [str(path) for path in small[:3]])  # one import, then others after it
    import_paths(db, [str(path) for path in small[3:]])
    import_paths(db, [str(path) for path in corpus])  # still a transaction a file
    import_paths(db, [str(path) for path in matches])
    expected = _expected(db)
    assert sum(games > 1 for games in expected.values()) > 50  # shared positions were counted
    assert _stored(db) == expected
    check_consistent(db)


def test_a_file_reaching_a_position_one_earlier_game_reached_gives_it_a_row(
    tmp_path: Path,
) -> None:
    # the same game twice, under other players: every position it reaches is reached by two
    game = generated(1, seed=11)[0]
    first, second = tmp_path / "first.jqt", tmp_path / "second.jqt"
    first.write_text(write_game(game) + "\n")
    game.tags["White"] = "Someone Else"
    second.write_text(write_game(game) + "\n")
    db = tmp_path / "archive.db"
    import_paths(db, [str(first)])
    alone = _stored(db)
    import_paths(db, [str(second)])
    stored = _stored(db)
    assert stored == _expected(db)
    after = {key for key, games in stored.items() if games == 2}
    assert len(after) > len(alone) + 10  # the positions of the one game now have rows
