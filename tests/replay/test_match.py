"""Matches checked (match.py): the cube, a game's points, the scores, the Crawford game, the end;
combined moves settled by their hit marks; the real match files validated (gnubg optional)."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from helpers import SHARED_MAT

from jacquet_notation.notation import read_games
from jacquet_notation.replay import replay
from jacquet_notation.validation import GameReport, validate_paths

# the shared real match files beside the checkout (../shared/data/backgammon-mat)
SHARED = SHARED_MAT
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/data/backgammon-mat")
HAS_GNUBG = importlib.util.find_spec("gnubg") is not None

HEADER = """; [Site "Test"]
; [Player 1 "anna"]
; [Player 2 "bert"]
; [Crawford "On"]

3 point match
"""


def _validate(tmp_path: Path, body: str) -> list[GameReport]:
    path = tmp_path / "m.mat"
    path.write_text(HEADER + body)
    return list(validate_paths([str(path)]))


def _kinds(reports: list[GameReport]) -> list[list[tuple[str, int | None, int | None]]]:
    return [[(d["kind"], d["line"], d["column"]) for d in r.details] for r in reports]


# A 3 point match in three games: bert wins 1 (a dropped double), anna 2 (a gammon... by
# resignation with the cube at 2), then the Crawford game is bert's... Each test breaks one rule.
GAME_1 = """
 Game 1
 anna : 0                        bert : 0
  1) 31: 8/5 6/5                  Doubles => 2
  2)  Drops                       Wins 1 point
"""
GAME_2 = """
 Game 2
 anna : 0                        bert : 1
  1) 42: 8/4 6/4                  Doubles => 2
  2)  Takes                      63: 24/18 13/10
  3) 61: 13/7 8/7
      Wins 2 point
"""
GAME_3 = """
 Game 3
 anna : 2                        bert : 1
  1) 53: 8/3 6/3                 62: 24/18 13/11
      Wins 1 point and the match
"""


def test_a_well_kept_match_is_valid(tmp_path: Path) -> None:
    reports = _validate(tmp_path, GAME_1 + GAME_2 + GAME_3)
    assert [r.status for r in reports] == ["valid"] * 3, [r.errors for r in reports]


def test_only_the_centred_cube_or_its_owner_may_double(tmp_path: Path) -> None:
    body = """
 Game 1
 anna : 0                        bert : 0
  1) 42: 8/4 6/4                  Doubles => 2
  2)  Takes                      63: 24/18 13/10
  3) 61: 13/7 8/7                 Doubles => 4
"""
    # White took Black's double and owns the cube: Black may not turn it again
    [report] = _validate(tmp_path, body)
    assert _kinds([report]) == [[("cube", 12, 35)]]
    assert "the cube (2) is White's" in report.errors[0]


def test_a_double_states_twice_the_cube(tmp_path: Path) -> None:
    body = """
 Game 1
 anna : 0                        bert : 0
  1) 42: 8/4 6/4                  Doubles => 4
"""
    [report] = _validate(tmp_path, body)
    assert _kinds([report]) == [[("cube", 10, 35)]]
    assert "write 2" in report.errors[0]


def test_a_take_gives_the_cube_to_the_taker_who_may_redouble(tmp_path: Path) -> None:
    body = """
 Game 1
 anna : 0                        bert : 0
  1) 42: 8/4 6/4                  Doubles => 2
  2)  Takes                      63: 24/18 13/10
  3)  Doubles => 4                Takes
  4) 61: 24/18 24/23              52: 13/8 13/11
      Wins 3 point and the match
"""
    # White took at 2 and owns the cube: White redoubles to 4, Black takes; the game is not
    # over, so White's 3 is a resignation (and wins the match from 0 in a 3 point match)
    [report] = _validate(tmp_path, body)
    assert report.status == "valid", report.errors


def test_a_drop_ends_the_game_scoring_the_cube_before_the_double(tmp_path: Path) -> None:
    body = """
 Game 1
 anna : 0                        bert : 0
  1) 42: 8/4 6/4                  Doubles => 2
  2)  Drops                       Wins 2 point
"""
    [report] = _validate(tmp_path, body)
    assert _kinds([report]) == [[("points", 11, 1)]]
    assert "Black wins 1 points, not Black 2" in report.errors[0]


def test_a_beaver_redoubles_and_keeps_the_cube(tmp_path: Path) -> None:
    body = """
 Game 1
 anna : 0                        bert : 0
  1) 42: 8/4 6/4                  Doubles => 2
  2)  Beavers => 4                Takes
  3)  Doubles => 8
