"""The match state after each ply of a replayed backgammon game, as gnubg's Match ID holds it
(length, score, cube and owner, Crawford, the side on roll, a double pending), where the record
says the match: a match file's game, or one with a ``[Match]`` or ``[Score]`` tag."""

from __future__ import annotations

from ..board_terms import Side
from ..numerals import ascii_int
from ..position_ids import MatchState
from ..replay import ReplayedGame
from .game import cube_after_each
from .sequence import is_crawford_game

_ON = ("on", "yes", "true", "1")


def score_of(text: str) -> tuple[int, int] | None:
    """A ``[Score]`` tag's (White's, Black's), or None where it is not ``a-b``."""
    white, dash, black = text.partition("-")
    first, second = ascii_int(white.strip()), ascii_int(black.strip())
    return (first, second) if dash and first is not None and second is not None else None


def states_after(
    game: ReplayedGame, previous: tuple[int, int] | None = None
) -> list[MatchState] | None:
    """The match state at the start (cube centred at 1, the first side to act) and after each
    ply (the side to act next, no dice yet): one more than the plies; None where the
    record does not say the match (no ``[Match]`` nor ``[Score]``) or the game is not
    backgammon's. ``previous`` is the score of the game before it in the match (the Crawford
    game is the first at one point short: None, the match's first game)."""
    tags = game.record.tags
    if game.rules.direction != "opposite" or not ({"Match", "Score"} & tags.keys()):
        return None
    length = ascii_int(tags.get("Match", "").strip()) or 0
    score = score_of(tags.get("Score", "")) or (0, 0)
    crawford_on = tags.get("Crawford", "").strip().lower() in _ON
    crawford = is_crawford_game(crawford_on, length, score, previous)
    jacoby = length == 0 and tags.get("Jacoby", "").strip().lower() in _ON
    written = [ply.written for ply in game.plies]
    cubes = cube_after_each((w.side, w.action, w.cube) for w in written)
    first: Side = game.plies[0].written.side if game.plies else "white"
    states = [MatchState(first, 1, None, crawford, score, length, None, False, jacoby)]
    for play, (cube, owner) in zip(written, cubes, strict=True):
        other: Side = "black" if play.side == "white" else "white"
        # a double pending: gnubg's mover stays the doubler, the other to decide; after a
        # roll, a take (the doubler rolls) or a drop, the other side
        doubled = play.action == "double"
        mover = play.side if doubled else other
        states.append(
            MatchState(mover, cube, owner, crawford, score, length, None, doubled, jacoby)
        )
    return states
