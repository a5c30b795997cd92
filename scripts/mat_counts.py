"""Games per match file: what jacquet reads, beside a plain count of ``Game N`` lines and gnubg's.

    python3 scripts/mat_counts.py FOLDER [--gnubg]

For every ``.mat`` and ``.txt`` file under FOLDER: the games ``read_games`` gives, the games a
plain scan of the file counts (its ``Game N`` lines, found without the reader), and with
``--gnubg`` the games gnubg imports (the ``gnubg`` program, run once a file with a small Python
script; gnubg is GPL and optional, never a dependency). Files where the counts differ are listed;
the totals close the report. Exit 1 if any file differs.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from jacquet_notation.notation import read_games

_GAME = re.compile(r"^[ \t]*Game[ \t]+[0-9]+[ \t]*$", re.MULTILINE)
_GNUBG_SCRIPT = """
import gnubg, sys
gnubg.command('import mat "%s"')
print("games:", len(gnubg.match()["games"]))
"""


def gnubg_games(program: str, path: Path) -> int | None:
    """The games gnubg imports from ``path``, or None if gnubg gives no answer."""
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as script:
        script.write(_GNUBG_SCRIPT % str(path).replace('"', '\\"'))
    try:
        done = subprocess.run(
            [program, "-t", "-q", "-p", script.name], capture_output=True, text=True, check=False
        )
    finally:
        Path(script.name).unlink()
    found = re.search(r"games: ([0-9]+)", done.stdout)
    return int(found.group(1)) if found else None


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--gnubg", action="store_true", help="also count with gnubg")
    args = parser.parse_args()
    program = shutil.which("gnubg") if args.gnubg else None
    if args.gnubg and program is None:
        sys.exit("gnubg is not installed")
    files = sorted(p for p in args.folder.rglob("*") if p.suffix in (".mat", ".txt"))
    totals = [0, 0, 0]
    differ = 0
    for path in files:
        ours = sum(1 for _ in read_games(path))
        plain = len(_GAME.findall(path.read_text(encoding="utf-8", errors="replace")))
        theirs = gnubg_games(program, path) if program else None
        totals[0] += ours
        totals[1] += plain
        totals[2] += theirs or 0
        if ours != plain or (program and theirs != ours):
            differ += 1
            gnubg = f", gnubg {theirs}" if program else ""
            print(f"{path}: jacquet {ours}, Game lines {plain}{gnubg}")
    gnubg = f", gnubg {totals[2]}" if program else ""
    print(f"{len(files)} files: jacquet {totals[0]} games, Game lines {totals[1]}{gnubg}")
    print(f"{differ} files differ")
    sys.exit(1 if differ else 0)


if __name__ == "__main__":
    main()
