"""Parse the text of a game into a record: limits, salvage, resynchronising after an error."""

from __future__ import annotations

import dataclasses
import functools
import io
import os
import re
from collections.abc import Iterator
from typing import IO, Any

from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ..errors import NotationError
from ..record import GameRecord, Span
from .grammar import Variation, parse, terminal
from .mat_reader import parse_mat_game, with_text
from .messages import token_at
from .play_words import Numbering
from .reader import GameReader
from .sgf_reader import parse_sgf_game
from .splitting import GameChunk
from .tags import UNESCAPE, tag_pattern
from .words import turn_number_digits, word_patterns
from .xg_reader import record_chunks

#: the deepest nesting of variations a game may have (a variation in a variation is 2 deep). The
#: reader, the writer, the replay and pickling between processes all walk variations by
#: recursion; at this depth they stay far below Python's recursion limit. A game nested deeper
#: is an error of that game (its text is kept), as docs/notation.md says.
MAX_VARIATION_DEPTH = 100
#: the most characters of plays (a game's text outside its tags and comments; a match game's
#: lines after its score line, a run of spaces counted once) a game of either notation may
#: have. A game is parsed whole, and its tokens and plays take about 50 bytes for each
#: character of plays; at this size that is some 25 MB, for a hundred times the longest game
#: ever annotated. Longer is an error of that game, found before parsing (docs/notation.md).
MAX_PLAYS_TEXT = 500_000
#: what is not plays in a game's text: comments and tag lines (counted loosely: the parser has
#: the last word on what is a tag)
_NOT_PLAYS = re.compile(r"\{[^}]*\}|;[^\n]*|^[ \t]*\[[^\n]*", re.MULTILINE)


def parse_chunk(chunk: GameChunk) -> GameRecord:
    """The record of one chunk, with its syntax and decoding errors."""
    record: GameRecord | None
    if chunk.syntax == "sgf":
        record = parse_sgf_game(
            chunk.text, chunk.first_line, chunk.file, chunk.index, chunk.preamble
        )
    elif chunk.syntax == "mat":
        record = _too_long_mat_game(chunk)
        if record is None:
            record = parse_mat_game(
                chunk.text, chunk.first_line, chunk.file, chunk.index, chunk.preamble
            )
    else:
        record = _parse_chunk(chunk.text, chunk.first_line, chunk.file, chunk.index)
        if chunk.syntax == "xg":
            _with_analysis(record, chunk)
    if chunk.problems:
        # the chunk's own lines, from its first line (a match game's record text has a header)
        reader = GameReader(chunk.text, chunk.first_line, chunk.file, chunk.index)
        for line, column, message in chunk.problems:
            record.errors.append(
                reader.make_error("expected " + message, line - chunk.first_line + 1, column)
            )
        record.errors.sort(key=lambda e: (e.line or 0, e.column or 0))
    return record


def _with_analysis(record: GameRecord, chunk: GameChunk) -> None:
    """An ``.xg`` game's plies given XG's analysis, one ply of its text to one of the chunk's
    (its text is written from those plies, so they are as many, but where the text did not
    read back: then none is given, rather than one put on the wrong ply)."""
    record.analyser = chunk.analyser
    if record.errors or len(record.plays) != len(chunk.analyses):
        return
    record.plays = [
        play if analysis is None else dataclasses.replace(play, analysis=analysis)
        for play, analysis in zip(record.plays, chunk.analyses, strict=True)
    ]


def read_games(
    stream: IO[bytes] | IO[str] | os.PathLike[str],
    file: str | None = None,
    *,
    encoding: str = "utf-8",
    strict: bool = False,
) -> Iterator[GameRecord]:
    """Yield the games of a stream (binary, or already decoded text) or a file, one at a time.

    A game with errors is yielded like any other, with ``errors`` set; with ``strict=True`` the
    first error is raised instead. A file that is not text (a NUL byte) raises
    :class:`NotationError` in either mode.
    """
    if isinstance(stream, os.PathLike):
        path = os.fspath(stream)
        with open(path, "rb") as handle:
            yield from read_games(handle, file or path, encoding=encoding, strict=strict)
        return
    for chunk in record_chunks(stream, file, encoding=encoding):
        record = parse_chunk(chunk)
        if strict and record.errors:
            raise record.errors[0]
        yield record


def parse_games(text: str, file: str | None = None, *, strict: bool = False) -> list[GameRecord]:
    """Every game of a text."""
    return list(read_games(io.StringIO(text), file, strict=strict))


def parse_game(
    text: str, file: str | None = None, *, index: int = 1, strict: bool = False
) -> GameRecord:
    """One game from a text (its tags, plays and result); errors as in :func:`read_games`."""
    if text.startswith("\ufeff"):
        text = text[1:]
    text = text.replace("\r\n", "\n").strip("\n")
    record = _parse_chunk(text, 1, file, index)
    if strict and record.errors:
        raise record.errors[0]
    return record


