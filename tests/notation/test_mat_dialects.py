"""The world's match files read as gnubg reads them (docs/notation.md, "Match files"), and the
match checks (docs/rules.md, "Matches") made alike by validate and the archive.

Every fixture is a small file written here in its program's layout (``tests/data/mat/``), never
a real file; where gnubg's Python package is installed, its import of each fixture is compared
with ours too (``scripts/compare_gnubg.py`` holds the comparison)."""

from __future__ import annotations

import importlib.util
import json
import sqlite3
import sys
from pathlib import Path
from types import ModuleType

import pytest
from helpers import run

from jacquet_notation.notation import read_games
from jacquet_notation.replay import ReplayedGame, replay
from jacquet_notation.validation import GameReport, validate_paths

ROOT = Path(__file__).resolve().parents[2]
DATA = Path(__file__).resolve().parents[1] / "data" / "mat"
HAS_GNUBG = importlib.util.find_spec("gnubg") is not None


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
    sys.modules[spec.name] = module  # its dataclasses look their module up
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
    validated = run("validate", "--json", str(path))
    reports = [json.loads(line) for line in validated.stdout.splitlines() if line.startswith("{")]
    statuses = [report["status"] for report in reports]
    assert statuses[-1] == "invalid" and validated.returncode == 1
    assert kind in [error["kind"] for error in reports[-1]["errors"]]
    db = tmp_path / "a.db"
    archived = run("archive", str(db), str(path))
    assert archived.returncode == validated.returncode, archived.stdout + archived.stderr
    games, matches = _archive_statuses(db)
    assert games == statuses
    assert matches == ["invalid"]
    # the archive's error is validate's, word for word (its line, column and message)
    assert reports[-1]["errors"][-1]["message"] in archived.stdout
    # a rebuild derives the same statuses again
    assert run("archive", str(db), "--rebuild").returncode == 1
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


# -- dialects read as gnubg reads them -----------------------------------------------------------

#: each fixture that gnubg reads as we do, with the statuses we give its games
AS_GNUBG = {
    "roll-then-resign.mat": ["valid"],
    "xg-unknown-with-moves.mat": ["valid"],
    "fibs-automove.mat": ["valid"],
    "bare-roll-at-end.mat": ["valid"],
}


@pytest.mark.parametrize("name", sorted(AS_GNUBG))
def test_each_dialect_reads_as_gnubg_reads_it(name: str) -> None:
    path = DATA / name
    reports = _reports(path)
    assert [r.status for r in reports] == AS_GNUBG[name], [r.errors for r in reports]
    _as_gnubg_reads(path)


#: fixtures whose second game gnubg misreads: a line it does not know ("Concedes", "????")
#: makes it import the file again as each other variation, and the end result has Black roll
#: twice in a row, which no game has; we read the line as nothing (docs/notation.md)
#: (``52: Concedes`` keeps its roll unplayed, ``00: ????`` has none): the plies of each game
GNUBG_MISREADS = {"studio-concedes.mat": [5, 2], "xg-resigned-before-rolling.mat": [4, 2]}


@pytest.mark.parametrize("name", sorted(GNUBG_MISREADS))
def test_a_resignation_line_gnubg_does_not_know_is_read_as_nothing(name: str) -> None:
    path = DATA / name
    reports = _reports(path)
    assert [r.status for r in reports] == ["valid", "valid"], [r.errors for r in reports]
    games = _replayed(path)
    assert [g.record.result[:2] for g in games] == ["0-", "0-"]  # type: ignore[index]
    assert [len(g.plies) for g in games] == GNUBG_MISREADS[name]
    if not HAS_GNUBG:
        pytest.skip("gnubg's Python package is not installed")
    compare = _compare()
    theirs, _ = compare.gnubg_import(path)
    sides = {"X": "white", "O": "black"}
    assert compare.our_rolls(games[0]) == compare.gnubg_rolls(theirs[0], sides)
    second = [roll[0] for roll in compare.gnubg_rolls(theirs[1], sides)]
    assert second == ["white", "black", "black"]  # gnubg's: Black twice in a row


def test_a_roll_then_resign_keeps_the_dice_unplayed() -> None:
    [game] = _replayed(DATA / "roll-then-resign.mat")
    last = game.plies[-1]
    assert last.unplayed and last.written.dice == (5, 3) and not last.play.steps  # type: ignore[union-attr]
    assert game.record.result == "1-0" and game.errors == []


def test_unknown_marks_after_a_roll_keep_the_moves() -> None:
    # ``52: ???? bar/20* 13/11`` is 5-2 played so (gnubg blanks the marks); fmt keeps the moves
    [game] = _replayed(DATA / "xg-unknown-with-moves.mat")
    assert [m.start for m in game.plies[4].written.moves] == [25, 13]
    written = run("fmt", str(DATA / "xg-unknown-with-moves.mat")).stdout
    assert "5-2: bar/20* 13/11" in written


