"""Games as XML: a streaming exporter, a secure streaming importer, the schema and the score sheet.

The format (``docs/xml.md``, schema ``schema/jacquet.rng``, namespace :data:`NAMESPACE`) keeps
each record whole, so that it can be rebuilt exactly, and beside it what the replay derived: the
rules, the resolved steps, the position after each play, the outcome and every error. An
invalid or unreadable game is exported like any other; none is dropped.

Both directions stream: the exporter writes one ``<game>`` at a time through lxml's incremental
writer, the importer reads one at a time with ``iterparse`` and frees it, so memory stays flat on
any number of games. The importer trusts nothing: a DTD (and so any entity) is refused before
lxml sees it, entities are never resolved, nothing is fetched from the network, depth is bounded,
and every game is checked against the schema.

This module is ``jacquet_notation.xml``; it imports lxml absolutely and never the standard
library's ``xml`` package, which it does not shadow for any other module.
"""

from __future__ import annotations

import collections
import functools
import io
import os
import re
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from importlib import resources
from typing import IO, Any, Literal

from lxml import etree

from . import __version__
from .errors import JacquetError, NotationError
from .notation import write_game
from .record import BAR, NO_SPAN, OFF, GameRecord, Move, Side, Span, WrittenPlay, point_name
from .replay import ReplayedGame, ReplayedPly, replay
from .reporting import headline, slip_of, suggestions
from .rules import Rules

__all__ = [
    "FORMAT_VERSION",
    "MAX_DEPTH",
    "MAX_VARIATION_DEPTH",
    "NAMESPACE",
    "ExportCounts",
    "XmlError",
    "game_element",
    "parse_document",
    "read_xml",
    "record_from_element",
    "record_text",
    "replayed_element",
    "schema",
    "scoresheet",
    "status_of",
    "stylesheet",
    "write_xml",
]

#: the namespace of every element of the format; the trailing 1 is the format's major version
NAMESPACE = "urn:jacquet-notation:games:1"
#: the ``version`` attribute of ``<games>``
FORMAT_VERSION = "1"
#: the deepest element nesting the importer accepts (libxml2's own limit is 256)
MAX_DEPTH = 200
#: the deepest nesting of variations the exporter writes as elements: 90 variations inside one
#: another make a document about 190 elements deep, under :data:`MAX_DEPTH`. A deeper game is
#: exported as unreadable, with its text, rather than as a document no importer would accept.
MAX_VARIATION_DEPTH = 90
#: the most bytes read before the root element (declaration, comments) before giving up
_MAX_PROLOG = 1 << 20

Status = Literal["valid", "invalid", "unreadable"]


class XmlError(NotationError):
    """A document that cannot be read: malformed, refused for safety, or not of the schema."""


def _q(name: str) -> str:
    return f"{{{NAMESPACE}}}{name}"


GAMES = _q("games")
GAME = _q("game")
TAGS = _q("tags")
TAG = _q("tag")
RULES = _q("rules")
OPTION = _q("option")
COMMENT = _q("comment")
COMMENT_BEFORE = _q("comment-before")
PLAYS = _q("plays")
PLAY = _q("play")
WRITTEN = _q("written")
MOVE = _q("move")
RESOLVED = _q("resolved")
STEP = _q("step")
GLYPH = _q("glyph")
VARIATION = _q("variation")
RESULT = _q("result")
OUTCOME = _q("outcome")
ERRORS = _q("errors")
ERROR = _q("error")
MESSAGE = _q("message")
LEGAL_PLAY = _q("legal-play")
SLIP = _q("slip")
SOURCE_TEXT = _q("source-text")

#: the default namespace, declared on <games> (or on a <game> standing alone)
_NSMAP: Any = {None: NAMESPACE}


# --------------------------------------------------------------------------------------------
# Package data: the schema and the stylesheet, read once


def _data(folder: str, name: str) -> bytes:
    return resources.files("jacquet_notation").joinpath(folder, name).read_bytes()


