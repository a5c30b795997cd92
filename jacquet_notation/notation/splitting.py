"""Lines to games: cutting a stream into the text of each game, a Jacquet record's or a match
file's (told by its content), without parsing it."""

from __future__ import annotations

import functools
import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import IO

from ..analysis import Analyser, PlyAnalysis
from ..errors import NotationError
from .decoding import Decoder, text_lines
from .grammar import terminal
from .mat_header import GAME_LINE, HEADER_LINE, LENGTH_LINE, MAYBE_NOT_PLAY, is_match_file
from .sgf_syntax import is_sgf, sgf_games

# Cutting a stream into games: a line scanner, much cheaper than the parser, so that an error in
# one game cannot swallow the next and memory holds one game at a time.

_TAG_LINE = re.compile(r"[ \t]*\[[ \t]*([A-Za-z][A-Za-z0-9_-]*)")
#: what begins a line of tags (a tag's opening up to its value's quote): a new game's tag section
TAG_START = re.compile(r'[ \t]*\[[ \t]*[A-Za-z][A-Za-z0-9_-]*[ \t]+"')
_RESULT_WORD = re.compile(r"[0-9]+-[0-9]+|\*")


def _ends_with_result(code: str) -> bool:
    """Whether the last word of a line (comments removed) is a result such as 2-0 or *."""
    words = code.rsplit(None, 1)
    return bool(words) and _RESULT_WORD.fullmatch(words[-1]) is not None


#: what begins a line that carries on a play: a step (its first point, hit mark and slash), a
#: pass (a word: "pass" not run into letters, "--" however), or the colon of dice
@functools.cache
def _continues() -> re.Pattern[str]:
    # built on first use: the grammar is compiled then, not when the package is imported
    return re.compile(rf"\s*(?:{terminal('_POINT')}\*?/|{terminal('_PASS_WORD')}(?!(?<=\w)\w)|:)")


def _code(line: str, start: int) -> tuple[str, bool]:
    """The text of a line outside comments, from ``start``; and whether a ``{`` stays open."""
    if "{" not in line and ";" not in line:
        return line[start:], False
    parts = []
    at = start
    while True:
        brace = line.find("{", at)
        semicolon = line.find(";", at)
        if semicolon >= 0 and (brace < 0 or semicolon < brace):
            parts.append(line[at:semicolon])
            return "".join(parts), False
        if brace < 0:
            parts.append(line[at:])
            return "".join(parts), False
        parts.append(line[at:brace])
        close = line.find("}", brace)
        if close < 0:
            return "".join(parts), True
        at = close + 1


