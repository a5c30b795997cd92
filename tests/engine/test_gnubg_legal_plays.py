"""The plays backgammon allows, against gnubg's: for boards reached in self-play and boards
with each side's men anywhere, and every roll, the positions our legal plays reach are the
positions gnubg's move generator reaches (``gnubg.findbestmoves``, which lists every legal
move, one per resulting position). gnubg (GPL) is an outside oracle, run in a process of its
own; without its Python package the test skips.

gnubg's Python package ends a move's tuple at its first man borne off (the step's end, "off",
is its C code's end mark), so a move that bears off is known by its count only: the number of
positions reached is compared for every roll, and the positions themselves wherever gnubg
gives every move whole."""

from __future__ import annotations

import importlib.util
import json
import os
import random
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from jacquet_notation.engine import apply_play, legal_plays, winner
from jacquet_notation.generate import generate_records
from jacquet_notation.position import MEN, Position, Side
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules

BACKGAMMON = Rules.named("backgammon")
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]
needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="gnubg's Python package is not installed"
)
pytestmark = [needs_gnubg, pytest.mark.integration]

#: gnubg's side: each (board, dice) asked, the boards its legal moves reach
GNUBG_MOVES = """
import json, sys
import gnubg
asked = json.loads(open(sys.argv[1], encoding="utf-8").read())
cube, context = gnubg.cubeinfo(), gnubg.evalcontext()
answers = []
for (waiting, mover), dice in asked:
    reached = []
    for found in gnubg.findbestmoves([waiting, mover], cube, context, tuple(dice)):
        theirs, mine = list(waiting), list(mover)
        steps = found["move"]
        if len(steps) % 2:
            reached.append(None)  # cut at a man borne off
            continue
        for at in range(0, len(steps), 2):
            start, end = steps[at], steps[at + 1]
            mine[start - 1] -= 1
            if end > 0:
                mine[end - 1] += 1
                if theirs[24 - end] == 1:
                    theirs[24 - end], theirs[24] = 0, theirs[24] + 1
        reached.append([theirs, mine])
    # no legal move: gnubg lists none, where the one play is to stay as one stands
    answers.append(reached or [[waiting, mover]])
sys.stderr.write("ANSWER" + json.dumps(answers))
"""


def _board(position: Position, mover: Side) -> list[list[int]]:
    """gnubg's board: the side waiting, then the mover, points 1 to 24 and the bar (index 24)."""
    waiting = position.counts("white" if mover == "black" else "black")
    mine = position.counts(mover)
    return [list(waiting[1:26]), list(mine[1:26])]


def _anywhere(chance: random.Random) -> Position:
    """Each side's men anywhere (off and the bar too), never both sides on one point."""
    white = [0] * 26
    for _ in range(MEN):
        white[chance.randrange(26)] += 1
    free = [q for q in range(26) if q in (0, 25) or not white[25 - q]]
    black = [0] * 26
    for _ in range(MEN):
        black[chance.choice(free)] += 1
    return Position.from_counts(white, black, chance.choice(["white", "black"]), "opposite")


def _positions() -> list[Position]:
    chance = random.Random("gnubg-legal")
    reached = [
        ply.before
        for record in generate_records(6, 31, BACKGAMMON)
        for ply in replay(record).plies
        if ply.written.dice is not None
    ]
    boards = [*chance.sample(reached, 90), *(_anywhere(chance) for _ in range(90))]
    return [board for board in boards if winner(board) is None]


def test_our_legal_plays_reach_the_positions_gnubgs_reach(tmp_path: Path) -> None:
    positions = _positions()
    asked: list[Any] = []
    ours: list[list[list[list[int]]]] = []
    for position in positions:
        for dice in ROLLS:
            asked.append([_board(position, position.turn), list(dice)])
            ours.append(
                [
                    _board(apply_play(position, play), position.turn)
                    for play in legal_plays(position, dice, BACKGAMMON)
                ]
            )
    (tmp_path / "asked.json").write_text(json.dumps(asked), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", GNUBG_MOVES, str(tmp_path / "asked.json")],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(tmp_path)},  # gnubg keeps its settings in ~/.gnubg
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    theirs = json.loads(done.stderr.rpartition("ANSWER")[2])
    assert len(theirs) == len(ours) > 3000
    differ = []
    whole = bearing_off = 0
    for index, mine in enumerate(ours):
        reached = {json.dumps(board) for board in mine}
        if len(reached) != len(theirs[index]):
            differ.append((asked[index], sorted(reached), theirs[index]))
        elif None in theirs[index]:
            bearing_off += 1
        else:
            whole += 1
            if reached != {json.dumps(board) for board in theirs[index]}:
                differ.append((asked[index], sorted(reached), theirs[index]))
    assert differ == [], differ[:3]
    assert whole > 2000 and bearing_off > 20, (whole, bearing_off)
