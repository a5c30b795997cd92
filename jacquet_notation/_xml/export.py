"""The streaming exporter: each game replayed and written through lxml's incremental writer,
one ``<game>`` at a time, so memory holds one game whatever their number."""

from __future__ import annotations

import io
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import IO, Any

from lxml import etree

from .. import __version__
from ..engine import Play
from ..errors import NotationError
from ..match import check_game, outcome
from ..match.states import states_after, with_previous_scores
from ..notation import write_game
from ..position_ids import MatchState, exchange_ids
from ..record import NO_SPAN, GameRecord, Span, WrittenPlay, point_name
from ..replay import ReplayedGame, ReplayedPly, replay
from ..rules import Rules
from .analysis import plays_attributes, write_analysis
from .errors import write_error
from .format import (
    COMMENT,
    COMMENT_BEFORE,
    ERRORS,
    FORMAT_VERSION,
    GAME,
    GAMES,
    GLYPH,
    MAX_DEPTH,
    MAX_VARIATION_DEPTH,
    MOVE,
    NSMAP,
    OPTION,
    OUTCOME,
    PLAY,
    PLAYS,
    RESOLVED,
    RESULT,
    RULES,
    SOURCE_TEXT,
    STEP,
    TAG,
    TAGS,
    UNSAFE,
    VARIATION,
    WRITTEN,
    Status,
    escape,
    write_text,
)
from .players import write_players
from .schema import safe_parser


@dataclass(slots=True)
class ExportCounts:
    """How many games an export wrote, by status (as ``jacquet validate`` counts them)."""

    valid: int = 0
    invalid: int = 0
    unreadable: int = 0

    @property
    def games(self) -> int:
        return self.valid + self.invalid + self.unreadable

    def add(self, status: Status) -> None:
        setattr(self, status, getattr(self, status) + 1)


def status_of(game: ReplayedGame) -> Status:
    """``unreadable`` for a syntax error, ``invalid`` for any other error, else ``valid``."""
    if game.record.errors:
        return "unreadable"
    return "invalid" if game.errors else "valid"


def _span(span: Span) -> str | None:
    if span == NO_SPAN:
        return None
    return f"{span.line}:{span.column}-{span.end_line}:{span.end_column}"


def _variation_depth(plays: Sequence[WrittenPlay]) -> int:
    deepest = 0
    stack = [(plays, 0)]
    while stack:
        line, depth = stack.pop()
        deepest = max(deepest, depth)
        for play in line:
            stack.extend((variation, depth + 1) for variation in play.variations)
    return deepest


def _too_deep(record: GameRecord, depth: int) -> GameRecord:
    """The record reduced to its text and an error: variations nested beyond the format."""
    text = record.text or write_game(record)
    error = NotationError(
        f"variations nested {depth} deep; the XML format keeps at most {MAX_VARIATION_DEPTH}"
        " (the game's text is kept in <source-text>)",
        file=record.file,
        game=record.index,
        line=record.span.line or None,
        column=record.span.column or None,
    )
    return GameRecord(
        tags=dict(record.tags),
        tag_spans=dict(record.tag_spans),
        errors=[*record.errors, error],
        file=record.file,
        index=record.index,
        span=record.span,
        text=text,
        gap=record.gap if text is record.text else (0, 0),
    )


def _prepared(record: GameRecord) -> GameRecord:
    depth = _variation_depth(record.plays)
    return _too_deep(record, depth) if depth > MAX_VARIATION_DEPTH else record


def game_element(
    record: GameRecord, rules: Rules | None = None, *, source_text: bool = True
) -> etree._Element:
    """Replay ``record`` and build its ``<game>`` element, exactly as :func:`write_xml` writes it.

    ``rules`` forces a ruleset, as ``--rules`` does; ``source_text=False`` leaves out the text of
    the game as found, except for an unreadable game, whose text is all there is.
    """
    return replayed_element(_replayed(record, rules), source_text=source_text)


def _replayed(record: GameRecord, rules: Rules | None) -> ReplayedGame:
    """The record replayed, with a match game's cube and points checked (``check_game``), so
    that the XML says what ``jacquet validate`` and the archive say of the same game."""
    game = replay(_prepared(record), rules)
    game.errors.extend(check_game(game))
    return game


def replayed_element(game: ReplayedGame, *, source_text: bool = True) -> etree._Element:
    """The ``<game>`` element of a game already replayed (see :func:`game_element`)."""
    buffer = io.BytesIO()
    with etree.xmlfile(buffer, encoding="UTF-8") as xf:
        _write_game(xf, game, source_text, 0, None)
    return etree.fromstring(buffer.getvalue(), safe_parser())


#: a newline and the indentation of each depth, written between elements
_INDENT = ["\n" + "  " * depth for depth in range(MAX_DEPTH + 2)]