#: the settings of every parser this module uses: no entities, no DTD, no network, no huge trees
_SAFE: dict[str, Any] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "dtd_validation": False,
    "huge_tree": False,
    "remove_comments": True,
    "remove_pis": True,
    "collect_ids": False,
}


def _safe_parser() -> etree.XMLParser:
    """The parser settings used for every document this module reads."""
    return etree.XMLParser(**_SAFE)


def _schema_tree(start: str) -> etree._ElementTree:
    tree = etree.parse(io.BytesIO(_data("schema", "jacquet.rng")), _safe_parser())
    if start != "games":
        rng = "{http://relaxng.org/ns/structure/1.0}"
        ref = tree.getroot().find(f"{rng}start/{rng}ref")
        assert ref is not None
        ref.set("name", start)
    return tree


@functools.cache
def schema() -> Any:
    """The RELAX NG schema of a whole document (``jacquet_notation/schema/jacquet.rng``)."""
    return etree.RelaxNG(_schema_tree("games"))


@functools.cache
def _game_schema() -> Any:
    """The same schema with ``<game>`` as its start, to check one game at a time while streaming."""
    return etree.RelaxNG(_schema_tree("game"))


@functools.cache
def stylesheet() -> etree.XSLT:
    """The score sheet stylesheet (``jacquet_notation/xslt/scoresheet.xsl``), denied all I/O."""
    tree = etree.parse(io.BytesIO(_data("xslt", "scoresheet.xsl")), _safe_parser())
    deny: Any = etree.XSLTAccessControl.DENY_ALL  # type: ignore[attr-defined]
    return etree.XSLT(tree, access_control=deny)


# --------------------------------------------------------------------------------------------
# Text XML cannot carry: escaped, never dropped

#: characters XML 1.0 cannot hold (most C0 controls, lone surrogates, U+FFFE, U+FFFF)
_UNSAFE = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ESCAPE = re.compile(r"\\(\\|x[0-9A-F]{2}|u[0-9A-F]{4})")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}"


def _escape(value: str) -> str:
    return _UNSAFE.sub(_escape_char, value.replace("\\", "\\\\"))


def _unescape_one(match: re.Match[str]) -> str:
    code = match.group(1)
    return "\\" if code == "\\" else chr(int(code[1:], 16))


def _unescape(value: str) -> str:
    return _ESCAPE.sub(_unescape_one, value)


def _text_element(parent: etree._Element, tag: str, value: str) -> etree._Element:
    element = etree.SubElement(parent, tag)
    if _UNSAFE.search(value) is not None:
        element.set("escaped", "yes")
        value = _escape(value)
    element.text = value
    return element


def _text_of(element: etree._Element) -> str:
    text = element.text or ""
    return _unescape(text) if element.get("escaped") == "yes" else text


# --------------------------------------------------------------------------------------------
# Export


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
    return replayed_element(replay(_prepared(record), rules), source_text=source_text)


def replayed_element(game: ReplayedGame, *, source_text: bool = True) -> etree._Element:
    """The ``<game>`` element of a game already replayed (see :func:`game_element`)."""
    buffer = io.BytesIO()
    with etree.xmlfile(buffer, encoding="UTF-8") as xf:
        _write_game(xf, game, source_text, 0)
    return etree.fromstring(buffer.getvalue(), _safe_parser())


#: a newline and the indentation of each depth, written between elements
_INDENT = ["\n" + "  " * depth for depth in range(MAX_DEPTH + 2)]


def _write_text(xf: Any, tag: str, value: str, attributes: dict[str, str] | None = None) -> None:
    """An element holding text; text XML cannot carry is escaped and the element says so."""
    if _UNSAFE.search(value) is not None:
        attributes = {**(attributes or {}), "escaped": "yes"}
        value = _escape(value)
    with xf.element(tag, attributes):
        xf.write(value)


