"""A match checked: the cube within a game, a game's points, and the games of a match in order.

Between the replay and the exporters: the replay moves the men (a cube action moves none), and
this module holds what a match adds (docs/rules.md, "Matches"). :func:`check_game` needs one
replayed game; :func:`check_sequence` needs the games of one file in order, but only a
:class:`GameSummary` of each (plain data, so that ``validate --jobs`` workers can send it back
and the checks run in the parent, one game behind, as the reports stream out).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from .board_terms import side_name
from .engine import BACKGAMMON
from .errors import MatchError
from .numerals import ascii_int
from .position import Side, other
from .record import GameRecord, Span
from .replay import ReplayedGame, parse_result

#: the Crawford tag's values that turn the rule on (gnubg and the servers write ``On``)
_ON = {"on", "yes", "true", "1"}
#: the plies of the cube (a ply's other actions: None, a roll, and ``unknown``, a roll unplayed)
_CUBE_ACTIONS = frozenset(("double", "take", "drop", "beaver"))


@dataclass(frozen=True, slots=True)
class GameSummary:
    """What the match checks need of one game: plain data (docs/rules.md, "Matches")."""

    file: str | None
    index: int
    length: int | None
    score: tuple[int, int] | None
    score_span: Span | None
    #: the points the game's result gives White and Black (None: no result written)
    points: tuple[int, int] | None
    crawford: bool
    #: where the game's first double stands, if it has one
    first_double: Span | None
    #: the game's span in its file (its first line: where its text begins)
    span: Span | None
    #: the game's number as written (``Game 3``), if any: the games of a match go up by one
    number: int | None = None
    #: the line of its match's length (``5 point match``): a file may hold several matches,
    #: one after another, and a game is checked only against a game of its own match
    match_line: int | None = None


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


def summarise(record: GameRecord) -> GameSummary | None:
    """The match facts of one record; None for a game that is not part of a match."""
    match_span = record.tag_spans.get("Match") if record.tag_spans else None
    return summary_of(
        record.file,
        record.index,
        record.tags,
        record.result,
        score_span=record.tag_spans.get("Score") if record.tag_spans else None,
        first_double=next((p.span for p in record.plays if p.action == "double"), None),
        span=record.span if record.span.line else None,
        match_line=match_span.line if match_span is not None else None,
    )


def match_summary(record: GameRecord) -> GameSummary | None:
    """What the checks across games know of a record: a readable one's facts, an unreadable
    one's place (validate and the archive ask this one question)."""
    return summarise(record) if not record.errors else unread_summary(record)


def match_errors(
    previous: GameSummary | None, record: GameRecord
) -> tuple[list[MatchError], GameSummary | None]:
    """The checks of ``record`` against the game before it (``previous``: its summary, None
    for none), and the summary the next game is checked against: validate's checks across
    games, for a reader that holds the records in order (the archive)."""
    summary = match_summary(record)
    if summary is None or record.errors:
        return [], summary
    return check_next(previous if same_match(previous, summary) else None, summary), summary


def unread_summary(record: GameRecord) -> GameSummary | None:
    """The match facts of a record that could not be read: only where it stands in its match
    (its score, points and double unknown), so that the next game is not taken for the first
    of the match: the Crawford game, say, may be this unreadable one."""
    tags: dict[str, str] = {n: record.tags[n] for n in ("Match", "Game") if n in record.tags}
    match_span = record.tag_spans.get("Match") if record.tag_spans else None
    return summary_of(
        record.file,
        record.index,
        tags,
        None,
        match_line=match_span.line if match_span is not None else None,
    )


def summary_of(
    file: str | None,
    index: int,
    tags: Mapping[str, str],
    result: str | None,
    *,
    score_span: Span | None = None,
    first_double: Span | None = None,
    span: Span | None = None,
    match_line: int | None = None,
) -> GameSummary | None:
    """A game's match facts from its tags and result (a record's, or the archive's row's, which
    knows no spans); None without a ``Match`` tag (or one of 0: an unlimited session)."""
    length = ascii_int(tags.get("Match", ""))
    if not length:
        return None
    white, _, black = tags.get("Score", "").partition("-")
    white_score, black_score = ascii_int(white), ascii_int(black)
    number = tags.get("Game", "")
    return GameSummary(
        file=file,
        index=index,
        length=length,
        score=(white_score, black_score)
        if white_score is not None and black_score is not None
        else None,
        score_span=score_span,
        points=parse_result(result),
        crawford=tags.get("Crawford", "").strip().lower() in _ON,
        first_double=first_double,
        span=span,
        number=ascii_int(number),
        match_line=match_line,
    )