"""
    # White beavered (took at 2, redoubled to 4), Black took: White owns the cube at 4
    [report] = _validate(tmp_path, body)
    assert report.status == "valid", report.errors
    # the beaver states twice the double; the doubler cannot turn the beaverer's cube
    [report] = _validate(tmp_path, body.replace("Beavers => 4", "Beavers => 8"))
    assert _kinds([report]) == [[("cube", 11, 7)]]
    assert "write 4" in report.errors[0]


def test_each_games_score_is_the_previous_plus_its_points(tmp_path: Path) -> None:
    wrong = GAME_2.replace("bert : 1", "bert : 2")
    reports = _validate(tmp_path, GAME_1 + wrong)
    assert _kinds(reports)[0] == [] and _kinds(reports)[1][0] == ("score", 14, 1)
    assert "previous game left it at 0-1" in reports[1].errors[0]


def test_no_double_in_the_crawford_game(tmp_path: Path) -> None:
    crawford = """
 Game 3
 anna : 2                        bert : 1
  1) 53: 8/3 6/3                  Doubles => 2
  2)  Drops                       Wins 1 point
"""
    after = """
 Game 4
 anna : 2                        bert : 2
  1) 53: 8/3 6/3                  Doubles => 2
  2)  Drops                       Wins 1 point and the match
"""
    reports = _validate(tmp_path, GAME_1 + GAME_2 + crawford + after)
    # the Crawford game (anna reached 2 of 3) has no double; the game after it may
    assert _kinds(reports)[2] == [("crawford", 22, 35)]
    assert reports[3].status == "valid", reports[3].errors
    # without the Crawford tag, the same double is allowed
    path = tmp_path / "m.mat"
    path.write_text(HEADER.replace("On", "Off") + GAME_1 + GAME_2 + crawford + after)
    assert [r.status for r in validate_paths([str(path)])] == ["valid"] * 4


def test_nothing_after_the_end_of_the_match(tmp_path: Path) -> None:
    extra = (
        GAME_3.replace("Game 3", "Game 4")
        .replace("bert : 1", "bert : 1 ")
        .replace("anna : 2", "anna : 3")
    )
    reports = _validate(tmp_path, GAME_1 + GAME_2 + GAME_3 + extra)
    assert [r.status for r in reports[:3]] == ["valid"] * 3
    assert [k for k, _, _ in _kinds(reports)[3]] == ["match-over"]


def test_a_resignation_scores_what_it_states(tmp_path: Path) -> None:
    body = """
 Game 1
 anna : 0                        bert : 0
  1) 31: 8/5 6/5                 62: 24/18 13/11
      Wins 3 point