def _write_game(xf: Any, game: ReplayedGame, source_text: bool, depth: int) -> Status:
    """Write one ``<game>`` through the incremental writer ``xf``; returns its status.

    Elements are written as they are reached, never built as a tree: this is the exporter's
    inner loop, and lxml's writer costs about half of building elements.
    """
    record = game.record
    status = status_of(game)
    attributes = {"number": _number(record.index)}
    if record.file is not None:
        if _UNSAFE.search(record.file) is not None:
            attributes["file"] = _escape(record.file)
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
    with element(GAME, attributes, nsmap=None if depth else _NSMAP):
        write(inner)
        with element(TAGS):
            for name, value in record.tags.items():
                write(inner2)
                tag_attributes = {"name": name}
                tag_span = record.tag_spans.get(name)
                if tag_span is not None and tag_span != NO_SPAN:
                    tag_attributes["span"] = _span(tag_span) or ""
                if _UNSAFE.search(name) is not None or _UNSAFE.search(value) is not None:
                    tag_attributes["name"] = _escape(name)
                    tag_attributes["escaped"] = "yes"
                    value = _escape(value)
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
            _write_text(xf, COMMENT, comment)

        attached: set[int] = set()
        write(inner)
        with element(PLAYS):
            if record.plays:
                _write_line(xf, record.plays, game.plies, attached, depth + 2)
                write(inner)

        if record.result is not None:
            write(inner)
            _write_text(xf, RESULT, record.result)
        if status != "unreadable":
            outcome: dict[str, str] = {}
            if game.winner is not None:
                outcome["winner"] = game.winner
            outcome["points"] = str(game.points)
            computed = game.computed_result
            if computed is not None:
                outcome["computed-result"] = computed
            outcome["final-position"] = game.final.key()
            outcome["complete"] = "yes" if game.complete else "no"
            write(inner)
            with element(OUTCOME, outcome):
                pass
        loose = [error for error in game.errors if id(error) not in attached]
        if loose:
            write(inner)
            with element(ERRORS):
                for error in loose:
                    _write_error(xf, error, depth + 2)
                write(inner)
        if record.text and (source_text or status == "unreadable"):
            write(inner)
            _write_text(xf, SOURCE_TEXT, record.text)
        write(_INDENT[depth])
    return status


#: strings of small numbers and of points, looked up rather than formatted in the inner loop
_NUMBERS = tuple(str(number) for number in range(1000))
_POINT_NAMES = tuple(point_name(point) for point in range(26))
_DICE_TEXT = {(high, low): f"{high}-{low}" for high in range(1, 7) for low in range(1, 7)}


def _number(value: int) -> str:
    return _NUMBERS[value] if 0 <= value < 1000 else str(value)


def _point_text(point: int) -> str:
    return _POINT_NAMES[point] if 0 <= point <= 25 else str(point)


