"""Benchmark: real match files (.mat) read, and read and validated, against python-chess on PGN.

    python3 bench/mat.py [--data ../shared/data/backgammon-mat] [--repeat 3] [--profile 25]

Both sides are measured in this run on the same machine, one process each: jacquet-notation
reading every match file of the folder (plies read per second), then validating them
(``validate_paths``, plies validated per second), and python-chess's ``chess.pgn.read_game``
reading and checking a PGN of random legal games with as many plies (bench/validate.py's peer,
the same code). gnubg's import of the same files is timed too where gnubg is installed: its
Python package (``pip install gnubg``, GPL, optional) in one process, CPU time, else the
``gnubg`` program's ``-t -q`` command line, wall time; it is skipped otherwise.
Each side runs ``--repeat`` times in turn, its best time kept (other work only ever adds).
The same matches are also read as gnubg's SGF, written by jacquet's own SGF writer into a
temporary folder before the rounds: reading them is compared with reading the ``.mat`` files
(goal: at least 0.8 times the plies a second).
``--profile N`` then validates the folder once more under cProfile and prints its N costliest
functions by their own time: where the validate figure goes, to look at before changing code.
"""

from __future__ import annotations

import argparse
import cProfile
import importlib.util
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
DATA = ROOT.parent / "shared" / "data" / "backgammon-mat"

# bench/validate.py holds the peer (the PGN file and its timing): loaded by path, so that the
# standard library's xml stays unshadowed by bench/xml.py as that module arranges
_spec = importlib.util.spec_from_file_location("bench_validate", HERE / "validate.py")
assert _spec is not None and _spec.loader is not None
peer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(peer)

from jacquet_notation.notation import read_games  # noqa: E402
from jacquet_notation.sgf_writer import write_sgf_matches  # noqa: E402
from jacquet_notation.validation import validate_paths  # noqa: E402


def sgf_copies(files: list[Path], folder: Path) -> list[Path]:
    """Each match file written as gnubg's SGF by our writer (one file a match) into ``folder``."""
    written = []
    for number, path in enumerate(files):
        for part, text in enumerate(write_sgf_matches(read_games(path))):
            target = folder / f"{number}-{part}.sgf"
            target.write_text(text, encoding="utf-8")
            written.append(target)
    return written


def time_reading(files: list[Path]) -> tuple[float, int, int]:
    """CPU seconds to read every file into records; the plies and the games read."""
    cpu = time.process_time()
    plies = games = 0
    for path in files:
        for record in read_games(path):
            assert not record.errors, record.errors[0]
            games += 1
            plies += len(record.plays)
    return time.process_time() - cpu, plies, games


def time_validating(folder: Path) -> tuple[float, int, int]:
    """CPU seconds of ``jacquet validate`` on the folder (one process); plies, invalid games."""
    cpu = time.process_time()
    plies = invalid = 0
    for report in validate_paths([str(folder)], jobs=1):
        plies += report.plies
        invalid += report.status != "valid"
    return time.process_time() - cpu, plies, invalid


_GNUBG_TIMING = """
import os, sys, time, gnubg
os.dup2(os.open(os.devnull, os.O_WRONLY), 1)  # gnubg prints every board it imports
cpu = time.process_time()
for path in sys.argv[1:]:
    gnubg.command('import mat "%s"' % path)
    gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
os.write(2, b"cpu %f" % (time.process_time() - cpu))
"""


def time_gnubg(files: list[Path]) -> tuple[str, float] | None:
    """Seconds of gnubg importing every file: CPU in one process where its Python package is
    installed (``pip install gnubg``, GPL, optional), else the wall time of the ``gnubg``
    program; None where neither is."""
    if importlib.util.find_spec("gnubg") is not None:
        done = subprocess.run(
            [sys.executable, "-c", _GNUBG_TIMING, *map(str, files)],
            capture_output=True,
            check=False,
        )
        said = done.stderr.decode(errors="replace").rsplit("cpu ", 1)
        return ("CPU, Python package", float(said[1])) if len(said) == 2 else None
    program = shutil.which("gnubg")
    if program is None:
        return None
    with tempfile.NamedTemporaryFile("w", suffix=".gnubg", delete=False) as script:
        for path in files:
            script.write(f'import mat "{path}"\n')
    try:
        start = time.perf_counter()
        subprocess.run([program, "-t", "-q", "-c", script.name], capture_output=True, check=False)
        return "wall, program", time.perf_counter() - start
    finally:
        os.unlink(script.name)


def profile_validating(folder: Path, top: int) -> None:
    """One more ``jacquet validate`` of the folder, under cProfile: its costliest functions."""
    profiler = cProfile.Profile()
    profiler.runcall(time_validating, folder)
    print(f"\nvalidate under cProfile, the {top} costliest functions by their own time:")
    pstats.Stats(profiler, stream=sys.stdout).sort_stats("tottime").print_stats(top)


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--data", type=Path, default=DATA)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the best of each is kept")
    parser.add_argument(
        "--profile", type=int, default=0, metavar="N", help="then profile validate: top N functions"
    )
    args = parser.parse_args()
    files = sorted(p for p in args.data.rglob("*") if p.suffix in (".txt", ".mat"))
    if not files:
        sys.exit(f"no match files under {args.data}")
    peer.OUT.mkdir(parents=True, exist_ok=True)  # the peer's PGN is cached there
    load = os.getloadavg()
    reads, checks, peers, sgf_reads = [], [], [], []
    plies = games = invalid = validated = sgf_plies = 0
    sgf_folder = tempfile.TemporaryDirectory()
    sgf_files = sgf_copies(files, Path(sgf_folder.name))
    for _ in range(args.repeat):
        seconds, plies, games = time_reading(files)
        reads.append(seconds)
        seconds, sgf_plies, _ = time_reading(sgf_files)
        sgf_reads.append(seconds)
        seconds, validated, invalid = time_validating(args.data)
        checks.append(seconds)
        peers.append(peer.time_chess(peer.chess_file(validated)))
    chess = peer.best(peers)
    chess_rate = chess.plies / chess.cpu
    gnubg = time_gnubg(files)
    print(f"{len(files)} files, {games} games; best of {args.repeat}")
    print(f"load average before the run: {load[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'':40} {'plies':>9} {'seconds':>8} {'plies/s':>10} {'x peer':>7}")
    rows = [
        ("jacquet read (.mat to records, CPU)", plies, min(reads)),
        ("jacquet read (gnubg's SGF, CPU)", sgf_plies, min(sgf_reads)),
        (f"jacquet validate (CPU; {invalid} invalid)", validated, min(checks)),
        ("python-chess read_game (CPU, peer)", chess.plies, chess.cpu),
    ]
    for name, count, seconds in rows:
        rate = count / seconds
        print(f"{name:40} {count:9d} {seconds:8.2f} {rate:10.0f} {rate / chess_rate:7.2f}")
    if gnubg is None:
        print("gnubg: not installed, not timed")
    else:
        how, seconds = gnubg
        rate = plies / seconds
        name = f"gnubg import mat ({how})"
        print(f"{name:40} {plies:9d} {seconds:8.2f} {rate:10.0f} {rate / chess_rate:7.2f}")
    sgf_ratio = (sgf_plies / min(sgf_reads)) / (plies / min(reads))
    print(f"SGF read / .mat read (plies a second): {sgf_ratio:.2f}, goal >= 0.8")
    print("goal: jacquet validate >= 1.5 x peer")
    sgf_folder.cleanup()
    if args.profile:
        profile_validating(args.data, args.profile)


if __name__ == "__main__":
    main()
