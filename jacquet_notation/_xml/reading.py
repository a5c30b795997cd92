"""The secure streaming reader: a DTD refused before lxml sees it, no entity, no network,
depth bounded, every game checked against the schema, each record rebuilt from its ``<game>``."""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from typing import IO, Any

from lxml import etree

from ..analysis import PlyAnalysis
from ..errors import NotationError
from ..notation import write_game
from ..record import ACTIONS, BAR, NO_SPAN, OFF, Action, GameRecord, Move, Side, Span, WrittenPlay
from .analysis import ANALYSIS, read_analyser, read_analysis
from .format import (
    COMMENT,
    COMMENT_BEFORE,
    ERROR,
    ERRORS,
    FORMAT_VERSION,
    GAME,
    GAMES,
    GLYPH,
    MAX_DEPTH,
    MESSAGE,
    MOVE,
    NAMESPACE,
    PLAY,
    PLAYERS,
    PLAYS,
    RESULT,
    SOURCE_TEXT,
    TAG,
    TAGS,
    VARIATION,
    WRITTEN,
    XmlError,
    text_of,
    unescape,
)
from .schema import SAFE, game_schema, players_schema, safe_parser
from .source import Source, syntax_error

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
    action = element.get("action")
    cube = element.get("cube")
    moves: list[Move] = []
    shares: list[Move] = []  # the opponent's (by="<the other side>"), Versailles
    nags: list[int] = []
    comments: list[str] = []
    before: list[str] = []
    variations: list[tuple[WrittenPlay, ...]] = []
    text = ""
    analysis: PlyAnalysis | None = None
    for child in element:
        tag = child.tag
        if tag == MOVE:
            (moves if child.get("by") in (None, side) else shares).append(
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
            comments.append(text_of(child))
        elif tag == COMMENT_BEFORE:
            before.append(text_of(child))
        elif tag == WRITTEN:
            text = text_of(child)
        elif tag == VARIATION:
            variations.append(_read_line(child))
        elif tag == ANALYSIS:
            analysis = read_analysis(child)
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
        opponent_moves=tuple(shares),
        text=text,
        span=_parse_span(element.get("span")),
        action=_ACTIONS.get(action) if action is not None else None,
        cube=int(cube) if cube is not None else None,
        analysis=analysis,
    )


#: the actions a play may carry, by their name (the schema allows only these)
_ACTIONS: dict[str, Action] = {action: action for action in ACTIONS}


def record_from_element(element: etree._Element) -> GameRecord:
    """The record a ``<game>`` element was exported from (derived data is left behind).

    Notation errors (kind ``syntax``) belong to the record and come back on ``record.errors``;
    the others are the replay's and come back when the record is replayed.
    """
    escaped = element.get("escaped") == "yes"
    file = element.get("file")
    if file is not None and escaped:
        file = unescape(file)
    index = int(element.get("number", "1"))
    record = GameRecord(file=file, index=index, span=_parse_span(element.get("span")))
    for child in element:
        tag = child.tag
        if tag == TAGS:
            for tag_element in child.iterchildren(TAG):
                name = tag_element.get("name", "")
                value = tag_element.text or ""
                if tag_element.get("escaped") == "yes":
                    name, value = unescape(name), unescape(value)
                record.tags[name] = value
                tag_span = tag_element.get("span")
                if tag_span:
                    record.tag_spans[name] = _parse_span(tag_span)
        elif tag == COMMENT:
            record.comments.append(text_of(child))
        elif tag == PLAYS:
            record.plays = list(_read_line(child))
            record.analyser = read_analyser(child)
        elif tag == RESULT:
            record.result = text_of(child)
        elif tag == ERRORS:
            for error in child.iterchildren(ERROR):
                if error.get("kind") == NotationError.kind:
                    record.errors.append(_read_notation_error(error, file, index))
        elif tag == SOURCE_TEXT:
            record.text = text_of(child)
    return record


def _read_notation_error(element: etree._Element, file: str | None, index: int) -> NotationError:
    message = element.find(MESSAGE)
    line = element.get("line")
    column = element.get("column")
    return NotationError(
        text_of(message) if message is not None else "",
        file=file,
        game=index,
        line=int(line) if line is not None else None,
        column=int(column) if column is not None else None,
    )


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
    yield from _read(Source(source, file), file, validate)


def _read(source: Source, file: str, validate: bool) -> Iterator[GameRecord]:
    events = etree.iterparse(
        source,
        events=("start", "end"),
        remove_blank_text=True,  # the indentation: a fifth less to parse, nothing of the game
        **SAFE,
    )
    one_game = game_schema() if validate else None
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
                elif depth == 2 and element.tag == PLAYERS and previous is None:
                    continue  # an archive's spellings, before the games: no record of its own
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
            if element.tag == PLAYERS:
                _check_text(root.text if root is not None else None, element, fail)
                if validate and not players_schema().validate(element):
                    raise _schema_error(players_schema(), element, fail)
                element.clear(keep_tail=True)  # read by the schema, not made a record
                previous = element
                continue
            if previous is None:
                _check_text(root.text if root is not None else None, element, fail)
            else:
                _check_text(previous.tail, element, fail)
            if one_game is not None and not one_game.validate(element):
                raise _schema_error(one_game, element, fail)
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
        raise syntax_error(error, file) from None


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
        checked: Any = Source(source, name)
        tree = etree.parse(checked, safe_parser())
    except etree.XMLSyntaxError as error:
        raise syntax_error(error, name) from None
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