def _write_line(
    xf: Any,
    written_plays: Sequence[WrittenPlay],
    plies: Sequence[ReplayedPly],
    attached: set[int],
    depth: int,
) -> None:
    """Write a line of plays (the main line or a variation); the exporter's inner loop."""
    write = xf.write
    element = xf.element
    here = _INDENT[depth]
    inner = _INDENT[depth + 1]
    inner2 = _INDENT[depth + 2]
    points = _POINT_NAMES
    replayed = len(plies)
    for index, written in enumerate(written_plays):
        ply = plies[index] if index < replayed else None
        attributes = {"turn": _number(written.turn), "side": written.side}
        dice = written.dice
        if dice is not None:
            attributes["dice"] = _DICE_TEXT.get(dice) or f"{dice[0]}-{dice[1]}"
        if written.annotation:
            attributes["annotation"] = written.annotation
        span = written.span
        if span.line:
            attributes["span"] = f"{span.line}:{span.column}-{span.end_line}:{span.end_column}"
        write(here)
        with element(PLAY, attributes):
            for comment in written.comments_before:
                write(inner)
                _write_text(xf, COMMENT_BEFORE, comment)
            if written.text:
                write(inner)
                _write_text(xf, WRITTEN, written.text)
            for move in written.moves:
                start, end = move.start, move.end
                move_attributes = {
                    "from": points[start] if 0 <= start <= 25 else str(start),
                    "to": points[end] if 0 <= end <= 25 else str(end),
                }
                if move.count != 1:
                    move_attributes["count"] = _number(move.count)
                if move.hit:
                    move_attributes["hit"] = "yes"
                move_span = move.span
                if move_span.line:
                    # where a refused play goes wrong is told by its move's span (docs/validate.md)
                    move_attributes["span"] = (
                        f"{move_span.line}:{move_span.column}-"
                        f"{move_span.end_line}:{move_span.end_column}"
                    )
                write(inner)
                with element(MOVE, move_attributes):
                    pass
            if ply is not None:
                play, after = ply.play, ply.after
                if play is not None and after is not None:
                    write(inner)
                    with element(RESOLVED, {"position-after": after.key()}):
                        for step in play.steps:
                            # steps come from the engine: points 0..25, dice 1..6
                            step_attributes = {
                                "from": points[step.start],
                                "to": points[step.end],
                                "die": points[step.die],
                            }
                            if step.hit:
                                step_attributes["hit"] = "yes"
                            write(inner2)
                            with element(STEP, step_attributes):
                                pass
                        if play.steps:
                            write(inner)
                if ply.error is not None:
                    attached.add(id(ply.error))
                    _write_error(xf, ply.error, depth + 1)
            for nag in written.nags:
                write(inner)
                with element(GLYPH, {"number": _number(nag)}):
                    pass
            for comment in written.comments:
                write(inner)
                _write_text(xf, COMMENT, comment)
            for number, variation in enumerate(written.variations):
                branch: Sequence[ReplayedPly] = ()
                if ply is not None and number < len(ply.variations):
                    branch = ply.variations[number]
                write(inner)
                with element(VARIATION):
                    _write_line(xf, variation, branch, attached, depth + 2)
                    write(inner)
            write(here)


def _write_error(xf: Any, error: JacquetError, depth: int) -> None:
    attributes = {"kind": error.kind}
    if error.line is not None:
        attributes["line"] = str(error.line)
        if error.column is not None:
            attributes["column"] = str(error.column)
    inner = _INDENT[depth + 1]
    xf.write(_INDENT[depth])
    with xf.element(ERROR, attributes):
        xf.write(inner)
        _write_text(xf, MESSAGE, headline(error))
        for suggestion in suggestions(error):
            xf.write(inner)
            _write_text(xf, LEGAL_PLAY, suggestion)
        slip = slip_of(error)
        if slip:
            xf.write(inner)
            _write_text(xf, SLIP, slip)
        xf.write(_INDENT[depth])


def write_xml(
    records: Iterable[GameRecord],
    output: IO[bytes] | str | os.PathLike[str],
    *,
    rules: Rules | None = None,
    source_text: bool = True,
) -> ExportCounts:
    """Write one ``<games>`` document holding every record, one game at a time.

    Each record is replayed and written through ``etree.xmlfile`` as it comes, so memory holds
    one game whatever the number of games. Returns the games written by status. ``output`` is a
    binary stream or a path; the command line writes to a temporary file and renames it, so that
    a failure leaves nothing behind.
    """
    counts = ExportCounts()
    with etree.xmlfile(output, encoding="UTF-8") as xf:
        xf.write_declaration()
        attributes = {"version": FORMAT_VERSION, "generator": f"jacquet-notation {__version__}"}
        with xf.element(GAMES, attributes, nsmap=_NSMAP):
            for record in records:
                xf.write(_INDENT[1])
                counts.add(_write_game(xf, replay(_prepared(record), rules), source_text, 1))
            xf.write(_INDENT[0])
    return counts


# --------------------------------------------------------------------------------------------
# Import


def _parse_span(text: str | None) -> Span:
    if not text:
        return NO_SPAN
    start, _, end = text.partition("-")
    line, _, column = start.partition(":")
    end_line, _, end_column = end.partition(":")
    return Span(int(line), int(column), int(end_line), int(end_column))


def _parse_point(text: str) -> int:
    if text == "bar":
        return BAR
    if text == "off":
        return OFF
    return int(text)