def test_a_forced_play_left_blank_is_played_with_a_note() -> None:
    [game] = _replayed(DATA / "fibs-automove.mat")
    [noted] = [ply for ply in game.plies if ply.note]
    assert noted.written.dice == (5, 1) and noted.play is not None and noted.play.steps
    assert "only legal play" in noted.note  # type: ignore[operator]


def test_a_blank_where_several_plays_are_legal_stays_an_error() -> None:
    assert _kinds(DATA / "blank-several.mat") == [["missing-play"]]


def test_cannot_move_followed_by_moves_is_an_error() -> None:
    [report] = _reports(DATA / "cannot-move-then-moves.mat")
    assert report.status == "unreadable"
    assert "expected nothing after Cannot Move, found 13/8" in report.errors[0]


def test_a_latin1_header_is_read_as_cp1252_with_a_note() -> None:
    # gnubg reads the bytes as they are; a UTF-8 reading refused the whole file
    path = DATA / "fibs-latin1.mat"
    assert b"Sahl\xe9n" in path.read_bytes()
    result = run("validate", "--json", str(path))
    assert result.returncode == 0, result.stdout
    [report] = [json.loads(line) for line in result.stdout.splitlines()]
    assert report["black"] == "Roland Sahlén" and report["status"] == "valid"
    assert report["notes"] == [
        "line 3, column 25: not UTF-8 (the byte e9): read as cp1252",
        "line 8, column 45: not UTF-8 (the byte e9): read as cp1252",
    ]
    # an encoding asked for is the encoding: nothing noted
    asked = run("validate", "--json", "--encoding", "latin-1", str(path))
    assert "notes" not in json.loads(asked.stdout.splitlines()[0])
    try:
        _as_gnubg_reads(path)
    except (SystemError, UnicodeDecodeError):
        # gnubg reads the file, but its Python package cannot hand back a name not in UTF-8
        pytest.skip("gnubg.match() cannot return the Latin-1 name")


def test_a_cr_only_file_reads_its_games() -> None:
    # old Mac line ends: read as one line, the file was one valid empty game
    path = DATA / "cr-only.mat"
    assert b"\n" not in path.read_bytes()
    [report] = _reports(path)
    assert (report.status, report.white, report.plies, report.result) == (
        "valid",
        "anna",
        12,
        "1-0",
    )
    if HAS_GNUBG:  # gnubg reads lines with fgets: one line, no match (its reading refused here)
        assert _compare().gnubg_import(path)[0] == []


def test_a_file_cut_inside_its_header_is_refused(tmp_path: Path) -> None:
    for text in (
        (DATA / "cut-in-header.mat").read_text(),  # cut inside a header line
        '; [Site "x"]\n; [Player 1 "anna"]\n',  # cut after one
    ):
        path = tmp_path / "cut.mat"
        path.write_text(text)
        result = run("validate", str(path))
        assert result.returncode == 1
        [line] = [line for line in result.stdout.splitlines() if "cut inside its header" in line]
        assert line.startswith(f"{path}:")
        assert "Traceback" not in result.stderr


def test_several_matches_in_one_file_are_each_read(tmp_path: Path) -> None:
    # BBGT writes matches one after another; gnubg reads their games as one match (the second
    # match's header lines skipped), whose scores would then go down
    path = DATA / "bbgt-two-matches.mat"
    reports = _reports(path)
    assert [(r.status, r.white) for r in reports] == [
        ("valid", "anna"),
        ("valid", "anna"),
        ("valid", "carl"),
    ], [r.errors for r in reports]
    games = _replayed(path)
    assert [g.record.tags["Game"] for g in games] == ["1", "2", "1"]
    assert games[2].record.plays[0].span.line == 25  # each line at its own number
    db = tmp_path / "a.db"
    assert run("archive", str(db), str(path)).returncode == 0
    with sqlite3.connect(db) as conn:
        rows = list(conn.execute("SELECT white, game_count, status FROM matches ORDER BY id"))
    assert rows == [("anna", 2, "valid"), ("carl", 1, "valid")]
    if HAS_GNUBG:
        assert len(_compare().gnubg_import(path)[0]) == 3  # gnubg: every game, one match


def test_snowies_illegal_play_is_refused_with_its_reason() -> None:
    # gnubg sets its board from the position given; a record holds no board set mid-game
    reports = _reports(DATA / "snowie-illegal-play.mat")
    assert [r.status for r in reports] == ["unreadable", "valid"]
    assert [(d["line"], d["column"]) for d in reports[0].details] == [(10, 10)]
    assert "not Snowie's Illegal play" in reports[0].errors[0]
