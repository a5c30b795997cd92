"""One game of a match: the cube within it, how it ended, and its points checked.

The replay moves the men (a cube action moves none); this module reads a replayed game's cube
actions and written result under ``backgammon`` scoring (docs/rules.md, "Matches"), raising
nothing: :func:`check_game` returns ``MatchError``s, :func:`outcome` the one answer every
report, export and page gives of a game's end.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from ..board_terms import side_name
from ..engine import BACKGAMMON
from ..errors import MatchError
from ..position import Side, other
from ..record import GameRecord, Span
from ..replay import ReplayedGame, parse_result

#: the plies of the cube (a ply's other actions: None, a roll, and ``unknown``, a roll unplayed)
_CUBE_ACTIONS = frozenset(("double", "take", "drop", "beaver"))


@dataclass(slots=True)
class _Cube:
    """The cube as a game goes: its value, its owner (None: centred), a double awaiting answer."""

    value: int = 1
    owner: Side | None = None
    offered: tuple[Side, int] | None = None
    #: the offer awaiting an answer is a beaver's redouble (its taker does not own the cube)
    beaver: bool = False
    dropped_by: Side | None = None


def _error(record: GameRecord, kind: str, message: str, span: Span | None) -> MatchError:
    return MatchError(
        kind,
        message,
        file=record.file,
        game=record.index,
        line=span.line if span and span.line else None,
        column=span.column if span and span.line else None,
    )


#: how a game ended (:class:`Outcome`): every man borne off, a double dropped, a resignation
#: (a concession, ``Wins N points`` on a game not over), or not yet (the record stops)
ENDINGS = ("borne-off", "drop", "resignation", "unfinished")


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a game ended and what it gave: the one answer every report, export and page uses.

    ``points`` are what the winner scores (for backgammon scoring, the cube included); a
    game whose written result the rules contradict takes the rules' points where the rules
    decide them (a game played out, a drop), and the written ones for a resignation.
    """

    winner: Side | None
    points: int | None
    ending: str
    #: the cube's value when the game ended (1 for rulesets without a cube)
    cube: int = 1

    @property
    def result(self) -> str | None:
        """``white-black`` points, as a record writes them; None while the game is unfinished."""
        if self.winner is None or self.points is None:
            return None
        return f"{self.points}-0" if self.winner == "white" else f"0-{self.points}"


_UNFINISHED = Outcome(None, None, "unfinished")

#: how each ending is said after "White wins N points"
_HOW = {
    "borne-off": "every man borne off",
    "drop": "a double dropped",
    "resignation": "a resignation",
}


def ending_text(ended: Outcome) -> str:
    """An outcome in words, as ``replay`` prints it and the pages say it: ``2-0 (White wins 2
    points: a double dropped, the cube at 2)``, or ``unfinished``."""
    if ended.winner is None or ended.points is None:
        return "unfinished"
    points = f"{ended.points} point{'s' if ended.points != 1 else ''}"
    cube = f", the cube at {ended.cube}" if ended.cube > 1 else ""
    return f"{ended.result} ({side_name(ended.winner)} wins {points}: {_HOW[ended.ending]}{cube})"


def outcome(game: ReplayedGame) -> Outcome:
    """How ``game`` ended, by the rules and, where only the record can say (a resignation, a
    match won with fewer points than the game was worth), by its written result (docs/rules.md,
    "How a game ends")."""
    if game.rules.scoring != "backgammon":
        if game.winner is None:
            return _UNFINISHED
        return Outcome(game.winner, game.points, "borne-off")
    if not game.complete:
        return _UNFINISHED
    cube, _ = _play_cube(game)
    end = _end(game, cube)
    if end is None:
        return _UNFINISHED
    winner, value, ending, _ = end
    written = parse_result(game.record.result)
    if written is not None and _agrees(game.record, written, winner, value, ending):
        return Outcome(winner, max(written), ending, cube.value)
    if ending == "resignation":
        # a result the rules refuse (an error of the game): what it states, up to the most a
        # resignation can give; none for a result that gives no one a point
        if written is None or min(written) != 0 or max(written) < 1:
            return _UNFINISHED
        return Outcome(winner, min(max(written), value), ending, cube.value)
    return Outcome(winner, value, ending, cube.value)