def _write_game(
    xf: Any, game: ReplayedGame, source_text: bool, depth: int, previous: tuple[int, int] | None
) -> Status:
    """Write one ``<game>`` through the incremental writer ``xf``; returns its status.

    Elements are written as they are reached, never built as a tree: this is the exporter's
    inner loop, and lxml's writer costs about half of building elements.
    """
    record = game.record
    status = status_of(game)
    attributes = {"number": _number(record.index)}
    if record.file is not None:
        if UNSAFE.search(record.file) is not None:
            attributes["file"] = escape(record.file)
            attributes["escaped"] = "yes"
        else:
            attributes["file"] = record.file
    attributes["status"] = status
    span = _span(record.span)
    if span is not None:
        attributes["span"] = span
    inner = _INDENT[depth + 1]
    inner2 = _INDENT[depth + 2]
    write = xf.write
    element = xf.element
    # Inside <games> the namespace is inherited; a game standing alone declares it.
    with element(GAME, attributes, nsmap=None if depth else NSMAP):
        write(inner)
        with element(TAGS):
            for name, value in record.tags.items():
                write(inner2)
                tag_attributes = {"name": name}
                tag_span = record.tag_spans.get(name)
                if tag_span is not None and tag_span != NO_SPAN:
                    tag_attributes["span"] = _span(tag_span) or ""
                if UNSAFE.search(name) is not None or UNSAFE.search(value) is not None:
                    tag_attributes["name"] = escape(name)
                    tag_attributes["escaped"] = "yes"
                    value = escape(value)
                with element(TAG, tag_attributes):
                    write(value)
            if record.tags:
                write(inner)

        write(inner)
        options = game.rules.options()
        with element(RULES, {"name": options.pop("ruleset")}):
            for name, value in options.items():
                write(inner2)
                with element(OPTION, {"name": name, "value": value}):
                    pass
            write(inner)

        for comment in record.comments:
            write(inner)
            write_text(xf, COMMENT, comment)

        attached: set[int] = set()
        write(inner)
        # a game from a [Position] tag: the key of the position it starts from
        start = game.set_position
        with element(PLAYS, plays_attributes(start, record.analyser)):
            if record.plays:
                states = states_after(game, previous)
                _write_line(xf, record.plays, game.plies, attached, depth + 2, states)
                write(inner)

        if record.result is not None:
            write(inner)
            write_text(xf, RESULT, record.result)
        if status != "unreadable":
            ended = outcome(game)
            ends: dict[str, str] = {}
            if ended.winner is not None:
                ends["winner"] = ended.winner
            ends["points"] = str(ended.points or 0)
            computed = ended.result
            if computed is not None:
                ends["computed-result"] = computed
            ends["ending"] = ended.ending
            if game.rules.scoring == "backgammon":
                ends["cube"] = str(ended.cube)
            ends["final-position"] = game.final.key()
            ends["complete"] = "yes" if game.complete else "no"
            write(inner)
            with element(OUTCOME, ends):
                pass
        loose = [error for error in game.errors if id(error) not in attached]
        if loose:
            write(inner)
            with element(ERRORS):
                for error in loose:
                    write_error(xf, error, _INDENT[depth + 2], _INDENT[depth + 3])
                write(inner)
        if record.text and (source_text or status == "unreadable"):
            write(inner)
            write_text(xf, SOURCE_TEXT, record.text)
        write(_INDENT[depth])
    return status


#: strings of small numbers and of points, looked up rather than formatted in the inner loop
_NUMBERS = tuple(str(number) for number in range(1000))
_POINT_NAMES = tuple(point_name(point) for point in range(26))
_DICE_TEXT = {(high, low): f"{high}-{low}" for high in range(1, 7) for low in range(1, 7)}


def _number(value: int) -> str:
    return _NUMBERS[value] if 0 <= value < 1000 else str(value)


def _play_attributes(written: WrittenPlay, ply: ReplayedPly | None) -> dict[str, str]:
    """A ``play`` element's attributes: turn, side, dice (or the rolls inferred), annotation,
    cube action, span."""
    attributes = {"turn": _number(written.turn), "side": written.side}
    dice = written.dice
    if dice is not None:
        attributes["dice"] = _DICE_TEXT.get(dice) or f"{dice[0]}-{dice[1]}"
    if dice is None and ply is not None and ply.rolls:
        # a play without dice: the roll inferred, or the rolls it leaves open
        attributes["rolls"] = " ".join(f"{high}-{low}" for high, low in ply.rolls)
    if written.annotation:
        attributes["annotation"] = written.annotation
    if written.action is not None:
        attributes["action"] = written.action
        if written.cube is not None:
            attributes["cube"] = _number(written.cube)
    span = written.span
    if span.line:
        attributes["span"] = f"{span.line}:{span.column}-{span.end_line}:{span.end_column}"
    return attributes