"""
    # a backgammon resigned: 3 points, as stated, whatever the position (here Black's back men
    # still stand in White's home; obayram's resignation in the shared data below is one where
    # the position allowed a gammon at most)
    five = HEADER.replace("3 point match", "5 point match")
    path = tmp_path / "five.mat"
    path.write_text(five + body)
    assert [r.status for r in validate_paths([str(path)])] == ["valid"]
    # a resignation states a single game, a gammon or a backgammon: 4 is none of them
    path.write_text(five + body.replace("Wins 3 point", "Wins 4 point"))
    [report] = validate_paths([str(path)])
    assert _kinds([report]) == [[("points", 11, 1)]]
    assert "a resignation states at most a backgammon, 3 x the cube" in report.errors[0]
    # 5 is what White needed: a resignation that wins the match is written as the servers do
    path.write_text(five + body.replace("Wins 3 point", "Wins 5 point"))
    assert [r.status for r in validate_paths([str(path)])] == ["valid"]


# -- combined moves and their hit marks (Backgammon Studio marks every hit) -----------------------


def _ply(file: Path, game: int, line: int, text: str) -> object:
    record = list(read_games(file))[game - 1]
    replayed = replay(record)
    assert replayed.is_valid, replayed.errors
    for ply in replayed.plies:
        if ply.written.span.line == line and ply.written.text == text:
            return ply
    raise AssertionError(f"no ply {text!r} on line {line}")


@needs_shared
def test_a_combined_move_without_a_mark_is_the_way_that_does_not_hit() -> None:
    file = SHARED / "Llabba" / "mitnick - Llabba 9pt Backgammon Studio 2023_09_18 20_03_49.txt"
    ply = _ply(file, 2, 48, "41: 6/1")  # "41: 6/1", where 6/2* 2/1 would hit
    assert ply.play is not None  # type: ignore[attr-defined]
    assert ply.play.notation() == "6/5 5/1"  # type: ignore[attr-defined]


@needs_shared
def test_a_combined_move_marked_at_its_end_hits_only_there() -> None:
    file = SHARED / "Llabba" / "Llabba - accr66 13pt Backgammon Studio 2023_01_25 20_19_48.txt"
    ply = _ply(file, 12, 275, "31: bar/21*")  # "31: bar/21*": bar/22 22/21*, not bar/24* 24/21*
    assert ply.play.notation() == "bar/22 22/21*"  # type: ignore[attr-defined]


# -- the real files, and gnubg's two refusals ----------------------------------------------------


@needs_shared
def test_gnubgs_two_refused_plays_are_legal_entries_and_hits() -> None:
    # match2516058 game 3, line 77: Black (yueda) has 2 men on the bar; White's men are on
    # Black's 22, 23 and 24 only, so 6-4 enters on 19 and 21, both open
    ply = _ply(SHARED / "lasse" / "match2516058.txt", 3, 77, "64: 25/21 25/19")
    before = ply.before  # type: ignore[attr-defined]
    assert before.bar("black") == 2 and before.turn == "black"
    assert set(before.men("white")) == {1, 2, 3}
    assert ply.play.notation() == "bar/21 bar/19"  # type: ignore[attr-defined]
    # match5905414 game 4, line 103: Black's 20/16 hits White's blot on Black's 16 (White's 9)
    ply = _ply(SHARED / "lasse" / "match5905414.txt", 4, 103, "42: 24/22 20/16")
    assert ply.before.men("white").get(9) == 1  # type: ignore[attr-defined]
    assert ply.play.notation() == "24/22 20/16*"  # type: ignore[attr-defined]


@needs_shared
@pytest.mark.slow
def test_every_shared_match_file_is_read_and_validated() -> None:
    reports = list(validate_paths([str(SHARED)]))
    assert all(r.status != "unreadable" for r in reports)
    # every game valid: obayram's backgammon resigned (6 with the cube at 2) where the position
    # allowed a gammon at most scores what it states, 6 (docs/rules.md, "Matches"); but for
    # Studio's two "Wins 4016 point", a resignation beyond a backgammon (gnubg caps it silently)
    invalid = [(Path(r.file).name, r.index) for r in reports if r.status == "invalid"]
    assert invalid == [
        ("Minchy - Llabba 13pt Backgammon Studio 2023_02_24 19_44_27.txt", 10),
        ("MrPurple - Lasse 3pt Backgammon Studio 2024_05_11 20_10_33.txt", 2),
    ]
    assert all("4016" in r.errors[0] for r in reports if r.status == "invalid")
    assert len(reports) > 3600


def _compare_gnubg() -> ModuleType:
    """scripts/compare_gnubg.py, which is a script, not part of the package."""
    path = Path(__file__).resolve().parents[2] / "scripts" / "compare_gnubg.py"
    spec = importlib.util.spec_from_file_location("compare_gnubg", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclass looks itself up there
    spec.loader.exec_module(module)
    return module


@needs_shared
def test_our_board_in_gnubgs_position_ids() -> None:
    # gnubg's position IDs, read off its import of this file (gnubg.match(boards=1)): the start,
    # and the two positions before the last plays of game 3 (lasse's 63, then yueda's 64 from
    # the bar); the compare script checks every roll of the shared data this way
    position_id = _compare_gnubg().position_id
    source = SHARED / "lasse" / "match2516058.txt"
    with source.open("rb") as stream:
        game = replay(list(read_games(stream, str(source)))[2])
    played = [ply for ply in game.plies if ply.play is not None and ply.written.dice]
    ids = [position_id(ply.before, ply.side) for ply in played]
    assert ids[0] == "4HPwATDgc/ABMA"
    assert ids[-2:] == ["uG1gMGB7NwAAAA", "9w4AAMBtA4MBAw"]
    assert position_id(game.plies[0].before, "black") == ids[0]  # the start is symmetric


@needs_shared
@pytest.mark.skipif(not HAS_GNUBG, reason="gnubg (GPL, optional) is not installed")
def test_gnubg_keeps_the_two_plays_it_warns_about(tmp_path: Path) -> None:
    # gnubg warns "Invalid move" at these two plays, but in a pass that imports the file as
    # another variation (it tries each when the standard import meets Galaxy's unknown
    # "Losses" line); its final import has both plays, and agrees with ours roll by roll
    for name in ("match2516058.txt", "match5905414.txt"):
        (tmp_path / name).write_bytes((SHARED / "lasse" / name).read_bytes())
    script = Path(__file__).resolve().parents[2] / "scripts" / "compare_gnubg.py"
    done = subprocess.run(
        [sys.executable, str(script), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    said = done.stdout
    assert "match2516058.txt:77: gnubg warned 'Invalid move: 25/21 25/19'" in said
    assert "match5905414.txt:103: gnubg warned 'Invalid move: 24/22 20/16'" in said
    assert said.count("its final import agrees with ours, this play included") == 2
    assert "0 files whose games or plays differ" in said
