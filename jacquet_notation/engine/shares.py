"""Versailles' "every die is used": the opponent's share of the dice the mover could not use.

docs/rules.md: the mover plays the roll under the usual rules; every die (every step of a
squared double) it did not use is then played at once by the opponent on its own men, under the
same rules applied to those dice alone; a die neither can use is lost. A whole turn is therefore
the mover's play followed by the opponent's share, and the opponent then plays its own turn.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..bits import COUNT, MOVER, OPP_SHIFT, POINTS, occupied, two_or_more
from ..board_terms import pairs_text, shifted_point, side_name
from ..errors import IllegalPlayError
from ..position import MEN, Position, Side, other
from ..rules import Rules
from .context import Context
from .plays import Play, Step, dice_steps, make_play, make_position, notation_of
from .quick import accept_quickly
from .scoring import winner
from .search import Search
from .validate import realize_any_order, validate_steps, written_move

#: the seed's clause that docs/rules.md refuses to read; named in the errors that need it
UNCOVERING_CLAUSE = (
    'the seed\'s clause "if the opponent cannot play the two dice without uncovering a point" '
    "has no reading docs/rules.md trusts, so it excuses nothing"
)


def leftover(dice: list[int], used: Iterable[Step]) -> list[int]:
    """The dice of ``dice`` (high first) that the steps ``used`` did not play."""
    left = list(dice)
    for step in used:
        left.remove(step.die)
    return left


def whole_turns(position: Position, dice: list[int], rules: Rules) -> list[Play]:
    """Every distinct whole turn: the mover's legal plays, each followed by the opponent's share.

    Distinct by the position after both parts (the opponent to move). The mover's legal plays all
    use the same dice (the most dice; the higher of two where only one fits), so when they use
    every die there is nothing to share and the usual plays are the turns.

    Each mover play gets its own share search: sharing one search between the mover plays that
    leave the opponent the same open points and block facts was measured (bench/engine.py's
    positions) to spare 40 of 1,213 searches, less than computing the key for every play costs.
    """
    search = Search(Context(position, rules), dice)
    own = search.plays()
    if len(own[0].steps) == len(dice):
        return own
    opponent = other(position.turn)
    found: dict[Position, Play] = {}
    for play in own:
        after = play.position
        left = leftover(dice, play.steps)
        if winner(after) is not None:
            found.setdefault(after, play)
            continue
        share_ctx = Context(after, rules)
        for state, share in Search(share_ctx, left).plays_by_state.items():
            final = _final(share_ctx, state, opponent)
            if final not in found:
                found[final] = make_play(play.steps, final, share)
    return list(found.values())


def _final(share_ctx: Context, state: int, turn: Side) -> Position:
    """The position a share's final state stands for, ``turn`` (the opponent) to move.

    Built from the packed sides at once: going through :meth:`.context.Context.position` built
    every final position twice, a sixth of the time of a turn with a share.
    """
    if share_ctx.hitting:
        sharer, mover = state & MOVER, state >> OPP_SHIFT
    else:
        sharer, mover = state, share_ctx.opp_packed
    if turn == "white":
        return make_position(sharer, mover, turn, share_ctx.direction)
    return make_position(mover, sharer, turn, share_ctx.direction)


def validate_turn(
    position: Position,
    dice: Sequence[int],
    moves: Sequence[Sequence[int]],
    rules: Rules,
    opponent_moves: Iterable[Sequence[int]],
    quick: Play | None = None,
) -> Play:
    """A whole Versailles turn as written: the mover's ``moves``, then the opponent's share.

    Accepts only when both parts are legal and nothing playable was left out. An error in the
    share points at ``len(moves) + i`` (its ``i``-th move), or at None when a die is the issue.
    ``quick`` is the mover's part as :func:`.quick.accept_quickly` accepted it, if it did.
    """
    shared = [tuple(move) for move in opponent_moves]
    mover, opponent = position.turn, other(position.turn)
    if not rules.every_die_used:
        raise IllegalPlayError(
            f"this ruleset has no shared dice: {side_name(opponent)} plays no part of "
            f"{side_name(mover)}'s roll (every-die: yes in the tags allows it)",
            move=len(moves),
        )
    own = quick
    steps = dice_steps(dice, rules)
    if own is None:
        if winner(position) is not None:
            raise IllegalPlayError("the game is over")
        try:
            own = validate_steps(position, steps, moves, rules)
        except IllegalPlayError:
            if shared:
                given_away = _given_away(position, steps, moves, rules)
                if given_away is not None:
                    raise given_away from None
            raise
    left = leftover(steps, own.steps)
    after = own.position
    # winner(after) is not None, inline: the mover may have borne off its last man
    if not left or after.packed_white & COUNT == MEN or after.packed_black & COUNT == MEN:
        if shared:
            why = "used every die" if not left else "has borne off its last man"
            raise IllegalPlayError(
                f"{side_name(mover)} {why}, so {side_name(opponent)} has no share to play",
                move=len(moves),
            )
        return own
    if shared:
        try:
            share: Play | None = accept_quickly(after, dice, shared, rules, left)
        except (TypeError, ValueError):
            share = None
        if share is None:
            try:
                share = validate_steps(after, left, shared, rules)
            except IllegalPlayError as error:
                share_ctx = Context(after, rules)
                legal = Search(share_ctx, left).plays_by_state
                raise _share_error(
                    error, after, share_ctx, left, shared, legal, len(moves)
                ) from None
        shared_to = share.position
        final = make_position(
            shared_to.packed_white, shared_to.packed_black, opponent, shared_to.direction
        )
        return make_play(own.steps, final, share.steps)
    share_ctx = Context(after, rules)
    if not any(share_ctx.can_step(die) for die in set(left)):
        return own  # the dice are lost: neither side can use them
    legal = Search(share_ctx, left).plays_by_state
    example = next(iter(legal.values()))
    if not example:
        return own  # no share keeps the opponent's structure: lost too
    clause = _clause(share_ctx, share_ctx.start, (), legal)
    raise IllegalPlayError(
        f"{side_name(opponent)} could have played {_dice_words(example)} "
        f"({notation_of(example)}); the share is missing" + clause
    )


def _given_away(
    position: Position, dice: list[int], moves: Sequence[Sequence[int]], rules: Rules
) -> IllegalPlayError | None:
    """The mover left out a die it could play, and the share plays it: say so in those words."""
    ctx = Context(position, rules)
    try:
        written = [written_move(move, index) for index, move in enumerate(moves)]
    except IllegalPlayError:
        return None
    best, _ = realize_any_order(ctx, written, dice)
    if best is None:
        return None
    state, path = best
    legal = Search(ctx, dice).plays_by_state
    if state in legal:
        return None
    example = next(iter(legal.values()))
    missing = leftover([step.die for step in example], path) if len(example) > len(path) else []
    if not missing:
        return None
    were = "was" if len(missing) == 1 else "were"
    return IllegalPlayError(
        f"the {' and the '.join(str(die) for die in missing)} {were} playable by "
        f"{side_name(ctx.mover)} ({notation_of(example)}), so {side_name(other(ctx.mover))} "
        f"may not play {'it' if len(missing) == 1 else 'them'}",
        move=None,
    )


def _share_error(
    error: IllegalPlayError,
    after: Position,
    share_ctx: Context,
    left: list[int],
    shared: list[tuple[int, ...]],
    legal: dict[int, tuple[Step, ...]],
    offset: int,
) -> IllegalPlayError:
    """The words for a share that is not legal: a numbering slip, the seed's clause, or why."""
    opponent = side_name(share_ctx.mover)
    mover = side_name(other(share_ctx.mover))
    try:
        shifted = [(shifted_point(int(start)), shifted_point(int(end))) for start, end in shared]
        validate_steps(after, left, shifted, share_ctx.rules)
    except (IllegalPlayError, TypeError, ValueError):
        pass
    else:
        if shifted != shared:
            return IllegalPlayError(
                f"the share {pairs_text(shared)} is written in {mover}'s numbering; a share is "
                f"written in the opponent's own: in {opponent}'s it is {pairs_text(shifted)}",
                move=offset,
            )
    try:
        written = [written_move(move, index) for index, move in enumerate(shared)]
        best, _ = realize_any_order(share_ctx, written, left)
    except IllegalPlayError:
        best = None
    if best is not None:
        clause = _clause(share_ctx, best[0], best[1], legal)
        if clause:
            example = next(iter(legal.values()))
            return IllegalPlayError(
                f"{opponent} could have played {_dice_words(example)} ({notation_of(example)})"
                + clause,
                move=offset,
            )
    move = None if error.move is None else offset + error.move
    return IllegalPlayError(f"{opponent}'s share: {error.message}", move=move)


def _clause(
    share_ctx: Context, state: int, path: tuple[Step, ...], legal: dict[int, tuple[Step, ...]]
) -> str:
    """The seed's last clause, named when only it would excuse a share shorter than legal.

    That is: the written share uses fewer dice than the legal shares, uncovers none of the
    opponent's points, and every legal share uncovers one (a point held before is not after).
    """
    if not legal or len(path) >= len(next(iter(legal.values()))):
        return ""
    hitting = share_ctx.hitting

    def held(state: int) -> int:
        side = state & MOVER if hitting else state
        return (two_or_more(side) if hitting else occupied(side)) & POINTS

    before = held(share_ctx.start)
    if before & ~held(state):
        return ""
    if all(before & ~held(other_state) for other_state in legal):
        return f"; {UNCOVERING_CLAUSE}"
    return ""


def _dice_words(path: tuple[Step, ...]) -> str:
    """``the 1``, ``the 6 and the 1``, ``3 steps of 2``: the dice a share plays."""
    dice = [step.die for step in path]
    if len(dice) == 1:
        return f"the {dice[0]}"
    if len(set(dice)) == 1:
        return f"{len(dice)} steps of {dice[0]}"
    return " and ".join(f"the {die}" for die in dice)
