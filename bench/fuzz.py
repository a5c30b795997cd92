"""Fuzzing of the whole read path a user meets, from records mutated at random: the corpus/
records and the real match files of ``--matches`` (by default the shared backgammon-mat folder).

    python3 bench/fuzz.py [--cases 20000] [--seed 1] [--jobs 2] [--timeout 10] [--show 3]
                          [--matches DIR]

Each case is a corpus file (valid or broken) or, one case in two, a match file, with one to eight
mutations: a byte flipped, bytes deleted, a run of bytes duplicated (now and then a great many
times, to reach the limits of depth and size), punctuation inserted; a line deleted, duplicated or
two lines swapped; a digit replaced by another script's digit (``²``, ``٣``, ...) or an odd
character inserted (no-break and zero-width spaces, a byte order mark, a line separator, a
right-to-left mark, control characters); the newlines made CR only or mixed; Latin-1 bytes (not
UTF-8) inserted, or the whole file re-encoded in Latin-1. The case is then read as ``jacquet
validate``, ``jacquet fmt``, ``jacquet archive`` and ``jacquet export --mat`` read it:
``read_games``, ``report_record`` (replay and validation) for every game and the match checks
from game to game, the archive's rows (``derive``), the canonical writer for every game read
without error, whose text must read back to the same record, and the match-file writer for the
backgammon games read without error. The short files of the "Unicode digits" issue (a ``²`` or a
``٣`` in a match file's header, a ``[Position]``, a rule option, a ``[Match]``) run first, once.

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
from typing import NamedTuple

HERE = Path(__file__).resolve().parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(HERE.parent))

from jacquet_notation.archive.rows import derive  # noqa: E402
from jacquet_notation.errors import JacquetError, NotationError  # noqa: E402
from jacquet_notation.match import GameSummary, check_next  # noqa: E402
from jacquet_notation.notation import parse_game, read_games, write_game  # noqa: E402
from jacquet_notation.notation.mat_writer import write_matches  # noqa: E402
from jacquet_notation.validation import report_record  # noqa: E402

CORPUS = HERE.parent / "corpus"
#: the real match files (1,346 of them), beside the corpus
MATCHES = Path("/work/shared/data/backgammon-mat")
#: what is inserted: the characters that matter to the grammar
PUNCTUATION = b'()[]{}";:./-*!?$\\ \n\t0123456789'
#: and the words of the notation, inserted whole
WORDS = [b"--", b"pass", b"off", b"bar", b"...", b"1.", b"6-5:", b"24/18", b"(2)", b"2-0", b"\r"]
#: what isdigit() calls a digit and no record means: superscripts, Arabic-Indic, Extended
#: Arabic-Indic, Devanagari, fullwidth, mathematical, circled
UNICODE_DIGITS = [
    "\u00b2",
    "\u00b3",
    "\u00b9",
    "\u0663",
    "\u06f4",
    "\u0969",
    "\uff15",
    "\U0001d7d9",
    "\u2460",
]
#: odd characters: no-break, zero-width and ideographic spaces, byte order mark, line and paragraph
#: separators, next line, right-to-left override, vertical tab, form feed, file separator, é
ODD = [
    "\u00a0",
    "\u200b",
    "\u3000",
    "\ufeff",
    "\u2028",
    "\u2029",
    "\u0085",
    "\u202e",
    "\x0b",
    "\x0c",
    "\x1c",
    "\u00e9",
]
#: the short files of the issue, {d} a Unicode digit (tests/integration/test_unicode_digits.py has
#: the same)
SHAPES = [
    '; [Match "{d}"]\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n',
    "{d} point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n",
    " Game {d}\n a : 0   b : 0\n  1) 31: 8/5 6/5\n",
    '[Rules "backgammon"]\n[Position "white 2{d}:15; black 24:15; white to move"]\n\n*\n',
    '[Rules "jacquet"]\n[Midpoint-Men "{d}"]\n\n1. 6-5: 24/18 24/13 *\n',
    '[Rules "backgammon"]\n[Match "{d}"]\n\n1. 3-1: 8/5 6/5 *\n',
    '[Rules "backgammon"]\n[Match "3"]\n[Score "{d}-0"]\n\n*\n',
    '[Rules "backgammon"]\n[Result "{d}-0"]\n\n1. 3-1: 8/5 6/5 {d}-0\n',
    "1. 6-{d}: 24/18 24/13\n",
]


class Seeds(NamedTuple):
    """What cases are made from: the corpus' records and the real match files."""

    records: list[bytes]
    matches: list[bytes]


def seeds(matches: Path = MATCHES) -> Seeds:
    records = [path.read_bytes() for path in sorted(CORPUS.rglob("*.jqt"))]
    found = sorted(path for path in matches.rglob("*") if path.suffix in (".txt", ".mat"))
    return Seeds(records, [path.read_bytes() for path in found])


def _lines(buffer: bytearray, rng: random.Random) -> bytearray:
    """A line deleted, duplicated, or two lines swapped."""
    lines = bytes(buffer).splitlines(keepends=True)
    if not lines:
        return buffer
    at, other = rng.randrange(len(lines)), rng.randrange(len(lines))
    kind = rng.randrange(3)
    if kind == 0:
        del lines[at]
    elif kind == 1:
        lines.insert(at, lines[at])
    else:
        lines[at], lines[other] = lines[other], lines[at]
    return bytearray(b"".join(lines))


def _characters(buffer: bytearray, rng: random.Random) -> bytearray:
    """A digit of another script where an ASCII digit was (or anywhere), or an odd character."""
    if rng.random() < 0.6:
        digit = rng.choice(UNICODE_DIGITS).encode()
        places = [i for i, byte in enumerate(buffer) if 48 <= byte <= 57]
        if places and rng.random() < 0.8:
            at = rng.choice(places)
            buffer[at : at + 1] = digit
        else:
            at = rng.randrange(len(buffer) + 1)
            buffer[at:at] = digit
        return buffer
    at = rng.randrange(len(buffer) + 1)
    buffer[at:at] = rng.choice(ODD).encode()
    return buffer


