"""Validation's common case, inline: every die used and each written move's dice obvious.

This path only ever accepts; anything else goes the careful way (:mod:`.validate`), which also
finds the words for what is wrong.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..bits import (
    BAR,
    BAR_SHIFT,
    COUNT,
    FLAG,
    MIDPOINT_SHIFT,
    OPP_SHIFT,
    OUTSIDE,
    POINT_24_SHIFT,
    POINTS,
    SHIFT,
    START_TABLE,
    highest,
    occupied,
    off_count,
    rotated_runs_of_six,
    runs_of_six,
    two_or_more,
)
from ..position import MEN, Direction, Position
from ..rules import Rules
from .context import (
    COURIER_MEN,
    DELTA,
    HIT_OPP_DELTA,
    HIT_STEP,
    MIRROR_HIT_OPP_DELTA,
    MIRROR_OPP_POINT_SHIFT,
    OFF_DELTA,
    OPP_POINT_SHIFT,
    STEP,
    Context,
    free_men,
)
from .facts import EXACT, LAST_VALUES, REARMOST, facts_of
from .plays import Play, Step, dice_steps, play_after
from .search import fewer_dice_legal, more_borne_off, most_off

#: a record's ``Move`` as the quick path reads it (its start and end; the engine knows no record)
WrittenMove = tuple[int, int, int, bool, object]
#: a move of one die, as accept_quickly's orders
_SINGLE: list[tuple[tuple[int, ...], ...]] = [((die,),) for die in range(7)]
_DIE_VALUES = frozenset(range(1, 7))
#: each of two dice alone, as orders: ``_EACH_OF_TWO[high][low]`` (one die: ``_SINGLE``)
_EACH_OF_TWO: list[list[tuple[tuple[int, ...], ...]]] = [
    [((high,), (low,)) for low in range(7)] for high in range(7)
]


def accept_quickly(
    position: Position,
    dice: Sequence[int],
    moves: Sequence[Sequence[int]] | Sequence[WrittenMove],
    rules: Rules,
    steps: list[int] | None = None,
) -> Play | None:
    """The common case of validation, inline: every die used, each move's dice obvious.

    Plays the written moves in the written order, checking each step as ``try_step`` does, and
    returns the play if every die is used and the final position breaks no structural rule (a
    run of six under a block convention that looks at the opponent goes the careful way). Under
    the ``rearmost`` bear-off, a play that may bear off men is accepted only once an early-exit
    search finds no play bearing off more. Anything else returns None and goes the careful way,
    which also finds the words for what is wrong: this path only ever accepts.

    ``moves`` are ``(start, end)`` pairs, or the record's ``Move`` tuples as read (their first
    two items; a move written twice, ``13/7(2)``, unrolled first): the replay hands them over
    without building the pairs, about a microsecond a play.

    ``steps``, when given, are the dice to play instead of the roll's (high first: one die, two,
    or some steps of a double), for the opponent's share of a Versailles turn (:mod:`.shares`).
    """
    a, b = dice
    if a not in _DIE_VALUES or b not in _DIE_VALUES:
        return None
    if steps is not None:
        if not steps:
            return None
        a, b = steps[0], steps[-1]
    values = LAST_VALUES[0]
    if rules is not values[0]:
        facts_of(rules)
        values = LAST_VALUES[0]
    (
        _,
        hitting,
        courier,
        bear_off,
        double_steps,
        structural,
        five_max,
        block_rule,
        most_points,
        most_men,
        _,
        opposite,
    ) = values
    if opposite:
        opp_shift, hit_opp_delta = MIRROR_OPP_POINT_SHIFT, MIRROR_HIT_OPP_DELTA
        direction: Direction = "opposite"
    else:
        opp_shift, hit_opp_delta = OPP_POINT_SHIFT, HIT_OPP_DELTA
        direction = "same"
    white = position.turn == "white"
    if white:
        me, opp = position.packed_white, position.packed_black
    else:
        me, opp = position.packed_black, position.packed_white
    if me & COUNT == MEN or opp & COUNT == MEN:
        return None
    original = me
    if steps is not None:
        left = list(steps)
    elif a == b:
        left = [a] * (double_steps or a)
    elif a > b:
        left = [a, b]
    else:
        left = [b, a]
    total = len(left)
    path: list[Step] = []
    append = path.append
    rearmost = bear_off == REARMOST
    # whether every written move can use only the dice it used here (so no other order or
    # split of the same moves uses more dice)
    forced = True
    # the courier rule can bind only while 14 men or more are on the 24-point or the bar; with
    # men on the bar too (below), this says when free_men must be asked which men may step
    courier = courier and ((me >> POINT_24_SHIFT) & COUNT) + (me >> BAR_SHIFT) >= COURIER_MEN
    for move in moves:
        start = move[0]
        end = move[1]
        if not 0 <= end < start <= BAR:
            return None
        distance = start - end
        if end and distance in left:
            # the common move, one die landing on the board, inline (as the loop below checks it)
            if (hitting and me >> BAR_SHIFT) or courier:
                if not free_men(me, hitting, courier) & FLAG[start]:
                    return None
            elif not (me >> SHIFT[start]) & COUNT:
                return None  # nothing binds (free_men is every man) and no man is there
            there = (opp >> opp_shift[end]) & COUNT  # the opponent's men there
            if there and (there > 1 or not hitting):
                return None
            if rearmost and not me & OUTSIDE and distance >= highest(me):
                return None  # a die that can bear off must
            me += DELTA[distance][start]
            if there:
                opp += hit_opp_delta[end]
                append(HIT_STEP[distance][start])
            else:
                append(STEP[distance][start])
            left.remove(distance)
            continue
        if end == 0 and a != b:
            if bear_off != EXACT and left and min(left) < distance:
                # a lower die may take the man part of the way (2/1/off, 6-1); with none lower,
                # the move takes one die however the play is read (the last man off, 1/off)
                forced = False
            # bearing off, by that die or a higher one: the higher die first, as the careful path
            # tries them (so that both paths label the steps alike)
            # (left holds none, one die or both, high first: looked up, not generated)
            if not left:
                return None
            if left[-1] >= distance:
                orders = _SINGLE[left[0]] if len(left) == 1 else _EACH_OF_TWO[left[0]][left[1]]
            elif left[0] >= distance:
                orders = _SINGLE[left[0]]
            else:
                return None
        elif distance in left:
            orders = _SINGLE[distance]
        elif a == b:
            count = -(-distance // a)  # the last step may bear off with a higher die
            if count > len(left) or (end and distance % a):
                return None
            orders = ((a,) * count,)
        elif len(left) == 2 and distance == a + b and not hitting:
            orders = ((a, b), (b, a))  # either intermediate point (a hit makes them differ)
        elif len(left) == 2 and distance == a + b and opposite:
            # backgammon's combined move, with hitting: its two ways differ only where a lone
            # opposing man stands on an intermediate point, which the careful path weighs (the
            # one legal way, or ambiguous); else they land alike, the higher die first as the
            # careful path tries them
            high, low = (a, b) if a > b else (b, a)
            if (opp >> opp_shift[start - high]) & COUNT == 1 or (
                opp >> opp_shift[start - low]
            ) & COUNT == 1:
                return None
            orders = ((high, low), (low, high))
        else:
            return None
        mark = len(path)
        for order in orders:
            new_me, new_opp, at = me, opp, start
            for die in order:
                if (hitting and new_me >> BAR_SHIFT) or courier:
                    if not free_men(new_me, hitting, courier) & FLAG[at]:
                        break
                elif not (new_me >> SHIFT[at]) & COUNT:
                    break
                target = at - die
                if target >= 1:
                    there = (new_opp >> opp_shift[target]) & COUNT  # the opponent's men there
                    if there and (there > 1 or not hitting):
                        break
                    if rearmost and not new_me & OUTSIDE and die >= highest(new_me):
                        break  # a die that can bear off must
                    new_me += DELTA[die][at]
                    if there:
                        new_opp += hit_opp_delta[target]
                        append(HIT_STEP[die][at])
                    else:
                        append(STEP[die][at])
                    at = target
                else:
                    if end or new_me & OUTSIDE:
                        break
                    if at != die:
                        if bear_off == EXACT or at != highest(new_me):
                            break
                    elif bear_off == REARMOST and at != highest(new_me):
                        break
                    new_me += OFF_DELTA[at]
                    append(STEP[die][at])
                    at = 0
            else:
                if at != end:
                    return None
                me, opp = new_me, new_opp
                for die in order:
                    left.remove(die)
                break
            del path[mark:]
        else:
            return None
    if left:
        if not forced:
            return None
        if (
            opposite
            and hitting
            and me >> BAR_SHIFT
            and (opp >> opp_shift[BAR - left[0]]) & COUNT > 1
            and (
                (not path and (opp >> opp_shift[BAR - left[-1]]) & COUNT > 1)
                or (len(path) == 1 and len(left) == 1 and not structural)
            )
        ):
            # backgammon, a man still on the bar, who enters before any other man moves, and
            # the entry point of each die left held (two men or more): a dance (nothing
            # written, no die moves any man), or one man entered by the one die that could (the
            # other's point was held from the start, so no play uses both dice, and no
            # structural rule weighs the plays). The play, as below, without the search.
            return play_after(tuple(path), me, opp, white, direction)
        # fewer steps than the roll gives: legal only if no longer play is (nor, with one die,
        # one of the higher die), which needs the search; the written moves are realized already
        state = me | opp << OPP_SHIFT if hitting else me
        if steps is None:
            steps = dice_steps(dice, rules)
        ctx = Context(position, rules)
        # a pass where no die moves any man needs no search: nothing else is legal
        if (path or any(ctx.can_step(die) for die in {a, b})) and not fewer_dice_legal(
            ctx, steps, state, path
        ):
            return None
        return play_after(tuple(path), me, opp, white, direction)
    if structural:
        held = (two_or_more(me) if hitting else occupied(me)) & POINTS
        # Murray's limits, where set (none: six points of the table, fifteen men)
        if most_points < 6 and (held & START_TABLE).bit_count() > most_points:
            return None
        if most_men < MEN and (me >> MIDPOINT_SHIFT) & COUNT > most_men:
            return None
        if held.bit_count() < 6:
            pass  # fewer than six points held: no run of six, whichever way they are counted
        elif five_max:
            if runs_of_six(held):
                return None  # the careful path (which labels a combined move's dice its own way)
        elif block_rule and rotated_runs_of_six(held):
            return None
    if (
        rearmost
        and off_count(me) - off_count(original) < total
        and highest(original) - (a * total if a == b else a + b) <= 6
    ):
        # "most men borne off": nothing to prove when no play can bear off more than this one
        # (above: when the rearmost man cannot even come home)
        if steps is None:
            steps = dice_steps(dice, rules)
        if off_count(original) + most_off(original, steps) > off_count(me) and more_borne_off(
            Context(position, rules), steps, off_count(me)
        ):
            return None
    return play_after(tuple(path), me, opp, white, direction)
