"""Match files damaged at random: the reader reports, never raises, and keeps the other games."""

from __future__ import annotations

import io
import random
from pathlib import Path

from jacquet_notation.notation import read_games

MATCHES = Path(__file__).resolve().parents[2] / "corpus" / "valid" / "backgammon-mat"
PIECES = [":", ")", "/", "*", "(", "=>", "?", "Game 2", "99999999999999999999", "\t", "bar", " "]


def test_damaged_match_files_are_read_without_an_exception() -> None:
    text = (MATCHES / "studio-boardlord-llabba.mat").read_text(encoding="utf-8")
    rng = random.Random(17)
    for _ in range(100):
        damaged = list(text)
        for _ in range(rng.randint(1, 8)):
            at = rng.randrange(len(damaged))
            damaged[at : at + rng.randint(0, 3)] = rng.choice(PIECES)
        records = list(read_games(io.BytesIO("".join(damaged).encode()), "d.mat"))
        for record in records:
            for error in record.errors:
                assert error.file == "d.mat" and error.line and error.column, error


def test_huge_numbers_and_long_lines_are_errors_not_crashes() -> None:
    header = '; [Site "x"]\n\n1 point match\n\n Game 1\n'
    for body in (
        " a : " + "9" * 5000 + "    b : 0\n  1) 31: 8/5 6/5\n",
        " a : 0    b : 0\n " + "1" * 5000 + ") 31: 8/5 6/5\n",
        " a : 0    b : 0\n  1) 31: 8/5 6/5\n      Wins " + "7" * 5000 + " points\n",
        " " + "a :" * 20_000 + " 0    b : 0\n",
    ):
        (record,) = read_games(io.BytesIO((header + body).encode()), "h.mat")
        assert record.errors