def _games(lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """Cut numbered lines into games: ``(first line number, lines)``.

    A game ends at the end of a line whose last word (outside comments) is a result, unless the
    next line carries on a play (a slip such as ``6-5`` without its colon at the end of a line),
    or where a tag line follows moves or repeats a tag of the section. A ``{`` comment left open
    runs to the next line that starts like a tag, so that the next game is not lost.
    """
    chunk: list[str] = []
    first = 0
    number = 0
    moves = False
    names: set[str] = set()
    in_comment = False
    ended = False

    for line in lines:
        number += 1
        if in_comment:
            close = line.find("}")
            if close < 0:
                if TAG_START.match(line):
                    # An unclosed comment: give up on it here and start the next game (whose
                    # tag line this is: the result before the comment ended nothing more).
                    yield first, chunk
                    chunk, moves, names, in_comment, ended = [], False, set(), False, False
                else:
                    chunk.append(line)
                    continue
            else:
                chunk.append(line)
                code, in_comment = _code(line, close + 1)
                if code.strip():
                    moves = True
                    ended = _ends_with_result(code)
                continue
        if not line or line.isspace():
            if chunk:
                chunk.append(line)
            continue
        if ended:
            ended = False
            if not _continues().match(line):
                yield first, chunk
                chunk, moves, names = [], False, set()
        tag = _TAG_LINE.match(line) if "[" in line else None
        if tag is not None:
            name = tag.group(1)
            if chunk and (moves or name in names):
                yield first, chunk
                chunk, moves, names = [], False, set()
            if not chunk:
                first = number
            names.add(name)
            chunk.append(line)
            continue
        if not chunk:
            first = number
        chunk.append(line)
        if "{" in line or ";" in line:
            code, in_comment = _code(line, 0)
            if not code or code.isspace():
                continue
        else:
            code = line  # not blank: checked above
        moves = True
        # _ends_with_result, cheaper: a result's last word has a "-" or is "*".
        last = code.rsplit(None, 1)[-1]
        ended = ("-" in last or last == "*") and _RESULT_WORD.fullmatch(last) is not None
    if chunk:
        yield first, chunk


@dataclass(frozen=True, slots=True)
class GameChunk:
    """The text of one game, cut from a stream but not parsed, and where it stands in its file.

    Plain data, cheap to send to another process: ``jacquet validate --jobs`` cuts a file into
    chunks in one process and parses them in others.
    """

    text: str
    first_line: int
    file: str | None
    index: int
    #: undecodable bytes in the game's lines: (line in the file, column, message)
    problems: tuple[tuple[int, int, str], ...] = ()
    #: the notation of the text: ``jqt``, ``mat`` for a game of a match file, ``sgf`` for a game
    #: of gnubg's SGF (docs/notation.md)
    syntax: str = "jqt"
    #: a match file's header lines (from line 1), which every game of the match shares; an SGF
    #: file's first game, whose root holds the match's properties
    preamble: str = ""
    #: what the reading noted without refusing (line in the file, column, message): a match
    #: file's line read as cp1252
    notes: tuple[tuple[int, int, str], ...] = ()
    #: a game of an ``.xg`` file (``syntax`` ``xg``, its text written canonically): the analysis
    #: of each ply in order, and who analysed it, put on the plies once the text is parsed
    analyses: tuple[PlyAnalysis | None, ...] = ()
    analyser: Analyser | None = None


def split_games(
    stream: IO[bytes] | IO[str], file: str | None = None, *, encoding: str = "utf-8"
) -> Iterator[GameChunk]:
    """Cut a stream into games without parsing them; raises NotationError for a binary file."""
    if file is None:
        name = getattr(stream, "name", None)
        file = name if isinstance(name, str) else None
    decoder: Decoder | None = None
    if isinstance(stream.read(0), bytes):
        decoder = Decoder(file, encoding)
        lines = decoder.lines(stream)  # type: ignore[arg-type]
    else:
        lines = text_lines(stream, file)  # type: ignore[arg-type]
    head = _head(lines)
    _check_not_cut(head, lines, file)
    lines = itertools.chain(head, lines)
    syntax, preamble = "jqt", ""
    preambles: list[str] = []
    current: list[str | None] = [None]
    games: Iterator[tuple[int, list[str]]]
    if is_sgf(head):
        syntax = "sgf"
        games = sgf_games(lines)
    elif is_match_file(head):
        syntax = "mat"
        if decoder is not None:
            decoder.read_as_match_file(head)
        games, preambles, current = _match_games(lines)
    else:
        games = _games(lines)
    for index, (first, chunk) in enumerate(games, 1):
        if syntax == "mat" and (not preamble or current[0] is not None):
            preamble = current[0] if current[0] is not None else "\n".join(preambles)
        while chunk and (not chunk[-1] or chunk[-1].isspace()):
            chunk.pop()
        problems: tuple[tuple[int, int, str], ...] = ()
        if decoder is not None and decoder.fallback:
            decoder.recode(chunk, first)
        if decoder is not None and decoder.problems:
            last = first + len(chunk) - 1
            problems = tuple(p for p in decoder.problems if p[0] <= last)
            decoder.problems = [p for p in decoder.problems if p[0] > last]
        notes: tuple[tuple[int, int, str], ...] = ()
        if decoder is not None and decoder.notes:
            last = first + len(chunk) - 1
            notes = tuple(n for n in decoder.notes if n[0] <= last)
            decoder.notes = [n for n in decoder.notes if n[0] > last]
        text = "\n".join(chunk)
        if syntax == "sgf" and index == 1:
            preamble = text
        chunk.clear()  # its lines are not needed while the game is parsed: one copy, not two
        yield GameChunk(text, first, file, index, problems, syntax, preamble, notes)


def _head(lines: Iterator[str]) -> list[str]:
    """The first lines of a stream, up to its first line that is neither blank nor a match
    file's header line: enough to tell a match file from a Jacquet record."""
    head: list[str] = []
    for line in lines:
        head.append(line)
        if line.strip() and not HEADER_LINE.match(line):
            break
    return head


def _check_not_cut(head: list[str], rest: Iterator[str], file: str | None) -> None:
    """Refuse a match file that ends inside its header: its header lines, then nothing (or a
    header line cut short), which would read as one valid empty game, the match gone."""
    written = [(number, line) for number, line in enumerate(head, 1) if line.strip()]
    if not written or not HEADER_LINE.match(written[0][1]):
        return
    number, last = written[-1]
    if not HEADER_LINE.match(last) and not last.lstrip().startswith(";"):
        return  # a line of its own after the header: the reading says what it is
    if not HEADER_LINE.match(last):
        # a ``; [...`` line after header lines: cut short if nothing follows it
        peeked = next(rest, None)
        if peeked is not None:
            head.append(peeked)  # (the caller chains ``head`` before the rest)
            return
    raise NotationError(
        f"a match file cut inside its header: expected N point match and its games after line "
        f"{number}, found the end of the file",
        file=file,
        line=number,
        column=len(last) + 1,
    )


def _match_games(
    lines: Iterable[str],
) -> tuple[Iterator[tuple[int, list[str]]], list[str], list[str | None]]:
    """Cut a match file's lines into games (each from its ``Game N`` line); the first list
    returned fills with the header's lines (before the first game) as the first game is cut.

    A file may hold several matches one after another (BBGT writes them; gnubg reads only the
    first): a header line or an ``N point match`` line after a game begins the next match, whose
    header, as the game after it is yielded, is the last list's one item: its lines, after as
    many blank lines as stand before them in the file (so that every line keeps its number).
    """
    preamble: list[str] = []
    current: list[str | None] = [None]  # None: the first match's header, ``preamble``

    def games() -> Iterator[tuple[int, list[str]]]:
        chunk: list[str] = []
        first = 0
        header: list[str] | None = None  # the next match's header lines, while being read
        header_line = 0
        maybe_not_play = MAYBE_NOT_PLAY.match
        for number, line in enumerate(lines, 1):
            if chunk and header is None and not maybe_not_play(line):
                chunk.append(line)  # a game's own line (most lines), tried by one pattern
            elif GAME_LINE.match(line):
                if chunk:
                    yield first, chunk
                if header is not None:
                    current[0] = "\n" * (header_line - 1) + "\n".join(header)
                    header = None
                chunk, first = [line], number
            elif header is not None:
                header.append(line)
            elif chunk and (HEADER_LINE.match(line) or LENGTH_LINE.match(line)):
                header, header_line = [line], number  # the next match begins
            elif chunk:
                chunk.append(line)
            else:
                preamble.append(line)
        if chunk:
            yield first, chunk

    return games(), preamble, current
