"""What a record's hit marks (``*``) say of its plays: the walk weighs them to settle a combined
move the engine finds ambiguous, and stops trusting them once a play hits unmarked."""

from __future__ import annotations

from collections import Counter

from ..engine import Play
from ..position import Position, Side
from ..record import WrittenPlay


def men_of(position: Position, side: Side) -> Counter[int]:
    """A side's men on the board and the bar (25), by point, in its own numbering."""
    men = Counter(position.men(side))
    men[25] += position.bar(side)
    return +men


def unmarked_hits(written: WrittenPlay, play: Play) -> bool:
    """Whether ``play`` hit more often than ``written`` marks a hit."""
    hits = [step for step in play.steps if step.hit]
    return bool(hits) and len(hits) > sum(move.count for move in written.moves if move.hit)