def _parse_chunk(text: str, first_line: int, file: str | None, index: int) -> GameRecord:
    reader = GameReader(text, first_line, file, index)
    if len(text) > MAX_PLAYS_TEXT:
        beyond = _beyond_plays_limit(text)
        if beyond >= 0:
            line = text.count("\n", 0, beyond) + 1
            column = beyond - text.rfind("\n", 0, beyond)
            reader.error(
                f"at most {MAX_PLAYS_TEXT:,} characters of plays in a game (are the games"
                " separated by results or tags?)",
                "more",
                line,
                column,
            )
            return _salvage(reader)
    try:
        items: Any = parse(text)  # a list: the transformer's start() made it
    except UnexpectedInput as error:
        reader.syntax_error(error)
        _resynchronise(reader, error)
        return _salvage(reader)
    if _refused_as_too_deep(reader, items):
        return _salvage(reader)
    return reader.build(items)


#: what a match game's lines hold besides plays: its ``Game N`` and score lines (the first two
#: lines that are not blank), and each run of spaces (a column's padding) but one character
_MAT_HEAD = re.compile(r"\A(?:[ \t]*\n)*[^\n]*\n(?:[ \t]*\n)*[^\n]*")
_MAT_NOT_PLAYS = re.compile(r"[ \t\n]{2,}")


def _too_long_mat_game(chunk: GameChunk) -> GameRecord | None:
    """The record of a match game past :data:`MAX_PLAYS_TEXT`, refused before its plays are
    read (its header, names and score kept, its text kept whole); None for any other game."""
    text = chunk.text
    if len(text) <= MAX_PLAYS_TEXT:
        return None
    head = _MAT_HEAD.match(text)
    start = head.end() if head is not None else 0
    beyond = _beyond_mat_limit(text, start)
    if beyond < 0:
        return None
    record = parse_mat_game(text[:start], chunk.first_line, chunk.file, chunk.index, chunk.preamble)
    record = with_text(record, text, chunk.first_line, chunk.preamble)
    row = text.count("\n", 0, beyond)
    line_start = text.rfind("\n", 0, beyond) + 1
    line_end = text.find("\n", beyond)
    source = text[line_start : line_end if line_end >= 0 else len(text)][:200]
    column = beyond - line_start
    caret = "".join("\t" if c == "\t" else " " for c in source[:column]) + "^"
    record.errors.append(
        NotationError(
            f"expected at most {MAX_PLAYS_TEXT:,} characters of plays in a game (are the games"
            f" separated by Game N lines?), found more\n    {source}\n    {caret}",
            file=chunk.file,
            game=chunk.index,
            line=chunk.first_line + row,
            column=column + 1,
        )
    )
    return record


def _beyond_mat_limit(text: str, start: int) -> int:
    """The offset of the first character of a match game's plays (from ``start``) beyond
    :data:`MAX_PLAYS_TEXT`, a run of spaces counted as one character; -1 if there is none."""
    left, at = MAX_PLAYS_TEXT, start
    for match in _MAT_NOT_PLAYS.finditer(text, start):
        if match.start() - at >= left:
            return at + left
        left -= match.start() - at + 1  # the run, as one character (left stays >= 0)
        at = match.end()
    return at + left if len(text) - at > left else -1


def _refused_as_too_deep(reader: GameReader, items: Any) -> bool:
    """Whether ``items`` nest variations past the limit (then an error of the game, not built)."""
    too_deep = _too_deep(items)
    if too_deep is None:
        return False
    reader.error(
        f"variations nested at most {MAX_VARIATION_DEPTH} deep",
        f"a variation {MAX_VARIATION_DEPTH + 1} deep",
        *token_at(too_deep.opening),
    )
    return True


#: after this many syntax errors in one game, the rest of it is not checked
MAX_SYNTAX_ERRORS = 100


@functools.cache
def _scan() -> re.Pattern[str]:
    """What the resynchronisation scan steps over: comments (an unclosed one runs to the end),
    tags, parentheses, turn numbers that begin a word, other words, spaces; built on first use
    (with the grammar)."""
    return re.compile(
        r"\{[^}]*\}?|;[^\n]*|\[[^\]\n]*\]?|(?P<open>\()|(?P<close>\))"
        rf"|(?<!\S)(?P<turn>{terminal('_TURN_NUMBER')})|[^\s{{;\[()]+|\s+"
    )


def _turn_starts(text: str) -> list[int]:
    """Where the turn numbers of the main line begin (outside comments, tags and variations)."""
    starts = []
    depth = 0
    for match in _scan().finditer(text):
        kind = match.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(depth - 1, 0)
        elif kind == "turn" and depth == 0:
            starts.append(match.start())
    return starts


