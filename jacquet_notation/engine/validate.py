"""The careful validation of a written play: realize the moves as steps, in any order, then
compare with the legal plays when needed. :mod:`.legal` tries :mod:`.quick` first and comes
here for the rest; this path also finds the words for what is wrong.
"""

from __future__ import annotations

import itertools
import operator
from collections.abc import Sequence

from ..bits import (
    BAR,
    COUNT,
    FLAG,
    MOVER,
    OFF,
    OUTSIDE,
    highest,
    off_count,
    pack,
    unpack,
)
from ..board_terms import point_name, side_name
from ..errors import AmbiguousPlayError, IllegalPlayError
from ..position import Position, other
from ..rules import Rules
from .context import DELTA, HIT_STEP, OFF_DELTA, STEP, Context, free_men
from .explain import outside_men, why_not_legal, why_stuck
from .facts import EXACT, REARMOST, STANDARD
from .plays import (
    Play,
    Step,
    make_play,
    notation_of,
)
from .search import Search, may_bear_off, more_borne_off


def validate_steps(
    position: Position, steps_left: list[int], moves: Sequence[Sequence[int]], rules: Rules
) -> Play:
    """The careful path of :func:`.legal.validate_play` for the dice ``steps_left`` (high first).

    Any list of dice, not only a roll's: the opponent's share of a Versailles turn is one die,
    two, or some steps of a double.
    """
    written = [written_move(move, index) for index, move in enumerate(moves)]
    ctx = Context(position, rules)
    best, failure = realize_any_order(ctx, written, steps_left)
    if best is None:
        found = _by_net_change(ctx, written, steps_left)
        if found is not None:
            return Play(found[1], ctx.position(found[0]))
        if failure is None:
            raise IllegalPlayError("no legal way to play that", move=0 if written else None)
        raise IllegalPlayError(failure[1], move=failure[0])
    state, path = best
    if (
        rules.hitting
        and len(written) == 1
        and written[0][1] != OFF
        and len(path) == 2
        and path[0].die != path[1].die
    ):
        state, path = _one_way(ctx, written[0], steps_left, state, path)
    if len(path) == len(steps_left):
        if ctx.structural:
            problem = ctx.problem(state)
            if problem is not None:
                # a rule about the final position: the play as a whole breaks it, and a
                # reader points at its first move
                raise IllegalPlayError(f"{notation_of(path)}: {problem}", move=0)
        if not (
            ctx.bear_off == REARMOST
            and may_bear_off(ctx, sum(steps_left))
            and more_borne_off(ctx, steps_left, off_count(state))
        ):
            return make_play(path, ctx.position(state))
    search = Search(ctx, steps_left)
    legal = search.plays_by_state
    if state in legal:
        return make_play(path, ctx.position(state))
    found = _by_net_change(ctx, written, steps_left, legal)
    if found is not None:
        return make_play(found[1], ctx.position(found[0]))
    reason, move = why_not_legal(ctx, state, path, steps_left, legal)
    raise IllegalPlayError(reason, move=move)


def _by_net_change(
    ctx: Context,
    written: list[tuple[int, int]],
    dice: list[int],
    legal: dict[int, tuple[Step, ...]] | None = None,
) -> _Realized | None:
    """The legal play that moves the mover's men as the written moves do, taken together.

    For moves that cannot be played one after the other as written, though their steps can be
    interleaved: with 2-2 and two men on the bar, ``bar/21(2)`` enters both men before either
    goes on (backgammon records write it so). None when no legal play matches; IllegalPlayError
    when several do (they differ by a hit on the way).
    """
    if not written:
        return None
    counts = list(unpack(ctx.start & MOVER if ctx.hitting else ctx.start))
    for start, end in written:
        counts[start] -= 1
        counts[end] += 1
        if counts[start] < 0:
            return None
    target = pack(counts)
    if legal is None:
        legal = Search(ctx, dice).plays_by_state
    matches = [
        (state, path)
        for state, path in legal.items()
        if (state & MOVER if ctx.hitting else state) == target and _chains(written, path)
    ]
    if len(matches) > 1:
        options = " or ".join(notation_of(path) for _, path in matches)
        raise AmbiguousPlayError(
            f"{notation_of([Step(a, b, a - b) for a, b in written])} is ambiguous: the men "
            f"may hit on the way or not; write {options}",
            move=0,
        )
    return matches[0] if matches else None