def _read_line(parent: etree._Element) -> tuple[WrittenPlay, ...]:
    return tuple(_read_play(element) for element in parent.iterchildren(PLAY))


def _read_play(element: etree._Element) -> WrittenPlay:
    dice_text = element.get("dice")
    dice: tuple[int, int] | None = None
    if dice_text is not None:
        high, _, low = dice_text.partition("-")
        dice = (int(high), int(low))
    side: Side = "black" if element.get("side") == "black" else "white"
    moves: list[Move] = []
    nags: list[int] = []
    comments: list[str] = []
    before: list[str] = []
    variations: list[tuple[WrittenPlay, ...]] = []
    text = ""
    for child in element:
        tag = child.tag
        if tag == MOVE:
            moves.append(
                Move(
                    _parse_point(child.get("from", "")),
                    _parse_point(child.get("to", "")),
                    int(child.get("count", "1")),
                    child.get("hit") == "yes",
                    _parse_span(child.get("span")),
                )
            )
        elif tag == GLYPH:
            nags.append(int(child.get("number", "0")))
        elif tag == COMMENT:
            comments.append(_text_of(child))
        elif tag == COMMENT_BEFORE:
            before.append(_text_of(child))
        elif tag == WRITTEN:
            text = _text_of(child)
        elif tag == VARIATION:
            variations.append(_read_line(child))
    return WrittenPlay(
        side=side,
        turn=int(element.get("turn", "0")),
        dice=dice,
        moves=tuple(moves),
        annotation=element.get("annotation"),
        nags=tuple(nags),
        comments=tuple(comments),
        comments_before=tuple(before),
        variations=tuple(variations),
        text=text,
        span=_parse_span(element.get("span")),
    )


def record_from_element(element: etree._Element) -> GameRecord:
    """The record a ``<game>`` element was exported from (derived data is left behind).

    Notation errors (kind ``syntax``) belong to the record and come back on ``record.errors``;
    the others are the replay's and come back when the record is replayed.
    """
    escaped = element.get("escaped") == "yes"
    file = element.get("file")
    if file is not None and escaped:
        file = _unescape(file)
    index = int(element.get("number", "1"))
    record = GameRecord(file=file, index=index, span=_parse_span(element.get("span")))
    for child in element:
        tag = child.tag
        if tag == TAGS:
            for tag_element in child.iterchildren(TAG):
                name = tag_element.get("name", "")
                value = tag_element.text or ""
                if tag_element.get("escaped") == "yes":
                    name, value = _unescape(name), _unescape(value)
                record.tags[name] = value
                tag_span = tag_element.get("span")
                if tag_span:
                    record.tag_spans[name] = _parse_span(tag_span)
        elif tag == COMMENT:
            record.comments.append(_text_of(child))
        elif tag == PLAYS:
            record.plays = list(_read_line(child))
        elif tag == RESULT:
            record.result = _text_of(child)
        elif tag == ERRORS:
            for error in child.iterchildren(ERROR):
                if error.get("kind") == NotationError.kind:
                    record.errors.append(_read_notation_error(error, file, index))
        elif tag == SOURCE_TEXT:
            record.text = _text_of(child)
    return record


def _read_notation_error(element: etree._Element, file: str | None, index: int) -> NotationError:
    message = element.find(MESSAGE)
    line = element.get("line")
    column = element.get("column")
    return NotationError(
        _text_of(message) if message is not None else "",
        file=file,
        game=index,
        line=int(line) if line is not None else None,
        column=int(column) if column is not None else None,
    )


