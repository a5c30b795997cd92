"""Match files as jacquet reads and replays them, beside gnubg's import of the same files.

    python3 scripts/compare_gnubg.py [FOLDER]    (default: ../shared/data/backgammon-mat)

For every ``.mat`` and ``.txt`` file under FOLDER: the games ``jacquet validate`` reports (and
how many are valid), and, where the ``gnubg`` Python package is importable (``pip install
gnubg``: GPL-3, optional, never a dependency of jacquet-notation), gnubg's import of the file
compared play by play with our replay: the same number of games, and for every roll the same
side, dice, position before it (gnubg's position ID, computed here from our board) and change
to the mover's men.
gnubg's warnings ("Invalid move") are listed beside whether its final import kept the play:
gnubg imports a file once per variation it knows when the standard import "had errors" (an
unknown line such as Galaxy's ``Losses N point`` is one), and a play that is legal in standard
backgammon can be refused by one of those other variations' passes.

Exit 1 if any file's games or plays differ. Without gnubg, jacquet's figures alone are printed.
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import importlib.util
import os
import re
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from jacquet_notation.notation import read_games
from jacquet_notation.position import Position, Side, other
from jacquet_notation.replay import ReplayedGame, replay
from jacquet_notation.validation import validate_paths

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT.parent / "shared" / "data" / "backgammon-mat"
_WARNED = re.compile(r'Invalid move: "([^"]*)"')

#: one roll as both sides compare it: the side, the dice (high first), gnubg's position ID of
#: the position before it, and the play's change to the mover's points (``net_change``)
Roll = tuple[Side, tuple[int, int], str, tuple[tuple[int, int], ...]]


def position_id(position: Position, mover: Side) -> str:
    """gnubg's position ID: each side's men in unary (the side not on roll first), base64.

    Points 1 to 24 then the bar, in each side's own numbering; a run of ones per man and a zero
    per point, 80 bits, least significant bit of each byte first; 14 characters, no padding.
    """
    bits: list[int] = []
    for side in (other(mover), mover):
        counts = position.counts(side)
        for point in range(1, 26):
            bits += [1] * counts[point] + [0]
    bits += [0] * (80 - len(bits))
    data = bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(10))
    return base64.b64encode(data).decode("ascii")[:14]


def net_change(steps: Iterable[tuple[int, int]]) -> tuple[tuple[int, int], ...]:
    """A play's steps as the change they make to the mover's points: (point, men gained).

    The same play may be split into steps two ways (``3/off`` with 4-2 is one step to gnubg,
    ``3/1 1/off`` to us); its change to the board is one. A hit shows in the next position.
    """
    change: Counter[int] = Counter()
    for start, end in steps:
        change[start] -= 1
        change[end] += 1
    return tuple(sorted((point, men) for point, men in change.items() if men))


def our_rolls(game: ReplayedGame) -> list[Roll]:
    """The rolls of a replayed game's main line, played or passed, as gnubg records moves."""
    rolls: list[Roll] = []
    for ply in game.plies:
        dice = ply.written.dice
        if dice is None or ply.play is None or ply.written.action == "unknown" or ply.unplayed:
            continue  # gnubg keeps an unplayed roll as dice set, not as a move
        steps = net_change((step.start, step.end) for step in ply.play.steps)
        high, low = max(dice), min(dice)
        rolls.append((ply.side, (high, low), position_id(ply.before, ply.side), steps))
    return rolls


def gnubg_rolls(game: dict[str, Any], sides: dict[str, Side]) -> list[Roll]:
    """The ``move`` actions of one game of ``gnubg.match()``, in the same form as ours."""
    rolls: list[Roll] = []
    for action in game["game"]:
        if action["action"] != "move":
            continue
        high, low = max(action["dice"]), min(action["dice"])
        steps = net_change((int(a), int(b)) for a, b in action.get("move") or ())
        rolls.append((sides[action["player"]], (high, low), action["board"], steps))
    return rolls


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


