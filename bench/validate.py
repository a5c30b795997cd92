"""Benchmark: parse + replay + validate throughput, against python-chess reading a PGN corpus.

    python3 bench/validate.py [--games 10000] [--repeat 3]

Both sides are measured in this run on the same machine: jacquet-notation validating seeded
self-play games (one process, then ``--jobs 2``), and python-chess's ``chess.pgn.read_game``
reading a PGN of random legal games with the same number of plies (each SAN move is parsed and
checked for legality against the board, which is the chess counterpart of our validation).
Each is run ``--repeat`` times, in turn, and its best time kept: the machine is shared, and other
work only ever adds time. With ``--jobs 2`` the workers' CPU is reported too (from
``RUSAGE_CHILDREN``), to show what running in parallel costs. Peak memory (tracemalloc, in a
fresh process) for 1,000 and for all the games shows streaming.

Generated files are cached in bench/out/ (not committed).
"""

from __future__ import annotations

import argparse
import io
import json
import os
import random
import resource
import subprocess
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# bench/xml.py would shadow the standard library's xml (which python-chess imports) if this
# folder stayed first on the path, as it does for a script.
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(ROOT))

import chess  # noqa: E402
import chess.pgn  # noqa: E402

from jacquet_notation.generate import generate_records  # noqa: E402
from jacquet_notation.notation import write_game  # noqa: E402
from jacquet_notation.rules import Rules  # noqa: E402
from jacquet_notation.validation import validate_paths  # noqa: E402

OUT = ROOT / "bench" / "out"


def _generate_part(args: tuple[int, int]) -> str:
    games, seed = args
    return "\n".join(write_game(r) for r in generate_records(games, seed, Rules.named("jacquet")))


def jacquet_file(games: int) -> Path:
    """Seeded self-play games in canonical notation (cached)."""
    path = OUT / f"validate-{games}.jqt"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        parts = [(games // 10, seed) for seed in range(10)]
        with ProcessPoolExecutor() as pool:
            text = "\n".join(pool.map(_generate_part, parts))
        path.write_text(text, encoding="utf-8")
    return path


def chess_file(plies: int) -> Path:
    """Random legal chess games, written by python-chess, with about ``plies`` plies in all."""
    path = OUT / f"peer-{plies}.pgn"
    if path.exists():
        return path
    rng = random.Random(1)
    out = io.StringIO()
    total = 0
    number = 0
    while total < plies:
        board = chess.Board()
        number += 1
        while not board.is_game_over() and board.ply() < 160 and total < plies:
            board.push(rng.choice(list(board.legal_moves)))
            total += 1
        game = chess.pgn.Game.from_board(board)
        game.headers["Event"] = f"Random game {number}"
        print(game, file=out, end="\n\n")
    path.write_text(out.getvalue(), encoding="utf-8")
    return path


class Timing(NamedTuple):
    wall: float
    cpu: float  # this process
    children: float  # worker processes (zero for one process)
    plies: int


def time_jacquet(path: Path, jobs: int) -> Timing:
    """Wall and CPU seconds of ``validate_paths``, the workers' CPU apart, and the plies."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    wall, cpu = time.perf_counter(), time.process_time()
    plies = 0
    bad = 0
    for report in validate_paths([str(path)], jobs=jobs):
        plies += report.plies
        bad += report.status != "valid"
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    children = (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
    assert bad == 0, f"{bad} generated games failed validation"
    return Timing(wall, cpu, children, plies)


def time_chess(path: Path) -> Timing:
    wall, cpu = time.perf_counter(), time.process_time()
    plies = 0
    with path.open(encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            assert not game.errors, game.errors
            plies += sum(1 for _ in game.mainline_moves())
    return Timing(time.perf_counter() - wall, time.process_time() - cpu, 0.0, plies)


def best(timings: list[Timing]) -> Timing:
    """The least disturbed of the runs: each time its minimum (other work only ever adds)."""
    return Timing(
        min(t.wall for t in timings),
        min(t.cpu for t in timings),
        min(t.children for t in timings),
        timings[0].plies,
    )


_PEAK = """
import sys, tracemalloc
sys.path.insert(0, {root!r})
from jacquet_notation.validation import validate_paths
tracemalloc.start()
n = sum(1 for _ in validate_paths([{path!r}], jobs=1))
print(tracemalloc.get_traced_memory()[1])
"""


def peak_memory(path: Path) -> int:
    code = _PEAK.format(root=str(ROOT), path=str(path))
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    return int(result.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the best of each is kept")
    args = parser.parse_args()

    load = os.getloadavg()
    big = jacquet_file(args.games)
    small = jacquet_file(1_000)

    # Rounds in turn (ours, the peer's, ours in two processes), so that a neighbour's burst of
    # work disturbs one round of each rather than all the runs of one side.
    ones: list[Timing] = []
    twos: list[Timing] = []
    peers: list[Timing] = []
    for _ in range(args.repeat):
        ones.append(time_jacquet(big, jobs=1))
        peers.append(time_chess(chess_file(ones[0].plies)))
        twos.append(time_jacquet(big, jobs=2))
    one, two, peer = best(ones), best(twos), best(peers)
    pgn = chess_file(one.plies)
    peak_small = peak_memory(small)
    peak_big = peak_memory(big)

    chess_rate = peer.plies / peer.cpu
    rows = [
        ("jacquet validate, 1 process (CPU)", one.plies, one.cpu),
        ("jacquet validate, 1 process (wall)", one.plies, one.wall),
        ("jacquet validate, --jobs 2 (wall)", two.plies, two.wall),
        ("python-chess read_game (CPU, peer)", peer.plies, peer.cpu),
        ("python-chess read_game (wall)", peer.plies, peer.wall),
    ]
    size, peer_size = big.stat().st_size / 1e6, pgn.stat().st_size / 1e6
    print(f"{args.games} games, {size:.1f} MB; peer PGN {peer_size:.1f} MB; best of {args.repeat}")
    print(f"load average before the run: {load[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'':36} {'plies':>9} {'seconds':>8} {'plies/s':>10} {'x peer':>7}")
    for name, count, seconds in rows:
        rate = count / seconds
        print(f"{name:36} {count:9d} {seconds:8.2f} {rate:10.0f} {rate / chess_rate:7.2f}")
    print(
        f"--jobs 2: {two.cpu:.2f} s CPU in the main process, {two.children:.2f} s in the workers "
        f"({(two.cpu + two.children) / one.cpu:.2f} x the CPU of one process)"
    )
    print(
        f"peak memory (tracemalloc): 1,000 games {peak_small / 1e6:.1f} MB, "
        f"{args.games:,} games {peak_big / 1e6:.1f} MB, ratio {peak_big / peak_small:.2f}"
    )
    print("targets: 1 process >= 1.00 x peer; --jobs 2 >= 1.70 x peer; memory ratio <= 1.20")
    summary = {
        "one_cpu": one.plies / one.cpu / chess_rate,
        "two_wall": two.plies / two.wall / chess_rate,
        "memory": peak_big / peak_small,
    }
    print(json.dumps(summary))


if __name__ == "__main__":
    main()