def _chains(written: Sequence[tuple[int, int]], steps: Sequence[Step]) -> bool:
    """Whether ``steps`` split into one chain of one man's steps per written move, each from the
    move's start to its end, every step used: so that no written move names a landing point the
    play did not touch (``18/12 12/11`` is not ``18/17 17/11``)."""
    if not written:
        return not steps
    (start, end), rest = written[0], written[1:]

    def walk(at: int, left: tuple[Step, ...]) -> bool:
        if at == end:
            return _chains(rest, left)
        # the same step twice (a double) is tried once
        return any(
            step.start == at
            and step.end >= end
            and step not in left[:index]
            and walk(step.end, left[:index] + left[index + 1 :])
            for index, step in enumerate(left)
        )

    return walk(start, tuple(steps))


def _one_way(
    ctx: Context,
    move: tuple[int, int],
    dice: list[int],
    state: int,
    path: tuple[Step, ...],
) -> _Realized:
    """A move spanning both dice, with hitting: the two intermediate points may differ by a hit.

    Returns the one legal way, or raises IllegalPlayError when both are legal and differ.
    """
    start, _ = move
    ways: dict[int, tuple[Step, ...]] = {}
    for first, second in (dice, dice[::-1]):
        if start - first - second != move[1]:
            continue
        one = try_step(ctx, ctx.start, start, first)
        if isinstance(one, str):
            continue
        two = try_step(ctx, one[0], start - first, second)
        if not isinstance(two, str):
            ways[two[0]] = (one[1], two[1])
    if len(ways) < 2:
        return state, path
    legal = Search(ctx, dice).plays_by_state
    legal_ways = [(s, p) for s, p in ways.items() if s in legal]
    if len(legal_ways) == 1:
        return legal_ways[0]
    if not legal_ways:
        return state, path
    options = " or ".join(notation_of(p) for _, p in legal_ways)
    raise AmbiguousPlayError(
        f"{point_name(start)}/{point_name(move[1])} is ambiguous: it hits on one way and not "
        f"the other; write {options}",
        move=0,
    )


def _point(value: int) -> int:
    """A written point as an int: an integer of any kind but a bool (``int()`` would take 24.7
    for 24, "24" for 24 and True for 1, and so pass a move nobody wrote)."""
    if isinstance(value, bool):
        raise TypeError(value)
    return operator.index(value)


def written_move(move: Sequence[int], index: int) -> tuple[int, int]:
    """The ``index``-th written move as ``(start, end)``, or IllegalPlayError pointing at it."""
    try:
        start, end = (_point(x) for x in move)
    except (TypeError, ValueError):
        raise IllegalPlayError(
            f"{move!r} is not a move from one point to another", move=index
        ) from None
    if not (0 <= end < start <= BAR):
        raise IllegalPlayError(
            f"{point_name(start) if 0 <= start <= 25 else start}/"
            f"{point_name(end) if 0 <= end <= 25 else end}: men move from higher points to lower",
            move=index,
        )
    return start, end


_Realized = tuple[int, tuple[Step, ...]]
#: why a written move cannot be played: its index among the moves as written, and the reason
_Failure = tuple[int, str]


def realize_any_order(
    ctx: Context, written: list[tuple[int, int]], dice: list[int]
) -> tuple[_Realized | None, _Failure | None]:
    """Play the written moves, in the written order first, then in any other order.

    Returns the realization using the most dice (one using all dice at once), or why the
    written order fails (at the first move beyond the dice when there are too many).
    """
    if len(written) > len(dice):
        return None, (
            len(dice),
            f"{' '.join(f'{point_name(a)}/{point_name(b)}' for a, b in written)}: "
            f"{len(written)} moves with only {len(dice)} dice to play",
        )
    failures: list[_Failure] = []
    best = _realize(ctx, ctx.start, written, 0, tuple(dice), (), len(dice), failures)
    if best is not None and len(best[1]) == len(dice):
        return best, None
    first_failure = failures[0] if failures else None
    if len(written) > 1:
        seen = {tuple(written)}
        for order in itertools.permutations(written):
            if order in seen:
                continue
            seen.add(order)
            found = _realize(ctx, ctx.start, list(order), 0, tuple(dice), (), len(dice), [])
            if found is not None and (best is None or len(found[1]) > len(best[1])):
                best = found
                if len(best[1]) == len(dice):
                    break
    return best, first_failure


