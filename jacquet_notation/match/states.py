"""The match state after each ply of a replayed backgammon game, as gnubg's Match ID holds it
(length, score, cube and owner, Crawford, the side on roll, a double pending), where the record
says the match: a match file's game, or one with a ``[Match]`` or ``[Score]`` tag."""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import replace

from ..board_terms import Side
from ..numerals import ascii_int
from ..position_ids import MatchState
from ..record import GameRecord
from ..replay import ReplayedGame
from .game import cube_after_each
from .sequence import is_crawford_game

_ON = ("on", "yes", "true", "1")


def score_of(text: str) -> tuple[int, int] | None:
    """A ``[Score]`` tag's (White's, Black's), or None where it is not ``a-b``."""
    white, dash, black = text.partition("-")
    first, second = ascii_int(white.strip()), ascii_int(black.strip())
    return (first, second) if dash and first is not None and second is not None else None


def start_state(
    tags: Mapping[str, str], first: Side, previous: tuple[int, int] | None = None
) -> MatchState | None:
    """The match state at a game's start (cube centred at 1, ``first`` to act) from its tags;
    None where they do not say the match (no ``[Match]`` nor ``[Score]``). ``previous`` is the
    score of the game before it in the match (the Crawford game is the first at one point
    short: None, the match's first game)."""
    if not ({"Match", "Score"} & tags.keys()):
        return None
    length = ascii_int(tags.get("Match", "").strip()) or 0
    score = score_of(tags.get("Score", "")) or (0, 0)
    crawford_on = tags.get("Crawford", "").strip().lower() in _ON
    crawford = is_crawford_game(crawford_on, length, score, previous)
    jacoby = length == 0 and tags.get("Jacoby", "").strip().lower() in _ON
    return MatchState(first, 1, None, crawford, score, length, None, False, jacoby)


def states_from(
    start: MatchState, plies: Sequence[tuple[Side, str | None, int | None]]
) -> list[MatchState]:
    """``start`` and the state after each ply (side, cube action, the value it states): the side
    to act next, no dice yet; one more than the plies. The replay and the game page (which
    reads the archive's ``turns``) both walk a game's cube through here."""
    states = [start]
    for (side, action, _), (cube, owner) in zip(plies, cube_after_each(plies), strict=True):
        other: Side = "black" if side == "white" else "white"
        # a double pending: gnubg's mover stays the doubler, the other to decide; after a
        # roll, a take (the doubler rolls) or a drop, the other side
        doubled = action == "double"
        mover = side if doubled else other
        states.append(replace(start, mover=mover, cube=cube, owner=owner, doubled=doubled))
    return states


def states_after(
    game: ReplayedGame, previous: tuple[int, int] | None = None
) -> list[MatchState] | None:
    """The match state at the start and after each ply of a replayed game (:func:`states_from`);
    None where the record does not say the match or the game is not backgammon's."""
    if game.rules.direction != "opposite":
        return None
    first: Side = game.plies[0].written.side if game.plies else "white"
    start = start_state(game.record.tags, first, previous)
    if start is None:
        return None
    return states_from(
        start, [(p.written.side, p.written.action, p.written.cube) for p in game.plies]
    )


def with_previous_scores(
    records: Iterable[GameRecord],
) -> Iterator[tuple[GameRecord, tuple[int, int] | None]]:
    """Each record with the score of the game before it in the same match (same file and
    ``[Match]``; None: the first), which tells the Crawford game (:func:`start_state`)."""
    match: tuple[str | None, str | None] | None = None
    score: tuple[int, int] | None = None
    for record in records:
        here = (record.file, record.tags.get("Match"))
        yield record, score if here == match else None
        match, score = here, score_of(record.tags.get("Score", ""))
