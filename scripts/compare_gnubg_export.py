"""``jacquet export --mat`` as gnubg reads it, beside gnubg's import of the original file.

    python3 scripts/compare_gnubg_export.py [FOLDER] [--sample N] [--seed S]

For every ``.mat`` and ``.txt`` file under FOLDER (default: ../shared/data/backgammon-mat), or
a seeded draw of N of them: the file's games as jacquet reads them are written back as a match
file (``write_matches``, what ``export --mat`` writes), and gnubg's import of that export is
compared with gnubg's import of the original: the players' names, the match's length, and for
every game its score before it, winner, points, whether it was resigned, and every action in
order (each roll's side, dice and move; each double, take, drop and resignation with its side).

gnubg's known quirks (docs/notation.md, "Match files") are compared as its final import keeps
them: a Galaxy ``Losses`` line makes gnubg import the file again as other variants and keep the
last pass; where a roll with no move ends the line before such a line, that import holds the
roll twice, the same side rolling twice in a row, which this script counts once on both sides.

Needs the ``gnubg`` Python package (GPL-3, optional, never a dependency). Exit 1 if any file's
export reads differently in gnubg, or could not be written.
"""

from __future__ import annotations

import argparse
import importlib.util
import random
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from jacquet_notation.errors import JacquetError
from jacquet_notation.notation import read_games, write_matches

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "backgammon-mat"

#: one action of a game as compared: its kind, side, dice and move (those two for a roll)
Action = tuple[Any, ...]


def gnubg_summary(path: Path) -> dict[str, Any] | None:
    """What gnubg's import of ``path`` keeps (None when it keeps no match at all)."""
    import gnubg  # type: ignore[import-not-found,import-untyped,unused-ignore]  # GPL, optional

    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from compare_gnubg import _captured

    with _captured():
        gnubg.command(f'import mat "{path}"')
        match = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)
    if not match:
        return None
    info = match["match-info"]
    games = []
    for game in match["games"]:
        actions: list[Action] = []
        for action in game["game"]:
            kind = action["action"]
            if kind == "move":
                dice = tuple(sorted(action["dice"], reverse=True))
                moves = tuple(sorted(tuple(step) for step in action.get("move") or ()))
                actions.append((kind, action["player"], dice, moves))
            elif kind == "resign":
                actions.append((kind, action["player"], action.get("value")))
            else:
                actions.append((kind, action["player"]))
        _once(actions)
        head = game["info"]
        outcome = tuple(head.get(key) for key in ("score-X", "score-O", "winner", "points-won"))
        games.append({"outcome": outcome, "resigned": head.get("resigned"), "actions": actions})
    return {
        "names": (info["X"].get("name"), info["O"].get("name")),
        "length": info.get("match-length"),
        "games": games,
    }


def _once(actions: list[Action]) -> None:
    """gnubg's roll held twice (a side rolling twice in a row, no move: the last roll before
    Galaxy's unnumbered ``Losses`` line) kept once, wherever it stands."""
    for index in range(len(actions) - 1, 0, -1):
        action = actions[index]
        if action == actions[index - 1] and action[0] == "move" and not action[3]:
            del actions[index]


def differences(original: dict[str, Any] | None, exported: dict[str, Any] | None) -> list[str]:
    """Where gnubg's two imports differ, first difference of each game."""
    if original is None or exported is None:
        read = f"the original: {original is not None}, the export: {exported is not None}"
        return [f"gnubg read {read}"]
    found = []
    for key in ("names", "length"):
        if original[key] != exported[key]:
            found.append(f"{key}: original {original[key]}, export {exported[key]}")
    ours, theirs = original["games"], exported["games"]
    if len(ours) != len(theirs):
        found.append(f"original {len(ours)} games, export {len(theirs)}")
    for number, (a, b) in enumerate(zip(ours, theirs, strict=False), 1):
        for key in ("outcome", "resigned"):
            if a[key] != b[key]:
                found.append(f"game {number}: {key} original {a[key]}, export {b[key]}")
        for index, (x, y) in enumerate(zip(a["actions"], b["actions"], strict=False), 1):
            if x != y:
                found.append(f"game {number}, action {index}: original {x}, export {y}")
                break
        else:
            if len(a["actions"]) != len(b["actions"]):
                count = f"{len(a['actions'])} actions, export {len(b['actions'])}"
                found.append(f"game {number}: original {count}")
    return found


def compare(path: Path, folder: Path) -> list[str]:
    """The differences between gnubg's import of ``path`` and of its export (written into
    ``folder``), or why it could not be exported."""
    try:
        texts = list(write_matches(read_games(path)))
    except JacquetError as error:
        return [f"not exported: {str(error).splitlines()[0]}"]
    if len(texts) != 1:
        return [f"exported as {len(texts)} matches"]
    exported = folder / "export.mat"
    exported.write_text(texts[0], encoding="utf-8")
    return differences(gnubg_summary(path), gnubg_summary(exported))


def match_files(folder: Path) -> list[Path]:
    """The match files under ``folder``, in a stable order."""
    return sorted(p for p in folder.rglob("*") if p.suffix in (".mat", ".txt") and p.is_file())


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DATA)
    parser.add_argument("--sample", type=int, help="compare a seeded draw of N files only")
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if importlib.util.find_spec("gnubg") is None:
        print("gnubg is not installed (pip install gnubg, GPL-3, optional): not compared")
        return 0
    files = match_files(args.folder)
    if args.sample is not None and args.sample < len(files):
        files = sorted(random.Random(args.seed).sample(files, args.sample))
    differing = 0
    with tempfile.TemporaryDirectory() as folder:
        for path in files:
            found = compare(path, Path(folder))
            differing += bool(found)
            for line in found:
                print(f"{path}: {line}")
    same = len(files) - differing
    print(f"{len(files)} files: gnubg reads the export of {same} as the original, {differing} not")
    return 1 if differing else 0


if __name__ == "__main__":
    sys.exit(main())