def _realize(
    ctx: Context,
    state: int,
    moves: list[tuple[int, int]],
    index: int,
    dice: tuple[int, ...],
    path: tuple[Step, ...],
    total: int,
    failures: list[_Failure],
) -> _Realized | None:
    """Depth-first: the written moves from ``index`` on, each by one or more of ``dice``.

    ``failures`` gathers why a move could not be played, with its index in ``moves`` (the
    written order comes first, so the first failure points at a move as written).
    """
    if index == len(moves):
        return state, path
    start, end = moves[index]
    best: _Realized | None = None
    # how many written moves leave ``start``: to say so when its men run out
    wanted = sum(1 for move in moves if move[0] == start)

    def chain(
        state: int, at: int, dice: tuple[int, ...], path: tuple[Step, ...]
    ) -> _Realized | None:
        nonlocal best
        for die in sorted(set(dice), reverse=True):
            landing = max(at - die, 0)
            if landing < end or (landing == 0 and end != 0):
                continue
            result = try_step(ctx, state, at, die, wanted if at == start else 1)
            if isinstance(result, str):
                failures.append((index, f"{point_name(start)}/{point_name(end)}: {result}"))
                continue
            new_state, step = result
            rest = list(dice)
            rest.remove(die)
            if landing == end:
                found = _realize(
                    ctx, new_state, moves, index + 1, tuple(rest), (*path, step), total, failures
                )
            else:
                found = chain(new_state, landing, tuple(rest), (*path, step))
            if found is not None:
                if len(found[1]) == total:
                    return found
                if best is None or len(found[1]) > len(best[1]):
                    best = found
        return None

    complete = chain(state, start, dice, path)
    if complete is not None:
        return complete
    if best is None and not failures:
        move = f"{point_name(start)}/{point_name(end)}"
        if not dice:
            failures.append((index, f"{move}: every die of the roll is already used"))
        else:
            dice_text = "-".join(str(d) for d in sorted(set(dice), reverse=True))
            failures.append(
                (index, f"{move}: no die or dice left ({dice_text}) make {start - end} pips")
            )
    return best


def try_step(
    ctx: Context, state: int, point: int, die: int, wanted: int = 1
) -> tuple[int, Step] | str:
    """One step of ``die`` from ``point``, or why it is not allowed (in a player's words).

    ``wanted`` is how many written moves leave ``point``, for the message when its men have
    all moved already in this play.
    """
    mover = state & MOVER if ctx.hitting else state
    if not free_men(mover, ctx.hitting, ctx.courier) & FLAG[point]:
        return why_stuck(ctx, mover, point, wanted)
    target = point - die
    if target >= 1:
        if not ctx.open & FLAG[target]:
            opp = side_name(other(ctx.mover))
            if ctx.hitting:
                return f"point {target} is held by {opp} (two men or more)"
            return f"point {target} is {opp}'s"
        if ctx.bear_off == REARMOST and not mover & OUTSIDE:
            top = highest(mover)
            if die >= top:
                return f"a {die} can bear off the man on {top}, so it must"
        new = state + DELTA[die][point]
        if ctx.hitting and (state >> ctx.hit_shift[target]) & COUNT == 1:
            return new + ctx.hit_delta[target], HIT_STEP[die][point]
        return new, STEP[die][point]
    if mover & OUTSIDE:
        return f"not all men are home ({outside_men(mover)})"
    top = highest(mover)
    rule = ctx.bear_off
    if rule == EXACT and die != point:
        return f"a man leaves only by a die equal to its point (a {die} from {point})"
    if rule == STANDARD and die != point and point != top:
        return f"a {die} bears off from {point} only when no man stands higher (a man is on {top})"
    if rule == REARMOST and point != top:
        return f"only a man on the rearmost point ({top}) may leave"
    return state + OFF_DELTA[point], STEP[die][point]
