"""A long match file made of real games: the input of the tests and figures of "files that
blow up" (docs/archive.md, "Size"; docs/notation.md, "Limits").

    python3 bench/big_match.py GAMES OUT.mat [--folder DIR]

The games of the match files of ``--folder`` (the shared real ones by default) are repeated, in
turn, as the games of one match too long to end between two players, each game's score line
carrying the points won so far, so that the match checks hold. Nothing generated
is committed: tests write it to a temporary folder, the benches to ``bench/out/``.
"""

from __future__ import annotations

import argparse
import re
from collections.abc import Iterator
from pathlib import Path

HERE = Path(__file__).resolve().parent
SHARED = HERE.parents[2] / "shared" / "data" / "backgammon-mat"
CORPUS = HERE.parent / "corpus" / "valid" / "backgammon-mat"

_GAME = re.compile(r"\s*Game\s+[0-9]+\s*\Z")
_WINS = re.compile(r"Wins\s+([0-9]+)\s+point")
#: the match's length: one no game of the file reaches, so that it never ends (and no game is
#: the Crawford game), while each game is checked as a match's game
LENGTH = 999_999_999

#: a score line up to where its second name begins (where Player 2's column begins)
_LEFT_OF_TWO = re.compile(r"\s*\S.*?:\s*[0-9]+\s+")


def real_games(folder: Path) -> list[tuple[list[str], int, int, int]]:
    """Every game of the match files of ``folder``: its numbered lines (from ``1)`` to its
    ``Wins`` line), the points each player won in it and the column of Player 2's plays."""
    games: list[tuple[list[str], int, int, int]] = []
    for path in sorted(folder.rglob("*")):
        if not path.is_file() or path.name in ("LICENSE.md", "README.md"):
            continue
        lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        starts = [n for n, line in enumerate(lines) if _GAME.match(line)]
        for at, start in enumerate(starts):
            end = starts[at + 1] if at + 1 < len(starts) else len(lines)
            body = [line for line in lines[start + 2 : end] if line.strip()]
            won = [(n, _WINS.search(line)) for n, line in enumerate(body)]
            wins = [(n, m) for n, m in won if m is not None]
            if not body or not wins or any("and the match" in line for line in body):
                continue
            n, match = wins[0]
            left = _LEFT_OF_TWO.match(lines[start + 1])
            if n != len(body) - 1 or left is None:
                continue  # a game whose lines go on past its end, or an odd layout
            points = int(match.group(1))
            column = left.end()
            right = match.start() >= column - 3  # where Wins stands: the winner's column
            games.append((body, 0 if right else points, points if right else 0, column))
    return games


def big_match(count: int, folder: Path = SHARED) -> Iterator[str]:
    """The lines of a match of ``count`` games, repeating the real games of ``folder``."""
    games = real_games(folder)
    if not games:
        raise SystemExit(f"no games in {folder}")
    yield '; [Site "Generated"]'
    yield '; [Player 1 "Ann"]'
    yield '; [Player 2 "Bob"]'
    yield ""
    yield f"{LENGTH} point match"
    yield ""
    left = right = 0
    for number in range(1, count + 1):
        body, won_left, won_right, column = games[(number - 1) % len(games)]
        yield f" Game {number}"
        yield f" Ann : {left}".ljust(column) + f"Bob : {right}"
        yield from body
        yield ""
        left, right = left + won_left, right + won_right


def write_big_match(count: int, out: Path, folder: Path = SHARED) -> Path:
    """Write :func:`big_match` to ``out``; returns ``out``."""
    with open(out, "w", encoding="utf-8") as handle:
        for line in big_match(count, folder):
            handle.write(line + "\n")
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("games", type=int)
    parser.add_argument("out", type=Path)
    parser.add_argument("--folder", type=Path, default=SHARED)
    args = parser.parse_args()
    write_big_match(args.games, args.out, args.folder)


if __name__ == "__main__":
    main()