def same_match(previous: GameSummary | None, game: GameSummary) -> bool:
    """Whether ``game`` follows ``previous`` in one match: the same file, the same match of it
    (a file may hold several, one after another), the games in the file's order."""
    return (
        previous is not None
        and previous.file == game.file
        and previous.match_line == game.match_line
        and previous.index < game.index
    )


def _reached(summary: GameSummary) -> tuple[int, int] | None:
    """The score after the game (None if either its score or its result is unknown)."""
    if summary.score is None or summary.points is None:
        return None
    return summary.score[0] + summary.points[0], summary.score[1] + summary.points[1]


def _error_at(summary: GameSummary, kind: str, message: str, span: Span | None) -> MatchError:
    return MatchError(
        kind,
        message,
        file=summary.file,
        game=summary.index,
        line=span.line if span else None,
        column=span.column if span else None,
    )


def is_crawford_game(
    crawford: bool,
    length: int,
    score: tuple[int, int] | None,
    previous: tuple[int, int] | None,
) -> bool:
    """Whether a game at ``score`` is the Crawford game: the match's Crawford rule on, a length
    of 2 or more, a player at one point short, and not so before the previous game (whose score
    is ``previous``; None for the match's first). One answer for the checks and the pages."""
    if not crawford or length < 2 or score is None:
        return False
    return length - 1 in score and (previous is None or length - 1 not in previous)


def check_next(previous: GameSummary | None, game: GameSummary) -> list[MatchError]:
    """The checks of one game against the game before it in the same file (None: the first).

    The score before a game is the score before the previous one plus its points; no game
    follows one that reached the match's length; the Crawford game (the first game after a
    player reaches N - 1, N >= 2, when the match's Crawford tag is on) has no double.
    """
    errors: list[MatchError] = []
    length = game.length or 0
    if (
        previous is not None
        and previous.number is not None
        and game.number is not None
        and game.number != previous.number + 1
    ):
        errors.append(
            _error_at(
                game,
                "game-order",
                f"Game {game.number} follows Game {previous.number}: the games of a match are "
                f"numbered in order, so Game {previous.number + 1} was expected",
                game.score_span,
            )
        )
    after = _reached(previous) if previous is not None else None
    if (
        previous is not None
        and after is not None
        and previous.length
        and max(after) >= previous.length
    ):
        return [
            _error_at(
                game,
                "match-over",
                f"a game after the end of the match: the score reached {after[0]}-{after[1]} "
                f"in a {previous.length} point match",
                game.score_span,
            )
        ]
    if game.score is not None and length and max(game.score) >= length:
        # gnubg skips such a game ("the match is already over"): a contradiction, refused
        return [
            _error_at(
                game,
                "score",
                f"the score before game {game.index} is {game.score[0]}-{game.score[1]}, "
                f"but the match is to {length} points: it would be over before the game",
                game.score_span,
            )
        ]
    if after is not None and game.score is not None and game.score != after:
        errors.append(
            _error_at(
                game,
                "score",
                f"the score before game {game.index} is {game.score[0]}-{game.score[1]}, "
                f"but the previous game left it at {after[0]}-{after[1]}",
                game.score_span,
            )
        )
    # the Crawford game is the first at one point short; where the previous game's score is
    # unknown (that game unreadable), so is which game was the Crawford game: not checked
    before = previous.score if previous is not None else None
    known = previous is None or before is not None
    crawford = known and is_crawford_game(game.crawford, length, game.score, before)
    if crawford and game.first_double and game.score is not None:
        errors.append(
            _error_at(
                game,
                "crawford",
                f"a double in the Crawford game (the score is {game.score[0]}-"
                f"{game.score[1]} in a {length} point match): no one doubles in the first "
                "game after a player reaches one point short of the match",
                game.first_double,
            )
        )
    return errors


def check_sequence(games: Iterable[GameSummary]) -> Iterator[tuple[GameSummary, list[MatchError]]]:
    """Each game with the match errors found against the one before it in the same file."""
    previous: GameSummary | None = None
    for game in games:
        yield game, check_next(previous if same_match(previous, game) else None, game)
        previous = game
