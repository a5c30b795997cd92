"""Every legal play of a roll: all dice orders, level by level (one level per die).

Each level is deduplicated by the state reached, so that transpositions are expanded once.
Structural rules are checked on final positions only, as docs/rules.md says; then the "most
dice" and "higher die" filters, and for the ``rearmost`` bear-off the "most men borne off" filter.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..bits import (
    MOVER,
    OUTSIDE,
    SHIFT,
    highest,
    location_of,
    men_at,
    occupied,
    off_count,
    two_or_more,
)
from .context import Context
from .facts import REARMOST
from .plays import Play, Step, plays_of_states


class Search:
    """Every legal final state of one turn, with one path (list of steps) reaching each."""

    __slots__ = ("ctx", "plays_by_state")

    def __init__(self, ctx: Context, dice: list[int]) -> None:
        self.ctx = ctx
        start: dict[int, tuple[Step, ...]] = {ctx.start: ()}
        if len(dice) == 2 and dice[0] != dice[1]:
            high, low = dice
            first_high: dict[int, tuple[Step, ...]] = {}
            first_low: dict[int, tuple[Step, ...]] = {}
            ctx.expand(start, high, first_high)
            ctx.expand(start, low, first_low)
            both: dict[int, tuple[Step, ...]] = {}
            if first_high:
                ctx.expand(first_high, low, both)
            if first_low:
                ctx.expand(first_low, high, both)
            # most dice first; with one die, the higher die when it can be played at all
            candidates = [both, first_high, first_low, start]
        else:
            levels = [start]
            for die in dice:
                nxt: dict[int, tuple[Step, ...]] = {}
                ctx.expand(levels[-1], die, nxt)
                if not nxt:
                    break
                levels.append(nxt)
            candidates = levels[::-1]
        chosen: dict[int, tuple[Step, ...]] = {}
        for level in candidates:
            chosen = ctx.keep_valid(level) if ctx.structural else level
            if chosen:
                break
        if not chosen:
            # nothing, not even standing still, keeps the structure: the turn passes (docs/rules.md)
            chosen = {ctx.start: ()}
        if ctx.bear_off == REARMOST and len(chosen) > 1:
            most = max(off_count(s) for s in chosen)
            chosen = {s: p for s, p in chosen.items() if off_count(s) == most}
        self.plays_by_state = chosen

    def plays(self) -> list[Play]:
        """The legal plays, one per final state (:func:`.plays.plays_of_states`)."""
        ctx = self.ctx
        return plays_of_states(
            self.plays_by_state, ctx.mover, ctx.hitting, ctx.opp_packed, ctx.direction
        )


def more_borne_off(ctx: Context, dice: list[int], off: int) -> bool:
    """Whether a play using every die and breaking no structural rule bears off more than ``off``.

    ``off`` counts all the mover's men borne off. Level by level as in :class:`Search`, but a
    state is dropped as soon as :func:`most_off` says it cannot beat ``off`` with the dice left,
    so the search usually ends at once or early.
    """
    if off_count(ctx.start) + most_off(ctx.start, dice) <= off:
        return False
    orders = [dice] if dice[0] == dice[-1] else [dice, dice[::-1]]
    for order in orders:
        level: dict[int, tuple[Step, ...]] = {ctx.start: ()}
        for index, die in enumerate(order):
            reached: dict[int, tuple[Step, ...]] = {}
            ctx.expand(level, die, reached)
            left = order[index + 1 :]
            level = {
                state: path
                for state, path in reached.items()
                if off_count(state) + most_off(state, left) > off
            }
            if not level:
                break
        else:
            if not ctx.structural or any(ctx.valid(state) for state in level):
                return True
    return False


def cannot_bear_off(state: int, dice: list[int]) -> bool:
    """Whether no man of ``state`` (the mover's men in its low bits) can bear off with ``dice``:
    the men outside the home table need every die to come home (:func:`most_off` is 0), which
    men outside on as many points as there are dice say at once."""
    outside = state & OUTSIDE
    return bool(outside) and (
        occupied(outside).bit_count() >= len(dice) or not most_off(state, dice)
    )


def most_off(state: int, dice: list[int]) -> int:
    """At most how many men ``dice`` can bear off from ``state`` (the mover's men in its low bits).

    Every man outside the home table must come home before any man leaves, a die moving one man
    at most the highest die's pips: a man on p takes ceil((p - 6) / highest) dice of its own.
    """
    outside = state & OUTSIDE
    if not outside:
        return len(dice)
    if not dice:
        return 0
    top_die = max(dice)
    need = 0
    flags = occupied(outside)
    while flags:
        low = flags & -flags
        flags ^= low
        point = location_of(low)
        need += men_at(state, point) * -(-(point - 6) // top_die)
    return max(0, len(dice) - need)


def fewer_dice_legal(ctx: Context, dice: list[int], state: int, path: Sequence[Step]) -> bool:
    """Whether ``state``, which the steps ``path`` reach using fewer of ``dice`` than all, is a
    legal play: what ``state in Search(ctx, dice).plays_by_state`` says.

    For the quick path, where most plays that leave a die (a Versailles turn with a share) are
    written. Answered without the search while no man can bear off this turn: the points a man
    may land on then stay as they are all turn (a hit opens no point and closes none), so each
    man steps along its own run of them, and whether a longer play exists is a question of a few
    flag words (:func:`_no_longer_play`). Which men may step (a man on the bar first, the courier)
    only narrows the plays, so what the flag words allow without it is enough. The search is
    left for the rest, and for the plays those words cannot prove (a longer play may exist that
    breaks a structural rule).
    """
    if (
        path
        and cannot_bear_off(ctx.start & MOVER, dice)
        and _no_longer_play(ctx, dice, state, path[0].die)
    ):
        # nothing goes deeper than ``path``, nor (of two dice) plays the higher where it played
        # the lower: the search would keep the final states of its level that break no rule
        return not ctx.structural or ctx.valid(state)
    return state in Search(ctx, dice).plays_by_state


def _no_longer_play(ctx: Context, dice: list[int], state: int, first: int) -> bool:
    """Whether no play uses more of ``dice`` than the play reaching ``state`` (whose first die is
    ``first``), nor, of two dice of which it plays one, the higher where it played the lower; no
    man bearing off, and any man free to step.

    Some steps of one die value (a double): each man steps along its own run of open points, so
    a final state where no man can step once more used every step any play can (each man went
    to the end of its run). Two dice, one played: a play of both is one man stepping twice, or
    two men (two on one point, or on two points) stepping once each from where they stand.
    """
    if dice[0] == dice[-1]:
        return not occupied(state & MOVER) & ctx.sources(dice[0])
    high, low = dice
    start = ctx.start & MOVER
    men = occupied(start)
    by_high = men & ctx.sources(high)  # the men a step of the higher die can move
    by_low = men & ctx.sources(low)
    if first == low and by_high:
        return False  # the higher die could be played (unless every such play breaks a rule)
    if (by_high >> SHIFT[high]) & ctx.sources(low) or (by_low >> SHIFT[low]) & ctx.sources(high):
        return False  # one man can step by both dice
    if by_high and by_low:
        # two men, one a die: on two points, or two men on the one point both dice leave from
        return (
            by_high == by_low and not by_high & (by_high - 1) and not two_or_more(start) & by_high
        )
    return True


def may_bear_off(ctx: Context, pips: int) -> bool:
    mover = ctx.start & MOVER
    return highest(mover) - pips <= 6