def _newlines(buffer: bytearray, rng: random.Random) -> bytearray:
    """CR-only newlines, or each newline at random LF, CRLF or CR."""
    lines = bytes(buffer).replace(b"\r\n", b"\n").split(b"\n")
    if rng.random() < 0.5:
        return bytearray(b"\r".join(lines))
    joined = bytearray(lines[0])
    for line in lines[1:]:
        joined += rng.choice([b"\n", b"\r\n", b"\r"]) + line
    return joined


def _latin1(buffer: bytearray, rng: random.Random) -> bytearray:
    """Latin-1 bytes in a UTF-8 file (é as 0xE9), or the whole file in Latin-1."""
    if rng.random() < 0.3:
        text = bytes(buffer).decode("utf-8", "replace")
        return bytearray(text.encode("latin-1", "replace"))
    at = rng.randrange(len(buffer) + 1)
    buffer[at:at] = bytes(rng.randrange(0x80, 0x100) for _ in range(rng.randint(1, 3)))
    return buffer


def mutate(data: bytes, rng: random.Random) -> bytes:
    """One to eight mutations of ``data``."""
    buffer = bytearray(data)
    for _ in range(rng.randint(1, 8)):
        at = rng.randrange(len(buffer) + 1)
        if rng.random() < 0.4:  # the mutations of lines, characters and encodings
            buffer = rng.choice([_lines, _lines, _characters, _characters, _newlines, _latin1])(
                buffer, rng
            )
            continue
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


def case(number: int, seed: int, corpus: Seeds) -> bytes:
    """Case ``number``: one in two from a match file (when there are any), mutated."""
    rng = random.Random(seed * 1_000_003 + number)
    kind = corpus.matches if corpus.matches and rng.random() < 0.5 else corpus.records
    return mutate(rng.choice(kind), rng)


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
        previous: GameSummary | None = None
        for game in games:
            report = report_record(game)
            for problem in game.errors:
                if multi_line(problem.message):
                    findings.append("multi-line: " + problem.message.split("\n")[0][:60])
            findings += ["multi-line: report"] * sum("\n" in line for line in report.errors)
            if report.match is not None:  # the match checks from game to game, as validate's
                for error in check_next(previous, report.match):
                    if "\n" in error.message:
                        findings.append("multi-line: match " + error.message[:60])
            previous = report.match
            derive(game, None, None)  # the archive's rows
            if not game.errors:
                text = write_game(game)
                again = parse_game(text)
                if again.errors or again != game:
                    findings.append("round-trip: canonical text reads back differently")
        mat_games = [g for g in games if not g.errors and g.tags.get("Rules") == "backgammon"]
        try:
            for _ in write_matches(mat_games):
                pass
        except JacquetError as refused:  # a game export --mat refuses, with its message
            if "\n" in refused.message:
                findings.append("multi-line: mat writer " + refused.message[:60])
    except Exception as error:  # a crash is what we look for
        frame = traceback.extract_tb(error.__traceback__)[-1]
        findings.append(
            f"crash: {type(error).__name__} in {frame.name} ({Path(frame.filename).name})"
        )
    return findings


def worker(connection: Connection, seed: int, matches: Path) -> None:
    """Run the cases the parent sends, one at a time, answering with their findings."""
    corpus = seeds(matches)
    while True:
        number = connection.recv()
        if number is None:
            return
        connection.send(check(case(number, seed, corpus)))


class Runner:
    """A worker process and the watchdog over its cases, in a thread of the parent."""

    def __init__(
        self, seed: int, timeout: float, results: dict[str, list[int]], matches: Path
    ) -> None:
        self.seed, self.timeout, self.results, self.matches = seed, timeout, results, matches
        self.lock = threading.Lock()
        self.start()

    def start(self) -> None:
        self.connection, child = multiprocessing.Pipe()
        self.process = multiprocessing.Process(
            target=worker, args=(child, self.seed, self.matches), daemon=True
        )
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
    parser.add_argument("--matches", type=Path, default=MATCHES, help="a folder of match files")
    args = parser.parse_args()
    corpus = seeds(args.matches)
    if args.case is not None:
        sys.stdout.buffer.write(case(args.case, args.seed, corpus))
        return 0
    results: dict[str, list[int]] = defaultdict(list)
    started = time.monotonic()
    # the short files first, in this process: each shape with each Unicode digit
    shapes = [shape.format(d=digit).encode() for shape in SHAPES for digit in UNICODE_DIGITS]
    for number, data in enumerate(shapes):
        for finding in check(data):
            results[f"{finding} [shape {data[:40]!r}]"].append(number)
    threads = []
    for job in range(args.jobs):
        runner = Runner(args.seed, args.timeout, results, args.matches)
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
        f"{done} cases of {args.cases} run (and {len(shapes)} short files of the issue), from"
        f" {len(corpus.records)} corpus records and {len(corpus.matches)} match files,"
        f" seed {args.seed}, {elapsed:.0f} s"
    )
    for kind, count in totals.items():
        print(f"{kind:>11}: {count}")
    for finding, numbers in sorted(results.items(), key=lambda item: -len(item[1])):
        shown = ", ".join(str(n) for n in sorted(numbers)[: args.show])
        where = "" if "[shape " in finding else f"  (e.g. --case {shown})"
        print(f"  {len(numbers):6} x {finding}{where}")
    return 1 if results or done < args.cases else 0


if __name__ == "__main__":
    sys.exit(main())
