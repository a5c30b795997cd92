"""Benchmark of memory: the peak of ``jacquet validate`` on large records, beside peers.

    python3 bench/memory.py [--mb 10] [--jobs 1]

For each shape of input (tags a million characters long, a comment of the whole file, long
games, real games repeated, one game of plays far past the reader's limit; match files: one
game of the whole file, real games repeated in one long match, a line of the whole file) a file
of about ``--mb`` MB is written, and ``jacquet validate`` reads it in a fresh child process whose
peak resident memory (``ru_maxrss``) is taken from ``RUSAGE_CHILDREN`` of a wrapper process of its
own. Beside it, measured in the same run, the same way:

- the floor: ``python -c "open(f).read()"`` on the same file (an interpreter holding the text);
- the peer: python-chess's ``chess.pgn.read_game`` reading every game of a PGN file of the same
  size and shape (tags as long, one comment as long, games of the same total size); none for
  the match files.

The bound the reader must keep (issue 14): peak <= 5 x the file size + 100 MB. The script exits
1 if any figure of ours is over it. Files are written to bench/out/ (not committed).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
OUT = HERE / "out"
MB = 1_000_000

#: run the command given, then print the peak resident memory of the children, in bytes
MEASURE = (
    "import resource, subprocess, sys;"
    "subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL);"
    "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024)"
)
FLOOR = "import sys; text = open(sys.argv[1], 'rb').read().decode('utf-8')"
CHESS = (
    "import chess.pgn, sys\n"
    "with open(sys.argv[1], encoding='utf-8') as f:\n"
    "    while chess.pgn.read_game(f) is not None:\n"
    "        pass\n"
)
TAG_VALUE = 990_000  # a tag line stays under the reader's million characters a line


def peak(command: list[str]) -> int:
    """The peak resident memory of ``command``, run in a process of its own."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}  # the checkout's package, installed or not
    done = subprocess.run(
        [sys.executable, "-c", MEASURE, *command],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return int(done.stdout.strip())


def repeat_to(size: int, unit: Callable[[int], str]) -> str:
    parts: list[str] = []
    total = 0
    number = 0
    while total < size:
        number += 1
        part = unit(number)
        parts.append(part)
        total += len(part.encode("utf-8"))
    return "".join(parts)


def long_tags(size: int) -> tuple[str, str]:
    tags = "".join(
        f'[Note{n} "{"long tag " * (TAG_VALUE // 9)}"]\n' for n in range(max(size // TAG_VALUE, 1))
    )
    return (
        f"{tags}\n1. 6-5: 24/18 18/13 5-3: 24/21 21/16\n*\n",
        f"{tags}\n1. e4 e5 *\n",
    )


def long_comment(size: int) -> tuple[str, str]:
    comment = "\n".join("a comment line " * 6 for _ in range(size // 91))
    return (
        f'[Event "comment"]\n\n1. 6-5: 24/18 18/13 {{{comment}}} 5-3: 24/21 21/16\n*\n',
        f'[Event "comment"]\n\n1. e4 {{{comment}}} e5 *\n',
    )


def wide_comment(size: int) -> tuple[str, str]:
    # Characters past the Basic Multilingual Plane make Python keep a whole string at four bytes
    # a character: the same comment of dice faces costs more than one of letters.
    comment = "\n".join("\U0001f3b2" * 99_999 for _ in range(max(size // 400_000, 1)))
    return (
        f'[Event "comment"]\n\n1. 6-5: 24/18 18/13 {{{comment}}} 5-3: 24/21 21/16\n*\n',
        f'[Event "comment"]\n\n1. e4 {{{comment}}} e5 *\n',
    )


def long_games(size: int) -> tuple[str, str]:
    turns = "".join(
        f"{turn}. 6-5: 24/18 18/13 5-3: 24/21 21/16 {{a note}} ({turn}... 4-2: 24/20 24/22)\n"
        for turn in range(1, 5_001)  # about 400,000 characters of plays: under the limit
    )
    # no variations here: python-chess copies the board for each, whose move stack grows
    moves = " ".join(f"{n}. Nf3 Nf6 {{a note}} {n + 1}. Ng1 Ng8" for n in range(1, 2000, 2))
    return (
        repeat_to(size, lambda n: f'[Game "{n}"]\n\n{turns}*\n\n'),
        repeat_to(size, lambda n: f'[Round "{n}"]\n\n{moves} *\n\n'),
    )


def real_games(size: int) -> tuple[str, str]:
    corpus = "\n".join(
        path.read_text("utf-8") for path in sorted((ROOT / "corpus" / "valid").glob("*.jqt"))
    )
    game = (
        '[Event "Rosenwald"]\n\n1. e4 e5 2. Nf3 Nc6 3. Bb5 a6 {the Morphy defence} 4. Ba4 Nf6 '
        "5. O-O Be7 6. Re1 b5 7. Bb3 d6 8. c3 O-O 9. h3 Nb8 10. d4 Nbd7 (10... Bb7) 1/2-1/2\n\n"
    )
    return repeat_to(size, lambda n: corpus + "\n"), repeat_to(size, lambda n: game)


def one_long_game(size: int) -> tuple[str, str]:
    turns = "".join(f"{turn}. 6-5: 24/18 18/13 5-3: 24/21 21/16\n" for turn in range(1, size // 40))
    moves = "\n".join(f"{n}. Nf3 Nf6 {n + 1}. Ng1 Ng8" for n in range(1, size // 24, 2))
    return f'[Event "long"]\n\n{turns}*\n', f'[Event "long"]\n\n{moves} *\n'


CASES: dict[str, Callable[[int], tuple[str, str]]] = {
    "one game, tags of 990,000 characters": long_tags,
    "one comment of the whole file": long_comment,
    "the same, of characters outside the BMP": wide_comment,
    "games of 400,000 characters of plays": long_games,
    "the valid corpus, repeated": real_games,
    "one game, plays past the limit": one_long_game,
}


MAT_HEADER = '; [Player 1 "Ann"]\n; [Player 2 "Bob"]\n\n0 point match\n\n'
MAT_SCORE = " Ann : 0                          Bob : 0\n"


def mat_one_game(size: int) -> str:
    line = "  {n}) 31: 8/5 6/5                 63: 24/18 18/15\n"
    body = "".join(line.format(n=n) for n in range(1, size // len(line) + 1))
    return f"{MAT_HEADER} Game 1\n{MAT_SCORE}{body}"


def mat_many_games(size: int) -> str:
    sys.path.insert(0, str(HERE))
    from big_match import CORPUS, big_match  # bench/big_match.py: real games, one long match

    per_game = 900  # bytes, about, of a real game of the corpus
    return "\n".join(big_match(max(size // per_game, 1), CORPUS)) + "\n"


def mat_long_line(size: int) -> str:
    return f"{MAT_HEADER} Game 1\n{MAT_SCORE}  1) 31: " + "8/5" * (size // 3) + "\n"


MAT_CASES: dict[str, Callable[[int], str]] = {
    "match: one game of the whole file": mat_one_game,
    "match: real games, one long match": mat_many_games,
    "match: one line of the whole file": mat_long_line,
}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mb", type=float, default=10, help="size of each file, in MB")
    parser.add_argument("--jobs", type=int, default=1, help="jacquet validate --jobs")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    size = int(args.mb * MB)
    print(
        f"peak resident memory, MB (x the file size); bound: 5 x size + 100 MB; --jobs {args.jobs}"
    )
    print(f"{'input':40} {'size':>6} {'jacquet validate':>18} {'floor':>14} {'python-chess':>14}")
    over = 0
    for name, make in CASES.items():
        jqt, pgn = make(size)
        jqt_path, pgn_path = OUT / "memory.jqt", OUT / "memory.pgn"
        jqt_path.write_text(jqt, encoding="utf-8")
        pgn_path.write_text(pgn, encoding="utf-8")
        ours = peak(
            [
                sys.executable,
                "-m",
                "jacquet_notation",
                "validate",
                f"--jobs={args.jobs}",
                str(jqt_path),
            ]
        )
        floor = peak([sys.executable, "-c", FLOOR, str(jqt_path)])
        chess = peak([sys.executable, "-c", CHESS, str(pgn_path)])
        jqt_size, pgn_size = jqt_path.stat().st_size, pgn_path.stat().st_size
        bound = 5 * jqt_size + 100 * MB
        over += ours > bound
        print(
            f"{name:40} {jqt_size / MB:6.1f} "
            f"{ours / MB:8.0f} ({ours / jqt_size:5.1f}x) "
            f"{floor / MB:5.0f} ({floor / jqt_size:4.1f}x) "
            f"{chess / MB:5.0f} ({chess / pgn_size:4.1f}x)"
            + ("  OVER THE BOUND" if ours > bound else "")
        )
    for name, make_mat in MAT_CASES.items():
        mat_path = OUT / "memory.mat"
        mat_path.write_text(make_mat(size), encoding="utf-8")
        paths = [str(mat_path)]
        ours = peak(
            [sys.executable, "-m", "jacquet_notation", "validate", f"--jobs={args.jobs}", *paths]
        )
        floor = peak([sys.executable, "-c", FLOOR, str(mat_path)])
        mat_size = mat_path.stat().st_size
        bound = 5 * mat_size + 100 * MB
        over += ours > bound
        print(
            f"{name:40} {mat_size / MB:6.1f} "
            f"{ours / MB:8.0f} ({ours / mat_size:5.1f}x) "
            f"{floor / MB:5.0f} ({floor / mat_size:4.1f}x) {'':>14} bound {bound / MB:.0f}"
            + ("  OVER THE BOUND" if ours > bound else "")
        )
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main())
