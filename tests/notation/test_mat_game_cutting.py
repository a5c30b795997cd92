"""A match file is cut into games by one pattern a line (``MAYBE_NOT_PLAY``), the game line,
header and length patterns tried only where it matches: it must match every line they do."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from helpers import SHARED_MAT

from jacquet_notation.notation.mat_header import (
    GAME_LINE,
    HEADER_LINE,
    LENGTH_LINE,
    MAYBE_NOT_PLAY,
)
from jacquet_notation.notation.splitting import split_games

ROOT = Path(__file__).resolve().parents[2]
MATCHES = ROOT / "corpus" / "valid" / "backgammon-mat"


def _special(line: str) -> bool:
    return bool(GAME_LINE.match(line) or HEADER_LINE.match(line) or LENGTH_LINE.match(line))


@pytest.mark.parametrize(
    "line",
    [
        " Game 3",
        "Game\t12  ",
        '; [Site "Paris"]',
        '\t;[Match ID "7"]',
        " 5 point match",
        "0 POINT MATCH",
        "\t13\tpoint\tmatch\t",
    ],
)
def test_the_prefilter_takes_every_line_of_note(line: str) -> None:
    assert _special(line)
    assert MAYBE_NOT_PLAY.match(line)


@pytest.mark.parametrize(
    "line",
    ["  1) 52: 13/8 13/11        31: 8/5 6/5", " 12)", "  Wins 1 point", "", "     Doubles => 2"],
)
def test_the_prefilter_passes_a_game_line_by(line: str) -> None:
    assert not MAYBE_NOT_PLAY.match(line)


def test_every_line_of_note_in_the_match_files_is_taken() -> None:
    """Over every match file at hand: no line the three patterns match escapes the prefilter."""
    folders = [MATCHES] + ([SHARED_MAT] if SHARED_MAT.is_dir() else [])
    files = [p for folder in folders for p in sorted(folder.rglob("*")) if p.suffix != ".md"]
    files = [p for p in files if p.is_file()][:200]
    assert files
    seen = 0
    for path in files:
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            if _special(line):
                seen += 1
                assert MAYBE_NOT_PLAY.match(line), (path, line)
    assert seen


def test_a_second_match_after_a_game_still_begins_there() -> None:
    """A header line after a game (BBGT's matches one after another) is still seen: the next
    match's header, not the game's own line."""
    text = (
        '; [Site "A"]\n 3 point match\n\n Game 1\n a : 0    b : 0\n'
        "  1) 52: 13/8 13/11        31: 8/5 6/5\n      Wins 1 point\n\n"
        '; [Site "B"]\n 5 point match\n\n Game 1\n c : 0    d : 0\n'
        "  1) 31: 8/5 6/5\n      Wins 1 point\n"
    )
    chunks = list(split_games(io.StringIO(text), "two.mat"))
    assert len(chunks) == 2
    assert 'Site "A"' in chunks[0].preamble and 'Site "B"' in chunks[1].preamble
