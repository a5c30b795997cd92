"""The engine's one door: every legal play of a roll, and the validation of a written play.

Both choose between a plain turn and a whole Versailles turn (``every_die_used``: the mover's
play, then the opponent's share, :mod:`.shares`). The choice sits here, above the search
(:mod:`.search`), the quick path (:mod:`.quick`), the careful path (:mod:`.validate`) and the
shares, so that none of those imports back up and the package has no import circle.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ..errors import IllegalPlayError
from ..position import Position
from ..rules import Rules
from .context import Context
from .facts import facts_of
from .plays import DEFAULT_RULES, Play, dice_steps
from .quick import accept_quickly
from .scoring import winner
from .search import Search
from .shares import validate_turn, whole_turns
from .validate import validate_steps

#: the opponent moves validate_play takes as they are (anything else is read into a list once)
_SEQUENCES = (list, tuple)


def legal_plays(position: Position, dice: Sequence[int], rules: Rules | None = None) -> list[Play]:
    """Every distinct legal play of ``dice`` for the side to move (distinct by resulting position).

    A roll with no legal step gives one empty play (a pass). A finished game has no plays.
    Under ``rules.every_die_used`` each play is a whole turn, the opponent's share included
    (:mod:`.shares`), distinct by the position after both parts.
    """
    rules = rules or DEFAULT_RULES
    if winner(position) is not None:
        return []
    if rules.every_die_used:
        return whole_turns(position, dice_steps(dice, rules), rules)
    ctx = Context(position, rules)
    return Search(ctx, dice_steps(dice, rules)).plays()


def _listed(moves: Iterable[Sequence[int]]) -> list[Sequence[int]]:
    """The moves as a list; moves that are not a collection at all (None) are an
    IllegalPlayError, as every other malformed input is, not a TypeError."""
    try:
        return list(moves)
    except TypeError:
        raise IllegalPlayError(f"moves must be (start, end) pairs, not {moves!r}") from None


def validate_play(
    position: Position,
    dice: Sequence[int],
    moves: Iterable[Sequence[int]],
    rules: Rules | None = None,
    opponent_moves: Iterable[Sequence[int]] = (),
) -> Play:
    """The play that ``moves`` (``(start, end)`` pairs as written) stand for, if it is legal.

    A written move may span several dice (``24/13`` with 6-5). Raises IllegalPlayError naming the
    broken rule. A play that uses every die needs no enumeration of the alternatives
    (:func:`.quick.accept_quickly`); anything else goes the careful way (:mod:`.validate`).

    ``opponent_moves`` is the opponent's share of the roll under ``every_die_used``
    (Versailles), in the opponent's own numbering (:func:`.shares.validate_turn`); an error in
    it points at ``len(moves) + i``, its ``i``-th move.
    """
    rules = rules or DEFAULT_RULES
    if not isinstance(moves, (list, tuple)):
        moves = _listed(moves)
    if opponent_moves.__class__ not in _SEQUENCES:
        opponent_moves = _listed(opponent_moves)  # an iterator's truth says nothing of its length
    try:
        # the quick path reads a move by its first two items: a move of another length is
        # malformed, and the careful path below names it
        quick = (
            accept_quickly(position, dice, moves, rules)
            if all(len(move) == 2 for move in moves)
            else None
        )
    except (TypeError, ValueError):
        quick = None  # malformed input: the careful path below says what is wrong
    if quick is not None and not opponent_moves:
        if not rules.every_die_used:
            return quick
        a, b = dice
        if len(quick.steps) == (2 if a != b else facts_of(rules).double_steps or a):
            return quick  # the mover used every die, so nothing is shared
    if opponent_moves or rules.every_die_used:
        return validate_turn(position, dice, moves, rules, opponent_moves, quick)
    if winner(position) is not None:
        raise IllegalPlayError("the game is over")
    return validate_steps(position, dice_steps(dice, rules), moves, rules)
