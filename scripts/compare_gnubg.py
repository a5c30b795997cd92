"""Games per match file as jacquet validates them, beside gnubg's import of the same files.

    python3 scripts/compare_gnubg.py [FOLDER]    (default: ../shared/data/backgammon-mat)

For every ``.mat`` and ``.txt`` file under FOLDER: the games ``jacquet validate`` reports (and
how many are valid), and, where the ``gnubg`` Python package is importable (``pip install
gnubg``: GPL-3, optional, never a dependency of jacquet-notation), the games gnubg imports and
the plays it refuses ("Invalid move"). Files where the game counts differ are listed; the totals
close the report. Without gnubg, jacquet's figures alone are printed and the script says so.
Exit 1 if any file's counts differ.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.util
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

from jacquet_notation.validation import validate_paths

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "backgammon-mat"
_REFUSED = re.compile(r'Invalid move: "([^"]*)"')


@contextlib.contextmanager
def _captured() -> Iterator[list[str]]:
    """What gnubg prints (it writes to the C streams, not Python's), caught at the descriptors."""
    out: list[str] = []
    sys.stdout.flush()
    saved = os.dup(1), os.dup(2)
    with tempfile.TemporaryFile("w+") as sink:
        os.dup2(sink.fileno(), 1)
        os.dup2(sink.fileno(), 2)
        try:
            yield out
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            os.close(saved[0])
            os.close(saved[1])
            sink.seek(0)
            out.append(sink.read())


def gnubg_import(path: Path) -> tuple[int, list[str]]:
    """The games gnubg imports from ``path`` and the plays it refuses."""
    import gnubg  # type: ignore[import-not-found]  # GPL, optional: only where installed

    with _captured() as said:
        gnubg.command(f'import mat "{path}"')
        match = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    games = len(match["games"]) if match else 0
    return games, sorted(set(_REFUSED.findall("".join(said))))


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DATA)
    args = parser.parse_args()
    ours: Counter[str] = Counter()
    valid: Counter[str] = Counter()
    for report in validate_paths([str(args.folder)]):
        ours[report.file] += 1
        valid[report.file] += report.status == "valid"
    have_gnubg = importlib.util.find_spec("gnubg") is not None
    differ = refused = theirs_total = 0
    for file in sorted(ours):
        if not have_gnubg:
            continue
        theirs, refusals = gnubg_import(Path(file))
        theirs_total += theirs
        for play in refusals:
            refused += 1
            print(f"{file}: gnubg refuses {play.strip()!r}")
        if theirs != ours[file]:
            differ += 1
            print(f"{file}: jacquet {ours[file]} games, gnubg {theirs}")
    print(
        f"{len(ours)} files: jacquet read {sum(ours.values())} games, {sum(valid.values())} valid"
    )
    if have_gnubg:
        print(
            f"gnubg imported {theirs_total} games, refused {refused} plays; "
            f"{differ} files whose game counts differ"
        )
    else:
        print("gnubg is not installed (pip install gnubg, GPL-3, optional): not compared")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