class _Source:
    """The bytes of a document as lxml reads them, checked before the root and kept for errors.

    Everything before the root element is scanned first: a ``<!DOCTYPE`` (the only place a DTD
    or an entity can be declared) is refused before lxml sees a byte of it. The last chunks read
    (256 KiB) are kept, so that an error reported by line only (the schema validator gives no
    column) can be given a column while memory stays bounded.
    """

    _CHUNK = 64 << 10
    _KEPT = 4  # chunks

    def __init__(self, raw: IO[bytes], file: str) -> None:
        self.raw = raw
        self.file = file
        self.pending = b""
        self.kept: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=self._KEPT)
        self.next_line = 1  # the line number of the next byte read
        self.read_chunks = 0
        self._check_prolog()

    def _check_prolog(self) -> None:
        data = b""
        while True:
            chunk = self.raw.read(self._CHUNK)
            data += chunk
            verdict = _scan_prolog(data, final=not chunk)
            if verdict is not None:
                break
            if len(data) > _MAX_PROLOG:
                raise XmlError(
                    "more than 1 MiB before the root element; refused", file=self.file, line=1
                )
        if not data.strip():
            raise XmlError("the document is empty", file=self.file, line=1, column=1)
        if isinstance(verdict, tuple):
            line, column = verdict
            raise XmlError(
                "a document type declaration (<!DOCTYPE ...>) is refused: this reader never reads"
                " a DTD or an entity (see docs/xml.md)",
                file=self.file,
                line=line,
                column=column,
            )
        self.pending = data

    def read(self, size: int = -1) -> bytes:
        if self.pending:
            data, self.pending = self.pending, b""
        else:
            data = self.raw.read(size if size and size > 0 else self._CHUNK)
        if data:
            self.read_chunks += 1
            self.kept.append((self.next_line, data))
            self.next_line += data.count(b"\n")
        return data

    def line_text(self, line: int) -> str | None:
        """The text of a line whose start is still kept, or None."""
        chunks = list(self.kept)
        # The chunk holding the line's start: the last one that starts on an earlier line (or
        # the document's first chunk, for line 1).
        first = next((i for i in range(len(chunks) - 1, -1, -1) if chunks[i][0] < line), None)
        if first is None:
            if line != 1 or not chunks or chunks[0][0] != 1 or self.read_chunks > len(chunks):
                return None
            first = 0
        start_line = chunks[first][0]
        text = b"".join(chunk for _, chunk in chunks[first:])
        at = 0
        for _ in range(line - start_line):
            at = text.find(b"\n", at) + 1
            if at == 0:
                return None
        end = text.find(b"\n", at)
        return text[at : end if end >= 0 else len(text)].decode("utf-8", "replace")

    def column_of(self, line: int, name: str | None) -> int:
        """The column of ``<name`` on ``line`` (else of its first non-blank character), 1-based."""
        text = self.line_text(line)
        if text is None:
            return 1
        if name:
            found = re.search(rf"<(?:[\w.-]+:)?{re.escape(name)}(?=[\s/>])", text)
            if found is not None:
                return found.start() + 1
        return len(text) - len(text.lstrip()) + 1


