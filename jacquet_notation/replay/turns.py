"""The checks of a play the walk (:mod:`.walk`) leaves its common path for: the game over,
the wrong side, a pass without dice, a double at the opening. Apart from the walk, which asks
them only when its inline test of the common case fails."""

from __future__ import annotations

from ..board_terms import side_name
from ..engine import winner
from ..errors import ReplayError
from ..position import Position
from ..record import WrittenPlay
from .dice import playable_roll
from .game import Context


def off_path(
    context: Context, ordinary_opening: bool, written: WrittenPlay, position: Position, index: int
) -> ReplayError | None:
    """What is wrong with a play off the walk's common path: a play after the end, the wrong
    side, a pass without its dice where some roll plays, a double at an ordinary opening
    (``ordinary_opening``: the rules' opening is ordinary, and the game is from its start)."""
    error, rules = context.error, context.rules
    if winner(position) is not None:
        return error(
            "play-after-end",
            f"{side_name(written.side)} plays after the game has ended "
            f"({side_name(winner(position))} has borne off every man)",  # type: ignore[arg-type]
            written.span,
            index,
        )
    if written.side != position.turn:
        return error(
            "wrong-side",
            f"{side_name(written.side)} plays, but it is {side_name(position.turn)}'s turn",
            written.span,
            index,
        )
    if written.dice is None and written.moves:
        # the roll left out (the record's [Dice "omitted"], or "?-?:"; the reader lets no
        # other play without dice through): inferred from the steps (infer_roll)
        return None
    if written.dice is None:
        # A pass written without its dice is only checkable when no roll at all could be
        # played: then any roll was a pass. Otherwise the dice are needed.
        if rules.every_die_used:
            return error(
                "no-dice",
                "a pass without its dice, where every die is used: the dice say what the "
                "opponent plays of them; write them, as in 6-1: + 24/18 18/17",
                written.span,
                index,
            )
        playable = playable_roll(position, rules)
        if playable is not None:
            return error(
                "no-dice",
                "a pass without its dice, where some rolls can be played "
                f"(e.g. {playable[0]}-{playable[1]}): write the dice, as in 6-6: pass",
                written.span,
                index,
            )
    if index == 0 and ordinary_opening and written.dice is not None:
        high, low = written.dice
        if high != low or rules.every_die_used:
            return None  # under every die, a double at the lead is a tied lead (_lead)
        return error(
            "double-opening",
            f"the first roll of a game cannot be a double ({high}-{low}) "
            "under the ordinary opening: "
            "the lead dice are the first roll",
            written.span,
            index,
        )
    return None
