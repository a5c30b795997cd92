"""The files where gnubg's load of our SGF export first differed from its import of the original:
each written by our writer and read back as the same games (always), and the comparison script
run by the gnubg program over them and a draw of other shared files (where it is installed)."""

from __future__ import annotations

import io
import random
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import SHARED_MAT

from jacquet_notation.match import outcome
from jacquet_notation.notation import read_games
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import replay
from jacquet_notation.sgf_writer import write_sgf_matches

ROOT = Path(__file__).resolve().parent.parent.parent
CASES = ROOT / "tests" / "data" / "sgf" / "gnubg-cases"
GNUBG_PROGRAM = Path("/usr/games/gnubg")
#: the 23 shared files gnubg's load of the export and its import of the original told apart
#: before (docs/notation.md, "gnubg's SGF"): five held a roll left unplayed at the end, eight a
#: dance gnubg holds twice
DIFFERED = [
    "Llabba/Gibraltar_Mike - Llabba 13pt Backgammon Studio 2023_03_22 21_22_47.txt",
    "Llabba/Minchy - Llabba 13pt Backgammon Studio 2023_02_24 19_44_27.txt",
    "lasse/MrPurple - Lasse 3pt Backgammon Studio 2024_05_11 20_10_33.txt",
    "lasse/rossrock - Lasse 5pt Backgammon Studio 2024_05_11 21_39_07.txt",
    "lasse/solnze - Lasse 3pt Backgammon Studio 2024_05_11 19_56_16.txt",
    *(f"lasse/match{number}.txt" for number in ("1100068", "11239570", "11926267", "12168993")),
    *(f"lasse/match{number}.txt" for number in ("5751765", "5783992", "6209354", "9337121")),
    # a name read as the score
    *(f"lasse/match{number}.txt" for number in ("3755271", "4148943", "4926796", "6564801")),
    *(f"lasse/match{number}.txt" for number in ("6698738", "8474864")),
    # the result lost; gnubg's import crashes
    *(f"lasse/match{number}.txt" for number in ("2900236", "3831101", "8600770", "8320876")),
]


def key(record: GameRecord) -> tuple[Any, ...]:
    """A game as both readings must agree on it: tags, each ply's side, dice, action, the position
    after it (``24/13`` and ``24/18 18/13`` are one play; ``64: Cannot Move`` and ``64:`` one pass),
    a roll left unplayed, the result and how the game ended."""
    game = replay(record)
    plies = [
        (p.written.side, p.written.dice, p.written.action, p.unplayed, p.after and p.after.key())
        for p in game.plies
    ]
    ended = outcome(game)
    return record.tags, plies, record.result, ended.winner, ended.points, ended.ending


def exported(path: Path) -> tuple[list[GameRecord], str]:
    records = list(read_games(path))
    (text,) = write_sgf_matches(records)
    return records, text


@pytest.mark.unit
@pytest.mark.parametrize("path", sorted(CASES.glob("*.txt")), ids=lambda p: p.stem)
def test_each_case_reads_back_as_the_same_games(path: Path) -> None:
    records, text = exported(path)
    back = list(read_games(io.StringIO(text)))
    assert [r.errors for r in back] == [[] for _ in records]
    assert [key(r) for r in back] == [key(r) for r in records]


@pytest.mark.unit
def test_a_roll_left_unplayed_is_written_as_gnubgs_dice_set() -> None:
    records, text = exported(CASES / "studio-unplayed-last-roll.txt")
    assert replay(records[1]).plies[-1].unplayed  # 61: ????, then Wins 1 point
    second = text.split("\n(;")[1]
    # as gnubg's own save match of its import writes it: the roll set, no move
    assert second.rstrip().endswith(";PL[B]DI[61])") and "RE[W+1R]" in second


@pytest.mark.unit
def test_a_dance_before_the_resignation_stays_a_move() -> None:
    _, text = exported(CASES / "galaxy-dance-then-losses.txt")
    second = text.split("\n(;")[1]
    assert second.rstrip().endswith(";W[32fcec]\n;B[61])") and "RE[W+1R]" in second


@pytest.mark.unit
@pytest.mark.parametrize(
    ("name", "said"),
    [
        ("galaxy-empty-name.txt", "PW[lasse]PB[]"),
        ("galaxy-empty-first-name.txt", "PW[]PB[lasse]"),
        ("galaxy-resigned-before-rolling.txt", "RE[W+3R]"),
        ("galaxy-losses-wins-first-line.txt", "RE[B+1R]"),
    ],
)
def test_what_gnubg_misreads_is_written_as_the_file_has_it(name: str, said: str) -> None:
    _, text = exported(CASES / name)
    assert said in text


@pytest.mark.slow
@pytest.mark.skipif(not GNUBG_PROGRAM.exists(), reason="the gnubg program is not installed")
def test_gnubg_loads_every_export_as_the_match_the_original_is() -> None:
    if not Path(SHARED_MAT).is_dir():
        pytest.skip("the shared match files are not here")
    shared = Path(SHARED_MAT)
    others = sorted(p for p in shared.rglob("*.txt") if str(p.relative_to(shared)) not in DIFFERED)
    files = [shared / name for name in DIFFERED] + random.Random(26).sample(others, 7)
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "compare_gnubg_sgf.py"), *map(str, files)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=900,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    last = done.stdout.splitlines()[-1]
    assert re.fullmatch(
        r"30 files: gnubg loads the SGF export of 29 as the original \(17 of them once gnubg's "
        r"misreadings of the original are set aside\), 1 whose import gnubg crashes on, 0 not",
        last,
    ), last
    said = done.stdout
    for number in ("1100068", "9337121"):
        assert re.search(rf"match{number}\.txt: set aside: game \d: gnubg holds O's unplayed", said)
    assert "match3755271.txt: set aside: gnubg reads Black's empty name as ': 0'" in said
    assert "match3831101.txt: set aside: game 1: gnubg's import loses the result 3-0" in said
    assert "match8320876.txt: gnubg's import of the original crashes; it loads the export" in said
    assert not re.search(r"Backgammon Studio.*set aside", said)  # no misreading: written right
