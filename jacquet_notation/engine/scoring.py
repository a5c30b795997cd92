"""Applying a play without checks, the end of a game, primes and the winner's points."""

from __future__ import annotations

from collections.abc import Iterable

from ..bits import (
    BAR,
    POINTS,
    rotate,
    runs_of_six,
    two_or_more,
)
from ..board_terms import point_name
from ..errors import IllegalPlayError
from ..position import MEN, Position, Side, other, other_point
from ..rules import Rules
from .plays import (
    DEFAULT_RULES,
    Play,
    Step,
)


def apply_play(position: Position, play: Play | Iterable[Step]) -> Position:
    """The position after ``play``'s steps (turn passed), without checking legality.

    A ``Play`` with an opponent's share (Versailles) is applied whole: the mover's steps, then
    the share's on the opponent's men, the opponent to move. Raises IllegalPlayError if a step
    starts where its side has no man.
    """
    if isinstance(play, Play) and play.opponent_steps:
        after = _apply(position, play.steps)
        return _apply(after, play.opponent_steps).with_turn(after.turn)
    return _apply(position, play.steps if isinstance(play, Play) else tuple(play))


def _apply(position: Position, steps: Iterable[Step]) -> Position:
    side = position.turn
    direction = position.direction
    mover = list(position.counts(side))
    opp = list(position.counts(other(side)))
    for step in steps:
        if not mover[step.start]:
            raise IllegalPlayError(f"{step.notation()}: no man on {point_name(step.start)}")
        mover[step.start] -= 1
        mover[step.end] += 1
        if 1 <= step.end <= 24 and opp[theirs := other_point(step.end, direction)]:
            opp[theirs] -= 1
            opp[BAR] += 1
    white, black = (mover, opp) if side == "white" else (opp, mover)
    return Position.from_counts(white, black, other(side), direction)


def winner(position: Position) -> Side | None:
    """The side that has borne off all 15 men, if any."""
    if position.off("white") == MEN:
        return "white"
    if position.off("black") == MEN:
        return "black"
    return None


def holds_prime(position: Position, side: Side) -> bool:
    """Whether ``side`` holds six consecutive points with two men or more on each.

    Consecutive along the board's circuit, so a prime may straddle the side's 1- and 24-points
    (see docs/rules.md); when the sides move in opposite directions the route has no such turn.
    """
    held = two_or_more(position.packed(side)) & POINTS
    if position.direction == "opposite":
        return bool(runs_of_six(held))
    return bool(runs_of_six(held) or runs_of_six(rotate(held)))


#: a backgammon's base score, the most a game scores under ``backgammon`` scoring before the cube
BACKGAMMON = 3


def score(
    position: Position, winner: Side, rules: Rules | None = None, prime_seen: bool = False
) -> int:
    """Points the winner scores under ``rules``.

    ``prime_seen`` says whether the winner held a prime at any moment of the game (``marcia``
    scoring); the caller tracks it over the game with :func:`holds_prime`. Under ``backgammon``
    scoring this is the base score (1, 2 or 3): the doubling cube's multiplier belongs to the
    match, which the replay keeps.
    """
    rules = rules or DEFAULT_RULES
    loser = other(winner)
    if rules.scoring == "backgammon":
        if position.off(loser):
            return 1
        # a backgammon: a man of the loser on the bar or in the winner's home table 1-6
        counts = position.counts(loser)
        home = {Position.convert(p, winner, loser, position.direction) for p in range(1, 7)}
        if counts[BAR] or any(counts[point] for point in home):
            return BACKGAMMON
        return 2
    if rules.scoring == "spanish":
        counts = position.counts(loser)
        return 3 * (sum(counts[19:25]) + counts[BAR]) + 2 * sum(counts[13:19]) + sum(counts[1:13])
    if position.off(loser):
        return 1
    if rules.scoring == "marcia" and not prime_seen:
        return 3
    return 2
