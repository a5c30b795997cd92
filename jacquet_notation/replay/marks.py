"""What a record's hit marks (``*``) say of its plays: the walk weighs them to settle a combined
move the engine finds ambiguous (:func:`by_marks`), and stops trusting them once a play hits
unmarked."""

from __future__ import annotations

from collections import Counter

from ..engine import Play, legal_plays
from ..position import Position, Side
from ..record import WrittenPlay
from ..rules import Rules


def men_of(position: Position, side: Side) -> Counter[int]:
    """A side's men on the board and the bar (25), by point, in its own numbering."""
    men = Counter(position.men(side))
    men[25] += position.bar(side)
    return +men


def unmarked_hits(written: WrittenPlay, play: Play) -> bool:
    """Whether ``play`` hit more often than ``written`` marks a hit."""
    hits = [step for step in play.steps if step.hit]
    return bool(hits) and len(hits) > sum(move.count for move in written.moves if move.hit)


def by_marks(written: WrittenPlay, position: Position, rules: Rules) -> Play | None:
    """The one legal play that moves the men as ``written`` does and hits exactly where it
    marks a hit: a combined move without ``*`` is the way that does not hit, one ending in
    ``*`` the way that hits only there (docs/notation.md, "Match files"). None if not one.
    """
    dice = written.dice
    if dice is None:
        return None
    mover = position.turn
    wanted = men_of(position, mover)
    for start, end in written.moves_as_pairs():
        wanted[start] -= 1
        wanted[end] += 1
    del wanted[0]  # men borne off are not on the board
    wanted = +wanted
    marks = Counter(move.end for move in written.moves for _ in range(move.count) if move.hit)
    found = [
        play
        for play in legal_plays(position, dice, rules)
        if men_of(play.position, mover) == wanted
        and Counter(step.end for step in play.steps if step.hit) == marks
    ]
    return found[0] if len(found) == 1 else None