def gnubg_import(path: Path) -> tuple[list[dict[str, Any]], list[str]]:
    """gnubg's games of ``path`` (with the boards) and the plays it warned about."""
    import gnubg  # type: ignore[import-not-found,import-untyped,unused-ignore]  # GPL, optional

    with _captured() as said:
        gnubg.command(f'import mat "{path}"')
        match = gnubg.match(analysis=0, boards=1, statistics=0, verbose=0)
    games = list(match["games"]) if match else []
    return games, sorted({warned.strip() for warned in _WARNED.findall("".join(said))})


@dataclass
class Tally:
    files: int = 0
    games: int = 0
    valid: int = 0
    rolls: int = 0
    differing_files: list[str] = field(default_factory=list)


def compare_file(path: Path, ours: list[ReplayedGame], tally: Tally) -> None:
    """Print where gnubg's import of ``path`` and our replay differ, and gnubg's warnings."""
    theirs, warned = gnubg_import(path)
    differences: list[str] = []
    if len(theirs) != len(ours):
        differences.append(f"jacquet {len(ours)} games, gnubg {len(theirs)}")
    for number, (game, their_game) in enumerate(zip(ours, theirs, strict=False), 1):
        mine = our_rolls(game)
        # gnubg's X is the first player named (the left column), as our White
        found = gnubg_rolls(their_game, {"X": "white", "O": "black"})
        tally.rolls += len(mine)
        if _repeated_last(found) and len(found) == len(mine) + 1:
            found.pop()
            print(
                f"{path}: game {number}: gnubg records the last roll ({found[-1][1][0]}"
                f"{found[-1][1][1]}, no move) twice, the same side rolling twice in a row; "
                "the file has it once"
            )
        if len(mine) != len(found):
            differences.append(f"game {number}: jacquet {len(mine)} rolls, gnubg {len(found)}")
        for index, (a, b) in enumerate(zip(mine, found, strict=False), 1):
            if a != b:
                differences.append(f"game {number}, roll {index}: jacquet {a}, gnubg {b}")
                break
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
    for play in warned:
        where = [n for n, line in enumerate(lines, 1) if play in line]
        at = f"{path}:{where[0]}" if where else str(path)
        verdict = (
            "its final import agrees with ours, this play included"
            if not differences
            else "its final import differs from ours (below)"
        )
        print(f"{at}: gnubg warned 'Invalid move: {play}' in one of its passes; {verdict}")
    for line in differences:
        print(f"{path}: {line}")
    if differences:
        tally.differing_files.append(str(path))


def _repeated_last(rolls: list[Roll]) -> bool:
    """Whether the last two rolls are one side's, the same dice, neither moving a man.

    No game has a side roll twice in a row; gnubg's import gives such a pair where a roll
    that cannot move ends the file's last line before Galaxy's unnumbered ``Losses`` line.
    """
    if len(rolls) < 2:
        return False
    (side, dice, _, change), (last_side, last_dice, _, last_change) = rolls[-2:]
    return side == last_side and dice == last_dice and not change and not last_change


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("folder", nargs="?", type=Path, default=DATA)
    args = parser.parse_args()
    tally = Tally()
    files: Counter[str] = Counter()
    for report in validate_paths([str(args.folder)]):
        files[report.file] += 1
        tally.games += 1
        tally.valid += report.status == "valid"
    tally.files = len(files)
    have_gnubg = importlib.util.find_spec("gnubg") is not None
    if have_gnubg:
        for file in sorted(files):
            with open(file, "rb") as stream:
                ours = [replay(record) for record in read_games(stream, file)]
            compare_file(Path(file), ours, tally)
    print(f"{tally.files} files: jacquet read {tally.games} games, {tally.valid} valid")
    if not have_gnubg:
        print("gnubg is not installed (pip install gnubg, GPL-3, optional): not compared")
        return 0
    print(
        f"gnubg compared on {tally.rolls} rolls: {len(tally.differing_files)} files whose games "
        "or plays differ"
    )
    return 1 if tally.differing_files else 0


if __name__ == "__main__":
    sys.exit(main())
