"""The world's match files read as gnubg reads them (docs/notation.md, "Match files"), and the
match checks (docs/rules.md, "Matches") made alike by validate and the archive.

Every fixture is a small file written here in its program's layout (``tests/data/mat/``), never
a real file; where gnubg's Python package is installed, its import of each fixture is compared
with ours too (``scripts/compare_gnubg.py`` holds the comparison)."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from jacquet_notation.notation import read_games
from jacquet_notation.replay import ReplayedGame, replay
from jacquet_notation.validation import GameReport, validate_paths

ROOT = Path(__file__).resolve().parents[1]
DATA = Path(__file__).resolve().parent / "data" / "mat"
HAS_GNUBG = importlib.util.find_spec("gnubg") is not None


def _jacquet(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jacquet_notation", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def _reports(path: Path) -> list[GameReport]:
    return list(validate_paths([str(path)]))


def _kinds(path: Path) -> list[list[str]]:
    return [[d["kind"] for d in r.details] for r in _reports(path)]


def _replayed(path: Path) -> list[ReplayedGame]:
    with open(path, "rb") as stream:
        return [replay(record) for record in read_games(stream, str(path))]


def _compare() -> ModuleType:
    script = ROOT / "scripts" / "compare_gnubg.py"
    spec = importlib.util.spec_from_file_location("compare_gnubg", script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _as_gnubg_reads(path: Path) -> None:
    """gnubg's import of ``path`` and ours: the same games, the same rolls played the same way
    from the same positions (skipped without gnubg)."""
    if not HAS_GNUBG:
        pytest.skip("gnubg's Python package is not installed")
    compare = _compare()
    theirs, _ = compare.gnubg_import(path)
    ours = [game for game in _replayed(path) if not game.record.errors]
    assert len(theirs) == len(ours)
    for game, their_game in zip(ours, theirs, strict=True):
        found = compare.gnubg_rolls(their_game, {"X": "white", "O": "black"})
        assert compare.our_rolls(game) == found


# -- the match checks: validate and the archive alike -------------------------------------------


def _archive_statuses(db: Path) -> tuple[list[str], list[str]]:
    with sqlite3.connect(db) as conn:
        games = [
            row[0]
            for row in conn.execute(
                "SELECT g.status FROM occurrences o JOIN games g ON g.id = o.game_id "
                "ORDER BY o.game_index"
            )
        ]
        matches = [row[0] for row in conn.execute("SELECT status FROM matches")]
    return games, matches


@pytest.mark.parametrize(
    ("name", "kind"), [("crawford-double.mat", "crawford"), ("score-mismatch.mat", "score")]
)
def test_the_archive_runs_the_match_checks_validate_runs(
    tmp_path: Path, name: str, kind: str
) -> None:
    path = DATA / name
    validated = _jacquet("validate", "--json", str(path))
    reports = [json.loads(line) for line in validated.stdout.splitlines() if line.startswith("{")]
    statuses = [report["status"] for report in reports]
    assert statuses[-1] == "invalid" and validated.returncode == 1
    assert kind in [error["kind"] for error in reports[-1]["errors"]]
    db = tmp_path / "a.db"
    archived = _jacquet("archive", str(db), str(path))
    assert archived.returncode == validated.returncode, archived.stdout + archived.stderr
    games, matches = _archive_statuses(db)
    assert games == statuses
    assert matches == ["invalid"]
    # the archive's error is validate's, word for word (its line, column and message)
    assert reports[-1]["errors"][-1]["message"] in archived.stdout
    # a rebuild derives the same statuses again
    assert _jacquet("archive", str(db), "--rebuild").returncode == 1
    assert _archive_statuses(db)[0] == statuses


def test_a_first_score_beyond_the_match_length_is_refused() -> None:
    # gnubg skips such a game as "already over"; exit 0 would hide the contradiction
    [report] = _reports(DATA / "score-beyond-length.mat")
    assert [(d["kind"], d["line"]) for d in report.details] == [("score", 9)]
    assert "the match is to 3 points" in report.errors[0]


def test_game_numbers_out_of_order_are_an_error() -> None:
    assert _kinds(DATA / "games-out-of-order.mat") == [[], ["game-order"]]


def test_the_crawford_game_is_unknown_after_an_unreadable_game() -> None:
    # game 2 (anna at 2 of 3: the Crawford game) cannot be read; game 3's double is allowed
    reports = _reports(DATA / "crawford-unreadable.mat")
    assert [r.status for r in reports] == ["valid", "unreadable", "valid"], reports[2].errors


def test_a_resignation_beyond_a_backgammon_is_an_error_even_to_win_the_match(
    tmp_path: Path,
) -> None:
    # 9 points with the cube at 2: a resignation states at most 6 (gnubg caps it silently)
    [report] = _reports(DATA / "resign-beyond-cube.mat")
    assert [d["kind"] for d in report.details] == ["points"]
    text = (DATA / "resign-beyond-cube.mat").read_text()
    for points, status in (("6 points", "valid"), ("3 points", "valid"), ("1004 point", "invalid")):
        path = tmp_path / "m.mat"
        path.write_text(text.replace("9 points", points))
        assert [r.status for r in _reports(path)] == [status]
    # the match given up (Galaxy): exactly what the winner needed, beyond a backgammon
    five = text.replace("3 point match", "9 point match")
    for points, status in (("9 points", "valid"), ("8 points", "invalid")):
        path.write_text(five.replace("9 points", points))
        assert [r.status for r in _reports(path)] == [status]
