"""A roll written alone (``6-5:``): an honest pass, gnubg's reading of a match file's blank
roll, or a play missing, with the game checked on from the one play the next allows.
"""

from __future__ import annotations

from ..budget import check_time
from ..engine import Play, legal_plays, rolls_for_play, validate_play
from ..errors import IllegalPlayError, JacquetError
from ..position import Position
from ..record import WrittenPlay
from ..rules import Rules
from .game import ReplayedPly


def pass_of(position: Position, dice: tuple[int, int], rules: Rules) -> Play | None:
    """The pass a roll written alone stands for, or None where some man could move with it
    (its play is then missing).

    Outside every-die, the pass is legal exactly when no man can move (the legal plays are
    distinct by position, and a step moves a man), so validating it says both at once, and
    costs little where the engine sees at once that no die moves (backgammon's dance).
    Under every die the turn's plays, the opponent's share included, are asked first.
    """
    if rules.every_die_used:
        if any(p.steps or p.opponent_steps for p in legal_plays(position, dice, rules)):
            return None
        return validate_play(position, dice, [], rules)
    try:
        return validate_play(position, dice, [], rules)
    except IllegalPlayError:
        return None


def blank_play(
    ply: ReplayedPly, position: Position, dice: tuple[int, int], rules: Rules, last: bool
) -> Play | None:
    """A backgammon roll written alone where some man can move, as gnubg reads it
    (docs/notation.md, "Match files"): the only legal play, noted on the ply; or, as the
    game's last ply (a resignation or the end of the file follows), the roll kept unplayed,
    no man moved (an empty play, noted); None where several plays are legal mid-game."""
    plays = legal_plays(position, dice, rules)
    if len(plays) == 1:
        ply.note = f"the only legal play of {dice[0]}-{dice[1]}, left blank: played"
        return plays[0]
    if last:
        ply.note = f"{dice[0]}-{dice[1]} rolled and not played: the game ends there"
        ply.unplayed = True
        return Play((), position)
    return None


def missing_play(
    rules: Rules, dice: tuple[int, int], position: Position, following: WrittenPlay | None
) -> tuple[str, Position | None]:
    """A roll written without its play (``6-5:`` where 6-5 can be played): the message of its
    error, and the position after it when the next play (``following``) allows exactly one play
    of that roll.
    """
    fitting = []
    if following is not None:
        for play in legal_plays(position, dice, rules):
            check_time()  # each a roll inferred for the next play, maybe
            if _fits(following, play.position, rules):
                fitting.append(play)
    message = f"the play of {dice[0]}-{dice[1]} is missing"
    after: Position | None = None
    if len(fitting) == 1:
        after = fitting[0].position
        shown = fitting[0].notation() or "a pass"
        message += f"; the next play allows only {shown}, and the game is checked on from it"
    elif following is not None:
        message += (
            f"; {len(fitting)} plays of it allow the next play, so the game is checked no further"
        )
    return message, after


def _fits(written: WrittenPlay, position: Position, rules: Rules) -> bool:
    """Whether ``written`` is legal from ``position`` (its roll inferred if left out)."""
    if written.action is not None or written.side != position.turn:
        return False
    moves = written.moves_as_pairs()
    share = written.opponent_moves_as_pairs()
    if written.dice is None:
        return bool(moves) and bool(rolls_for_play(position, moves, rules, share))
    try:
        validate_play(position, written.dice, moves, rules, share)
    except JacquetError:
        return False
    return True
