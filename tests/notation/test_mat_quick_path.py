"""The match reader's quick path (issue 17's speed) reads every line it takes exactly as the
full scan does, spans included, and leaves every other line to the scan."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

import pytest
from helpers import SHARED_MAT

from jacquet_notation.notation.mat_reader import MOVE_NUMBER, SCORE_LINE, MatGame

ROOT = Path(__file__).resolve().parents[2]
MATCHES = ROOT / "corpus" / "valid" / "backgammon-mat"
# the shared real match files beside the checkout (../shared/data/backgammon-mat), or beside
# the folder of worktrees
SHARED: Path | None = SHARED_MAT if SHARED_MAT.is_dir() else None


def dump(pieces: list[Any]) -> list[Any]:
    """Every field of the pieces, spans and texts too (records compare without them)."""
    out = []
    for piece in pieces:
        play = piece.play
        fields = None
        if play is not None:
            fields = {f.name: getattr(play, f.name) for f in dataclasses.fields(play)}
            fields["moves"] = [tuple(move) for move in play.moves]  # span too
        out.append((piece.column, piece.kind, piece.points, fields))
    return out


def both(line: str, side_of: int = 30, turn: int = 7) -> tuple[Any, Any, list[Any]]:
    """The quick path's pieces (None where it declines) and the scan's, and the scan's errors."""
    numbered = MOVE_NUMBER.match(line)
    start = numbered.end() if numbered else 0
    quick_reader = MatGame("x.mat", 1, 10, [line])
    quick = quick_reader.quick_pieces(0, line, start, side_of, turn)
    assert not quick_reader.errors
    scan_reader = MatGame("x.mat", 1, 10, [line])
    scan = scan_reader.scan_pieces(0, line, start, side_of, turn)
    return (None if quick is None else dump(quick)), dump(scan), scan_reader.errors


COMMON = [
    "  1) 31: 8/5 6/5                    64: 24/18 13/9",
    "  2) 52: bar/20 6/off               ",
    " 12)                                66: 24/18(2) 13/7(2)",
    "  3) 43: 24/20*/17                  21: 6/5 6/4",
    "  4) 61: 13/7*                      55: 8/3(2)* 6/1*(2)",
    "  5)\t43: 24/20\t\t 21: 6/5 6/4",
    "  6) 53: 8/3 6/3 64: 24/18 13/9",
    "  7) 11: 6/5 ",
    "  8) 65:                            65: 25/20 25/19",
    "  9) 42: 6/off 4/off                53: Bar/22 OFF/3",
    " 10) 53: 24/18 Doubles => 2",
    " 11) 62: Cannot Move                 33: 8/5(2)",
    " 12)                                 Wins 2 points",
    " 13)  Doubles => 2                      Takes",
    " 14)  Drops                             Wins 1 point",
    " 15)  Doubles=>4                        Beavers => 8",
    " 16) 53: 5/0 3/0                  Losses 1 point",
    " 17)  Losses 3 point                Wins 3 point and the match",
    " 19)\tWins\t1\tpoints\tand\tthe\tmatch",
]


@pytest.mark.parametrize("line", COMMON)
def test_the_quick_path_reads_common_lines_as_the_scan_does(line: str) -> None:
    quick, scan, errors = both(line)
    assert quick is not None, "the quick path declined a line of rolls and moves"
    assert quick == scan
    assert not errors


DECLINED = [
    "  3) 73: 8/1                        21: 6/5 6/4",
    "  4) 64: 24/18 12)",
    "  5) 24/18",
    "  6) 64: 24/30",
    "  7) 64: 8*/4",
    "  8) 64: 8/4(16)",
    "  9) 52: 13/8 ????",
    " 10) 62: 8/2 Cannot Move",
    " 11)                                 Wins 2 pointsx",
    " 12) 62: Cannot Move Cannot Move",
    " 13) 53:24/18",
    " 14) 53: 24/18 x",
    " 15) 63: ????",
    " 16)  Takesx",
    " 17)  Wins 1 point and the matchx",
    " 18)  Doubles => x",
    " 19)  Cannot Move",
    " 20)  Doubles => 2 8/5",
    " 21) 63: Cannot Move 8/5            Doubles => 2",  # moves after Cannot Move: an error
    " 21) 62: 8/2 24) 6/1",
    " 22)  Doubles\x0c=> 2",
    " 23)  Beavers =>",
]


@pytest.mark.parametrize("line", DECLINED)
def test_the_quick_path_leaves_other_lines_to_the_scan(line: str) -> None:
    quick, _, _ = both(line)
    assert quick is None


def match_lines(folder: Path) -> list[tuple[str, int]]:
    """Every numbered line of the folder's match files, with the side column of its game."""
    found = []
    for path in sorted(folder.rglob("*.txt")) + sorted(folder.rglob("*.mat")):
        side_of = 30
        for line in path.read_text(encoding="utf-8", errors="replace").split("\n"):
            score = SCORE_LINE.match(line) if len(line) < 1000 else None
            if score is not None and not MOVE_NUMBER.match(line):
                side_of = score.start("c2") - len(score.group("n2")) - 1
            elif MOVE_NUMBER.match(line):
                found.append((line.rstrip("\r"), side_of))
    return found


def check_folder(folder: Path) -> int:
    """The quick path agrees with the scan on every line it takes; how many it took."""
    taken = 0
    for line, side_of in match_lines(folder):
        quick, scan, errors = both(line, side_of)
        if quick is not None:
            taken += 1
            assert quick == scan, line
            assert not errors, line
    return taken


def test_the_quick_path_agrees_on_the_corpus_match_files() -> None:
    lines = match_lines(MATCHES)
    assert check_folder(MATCHES) > len(lines) * 0.75


@pytest.mark.skipif(SHARED is None, reason="the shared match files are not here")
@pytest.mark.slow
def test_the_quick_path_agrees_on_the_shared_match_files() -> None:
    assert SHARED is not None
    lines = match_lines(SHARED)
    assert check_folder(SHARED) > len(lines) * 0.75
