"""Records the replay writes from the engine's plays: a legal play as a transcriber writes it,
and a replayed record with its inferred rolls shown.

Here because writing a :class:`Play` as a :class:`WrittenPlay` needs both the engine and the
record, and the replay is the one layer that knows both: self-play's records (``generate.py``),
the replay's suggestions and ``fmt``'s inferred dice all write plays through this module.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import replace

from ..engine import Play, Step
from ..position import Side
from ..record import GameRecord, Move, WrittenPlay
from .game import ReplayedGame, ReplayedPly


def written_play(side: Side, turn: int, dice: tuple[int, int], play: Play) -> WrittenPlay:
    """The play as a transcriber would write it: one move a die, repeated steps counted.

    A whole Versailles turn writes the opponent's share after the mover's moves, in the
    opponent's numbering, as the engine gives it (docs/notation.md).
    """
    high, low = max(dice), min(dice)
    return WrittenPlay(
        side=side,
        turn=turn,
        dice=(high, low),
        moves=_moves(play.steps),
        opponent_moves=_moves(play.opponent_steps) if play.opponent_steps else (),
    )


def _moves(steps: Iterable[Step]) -> tuple[Move, ...]:
    """Steps as written moves, a step repeated from the same point to the same counted once."""
    moves: list[Move] = []
    for step in steps:
        if moves and (moves[-1].start, moves[-1].end) == (step.start, step.end):
            last = moves[-1]
            moves[-1] = Move(last.start, last.end, last.count + 1, last.hit or step.hit)
        else:
            moves.append(Move(step.start, step.end, 1, step.hit))
    return tuple(moves)


def canonical_moves(moves: Iterable[Move], share: Iterable[Move] = ()) -> str:
    """The moves of a play (and the opponent's share) as the canonical writer spells them."""
    text = " ".join(move.notation() for move in moves)
    shared = " ".join(move.notation() for move in share)
    if shared:
        return f"{text} + {shared}" if text else f"+ {shared}"
    return text


#: the comment ``fmt`` writes after a play without dice: its inferred roll, or the candidates
_INFERRED = re.compile(r"\([1-6]-[1-6](?: or [1-6]-[1-6])*\)\Z")


def inferred_text(rolls: Sequence[tuple[int, int]]) -> str:
    """How a play's inferred roll is shown: ``(6-5)``, or ``(5-1 or 4-2 or 3-3)`` when the
    steps leave it open (docs/notation.md, "Plays without dice")."""
    return "(" + " or ".join(f"{high}-{low}" for high, low in rolls) + ")"


def with_inferred_dice(game: ReplayedGame, fill: bool = False) -> GameRecord:
    """The record with each dice-less play's inferred roll shown, as ``fmt`` writes it.

    The roll is shown as a comment after the play (``24/18 18/13 {(6-5)}``), which reads back
    as a comment: the record stays a record without dice, and ``fmt`` stays idempotent (an
    earlier such comment is replaced). ``fill`` writes a unique roll in as the play's dice
    (``fmt --fill-dice``); a play whose roll is left open keeps its candidates shown.
    """

    def line(plies: Sequence[ReplayedPly]) -> list[WrittenPlay]:
        plays = []
        for ply in plies:
            written = ply.written
            variations = tuple(tuple(line(branch)) for branch in ply.variations)
            if variations:
                written = replace(written, variations=variations)
            if written.dice is None and written.moves and ply.rolls:
                kept = tuple(c for c in written.comments if not _INFERRED.match(c))
                if fill and len(ply.rolls) == 1:
                    written = replace(written, dice=ply.rolls[0], comments=kept)
                else:
                    shown = (inferred_text(ply.rolls),)
                    written = replace(written, comments=shown + kept)
            plays.append(written)
        return plays

    record = game.record
    if not game.plies:
        return record
    return replace(record, plays=line(game.plies) + record.plays[len(game.plies) :])
