"""Why a step or a play is illegal, in a player's words (with an example of a legal play)."""

from __future__ import annotations

from ..bits import BAR, MOVER, bar_count, location_of, men_at
from ..board_terms import point_name, side_name
from .context import Context, free_men
from .facts import REARMOST
from .plays import (
    Step,
    notation_of,
)


def why_stuck(ctx: Context, mover: int, point: int, wanted: int) -> str:
    """Why no man of ``mover`` may step from ``point`` (:func:`.context.free_men` says none may)."""
    if not men_at(mover, point):
        return no_man(ctx, point, wanted)
    if ctx.hitting and bar_count(mover):
        return "a man on the bar must enter before any other man moves"
    courier_at = location_of(free_men(mover, ctx.hitting, ctx.courier))
    return (
        f"the courier (on {point_name(courier_at)}) must reach the home table "
        "before any other man moves"
    )


def no_man(ctx: Context, point: int, wanted: int) -> str:
    """Why no man can leave ``point``: none was ever there, or this play has moved them all."""
    me = side_name(ctx.mover)
    where = "on the bar" if point == BAR else f"on point {point}"
    start = ctx.start & MOVER if ctx.hitting else ctx.start
    had = men_at(start, point)
    if not had:
        return f"{me} has no man {where}"
    men = "one man" if had == 1 else f"{had} men"
    if wanted > had:
        times = {2: "twice", 3: "three times"}.get(wanted, f"{wanted} times")
        return f"{me} has only {men} {where} to move {times}"
    return f"{me} has only {men} {where}, moved already in this play"


def outside_men(mover: int) -> str:
    parts = []
    for location in range(BAR, 6, -1):
        count = men_at(mover, location)
        if count:
            where = "the bar" if location == BAR else str(location)
            parts.append(f"{count} {'man' if count == 1 else 'men'} on {where}")
    return ", ".join(parts)


def why_not_legal(
    ctx: Context,
    state: int,
    path: tuple[Step, ...],
    dice: list[int],
    legal: dict[int, tuple[Step, ...]],
) -> tuple[str, int | None]:
    """Why a realizable play is not among the legal ones, with an example of a legal play.

    With the index of the written move to point at: None where the dice are the issue (a die
    left unplayed, the lower die played), the first move where the play as a whole breaks a
    rule (a block, a limit, too few men borne off).
    """
    written = notation_of(path)
    example_path = next(iter(legal.values()))
    example = notation_of(example_path)
    most = len(example_path)
    if len(path) < most:
        if len(dice) == 2 and dice[0] != dice[1]:
            if not path:
                return f"passes where a play is possible, e.g. {example}", None
            return f"{written}: plays one die where both can be played, e.g. {example}", None
        if not path:
            return f"passes where a play is possible, e.g. {example}", None
        return (
            f"{written}: plays {len(path)} of {len(dice)} steps where {most} can be played, "
            f"e.g. {example}"
        ), None
    if len(path) == 1 and len(dice) == 2 and dice[0] != dice[1] and path[0].die == dice[1]:
        return (
            f"{written}: plays the lower die ({dice[1]}) where the higher ({dice[0]}) "
            f"can be played, e.g. {example}"
        ), None
    problem = ctx.problem(state)
    if problem is not None:
        return f"{written}: {problem}", 0
    if ctx.bear_off == REARMOST:
        return f"{written}: bears off fewer men than possible, e.g. {example}", 0
    return f"{written}: not a legal play, e.g. {example}", 0
