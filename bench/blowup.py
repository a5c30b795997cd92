"""Figures of "files that blow up": what a long match and copies of one game cost the archive and
validate, against the checkout's package or another's (``--root``, an older checkout).

    python3 bench/blowup.py [--root DIR] [--games 10000] [--copies 2000] [--validate 2000,8000]

- the archive of one match file of ``--games`` real games (bench/big_match.py): its size over
  the file's (after a checkpoint), the games' stored text over the file's;
- ``jacquet validate`` of one match of each count of ``--validate`` games: seconds, and the
  ratio of the last to the first (linear: the ratio of the counts);
- the archive of ``--copies`` copies of one game under different Round tags: its rows (every
  table and index, sqlite's dbstat) and its size.

Each figure is taken in a child process running the package of ``--root``; seconds are its
processor time (an import's writer process included). Files go to
bench/out/ (not committed).
"""

from __future__ import annotations

import argparse
import os
import resource
import sqlite3
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "out"
MB = 1_000_000
sys.path.insert(0, str(HERE))

from big_match import write_big_match  # noqa: E402  (bench/big_match.py, beside this script)

COPY = """[Event "Copies"]
[Round "{n}"]
[White "Ann"]
[Black "Bob"]
[Rules "backgammon"]

1. 3-1: 8/5 6/5 6-4: 24/18 13/9
2. 5-2: 13/8 13/11 *
"""


def run(root: Path, *args: str) -> float:
    """Processor seconds (user + system) ``jacquet ARGS`` takes with the package of ``root``:
    on a machine shared with other work, wall time says more of the others than of it."""
    env = {**os.environ, "PYTHONPATH": str(root)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(
        [sys.executable, "-m", "jacquet_notation", *args],
        cwd=root,  # python -m puts its working folder first on the path
        env=env,
        check=False,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    if done.returncode not in (0, 1):  # 1: some game is not valid, which is no failure here
        raise SystemExit(f"jacquet {' '.join(args)} failed:\n{done.stderr[-2000:]}")
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime


def archive_size(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    return db.stat().st_size


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--root", type=Path, default=HERE.parent)
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--copies", type=int, default=2_000)
    parser.add_argument("--validate", default="2000,8000")
    parser.add_argument("--only", choices=("archive", "validate", "copies"), action="append")
    args = parser.parse_args()
    OUT.mkdir(exist_ok=True)
    only = set(args.only or ("archive", "validate", "copies"))
    print(f"package: {args.root}")
    if "archive" in only:
        match = write_big_match(args.games, OUT / f"blowup-{args.games}.mat")
        db = OUT / "blowup-match.db"
        for path in OUT.glob("blowup-match.db*"):
            path.unlink()
        seconds = run(args.root, "archive", str(db), str(match))
        size, db_size = match.stat().st_size, archive_size(db)
        with sqlite3.connect(db) as conn:
            stored = conn.execute("SELECT sum(length(original)) FROM games").fetchone()[0] or 0
        print(
            f"archive of a {args.games:,}-game match ({size / MB:.1f} MB): {db_size / MB:.1f} MB"
            f" ({db_size / size:.1f} x the file; stored texts {stored / size:.2f} x),"
            f" {seconds:.0f} s"
        )
    if "validate" in only:
        counts = [int(n) for n in args.validate.split(",")]
        times = []
        for count in counts:
            match = write_big_match(count, OUT / f"blowup-{count}.mat")
            times.append(run(args.root, "validate", "--jobs", "1", str(match)))
            print(f"validate a {count:,}-game match: {times[-1]:.1f} s")
        print(
            f"ratio {times[-1] / times[0]:.2f} for {counts[-1] / counts[0]:.0f} x the games"
            " (linear: that many)"
        )
    if "copies" in only:
        copies = OUT / f"blowup-copies-{args.copies}.jqt"
        copies.write_text(
            "\n".join(COPY.format(n=n) for n in range(1, args.copies + 1)), encoding="utf-8"
        )
        db = OUT / "blowup-copies.db"
        for path in OUT.glob("blowup-copies.db*"):
            path.unlink()
        seconds = run(args.root, "archive", str(db), str(copies))
        db_size = archive_size(db)
        with sqlite3.connect(db) as conn:
            stored = conn.execute(
                "SELECT sum(ncell) FROM dbstat WHERE pagetype = 'leaf'"
            ).fetchone()[0]
            names = [r[0] for r in conn.execute("SELECT name FROM sqlite_master")]
            pairs = (
                conn.execute("SELECT count(*) FROM duplicates").fetchone()[0]
                if "duplicates" in names
                else 0
            )
        print(
            f"{args.copies:,} copies of one game: {stored:,} rows in all, duplicates answers"
            f" {pairs:,} pairs, {db_size / MB:.1f} MB, {seconds:.0f} s"
        )


if __name__ == "__main__":
    main()
