"""The games of a match in order: each game's match facts (:class:`GameSummary`) and the checks
from game to game: the scores, the numbering, the Crawford game and the end of the match.

:func:`check_sequence` needs the games of one file in order, but only a summary of each (plain
data, so that ``validate --jobs`` workers can send it back and the checks run in the parent,
one game behind, as the reports stream out).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass

from ..errors import MatchError
from ..numerals import ascii_int
from ..record import GameRecord, Span
from ..replay import parse_result

#: the Crawford tag's values that turn the rule on (gnubg and the servers write ``On``)
_ON = {"on", "yes", "true", "1"}


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
