"""Benchmark: collating two 100-ply transcriptions of one game, beside validating them.

    python3 bench/collate.py [--repeat 5] [--differences 3]

Both are measured in this run on the same machine, from the records in memory (reading the text
costs both the same): the peer is the replay of each transcription (what ``jacquet validate``
does to a game), the work is ``collate`` of the two (the alignment, then the replay of each ply
where they differ, in the line agreed so far). The second transcription differs from the first
at ``--differences`` plies, each another legal play. Each is run ``--repeat`` times and its best
time kept: the machine is shared, and other work only ever adds time.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jacquet_notation.engine import legal_plays
from jacquet_notation.generate import generate_records
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import replay, written_play
from jacquet_notation.replay.collate import Transcription, collate
from jacquet_notation.rules import Rules


def hundred_plies() -> GameRecord:
    """The first seeded self-play game of at least 100 plies, cut to 100."""
    for record in generate_records(200, 1, Rules.named("backgammon")):
        if len(record.plays) >= 100:
            return replace(record, plays=record.plays[:100], result=None)
    raise SystemExit("no game of 100 plies")


def misprinted(record: GameRecord, differences: int) -> GameRecord:
    """``record`` with another legal play at ``differences`` plies spread along it."""
    game = replay(record)
    plays = list(record.plays)
    for at in range(10, 100, 90 // max(differences, 1))[:differences]:
        ply = game.plies[at]
        dice = ply.written.dice
        others = [p for p in legal_plays(ply.before, dice or (0, 0), game.rules) if ply.play != p]
        if dice is not None and others:
            plays[at] = written_play(ply.written.side, ply.written.turn, dice, others[0])
    return replace(record, plays=plays)


def best(work: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        work()
        times.append(time.perf_counter() - start)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--differences", type=int, default=3)
    args = parser.parse_args()
    first = hundred_plies()
    second = misprinted(first, args.differences)
    pair = [Transcription("a", first), Transcription("b", second)]
    found = len(collate(pair).differences)
    validating = best(lambda: (replay(first), replay(second)), args.repeat)
    collating = best(lambda: collate(pair), args.repeat)
    print(f"two transcriptions of {len(first.plays)} plies, {found} plies differing")
    print(f"validate (replay both):  {validating * 1000:8.1f} ms")
    print(f"collate:                 {collating * 1000:8.1f} ms")
    print(f"collate / validate:      {collating / validating:8.2f}")


if __name__ == "__main__":
    main()
