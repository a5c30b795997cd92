"""Dice inference: the roll of a play written without dice, and a roll some man can play.

The engine answers which rolls fit (:func:`rolls_for_play`); this module decides what the
replay makes of the answer: one roll, several that agree (the play kept), several that lead to
different positions (an error: only the dice could settle it), or none (why, from the engine).
"""

from __future__ import annotations

from collections.abc import Sequence

from ..budget import check_time
from ..engine import Play, legal_plays, rolls_for_play, why_no_roll
from ..errors import ReplayError
from ..position import Position
from ..record import WrittenPlay
from ..rules import Rules
from .game import Context


def infer_roll(
    context: Context, written: WrittenPlay, position: Position, index: int
) -> tuple[Play, tuple[tuple[int, int], ...], ReplayError | None]:
    """The roll of a play written without dice, from its steps and the position (the
    engine's :func:`rolls_for_play`); raises IllegalPlayError when no roll fits.

    Several rolls may fit (``24/18``: 6 alone, 5-1, 4-2, 3-3...): the play is kept with
    them all and the game goes on, unless they lead to different positions (a hit on the
    way, a different share), which only the dice could settle.
    """
    rules = context.rules
    moves = written.moves_as_pairs()
    share = written.opponent_moves_as_pairs()
    fits = rolls_for_play(position, moves, rules, share)
    opening = index == 0 and context.from_start and rules.opening == "ordinary"
    if opening and not rules.every_die_used:  # never a double first (a tied lead is one)
        fits = [(roll, play) for roll, play in fits if roll[0] != roll[1]]
    if not fits:
        raise why_no_roll(position, moves, rules, share)
    rolls = tuple(roll for roll, _ in fits)
    if len({play.position for _, play in fits}) > 1:
        return (
            fits[0][1],
            rolls,
            context.error(
                "ambiguous-dice",
                f"the rolls {rolls_text(rolls)} fit this play but lead to different "
                "positions: write its dice",
                written.span,
                index,
            ),
        )
    return fits[0][1], rolls, None


def rolls_text(rolls: Sequence[tuple[int, int]]) -> str:
    """Rolls as a message lists them: ``6-5, 4-2``."""
    return ", ".join(f"{high}-{low}" for high, low in rolls)


def playable_roll(position: Position, rules: Rules) -> tuple[int, int] | None:
    """A roll with at least one legal step from ``position``, if there is one: what a pass
    written without its dice is told it could have been."""
    for high in range(6, 0, -1):
        for low in range(high, 0, -1):
            check_time()
            if any(play.steps for play in legal_plays(position, (high, low), rules)):
                return (high, low)
    return None
