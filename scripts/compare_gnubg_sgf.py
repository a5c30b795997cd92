"""``jacquet export --sgf`` as gnubg loads it, beside gnubg's import of the original match file.

    python3 scripts/compare_gnubg_sgf.py [FOLDER] [--sample N] [--seed S] [--gnubg PATH]

For every ``.mat`` and ``.txt`` file under FOLDER (default: ../shared/data/backgammon-mat), or a
seeded draw of N of them: the file's games as jacquet reads them are written as gnubg's SGF
(``write_sgf_matches``, what ``export --sgf`` writes), and gnubg's ``load match`` of it is
compared with gnubg's ``import mat`` of the original: the players' names, the match's length,
and for every game its score, winner, points and whether it was resigned, and every action in
order (each roll's side, dice, the position before it and the change it makes to the mover's
points, so that ``24/13`` and ``24/18 18/13`` are one play; each double, take, drop and
resignation with its side).

The ``gnubg`` Python package cannot load SGF (its ``load match`` crashes in LoadCollection), so
this runs the gnubg program (Debian's ``gnubg``, GPL-3, optional, never a dependency) with
``-t -q -p``, one process for a batch of files. Exit 1 if any file's export loads differently.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jacquet_notation.errors import JacquetError
from jacquet_notation.notation import read_games
from jacquet_notation.sgf_writer import write_sgf_matches

# the sibling script beside this one (a script's folder is first on its path)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_gnubg_export import differences as export_differences

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "backgammon-mat"
#: the files one gnubg process compares
BATCH = 50

#: run inside gnubg (its own Python): each line of the list file is ``original<TAB>export``;
#: prints one JSON line a file: [original's summary, export's summary]
_INNER = r"""
import gnubg, json, sys
from collections import Counter

def summary(command):
    gnubg.command(command)
    match = gnubg.match(0, 1, 0, 0)
    if not match:
        return None
    info = match["match-info"]
    games = []
    for game in match["games"]:
        actions = []
        for action in game["game"]:
            kind = action["action"]
            if kind == "move":
                change = Counter()
                for start, end in action.get("move") or ():
                    change[start] -= 1
                    change[end] += 1
                net = sorted((p, n) for p, n in change.items() if n)
                dice = sorted(action["dice"], reverse=True)
                actions.append([kind, action["player"], dice, action["board"], net])
            elif kind == "resign":
                actions.append([kind, action["player"], action.get("value")])
            else:
                actions.append([kind, action["player"]])
        head = game["info"]
        outcome = [head.get(k) for k in ("score-X", "score-O", "winner", "points-won")]
        games.append({"outcome": outcome, "resigned": head.get("resigned"), "actions": actions})
    return {"names": [info["X"].get("name"), info["O"].get("name")],
            "length": info.get("match-length"), "games": games}

for line in open(LIST, encoding="utf-8"):
    original, export = line.rstrip("\n").split("\t")
    pair = [summary('import mat "%s"' % original), summary('load match "%s"' % export)]
    print("JSON " + json.dumps(pair), flush=True)
"""


def _once(actions: list[list[Any]]) -> None:
    """gnubg's roll held twice by its import (compare_gnubg_export.py's ``_once``), once."""
    for index in range(len(actions) - 1, 0, -1):
        action = actions[index]
        if action == actions[index - 1] and action[0] == "move" and not action[4]:
            del actions[index]


def differences(original: dict[str, Any] | None, exported: dict[str, Any] | None) -> list[str]:
    """Where gnubg's import of the original and its load of the export differ: the export
    script's comparison, once each game's roll held twice is held once."""
    for summary in (original, exported):
        for game in (summary or {}).get("games", ()):
            _once(game["actions"])
    return export_differences(original, exported)


def run_gnubg(gnubg: str, pairs: list[tuple[Path, Path]], folder: Path) -> list[Any]:
    """gnubg's summaries of each pair (original, export), in order; where gnubg stops short (it
    crashes on a few files), each file of the batch alone, ``None`` for a file it crashes on."""
    found = _gnubg_batch(gnubg, pairs, folder)
    if found is not None:
        return found
    if len(pairs) == 1:
        return [None]
    return [run_gnubg(gnubg, [pair], folder)[0] for pair in pairs]


def _gnubg_batch(gnubg: str, pairs: list[tuple[Path, Path]], folder: Path) -> list[Any] | None:
    listing = folder / "pairs.txt"
    listing.write_text("".join(f"{a}\t{b}\n" for a, b in pairs), encoding="utf-8")
    script = folder / "inner.py"
    script.write_text(f"LIST = {str(listing)!r}\n" + _INNER, encoding="utf-8")
    done = subprocess.run(
        [gnubg, "-t", "-q", "-p", str(script)],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=600,
        cwd=folder,
        check=False,
    )
    found = [json.loads(line[5:]) for line in done.stdout.splitlines() if line.startswith("JSON ")]
    return found if len(found) == len(pairs) else None


def export(path: Path, target: Path) -> str | None:
    """Write ``path``'s games as one SGF match at ``target``; why not, if it cannot be."""
    try:
        texts = list(write_sgf_matches(read_games(path)))
    except JacquetError as error:
        return f"not exported: {str(error).splitlines()[0]}"
    if len(texts) != 1:
        return f"exported as {len(texts)} matches"
    target.write_text(texts[0], encoding="utf-8")
    return None


def match_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in (".mat", ".txt") and p.is_file())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DATA)
    parser.add_argument("--sample", type=int, help="compare a seeded draw of N files only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gnubg", default=shutil.which("gnubg") or "/usr/games/gnubg")
    args = parser.parse_args(argv)
    if not Path(args.gnubg).exists():
        print("the gnubg program is not installed (apt-get install gnubg): not compared")
        return 0
    files = match_files(args.folder)
    if args.sample is not None and args.sample < len(files):
        files = sorted(random.Random(args.seed).sample(files, args.sample))
    differing = crashed = 0
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for start in range(0, len(files), BATCH):
            pairs: list[tuple[Path, Path]] = []
            for number, path in enumerate(files[start : start + BATCH]):
                target = folder / f"export{number}.sgf"
                why = export(path, target)
                if why is not None:
                    print(f"{path}: {why}")
                    differing += 1
                else:
                    pairs.append((path, target))
            for (path, _), answer in zip(pairs, run_gnubg(args.gnubg, pairs, folder), strict=True):
                if answer is None:
                    print(f"{path}: gnubg crashed on the original or the export")
                    crashed += 1
                    continue
                found = differences(*answer)
                differing += bool(found)
                for line in found:
                    print(f"{path}: {line}")
    same = len(files) - differing
    print(
        f"{len(files)} files: gnubg loads the SGF export of {same} as the original, {differing} not"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
