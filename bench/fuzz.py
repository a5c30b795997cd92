"""Fuzzing of the whole read path a user meets, from the records of corpus/ mutated at random.

    python3 bench/fuzz.py [--cases 20000] [--seed 1] [--jobs 2] [--timeout 10] [--show 3]

Each case is a corpus file (valid or broken) with one to eight mutations: a byte flipped, bytes
deleted, a run of bytes duplicated (now and then a great many times, to reach the limits of depth
and size), punctuation inserted. The case is then read as ``jacquet validate`` and ``jacquet
fmt`` read it: ``read_games``, ``report_record`` (replay and validation) for every game, and the
canonical writer for every game read without error, whose text must read back to the same record.

Found, by category (the exception and the function it came from), each with the seed of its first
cases so that it can be replayed (``--case N``):

- crash: any exception but the project's own error on the file as a whole (a NUL byte...);
- hang: a case taking more than ``--timeout`` seconds (its worker is killed and replaced);
- multi-line: an error message whose own text holds a newline (the reader adds the line and a
  caret after the message; nothing else may);
- round-trip: a game read without error whose canonical text does not read back to the same game.

Exit 0 when nothing was found, 1 otherwise. Cases run in worker processes (``--jobs``), each case
under a watchdog in the parent.
"""

from __future__ import annotations

import argparse
import io
import multiprocessing
import random
import sys
import threading
import time
import traceback
from collections import Counter, defaultdict
from multiprocessing.connection import Connection
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from jacquet_notation.errors import NotationError  # noqa: E402
from jacquet_notation.notation import parse_game, read_games, write_game  # noqa: E402
from jacquet_notation.validation import report_record  # noqa: E402

CORPUS = HERE.parent / "corpus"
#: what is inserted: the characters that matter to the grammar
PUNCTUATION = b'()[]{}";:./-*!?$\\ \n\t0123456789'
#: and the words of the notation, inserted whole
WORDS = [b"--", b"pass", b"off", b"bar", b"...", b"1.", b"6-5:", b"24/18", b"(2)", b"2-0", b"\r"]


def seeds() -> list[bytes]:
    return [path.read_bytes() for path in sorted(CORPUS.rglob("*.jqt"))]


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to eight mutations of ``data``."""
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(buffer) + 1)
        kind = rng.random()
        if kind < 0.25 and buffer:
            at = min(at, len(buffer) - 1)
            buffer[at] = (
                rng.randrange(256) if rng.random() < 0.3 else buffer[at] ^ (1 << rng.randrange(8))
            )
        elif kind < 0.5:
            del buffer[at : at + rng.randint(1, 20)]
        elif kind < 0.75:
            start = rng.randrange(len(buffer) + 1)
            piece = bytes(buffer[start : start + rng.randint(1, 200)])
            times = rng.choice([1, 1, 1, 2, 3, 1000]) if len(piece) < 10 else 1
            buffer[at:at] = piece * times
        elif kind < 0.9:
            count = rng.choice([1, 1, 1, 2, 5, 200])
            buffer[at:at] = bytes([rng.choice(PUNCTUATION)]) * count
        else:
            buffer[at:at] = rng.choice(WORDS)
    return bytes(buffer)


def case(number: int, seed: int, corpus: list[bytes]) -> bytes:
    rng = random.Random(seed * 1_000_003 + number)
    return mutate(rng.choice(corpus), rng)


def multi_line(message: str) -> bool:
    """Whether a message holds a newline of its own (beyond the quoted line and its caret)."""
    lines = message.split("\n")
    if len(lines) == 1:
        return False
    return not (len(lines) == 3 and lines[1].startswith("    ") and lines[2].strip() == "^")


def check(data: bytes) -> list[str]:
    """The findings of one input, as categories: "crash: ...", "multi-line: ...", ..."""
    findings: list[str] = []
    try:
        try:
            games = list(read_games(io.BytesIO(data), "fuzz.jqt"))
        except NotationError as refused:  # the file as a whole: reported, not a crash
            if multi_line(refused.message):
                findings.append("multi-line: file " + refused.message.split("\n")[0][:60])
            return findings
        for game in games:
            report = report_record(game)
            for problem in game.errors:
                if multi_line(problem.message):
                    findings.append("multi-line: " + problem.message.split("\n")[0][:60])
            findings += ["multi-line: report"] * sum("\n" in line for line in report.errors)
            if not game.errors:
                text = write_game(game)
                again = parse_game(text)
                if again.errors or again != game:
                    findings.append("round-trip: canonical text reads back differently")
    except Exception as error:  # a crash is what we look for
        frame = traceback.extract_tb(error.__traceback__)[-1]
        findings.append(
            f"crash: {type(error).__name__} in {frame.name} ({Path(frame.filename).name})"
        )
    return findings


def worker(connection: Connection, seed: int) -> None:
    """Run the cases the parent sends, one at a time, answering with their findings."""
    corpus = seeds()
    while True:
        number = connection.recv()
        if number is None:
            return
        connection.send(check(case(number, seed, corpus)))


class Runner:
    """A worker process and the watchdog over its cases, in a thread of the parent."""

    def __init__(self, seed: int, timeout: float, results: dict[str, list[int]]) -> None:
        self.seed, self.timeout, self.results = seed, timeout, results
        self.lock = threading.Lock()
        self.start()

    def start(self) -> None:
        self.connection, child = multiprocessing.Pipe()
        self.process = multiprocessing.Process(target=worker, args=(child, self.seed), daemon=True)
        self.process.start()

    def run(self, numbers: list[int]) -> None:
        for number in numbers:
            self.connection.send(number)
            if self.connection.poll(self.timeout):
                findings = self.connection.recv()
            else:
                findings = [f"hang: more than {self.timeout:g} s"]
                self.process.kill()
                self.process.join()
                self.start()
            with self.lock:
                self.results["done"].append(number)
                for finding in findings:
                    self.results[finding].append(number)
        self.connection.send(None)
        self.process.join()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds a case may take")
    parser.add_argument("--show", type=int, default=3, help="case numbers shown per finding")
    parser.add_argument("--case", type=int, help="write this case to stdout and stop")
    args = parser.parse_args()
    if args.case is not None:
        sys.stdout.buffer.write(case(args.case, args.seed, seeds()))
        return 0
    results: dict[str, list[int]] = defaultdict(list)
    started = time.monotonic()
    threads = []
    for job in range(args.jobs):
        runner = Runner(args.seed, args.timeout, results)
        numbers = list(range(job, args.cases, args.jobs))
        threads.append(threading.Thread(target=runner.run, args=(numbers,)))
        threads[-1].start()
    for thread in threads:
        thread.join()
    elapsed = time.monotonic() - started
    done = len(results.pop("done", []))
    totals = Counter({kind: 0 for kind in ("crash", "hang", "multi-line", "round-trip")})
    for finding, numbers in results.items():
        totals[finding.split(":")[0]] += len(numbers)
    print(
        f"{done} cases of {args.cases} run, from {len(seeds())} corpus files, seed {args.seed},"
        f" {elapsed:.0f} s"
    )
    for kind, count in totals.items():
        print(f"{kind:>11}: {count}")
    for finding, numbers in sorted(results.items(), key=lambda item: -len(item[1])):
        shown = ", ".join(str(n) for n in sorted(numbers)[: args.show])
        print(f"  {len(numbers):6} x {finding}  (e.g. --case {shown})")
    return 1 if results or done < args.cases else 0


if __name__ == "__main__":
    sys.exit(main())
