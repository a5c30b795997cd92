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

Where gnubg's import of the original is itself wrong, the comparison compares what the match
is, not gnubg's misreading, and says so on the file's line: gnubg also saves its import as SGF
(``save match``), read here by jacquet's reader, and a misreading is set aside only where that
SGF of gnubg's own shows it (docs/notation.md, "gnubg's SGF"):

- a side rolling twice in a row (gnubg's SGF ``;B[61];B[61]``), both unplayed with the same dice:
  no match has that (gnubg's import holds a dance twice before Galaxy's unnumbered ``Losses``
  line); the first is compared, the second (gnubg's board of it is the other side's) dropped;
- a player's name read as the score (``: 0``; gnubg's SGF ``PB[: 0]``) where the score line
  names no one: compared as the empty name the file has;
- a game whose result gnubg's import loses (its SGF has no ``RE`` for it) where the file has
  its ``Wins`` line: the game compared without its result and the export's closing resignation.

A file whose import gnubg crashes on (not its load of the export) is named, with whether the
export loads. The ``gnubg`` Python package cannot load SGF (its ``load match`` crashes in
LoadCollection), so this runs the gnubg program (Debian's ``gnubg``, GPL-3, optional, never a
dependency) with ``-t -q -p`` and a HOME of its own, one process for a batch of files. Exit 1
if any file's export loads differently (a misreading of gnubg's set aside, or its crash on an
original, is not a difference of the export's).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jacquet_notation.errors import JacquetError
from jacquet_notation.notation import read_games
from jacquet_notation.record import GameRecord
from jacquet_notation.sgf_writer import write_sgf_matches

# the sibling script beside this one (a script's folder is first on its path)
sys.path.insert(0, str(Path(__file__).resolve().parent))
from compare_gnubg_export import differences as export_differences

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "backgammon-mat"
#: the files one gnubg process compares
BATCH = 50
#: one file compared: the original, our export of it, where gnubg saves its import as SGF
Pair = tuple[Path, Path, Path]

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
    original, export, saved = line.rstrip("\n").split("\t")
    first = summary('import mat "%s"' % original) if original != "-" else None
    if first is not None:
        gnubg.command('save match "%s"' % saved)
    print("ORIGINAL", flush=True)
    print("JSON " + json.dumps([first, summary('load match "%s"' % export)]), flush=True)