def _scan_prolog(data: bytes, final: bool) -> tuple[int, int] | bool | None:
    """Walk what comes before the root element: the declaration, comments, processing
    instructions, blanks. Returns the (line, column) of a ``<!DOCTYPE`` (or any other ``<!``
    declaration), True when the root is reached without one, None when more bytes are needed."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data[: len(data) - len(data) % 2].decode("utf-16", "replace")
    elif data[:2] in (b"<\x00", b"\x00<"):
        encoding = "utf-16-le" if data[:1] == b"<" else "utf-16-be"
        text = data[: len(data) - len(data) % 2].decode(encoding, "replace")
    else:
        text = data.decode("utf-8", "replace")
    at = 1 if text.startswith("\ufeff") else 0
    length = len(text)
    while True:
        while at < length and text[at] in " \t\r\n":
            at += 1
        if length - at < 4 and not final:
            return None  # too few characters to tell "<!--" from "<!D"
        if at >= length:
            return True
        if text.startswith("<?", at):
            close = "?>"
        elif text.startswith("<!--", at):
            close = "-->"
        elif text.startswith("<!", at):
            line = text.count("\n", 0, at) + 1
            return line, at - (text.rfind("\n", 0, at) + 1) + 1
        else:
            return True  # the root element, or something lxml will call malformed
        end = text.find(close, at + 2)
        if end < 0:
            return True if final else None
        at = end + len(close)


def _syntax_error(error: etree.XMLSyntaxError, file: str) -> XmlError:
    """libxml2's complaint as a one-line XmlError.

    When the exception has no position (iterparse says "no element found" after an undefined
    entity), the last logged error that has one says what went wrong.
    """
    line, column = getattr(error, "position", (0, 0)) or (0, 0)
    message = str(getattr(error, "msg", "") or error)
    if not line:
        log: Any = error.error_log
        for entry in reversed(list(log)):
            if entry.line:
                line, column, message = entry.line, entry.column, str(entry.message)
                break
    message = re.sub(r", line \d+, column \d+.*\Z", "", message.strip())
    if message.startswith("Excessive depth in document"):
        message = f"elements nested more than {MAX_DEPTH} deep; refused"
    elif "amplification" in message or "entity" in message.lower():
        message = f"{message}; entities are refused"
    return XmlError(message, file=file, line=line or None, column=column or None)


def read_xml(
    source: IO[bytes] | str | os.PathLike[str],
    file: str | None = None,
    *,
    validate: bool = True,
) -> Iterator[GameRecord]:
    """Yield the record of each ``<game>`` of a document, one at a time, checking as it goes.

    ``source`` is a binary stream or a path. A malformed document, one refused for safety (a
    DTD, an entity, nesting beyond :data:`MAX_DEPTH`) or, with ``validate``, a game not of the
    schema raises :class:`XmlError` with the file, line and column; the games before it have
    been yielded by then, so a caller that must not half-write buffers its output.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as handle:
            yield from read_xml(handle, file or path, validate=validate)
        return
    if file is None:
        name = getattr(source, "name", None)
        file = name if isinstance(name, str) else "<input>"
    yield from _read(_Source(source, file), file, validate)


def _read(source: _Source, file: str, validate: bool) -> Iterator[GameRecord]:
    events = etree.iterparse(
        source,
        events=("start", "end"),
        remove_blank_text=True,  # the indentation: a fifth less to parse, nothing of the game
        **_SAFE,
    )
    game_schema = _game_schema() if validate else None
    depth = 0
    root: etree._Element | None = None
    previous: etree._Element | None = None

    def fail(
        message: str,
        element: etree._Element | None,
        line: int | None = None,
        name: str | None = None,
    ) -> XmlError:
        if line is None and element is not None:
            line = _line_of(element)
        if name is None and element is not None:
            name = etree.QName(element).localname
        column = source.column_of(line, name) if line else None
        return XmlError(message, file=file, line=line, column=column)

    try:
        for event, element in events:
            if event == "start":
                depth += 1
                if depth > MAX_DEPTH:
                    raise fail(f"elements nested more than {MAX_DEPTH} deep; refused", element)
                if depth == 1:
                    root = element
                    _check_root(element, fail)
                elif depth == 2 and element.tag != GAME:
                    raise fail(f"expected a <game>, found {_name(element)}", element)
                continue
            depth -= 1
            if depth != 1:
                if depth == 0:
                    _check_text(
                        previous.tail if previous is not None else element.text, element, fail
                    )
                continue
            if previous is None:
                _check_text(root.text if root is not None else None, element, fail)
            else:
                _check_text(previous.tail, element, fail)
            if game_schema is not None and not game_schema.validate(element):
                raise _schema_error(game_schema, element, fail)
            try:
                record = record_from_element(element)
            except (ValueError, OverflowError) as problem:
                raise fail(f"a value out of range: {problem}", element) from None
            # Free what has been read: the game's subtree and the games before it.
            element.clear(keep_tail=True)
            if previous is not None and root is not None:
                root.remove(previous)
            previous = element
            yield record
    except etree.XMLSyntaxError as error:
        raise _syntax_error(error, file) from None


def _line_of(element: etree._Element) -> int | None:
    line: Any = element.sourceline
    return line if isinstance(line, int) else None


def _name(element: etree._Element) -> str:
    qname = etree.QName(element)
    if qname.namespace:
        return f"<{qname.localname}> in {qname.namespace}"
    return f"<{qname.localname}>"