def _end(game: ReplayedGame, cube: _Cube) -> tuple[Side, int, str, str] | None:
    """Who won a backgammon game by the rules, the most it was worth, how it ended and why:
    None while it has not ended (no drop, men still on the board, no resignation written)."""
    if cube.dropped_by is not None:
        why = f"{side_name(cube.dropped_by)} dropped a double of the cube at {cube.value}"
        return other(cube.dropped_by), cube.value, "drop", why
    if game.winner is not None:
        why = (
            f"{side_name(game.winner)} bore off every man: {game.points} x the cube ({cube.value})"
        )
        return game.winner, game.points * cube.value, "borne-off", why
    written = parse_result(game.record.result)
    if written is None:
        return None
    winner: Side = "white" if written[0] > 0 else "black"
    if cube.offered is not None:
        # a double left unanswered by a resignation: the loser gave up the game
        return winner, max(written), "resignation", ""
    # a resignation scores what it states (RULES.md's backgammon ruleset): a single game, a
    # gammon or a backgammon, whatever the position, as gnubg scores it too
    why = (
        f"{side_name(other(winner))} resigned with the cube at {cube.value}: a resignation "
        f"states at most a backgammon, {BACKGAMMON} x the cube"
    )
    return winner, BACKGAMMON * cube.value, "resignation", why


def _agrees(
    record: GameRecord, written: tuple[int, int], winner: Side, value: int, ending: str
) -> bool:
    """Whether a written result fits the game's end (what real servers write: docs/rules.md,
    "Matches"): the winner, and at most the game's value (a drop's cube, a played-out game's 1,
    2 or 3 times the cube, a resignation's 1, 2 or 3 times the cube whatever the position), or,
    when a drop or a game played out wins the match, anything from what the winner needed up.
    A resignation states its value: never more than a backgammon, but for the match given up
    (Galaxy's ``Wins 5 point and the match`` at 0-0 of 5: what the winner needed, exactly);
    ``Wins 4016 point`` is neither (gnubg caps it)."""
    points = max(written)
    said: Side = "white" if written[0] > 0 else "black"
    resigned = ending == "resignation"
    return (
        said == winner
        and min(written) == 0
        and points >= 1
        and (points <= value or _wins_match(record, winner, points, exactly=resigned))
    )


def _play_cube(game: ReplayedGame) -> tuple[_Cube, MatchError | None]:
    """The cube after the game's cube actions, and the first action that breaks the rules."""
    record = game.record
    cube = _Cube()
    plies = game.plies
    # the cube's plies, found in one pass (a game has a few among dozens of rolls); a roll
    # while a double awaits its answer cannot be written: the answer has the next slot, and
    # the replay refuses the other side's roll there as "wrong-side"
    actions = [index for index, ply in enumerate(plies) if ply.written.action in _CUBE_ACTIONS]
    for index in actions:
        written = plies[index].written
        action = written.action
        assert action is not None
        problem = _cube_action(cube, written.side, action, written.cube)
        if problem is not None:
            return cube, _error(record, "cube", problem, written.span)
        if cube.dropped_by is not None and index + 1 < len(plies):
            following = plies[index + 1].written
            return cube, _error(
                record,
                "cube",
                f"{side_name(following.side)} plays after {side_name(cube.dropped_by)} "
                "dropped the double, which ended the game",
                following.span,
            )
    return cube, None


def check_game(game: ReplayedGame) -> list[MatchError]:
    """The cube's actions of one game and its written points, under ``backgammon`` scoring.

    Only the centred cube or its owner may double, each double states twice the cube, a take
    gives the cube to the taker, a beaver takes and redoubles keeping it, a drop ends the game
    (the doubler scores the cube before the double); a game played out scores 1, 2 or 3 times
    the cube, a resignation what it states up to what the position allows. An empty list for
    other rulesets, and for a game whose line stopped on an illegal play (its end is unknown).
    """
    if game.rules.scoring != "backgammon" or not game.complete:
        return []
    cube, problem = _play_cube(game)
    if problem is not None:
        return [problem]
    return _check_points(game, cube)


