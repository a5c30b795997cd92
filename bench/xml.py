"""Benchmark of the XML export and import, beside reading the same games as notation.

On ``--games`` seeded self-play games (written as canonical notation, then read back so that the
records carry their text and spans as records from a file do), in the same run:

- parse: ``read_games`` of the notation; parse + validate: the same and ``replay`` of each game
  (the peer: what ``jacquet validate`` does on one core);
- export: ``write_xml`` of the parsed records to a file (it replays each game, then writes it);
  the XML writing alone is export minus the replay time measured in the peer;
- import: ``read_xml`` of that file, with the per-game schema check and without it.

Then the peak memory (tracemalloc) of exporting and importing ``--memory`` games (default 1,000
and 10,000): it should stay flat. Target from issue 7: exporting costs less than reading the
notation (export games/s above parse + validate games/s).

    python3 bench/xml.py [--games 10000] [--seed 7] [--memory 1000,10000]
"""

from __future__ import annotations

import argparse
import io
import itertools
import os
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from jacquet_notation.generate import generate_records
from jacquet_notation.notation import read_games, write_game
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules
from jacquet_notation.xml import read_xml, write_xml


class Discard(io.RawIOBase):
    """A sink that keeps nothing: the memory figures are the exporter's own."""

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        return len(data)


def timed(run: Callable[[], object]) -> float:
    """CPU seconds of the process: steadier than wall time on a shared machine."""
    start = time.process_time()
    run()
    return time.process_time() - start


def peak(run: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--rules", default="jacquet")
    parser.add_argument("--memory", default="1000,10000", help="game counts for peak memory")
    args = parser.parse_args()
    rules = Rules.named(args.rules)

    start = time.perf_counter()
    generated = list(generate_records(args.games, args.seed, rules, "random"))
    notation = "\n".join(write_game(record) for record in generated).encode("utf-8")
    del generated
    load = ", ".join(f"{value:.1f}" for value in os.getloadavg())
    print(f"CPU time of one process; load average {load} on {os.cpu_count()} CPUs")
    print(
        f"{args.games:,} self-play games [{rules.name}], seed {args.seed}: notation"
        f" {len(notation) / 1e6:.1f} MB (generated in {time.perf_counter() - start:.0f} s)"
    )

    records: list[GameRecord] = []
    t_parse = timed(lambda: records.extend(read_games(io.BytesIO(notation), "bench.jqt")))
    plays = sum(len(record.plays) for record in records)
    t_replay = timed(lambda: [replay(record) for record in records])
    t_peer = t_parse + t_replay

    folder = tempfile.mkdtemp(prefix="bench-xml-")
    path = os.path.join(folder, "games.xml")

    def export() -> None:
        with open(path, "wb") as out:
            write_xml(records, out)

    t_export = timed(export)
    size = os.path.getsize(path)
    t_import = timed(lambda: sum(1 for _ in read_xml(path)))
    t_import_raw = timed(lambda: sum(1 for _ in read_xml(path, validate=False)))

    n = len(records)

    def rate(seconds: float) -> str:
        return f"{n / seconds:>9,.0f} games/s  {plays / seconds:>11,.0f} plays/s"

    print(f"{n:,} games, {plays:,} plays; XML {size / 1e6:.1f} MB ({size / n / 1e3:.1f} kB a game)")
    print(f"  parse notation              {rate(t_parse)}")
    print(f"  parse + validate (peer)     {rate(t_peer)}")
    print(
        f"  export XML (replay + write) {rate(t_export)}"
        f"   {t_peer / t_export:.2f}x parse + validate"
    )
    writing = t_export - t_replay
    print(
        f"  XML writing alone           {rate(writing)}   {t_parse / writing:.2f}x parse notation"
        "   (export - replay)"
    )
    ratio = t_peer / t_import
    print(f"  import XML, schema-checked  {rate(t_import)}   {ratio:.2f}x parse + validate")
    print(
        f"  import XML, no schema       {rate(t_import_raw)}   {t_parse / t_import_raw:.2f}x parse"
    )
    verdict = "met" if t_export < t_peer else "NOT met"
    print(f"  target: export costs less than parse + validate: {verdict}")

    counts = [int(c) for c in args.memory.split(",") if c]
    print("peak memory (tracemalloc; the records themselves are allocated before):")

    def games(count: int) -> Iterable[GameRecord]:
        # islice of the list copies nothing; cycle (which keeps what it has seen) only if short
        source = records if count <= len(records) else itertools.cycle(records)
        return itertools.islice(source, count)

    write_xml(games(2), Discard())  # caches (schema, stylesheet) outside the measurements
    for count in counts:
        export_peak = peak(lambda count=count: write_xml(games(count), Discard()))  # type: ignore[misc]
        sized = os.path.join(folder, f"{count}.xml")
        with open(sized, "wb") as out:
            write_xml(games(count), out)
        import_peak = peak(lambda sized=sized: sum(1 for _ in read_xml(sized)))  # type: ignore[misc]
        print(
            f"  {count:>7,} games: export {export_peak / 1e6:6.2f} MB   import"
            f" {import_peak / 1e6:6.2f} MB   (document {os.path.getsize(sized) / 1e6:.0f} MB)"
        )
        os.unlink(sized)
    os.unlink(path)
    os.rmdir(folder)


if __name__ == "__main__":
    main()