def _check_root(element: etree._Element, fail: Any) -> None:
    docinfo = element.getroottree().docinfo
    if docinfo.doctype or docinfo.internalDTD is not None or docinfo.externalDTD is not None:  # type: ignore[attr-defined]
        raise fail("a document type declaration is refused", element)
    if element.tag != GAMES:
        qname = etree.QName(element)
        where = f"in {qname.namespace}" if qname.namespace else "in no namespace"
        raise fail(
            f"not a jacquet-notation document: the root is <{qname.localname}> {where},"
            f" expected <games> in {NAMESPACE}",
            element,
        )
    version = element.get("version")
    if version != FORMAT_VERSION:
        raise fail(
            f"format version {version!r} is not known (this reader reads version 1)", element
        )
    for name in element.attrib:
        if name not in ("version", "generator"):
            raise fail(f"unknown attribute {name} on <games>", element)


def _check_text(text: str | None, element: etree._Element, fail: Any) -> None:
    if text and not text.isspace():
        raise fail(f"text {text.strip()[:30]!r} between games", element)


def _schema_error(validator: Any, element: etree._Element, fail: Any) -> XmlError:
    """The schema's most precise complaint, placed on the element it is about.

    libxml2 logs a general entry first ("Element play failed to validate attributes", no line)
    and then the precise one with the element's path; the path finds the element, whose line
    and tag give the column.
    """
    entries = [entry for entry in validator.error_log if entry.message]
    if not entries:
        error: XmlError = fail("the game does not follow the schema", element)
        return error
    entry = next((e for e in entries if e.line), entries[0])
    message = str(entry.message)
    culprit: etree._Element | None = None
    path = entry.path or ""
    if path.startswith("/*"):
        try:
            found: Any = element.xpath("." + path[2:]) if path != "/*" else [element]
        except etree.XPathError:
            found = None  # a path through a foreign prefix: fall back to the logged line
        if isinstance(found, list) and found and isinstance(found[0], etree._Element):
            culprit = found[0]
    line = (_line_of(culprit) if culprit is not None else None) or entry.line or _line_of(element)
    name = etree.QName(culprit).localname if culprit is not None else None
    if name is None:
        named = re.search(r"(?:element|Element) (\S+?)(?: |,|$)", message)
        name = named.group(1) if named else None
    error = fail(f"not valid against the schema: {message}", None, line, name)
    return error


# --------------------------------------------------------------------------------------------
# The score sheet


def parse_document(
    source: IO[bytes] | str | os.PathLike[str], file: str | None = None
) -> etree._ElementTree:
    """A whole document in memory, read with the same safety as :func:`read_xml`.

    For the score sheet, which XSLT needs whole; :func:`read_xml` is the streaming reader.
    """
    if isinstance(source, (str, os.PathLike)):
        path = os.fspath(source)
        with open(path, "rb") as handle:
            return parse_document(handle, file or path)
    name = file or getattr(source, "name", None)
    name = name if isinstance(name, str) else "<input>"
    try:
        checked: Any = _Source(source, name)
        tree = etree.parse(checked, _safe_parser())
    except etree.XMLSyntaxError as error:
        raise _syntax_error(error, name) from None
    root = tree.getroot()
    docinfo: Any = tree.docinfo
    if docinfo.doctype or docinfo.internalDTD is not None:
        raise XmlError("a document type declaration is refused", file=name, line=1, column=1)
    if root.tag != GAMES:
        raise XmlError(
            f"not a jacquet-notation document: the root is {_name(root)}, expected <games> in"
            f" {NAMESPACE}",
            file=name,
            line=_line_of(root),
            column=1,
        )
    return tree


def record_text(record: GameRecord) -> str:
    """A record in notation: canonical, or as found for a record that could not be read."""
    if record.errors and record.text:
        return record.text if record.text.endswith("\n") else record.text + "\n"
    return write_game(record)


def scoresheet(document: etree._ElementTree | etree._Element) -> bytes:
    """The HTML score sheet of a document (tags, turns in two columns, comments, the result)."""
    result = stylesheet()(document)
    return bytes(result)
