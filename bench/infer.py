"""Benchmark: ``jacquet infer`` (every named ruleset) against ``jacquet validate`` (one), the
same games, in one process, as a ratio (docs/infer.md, "Speed": at most 3).

    python3 bench/infer.py [--games 400] [--repeat 3]

The target is the command's default (an exclusion's reason the rule broken); ``--slips``
(the transcription slip each excluded ruleset's play suggests, looked for) is shown beside.

The games are seeded self-play under several rulesets (jacquet, spanish, bouchon, murray,
versailles, backgammon, in equal shares). Infer reads them without their ``[Rules]`` tag, as a
historian transcribes them from a book; validate reads the same games with it, each replayed
to its end under the one ruleset it was played by (untagged, validate would stop most of them
at their first play under jacquet, and measure little). Both paths start from a file and go
through the same reading (``sources.py``), and each round runs them in turn; each side's best
CPU time is kept: the machine is shared, and other work only ever adds time. Generated files are
cached in bench/out/ (not committed).
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
sys.path.insert(0, str(ROOT))

from jacquet_notation.generate import generate_records  # noqa: E402
from jacquet_notation.inference import infer_paths  # noqa: E402
from jacquet_notation.notation import write_game  # noqa: E402
from jacquet_notation.replay import Inference  # noqa: E402
from jacquet_notation.rules import Rules  # noqa: E402
from jacquet_notation.validation import validate_paths  # noqa: E402

OUT = ROOT / "bench" / "out"
RULESETS = ("jacquet", "spanish", "bouchon", "murray", "versailles", "backgammon")
TARGET = 3.0


def games_files(games: int) -> tuple[Path, Path]:
    """``games`` self-play records, shared out among :data:`RULESETS`: tagged, and the same
    untagged (cached)."""
    tagged, untagged = OUT / f"infer-{games}-tagged.jqt", OUT / f"infer-{games}.jqt"
    if not untagged.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        texts, bare = [], []
        for seed, name in enumerate(RULESETS):
            for record in generate_records(games // len(RULESETS), seed, Rules.named(name)):
                texts.append(write_game(record))
                del record.tags["Rules"]
                bare.append(write_game(record))
        tagged.write_text("\n".join(texts), encoding="utf-8")
        untagged.write_text("\n".join(bare), encoding="utf-8")
    return tagged, untagged


def time_validate(path: Path) -> tuple[float, int]:
    """CPU seconds of validate's path (one process), and the games it read (each valid)."""
    start = time.process_time()
    games = 0
    for report in validate_paths([str(path)], jobs=1):
        assert report.status == "valid", report.errors
        games += 1
    return time.process_time() - start, games


def time_infer(path: Path, slips: bool = False) -> tuple[float, int]:
    """CPU seconds of infer's path, and the games it read (each must fit its own ruleset);
    ``slips``: as ``jacquet infer --slips`` (each exclusion's slip looked for)."""
    start = time.process_time()
    games = 0
    for item in infer_paths([str(path)], slips=slips):
        assert isinstance(item, Inference) and item.consistent, item
        games += 1
    return time.process_time() - start, games


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=600)
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the best of each is kept")
    args = parser.parse_args()
    load = os.getloadavg()
    tagged, untagged = games_files(args.games)
    validates: list[float] = []
    infers: list[float] = []
    slipped: list[float] = []
    games = 0
    for _ in range(args.repeat):
        seconds, games = time_validate(tagged)
        validates.append(seconds)
        seconds, inferred = time_infer(untagged)
        assert inferred == games, (inferred, games)
        infers.append(seconds)
        slipped.append(time_infer(untagged, slips=True)[0])
    validate, infer, slips = min(validates), min(infers), min(slipped)
    print(f"{games} games ({', '.join(RULESETS)}); best of {args.repeat}")
    print(f"load average before the run: {load[0]:.2f} on {os.cpu_count()} cores")
    print(f"{'':42} {'CPU s':>7} {'games/s':>8} {'x validate':>10}")
    peer = f"{'jacquet validate (its own ruleset, peer)':42}"
    print(f"{peer} {validate:7.2f} {games / validate:8.0f} {1.0:10.2f}")
    ours = f"{'jacquet infer (no tag, every named ruleset)':42}"
    print(f"{ours} {infer:7.2f} {games / infer:8.0f} {infer / validate:10.2f}")
    more = f"{'jacquet infer --slips (each slip looked for)':42}"
    print(f"{more} {slips:7.2f} {games / slips:8.0f} {slips / validate:10.2f}")
    print(f"target: infer <= {TARGET:.2f} x validate")


if __name__ == "__main__":
    main()
