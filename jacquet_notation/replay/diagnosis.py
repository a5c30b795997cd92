"""The diagnosis of an illegal play: the legal plays closest to what was written, the common
transcription slip that explains it, and the written move to point at.

Only asked once a play is refused, so none of this is on the replay's common path.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from ..board_terms import pairs_text, shifted_point, side_name
from ..engine import Play, legal_plays, validate_play
from ..errors import IllegalPlayError, JacquetError, ReplayError
from ..position import Position, other
from ..record import Span, WrittenPlay
from ..rules import Rules
from .game import Context
from .written import canonical_moves, written_play


def illegal_play(
    context: Context,
    written: WrittenPlay,
    position: Position,
    index: int,
    illegal: IllegalPlayError,
    plays: Sequence[WrittenPlay],
    offset: int,
    suggest: bool = True,
) -> ReplayError:
    """The replay's error for a refused play (``plays[offset]``): the engine's reason, the
    slip that explains it if one does, the closest legal plays (unless not ``suggest``: they
    are beside the message, and finding them is most of the cost), at the move to blame; the
    slip is not looked for unless the context asks for it (``slips``)."""
    dice = written.dice or (0, 0)
    suggestions: list[str] = []
    if suggest:
        try:
            legal = legal_plays(position, dice, context.rules)
        except JacquetError:
            legal = []
        suggestions = closest_plays(written, legal)
    slip = find_slip(context.rules, written, position, plays, offset) if context.slips else None
    message = illegal.message
    if slip:
        message += f"; probably {slip}"
    return context.error(
        "illegal-play",
        message,
        _culprit(written, illegal.move),
        index,
        suggestions=suggestions,
        slip=slip,
    )


def find_slip(
    rules: Rules,
    written: WrittenPlay,
    position: Position,
    plays: Sequence[WrittenPlay],
    offset: int,
) -> str | None:
    """Name the common transcription slip that makes the play legal, if one does."""
    dice = written.dice or (0, 0)
    moves = written.moves_as_pairs()
    shared = written.opponent_moves_as_pairs()

    def legal_with(
        pos: Position,
        roll: tuple[int, int],
        pairs: list[tuple[int, int]],
        share: list[tuple[int, int]] = shared,
    ) -> bool:
        if not share and not _may_realize(pos, pairs):
            return False  # without asking the engine, which would search every play first
        try:
            validate_play(pos, roll, pairs, rules, share)
        except JacquetError:
            return False
        return True

    if shared and _share_by_mover(position, moves, shared):
        mover, opponent = side_name(position.turn), side_name(other(position.turn))
        return (
            f"{mover}'s own men moved in the share ({pairs_text(shared)}): the share is "
            f"{opponent}'s, played on {opponent}'s men in {opponent}'s numbering"
        )
    if shared and legal_with(position, dice, moves + shared, []):
        # the mover's own steps written after the +: a share is the opponent's, on its men
        return (
            f"{side_name(position.turn)}'s own steps written as "
            f"{side_name(other(position.turn))}'s share: {pairs_text(moves + shared)}"
        )

    shifted = [(shifted_point(a), shifted_point(b)) for a, b in moves]
    if shifted != moves and legal_with(position, dice, shifted):
        return "written in the opponent's numbering (points ± 12): " + pairs_text(shifted)
    reversed_pairs = [(b, a) if b > a else (a, b) for a, b in moves]
    if reversed_pairs != moves and legal_with(position, dice, reversed_pairs):
        return "a step written in the other direction: " + pairs_text(reversed_pairs)
    for neighbour in (offset - 1, offset + 1):
        if 0 <= neighbour < len(plays):
            other_dice = plays[neighbour].dice
            if other_dice and other_dice != dice and legal_with(position, other_dice, moves):
                return (
                    f"the dice of two plays swapped ({dice[0]}-{dice[1]} and "
                    f"{other_dice[0]}-{other_dice[1]})"
                )
    flipped = position.with_turn(other(position.turn))
    if legal_with(flipped, dice, moves):
        return f"a play of {side_name(flipped.turn)}'s recorded under {side_name(position.turn)}"
    return None


def _may_realize(position: Position, moves: Sequence[tuple[int, int]]) -> bool:
    """Whether the mover has the men ``moves`` take, in some order: the men they leave on each
    point, taken together, are never fewer than none (a man moved on by a later move counts
    where it arrived). False: no order of the moves can be played, so no play is legal."""
    counts = list(position.counts(position.turn))
    for start, end in moves:
        if not (0 <= end <= 25 and 0 <= start <= 25):
            return True  # not a move between points: the engine says what is wrong
        counts[start] -= 1
        counts[end] += 1
    return min(counts) >= 0


def _share_by_mover(
    position: Position, moves: list[tuple[int, int]], shared: list[tuple[int, int]]
) -> bool:
    """A share played with the mover's men, the wrong side's (a transcription slip): every step
    of the share starts where the mover has a man (before or after its own moves), and the
    opponent none.
    """
    mover = position.turn
    own = set(position.men(mover)) | {end for _, end in moves}
    theirs = set(position.men(other(mover)))
    starts = {start for start, _ in shared if 0 < start < 25}
    return bool(starts) and starts <= own and not starts & theirs


def _culprit(written: WrittenPlay, move: int | None) -> Span:
    """Where an illegal play goes wrong: the written move the engine names, else the play.

    ``move`` indexes the moves as the engine got them, a repeat ``13/9(2)`` counted as often as
    written; a play's span begins at its dice, the place to look when the dice are the issue.
    """
    if move is not None and move >= 0:
        # the engine counts the opponent's share after the mover's moves
        for written_move in written.moves + written.opponent_moves:
            if move < written_move.count:
                return written_move.span if written_move.span.line else written.span
            move -= written_move.count
    return written.span


def closest_plays(written: WrittenPlay, legal: Sequence[Play], most: int = 3) -> list[str]:
    """The legal plays sharing most steps with what was written (ties: notation order).

    Each in canonical notation, as the writer spells a play (``24/18(4)``); never the text of
    ``written`` itself, which was refused.
    """
    moves = written.moves_as_pairs()
    wanted = Counter(moves)
    starts = Counter(a for a, _ in moves)

    def likeness(play: Play) -> tuple[int, int]:
        steps = Counter((step.start, step.end) for step in play.steps)
        return (
            sum((wanted & steps).values()),
            sum((starts & Counter(s.start for s in play.steps)).values()),
        )

    ranked = sorted(
        (p for p in legal if p.steps or p.opponent_steps),
        key=lambda p: (-likeness(p)[0], -likeness(p)[1], p.notation()),
    )
    refused = canonical_moves(written.moves, written.opponent_moves)
    dice = written.dice or (0, 0)
    texts: list[str] = []
    for play in ranked:
        suggested = written_play(written.side, written.turn, dice, play)
        text = canonical_moves(suggested.moves, suggested.opponent_moves)
        if text != refused and text not in texts:
            texts.append(text)
            if len(texts) == most:
                break
    return texts