def _cube_action(cube: _Cube, side: Side, action: str, stated: int | None) -> str | None:
    """Apply one cube action to ``cube``; the reason it breaks the rules, if it does."""
    name = side_name(side)
    if action == "double":
        if cube.offered is not None:
            return f"{name} doubles while a double awaits an answer"
        if cube.owner is not None and cube.owner != side:
            return (
                f"{name} doubles, but the cube ({cube.value}) is {side_name(cube.owner)}'s: "
                "only the centred cube or its owner's may be turned"
            )
        if stated is not None and stated != 2 * cube.value:
            return (
                f"{name} doubles to {stated}, but the cube is at {cube.value}: "
                f"write {2 * cube.value}"
            )
        cube.offered = (side, 2 * cube.value)
        return None
    if cube.offered is None:
        return f"{name} {_VERB[action]}, but no double was offered"
    doubler, value = cube.offered
    if doubler == side:
        return f"{name} {_VERB[action]} its own double"
    cube.offered = None

    if action == "take":
        cube.value = value
        cube.owner = doubler if cube.beaver else side
        cube.beaver = False
    elif action == "beaver":
        # a take and a redouble at once: the doubler answers the redouble (Takes), and the
        # beaverer keeps the cube
        if stated is not None and stated != 2 * value:
            return f"{name} beavers to {stated}, but the double was to {value}: write {2 * value}"
        cube.value, cube.owner = value, side
        cube.offered, cube.beaver = (side, 2 * value), True
    else:  # drop
        cube.dropped_by = side
    return None


_VERB = {"take": "takes", "drop": "drops", "beaver": "beavers"}


def cube_after_each(
    plies: Iterable[tuple[Side, str | None, int | None]],
) -> list[tuple[int, Side | None]]:
    """The cube's value and owner (None: centred) after each ply, from each ply's side, cube
    action (``double``, ``take``, ``drop``, ``beaver``, or None for a roll) and stated value:
    what a board shows while stepping through a game. A double shows the cube unturned until
    it is taken; after an action that breaks the rules the cube stays as it was.
    """
    cube = _Cube()
    states: list[tuple[int, Side | None]] = []
    for side, action, stated in plies:
        if action in ("double", "take", "drop", "beaver"):
            before = (cube.value, cube.owner, cube.offered, cube.beaver, cube.dropped_by)
            if _cube_action(cube, side, action, stated) is not None:
                cube.value, cube.owner, cube.offered, cube.beaver, cube.dropped_by = before
        states.append((cube.value, cube.owner))
    return states


def _check_points(game: ReplayedGame, cube: _Cube) -> list[MatchError]:
    """The written result against the points the game gave: a drop's, a played-out game's or a
    resignation's (``Wins N points`` on a game not over)."""
    record = game.record
    written = parse_result(record.result)
    if written is None:
        return []
    end = _end(game, cube)
    if end is None:
        return []
    right, value, ending, why = end
    if not why or _agrees(record, written, right, value, ending):
        return []
    winner: Side = "white" if written[0] > 0 else "black"
    points = max(written)
    end_span = record.span
    span = (
        Span(end_span.end_line, 1, end_span.end_line, end_span.end_column)
        if end_span.line
        else None
    )
    return [
        _error(
            record,
            "points",
            f"{why}: {side_name(right)} wins {value} points, not {side_name(winner)} "
            f"{points} ({record.result})",
            span,
        )
    ]


def _wins_match(record: GameRecord, winner: Side, points: int, *, exactly: bool = False) -> bool:
    """Whether ``points`` bring ``winner`` to the match's length (``exactly``: to it and no
    further); asked only of more points than the game was worth: the header's tags are read
    then."""
    header = record.match_header()
    if header is None or not header.length or header.score is None:
        return False
    needed = header.length - header.score[0 if winner == "white" else 1]
    return needed > 0 and (points == needed if exactly else points >= needed)