"""


#: gnubg's summary of one match (names, length, games), as ``_INNER`` prints it
Summary = dict[str, Any]
#: a name gnubg read from a score line naming no one: the score itself
_SCORE_AS_NAME = re.compile(r":\s*\d+")


def _rolled_twice(records: list[GameRecord], number: int, dice: list[int]) -> bool:
    """Whether gnubg's SGF of its import has game ``number`` (from 1) with one side rolling
    ``dice`` twice in a row, both unplayed: the proof of that misreading."""
    if number > len(records):
        return False
    plays = records[number - 1].plays
    wanted = tuple(dice)
    return any(
        a.side == b.side and a.dice == b.dice == wanted and a.is_bare_roll and b.is_bare_roll
        for a, b in itertools.pairwise(plays)
    )


def set_aside(
    original: Summary, exported: Summary, saved: list[GameRecord], ours: list[GameRecord]
) -> list[str]:
    """Set aside in ``original`` (and the matching part of ``exported``) what gnubg's import
    misread, where ``saved`` (jacquet's reading of gnubg's SGF of that import) shows it and
    ``ours`` (jacquet's reading of the original) has the match otherwise; one line each."""
    notes = []
    for index, name in enumerate(original["names"]):
        side = ("White", "Black")[index]
        shown = [record.tags.get(side) for record in saved[:1]]
        empty = all(not record.tags.get(side) for record in ours)
        if name and _SCORE_AS_NAME.fullmatch(name) and shown == [name] and empty:
            notes.append(f"gnubg reads {side}'s empty name as {name!r} (its SGF: {name!r})")
            original["names"][index] = ""
    for number, game in enumerate(original["games"], 1):
        actions = game["actions"]
        for at in range(len(actions) - 1, 0, -1):
            this, before = actions[at], actions[at - 1]
            if (
                this[0] == before[0] == "move"
                and this[1] == before[1]
                and this[2] == before[2]
                and not this[4]
                and not before[4]
                and _rolled_twice(saved, number, this[2])
            ):
                del actions[at]
                roll = "".join(map(str, this[2]))
                notes.append(f"game {number}: gnubg holds {this[1]}'s unplayed {roll} twice")
        lost = game["outcome"][2] is None and number <= len(exported["games"])
        lost = lost and number <= len(ours) and bool(ours[number - 1].result)
        if lost and (number > len(saved) or saved[number - 1].result is None):
            theirs = exported["games"][number - 1]
            game["resigned"] = theirs["resigned"] = None
            theirs["outcome"] = [*theirs["outcome"][:2], None, None]  # the scores compared
            if theirs["actions"] and theirs["actions"][-1][0] == "resign":
                theirs["actions"].pop()
            result = ours[number - 1].result
            notes.append(f"game {number}: gnubg's import loses the result {result}")
    return notes


def differences(
    original: Summary | None,
    exported: Summary | None,
    saved: list[GameRecord] | None = None,
    ours: list[GameRecord] | None = None,
) -> tuple[list[str], list[str]]:
    """Where gnubg's import of the original and its load of the export differ (the export
    script's comparison), once gnubg's misreadings are set aside: (differences, misreadings)."""
    notes: list[str] = []
    if original is not None and exported is not None:
        notes = set_aside(original, exported, saved or [], ours or [])
    return export_differences(original, exported), notes


def run_gnubg(gnubg: str, pairs: list[Pair], folder: Path) -> list[Any]:
    """gnubg's summaries of each pair (original, export), in order; where gnubg stops short (it
    crashes on a few files), each file of the batch alone: for a file whose import it crashes
    on, the string ``"original"`` with the export's summary alone, ``None`` where the load of
    the export crashes too."""
    found = _gnubg_batch(gnubg, pairs, folder)
    if found is not None:
        return found
    if len(pairs) == 1:
        ((_, export, saved),) = pairs
        alone = _gnubg_batch(gnubg, [(Path("-"), export, saved)], folder)
        return [["original", alone[0][1]] if alone is not None else None]
    return [run_gnubg(gnubg, [pair], folder)[0] for pair in pairs]


def _gnubg_batch(gnubg: str, pairs: list[Pair], folder: Path) -> list[Any] | None:
    listing = folder / "pairs.txt"
    listing.write_text("".join(f"{a}\t{b}\t{c}\n" for a, b, c in pairs), encoding="utf-8")
    script = folder / "inner.py"
    script.write_text(f"LIST = {str(listing)!r}\n" + _INNER, encoding="utf-8")
    home = folder / "home"  # gnubg writes its settings under HOME: never the user's own
    home.mkdir(exist_ok=True)
    done = subprocess.run(
        [gnubg, "-t", "-q", "-p", str(script)],
        capture_output=True,
        text=True,
        errors="replace",
        timeout=600,
        cwd=folder,
        check=False,
        env={**os.environ, "HOME": str(home)},
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


def match_files(paths: Sequence[Path]) -> list[Path]:
    """The match files named, and those under the folders named, in a stable order."""
    found: set[Path] = set()
    for path in paths:
        if path.is_file():
            found.add(path)
        else:
            found.update(p for p in path.rglob("*") if p.suffix in (".mat", ".txt") and p.is_file())
    return sorted(found)


def _saved(path: Path) -> list[GameRecord]:
    """jacquet's reading of gnubg's SGF of its import (nothing where gnubg saved none)."""
    return list(read_games(path)) if path.exists() else []


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("paths", nargs="*", type=Path, default=[DATA], help="files or folders")
    parser.add_argument("--sample", type=int, help="compare a seeded draw of N files only")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--gnubg", default=shutil.which("gnubg") or "/usr/games/gnubg")
    args = parser.parse_args(argv)
    if not Path(args.gnubg).exists():
        print("the gnubg program is not installed (apt-get install gnubg): not compared")
        return 0
    files = match_files(args.paths)
    if args.sample is not None and args.sample < len(files):
        files = sorted(random.Random(args.seed).sample(files, args.sample))
    differing = misread = crashed = 0
    with tempfile.TemporaryDirectory() as name:
        folder = Path(name)
        for start in range(0, len(files), BATCH):
            pairs: list[Pair] = []
            for number, path in enumerate(files[start : start + BATCH]):
                target = folder / f"export{number}.sgf"
                saved = folder / f"gnubg{number}.sgf"
                saved.unlink(missing_ok=True)
                why = export(path, target)
                if why is not None:
                    print(f"{path}: {why}")
                    differing += 1
                else:
                    pairs.append((path, target, saved))
            answers = run_gnubg(args.gnubg, pairs, folder)
            for (path, _, saved), answer in zip(pairs, answers, strict=True):
                if answer is None or answer[1] is None:
                    print(f"{path}: gnubg crashed loading the export")
                    differing += 1
                    continue
                if answer[0] == "original":
                    games, read = len(answer[1]["games"]), len(list(read_games(path)))
                    print(
                        f"{path}: gnubg's import of the original crashes; it loads the export"
                        f" as {games} games, the original has {read}"
                    )
                    crashed += 1
                    continue
                original, exported = answer
                ours = list(read_games(path))
                found, notes = differences(original, exported, _saved(saved), ours)
                differing += bool(found)
                misread += bool(notes) and not found
                for line in notes:
                    print(f"{path}: set aside: {line}")
                for line in found:
                    print(f"{path}: {line}")
    same = len(files) - differing - crashed
    print(
        f"{len(files)} files: gnubg loads the SGF export of {same} as the original ({misread} of"
        f" them once gnubg's misreadings of the original are set aside), {crashed} whose"
        f" import gnubg crashes on, {differing} not"
    )
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