def _resynchronise(reader: GameReader, error: UnexpectedInput) -> None:
    """After a syntax error, check the rest of the game from the next turn number of its main line.

    Like python-chess's PGN reader, which goes on after an error, so that a transcriber sees every
    slip of a game in one run. Each stretch is parsed on its own: the main line from the next
    turn number after the error (numbered as that number says) and, before the error, the text up
    to the turn number where the error's stretch begins, for the reader's own checks (points,
    dice, tags...). The game stays unreadable as a whole: only errors are gathered.
    """
    text = reader.text
    starts = _turn_starts(text)
    start = 0  # where the stretch that failed began
    syntax_errors = 1
    while True:
        at = _error_offset(error)
        if at is None:
            break
        at += start - _column_at(text, start)  # the piece parsed was padded to its column
        before = [s for s in starts if start < s <= at]
        if before:
            _check_stretch(reader, start, before[-1])
        after = [s for s in starts if s > at]
        if not after or syntax_errors >= MAX_SYNTAX_ERRORS:
            break
        start = after[0]
        sub, piece = _stretch(reader, start, len(text))
        try:
            items: Any = parse(piece)
        except UnexpectedInput as again:
            sub.syntax_error(again)
            reader.errors.extend(sub.errors)
            syntax_errors += 1
            error = again
            continue
        if not _refused_as_too_deep(sub, items):
            sub.build(items, _numbering_at(text, start))
        reader.errors.extend(sub.errors)
        break
    reader.errors.sort(key=lambda e: (e.line or 0, e.column or 0))


def _error_offset(error: UnexpectedInput) -> int | None:
    """Where in the parsed text Lark stopped (None at the end of the text)."""
    if isinstance(error, UnexpectedCharacters):
        return error.pos_in_stream
    if not isinstance(error, UnexpectedToken) or error.token.type == "$END":
        return None
    start: int | None = error.token.start_pos
    return start


def _column_at(text: str, offset: int) -> int:
    """How many characters of its line come before ``offset``."""
    return offset - (text.rfind("\n", 0, offset) + 1)


def _stretch(reader: GameReader, start: int, stop: int) -> tuple[GameReader, str]:
    """A reader and a text for ``text[start:stop]``, whose lines and columns are the game's."""
    text = reader.text
    lines_before = text.count("\n", 0, start)
    piece = " " * _column_at(text, start) + text[start:stop]
    sub = GameReader(piece, reader.offset + lines_before + 1, reader.file, reader.index)
    sub.lines = text.split("\n")[lines_before:]  # errors quote the game's own lines
    return sub, piece


def _numbering_at(text: str, start: int) -> Numbering | None:
    """The numbering a turn number at ``start`` says (``None``: the game's own start)."""
    if start == 0:
        return None
    piece = word_patterns().piece.match(text, start)
    assert piece is not None and piece.lastgroup == "turn"
    digits, black = turn_number_digits(piece.group())
    return Numbering(int(digits), "black" if black else "white")


def _check_stretch(reader: GameReader, start: int, stop: int) -> None:
    """The reader's own errors in a stretch before a syntax error, if the stretch parses alone."""
    sub, piece = _stretch(reader, start, stop)
    try:
        items: Any = parse(piece)
    except UnexpectedInput:
        return  # cut inside something (a variation...): its syntax error is the one reported
    if not _refused_as_too_deep(sub, items):
        sub.build(items, _numbering_at(reader.text, start))
    reader.errors.extend(sub.errors)


def _beyond_plays_limit(text: str) -> int:
    """The offset of the first character of plays beyond :data:`MAX_PLAYS_TEXT`, or -1."""
    left = MAX_PLAYS_TEXT
    at = 0
    for match in _NOT_PLAYS.finditer(text):
        if match.start() - at > left:
            return at + left
        left -= match.start() - at
        at = match.end()
    return at + left if len(text) - at > left else -1


def _too_deep(items: list[Any]) -> Variation | None:
    """The first variation nested deeper than :data:`MAX_VARIATION_DEPTH`, if any."""
    for item in items:
        if isinstance(item, Variation) and item.depth > MAX_VARIATION_DEPTH:
            variation, level = item, 1
            while level <= MAX_VARIATION_DEPTH:  # down the deepest branch, without recursion
                variation = next(
                    child
                    for child in variation.items
                    if isinstance(child, Variation) and child.depth == variation.depth - 1
                )
                level += 1
            return variation
    return None


def _salvage(reader: GameReader) -> GameRecord:
    """A record for a game the parser gave up on: its tags, its text and the error."""
    record = GameRecord(file=reader.file, index=reader.index, text=reader.text)
    for number, line in enumerate(reader.text.split("\n"), 1):
        if not line.lstrip().startswith("["):
            continue
        for match in tag_pattern().finditer(line):
            name, value = match.group(1), UNESCAPE.sub(r"\1", match.group(2))
            if name not in record.tags:
                record.tags[name] = value
                end = match.end() + 1
                record.tag_spans[name] = Span(
                    number + reader.offset, match.start() + 1, number + reader.offset, end
                )
    end_line, end_column = reader.end_position()
    record.span = Span(1 + reader.offset, 1, end_line + reader.offset, max(end_column - 1, 1))
    record.errors = reader.errors
    return record