def _write_moves(xf: Any, written: WrittenPlay, sharer: str, inner: str) -> None:
    """A play's moves as written; the opponent's share (Versailles) follows the mover's moves,
    marked ``by="<side>"``."""
    write, element, points = xf.write, xf.element, _POINT_NAMES
    shares = written.opponent_moves
    for number, move in enumerate(written.moves + shares if shares else written.moves):
        start, end = move.start, move.end
        move_attributes = {
            "from": points[start] if 0 <= start <= 25 else str(start),
            "to": points[end] if 0 <= end <= 25 else str(end),
        }
        if shares and number >= len(written.moves):
            move_attributes["by"] = sharer
        if move.count != 1:
            move_attributes["count"] = _number(move.count)
        if move.hit:
            move_attributes["hit"] = "yes"
        move_span = move.span
        if move_span.line:
            # where a refused play goes wrong is told by its move's span (docs/validate.md)
            move_attributes["span"] = (
                f"{move_span.line}:{move_span.column}-{move_span.end_line}:{move_span.end_column}"
            )
        write(inner)
        with element(MOVE, move_attributes):
            pass


def _write_resolved(xf: Any, play: Play, ids: dict[str, str], sharer: str, depth: int) -> None:
    """The play as the engine resolved it: its steps (the opponent's share marked ``by``) and
    ``ids``: the key of the position after it (and in backgammon its exchange IDs)."""
    write, element, points = xf.write, xf.element, _POINT_NAMES
    inner, inner2 = _INDENT[depth + 1], _INDENT[depth + 2]
    write(inner)
    with element(RESOLVED, ids):
        played = play.steps
        shared = play.opponent_steps
        for number, step in enumerate(played + shared if shared else played):
            # steps come from the engine: points 0..25, dice 1..6
            step_attributes = {
                "from": points[step.start],
                "to": points[step.end],
                "die": points[step.die],
            }
            if step.hit:
                step_attributes["hit"] = "yes"
            if shared and number >= len(played):
                step_attributes["by"] = sharer
            write(inner2)
            with element(STEP, step_attributes):
                pass
        if played or shared:
            write(inner)


def _write_line(
    xf: Any,
    written_plays: Sequence[WrittenPlay],
    plies: Sequence[ReplayedPly],
    attached: set[int],
    depth: int,
    states: Sequence[MatchState] | None = None,
) -> None:
    """Write a line of plays (the main line or a variation); the exporter's inner loop."""
    write, element = xf.write, xf.element
    here = _INDENT[depth]
    inner = _INDENT[depth + 1]
    replayed = len(plies)
    for index, written in enumerate(written_plays):
        ply = plies[index] if index < replayed else None
        write(here)
        with element(PLAY, _play_attributes(written, ply)):
            for comment in written.comments_before:
                write(inner)
                write_text(xf, COMMENT_BEFORE, comment)
            if written.text:
                write(inner)
                write_text(xf, WRITTEN, written.text)
            sharer = "black" if written.side == "white" else "white"
            _write_moves(xf, written, sharer, inner)
            if ply is not None:
                play, after = ply.play, ply.after
                if play is not None and after is not None:
                    state = states[index + 1] if states else None  # the match, where known
                    ids = {"position-after": after.key(), **exchange_ids(after, state)}
                    _write_resolved(xf, play, ids, sharer, depth)
                if ply.error is not None:
                    attached.add(id(ply.error))
                    write_error(xf, ply.error, _INDENT[depth + 1], _INDENT[depth + 2])
            if written.analysis is not None:
                write_analysis(xf, written.analysis, inner)
            for nag in written.nags:
                write(inner)
                with element(GLYPH, {"number": _number(nag)}):
                    pass
            for comment in written.comments:
                write(inner)
                write_text(xf, COMMENT, comment)
            for number, variation in enumerate(written.variations):
                branch: Sequence[ReplayedPly] = ()
                if ply is not None and number < len(ply.variations):
                    branch = ply.variations[number]
                write(inner)
                with element(VARIATION):
                    _write_line(xf, variation, branch, attached, depth + 2)
                    write(inner)
            write(here)


def write_xml(
    records: Iterable[GameRecord],
    output: IO[bytes] | io.RawIOBase | str | os.PathLike[str],
    *,
    rules: Rules | None = None,
    source_text: bool = True,
    players: Sequence[tuple[str, Sequence[str]]] = (),
) -> ExportCounts:
    """Write one ``<games>`` document holding every record, one game at a time.

    Each record is replayed and written through ``etree.xmlfile`` as it comes, so memory holds
    one game whatever the number of games. Returns the games written by status. ``output`` is a
    binary stream or a path; the command line writes to a temporary file and renames it, so that
    a failure leaves nothing behind. ``players`` (an archive's merges) come first.
    """
    counts = ExportCounts()
    with etree.xmlfile(output, encoding="UTF-8") as xf:
        xf.write_declaration()
        attributes = {"version": FORMAT_VERSION, "generator": f"jacquet-notation {__version__}"}
        with xf.element(GAMES, attributes, nsmap=NSMAP):
            write_players(xf, players, _INDENT[1:4])
            for record, previous in with_previous_scores(records):
                xf.write(_INDENT[1])
                counts.add(_write_game(xf, _replayed(record, rules), source_text, 1, previous))
            xf.write(_INDENT[0])
    return counts
