"""Read Jacquet records into :class:`~jacquet_notation.record.GameRecord` values, and write them.

The reader works in two passes, so that one bad game costs nothing but itself and memory stays
flat on a corpus of any size: a cheap line scanner cuts the byte stream into games (a game ends at
its result, or where a new tag section begins), then each game is parsed by the LALR parser of
``grammar/jacquet.lark``. Syntax errors come back on the record (``record.errors``) rather than
as exceptions, unless the caller asks for ``strict=True``.

The writer gives every record one canonical layout (see ``docs/notation.md``), so that
``write_game(parse_game(write_game(r))) == write_game(r)`` and ``parse_game(write_game(r)) == r``.
"""

from __future__ import annotations

import codecs
import functools
import io
import json
import os
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, replace
from importlib import resources
from importlib.abc import Traversable
from pathlib import Path
from typing import IO, Any, ClassVar

from lark import Lark, Token, Transformer
from lark.common import LexerConf
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken
from lark.lexer import Lexer, LexerState

from .errors import NotationError
from .record import BAR, OFF, GameRecord, Move, Side, Span, WrittenPlay

__all__ = [
    "MAX_PLAYS_TEXT",
    "MAX_VARIATION_DEPTH",
    "TAG_ORDER",
    "GameChunk",
    "grammar_file",
    "parse_chunk",
    "parse_game",
    "parse_games",
    "read_games",
    "split_games",
    "write_game",
    "write_games",
]

# --------------------------------------------------------------------------------------------
# The grammar and the friendly messages, read once from the package (or the source tree)

GRAMMAR = "jacquet.lark"
SLIPS = "syntax_errors.json"


def grammar_file(name: str = GRAMMAR) -> Traversable:
    """A file of the grammar folder: inside the installed package, else in the source tree.

    The wheel carries ``grammar/`` as ``jacquet_notation/grammar``; an editable install or a
    checkout imports the package from the source tree, where the folder sits beside it.
    """
    packaged = resources.files("jacquet_notation").joinpath("grammar", name)
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parent.parent / "grammar" / name


class _Shape(Transformer[Token, Any]):
    """Called by the LALR parser as it reduces, so that no parse tree is ever built."""

    def start(self, children: list[Any]) -> list[Any]:
        return children

    def variation(self, children: list[Any]) -> _Variation:
        # The depth is counted here, as the parser reduces, so that a game nested too deep can
        # be refused before anything walks its variations.
        depth = 1
        for child in children:
            if isinstance(child, _Variation) and child.depth >= depth:
                depth = child.depth + 1
        return _Variation(children[0], children[1:-1], children[-1], depth)


@dataclass(slots=True)
class _Variation:
    opening: Token
    items: list[Any]
    closing: Token
    #: 1 for a variation holding none, else one more than the deepest variation it holds
    depth: int


class _Lexer(Lexer):
    """Lark's lexer for this grammar, choosing the terminal to try by the token's first character.

    Lark's own lexers match one alternation of every terminal at each token; with terminals as
    large as ours (a TURN token holds a run of turns), that alternation is most of the lexing time.
    The first character of a token tells which terminals can start there (a digit: a turn, a
    play or a result; "[": a tag...), so this lexer tries only those, in the order Lark would,
    with the grammar's own regular expressions. Tokens carry their line and column as Lark's do.
    """

    __future_interface__ = 2

    #: the terminals that can start with a character; every other character may start a play
    #: ("bar/22", "pass", "--"); the grammar's terminals are all named here (a test checks)
    FIRST: ClassVar[dict[str, tuple[str, ...]]] = {
        "[": ("TAG",),
        "{": ("COMMENT",),
        ";": ("COMMENT",),
        "!": ("ANNOTATION",),
        "?": ("ANNOTATION",),
        "$": ("NAG",),
        "(": ("LPAR",),
        ")": ("RPAR",),
        "*": ("RESULT",),
        **{digit: ("TURN", "PLAY", "RESULT") for digit in "0123456789"},
    }
    OTHERS: ClassVar[tuple[str, ...]] = ("PLAY",)

    def __init__(self, conf: LexerConf) -> None:
        flags = conf.g_regex_flags
        self.conf = conf
        patterns = {
            terminal.name: re.compile(
                _regexp(terminal.name, terminal.pattern.to_regexp()), flags
            ).match
            for terminal in conf.terminals
            if terminal.name not in conf.ignore
        }
        self.first = {c: [(n, patterns[n]) for n in names] for c, names in self.FIRST.items()}
        self.others = [(name, patterns[name]) for name in self.OTHERS]
        self.space = re.compile(r"\s+").match

    def lex(self, lexer_state: LexerState, parser_state: Any) -> Iterator[Token]:
        text: str = lexer_state.text.text
        position = lexer_state.text.start
        end = lexer_state.text.end
        line = column = 1
        first, others, space = self.first, self.others, self.space
        while position < end:
            name = ""
            found = None
            for name, match in first.get(text[position], others):  # noqa: B007 (used below)
                found = match(text, position)
                if found is not None:
                    break
            if found is None:
                found = space(text, position)
                if found is None:
                    raise self.unexpected(text, position, line, column, parser_state)
                name = ""
            value = found.group()
            if name:
                yield Token(name, value, position, line, column)
            newlines = value.count("\n")
            if newlines:
                line += newlines
                column = len(value) - value.rfind("\n")
            else:
                column += len(value)
            position = found.end()

    def unexpected(
        self, text: str, position: int, line: int, column: int, parser_state: Any
    ) -> UnexpectedCharacters:
        expected = set(parser_state.parse_conf.states[parser_state.position])
        return UnexpectedCharacters(  # type: ignore[no-untyped-call]
            text,
            position,
            line,
            column,
            allowed=expected,
            state=parser_state,
            terminals_by_name=self.conf.terminals_by_name,
        )


#: the terminals that run to any length (a tag section, a run of turns): sre keeps a backtracking
#: state for every repetition of a group, about 170 bytes per turn or tag character, unless the
#: repetition is possessive
RUNS = ("TAG", "TURN", "PLAY")


def _regexp(name: str, pattern: str) -> str:
    """The regular expression the lexer uses for a terminal: its repeated groups possessive in RUNS.

    ``X+`` becomes ``X++`` (Python 3.11), which never gives back a repetition and so keeps no
    state for it: memory stays flat however long the token. It matches what ``X+`` matches
    because in these terminals what follows a repetition is optional or cannot begin where the
    repetition stopped, so a match never needs to give a repetition back (a test compares both
    on the corpus).
    """
    if name not in RUNS:
        return pattern
    out: list[str] = []
    at = 0
    in_class = False
    while at < len(pattern):
        char = pattern[at]
        out.append(char)
        at += 1
        if char == "\\":
            out.append(pattern[at])
            at += 1
        elif in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif (
            char == ")"
            and pattern[at : at + 1] in ("+", "*", "?")
            and pattern[at + 1 : at + 2] not in ("+", "?")  # not already lazy or possessive
        ):
            out.append(pattern[at] + "+")
            at += 1
    return "".join(out)


@functools.cache
def _parser() -> Lark:
    """The one LALR parser, built on first use (about 30 ms) and kept for the process."""
    text = grammar_file().read_text(encoding="utf-8")
    return Lark(text, parser="lalr", lexer=_Lexer, transformer=_Shape())


@dataclass(frozen=True, slots=True)
class Slip:
    """A common mistake with a friendly message, from ``grammar/syntax_errors.json``."""

    name: str
    expected: str
    match: str  # "found", "state" or "reader"
    found: re.Pattern[str] | None
    examples: tuple[str, ...]


@functools.cache
def slips() -> dict[str, Slip]:
    """The friendly messages, by name, in the order they are tried."""
    data = json.loads(grammar_file(SLIPS).read_text(encoding="utf-8"))
    table: dict[str, Slip] = {}
    for entry in data["slips"]:
        found = entry.get("found")
        table[entry["name"]] = Slip(
            entry["name"],
            entry["expected"],
            entry["match"],
            re.compile(found) if found else None,
            tuple(entry["examples"]),
        )
    return table


# --------------------------------------------------------------------------------------------
# Reading

#: the deepest nesting of variations a game may have (a variation in a variation is 2 deep). The
#: reader, the writer, the replay and pickling between processes all walk variations by
#: recursion; at this depth they stay far below Python's recursion limit. A game nested deeper
#: is an error of that game (its text is kept), as docs/notation.md says.
MAX_VARIATION_DEPTH = 100
#: the most characters of plays (a game's text outside its tags and comments) a game may have.
#: A game is parsed whole, and its tokens and plays take about 50 bytes for each character of
#: plays; at this size that is some 25 MB, for a hundred times the longest game ever annotated.
#: Longer is an error of that game, found before parsing (docs/notation.md).
MAX_PLAYS_TEXT = 500_000
#: what is not plays in a game's text: comments and tag lines (counted loosely: the parser has
#: the last word on what is a tag)
_NOT_PLAYS = re.compile(r"\{[^}]*\}|;[^\n]*|^[ \t]*\[[^\n]*", re.MULTILINE)

#: tags in the order the writer puts them; any other tag follows, in the order it was written,
#: before the bibliographic tags at the end
TAG_ORDER = ("Event", "Site", "Date", "Round", "Match", "Game", "Score", "White", "Black")
TAG_ORDER_RULES = ("Result", "Rules")
TAG_ORDER_END = ("Source", "Transcriber", "Annotator")

#: what each terminal of the grammar is, in a transcriber's words, for "expected ..." messages
_WORDS = {
    "TAG": 'a tag such as [Site "Paris"]',
    "COMMENT": "a comment",
    "TURN": "a turn number such as 12.",
    "PLAY": "a play such as 6-5: 24/18 24/19",
    "ANNOTATION": "an annotation such as !?",
    "NAG": "a glyph such as $1",
    "LPAR": "a variation in ( )",
    "RPAR": "a ) to close the variation",
    "RESULT": "a result such as 2-0 or *",
    "$END": "the end of the game",
}
_WORD_ORDER = list(_WORDS)

# Pieces of a TURN or PLAY token; the grammar has already checked their shape.
_PIECE = re.compile(
    r"(?P<turn>([0-9]+)\.(\.\.|[ \t]*\.\.\.)?)"
    r"|(?P<dice>(?:([0-9]+)-([0-9]+)|([0-9])([0-9]))[ \t]*:)"
    r"|(?P<pass>(?i:pass)\b|--)"
    r"|(?P<step>\S+)"
)
_TAG = re.compile(
    r'\[[ \t]*([A-Za-z][A-Za-z0-9_-]*)[ \t]+"([^"\\\r\n]*(?:\\[^\r\n][^"\\\r\n]*)*+)"[ \t]*'
)
_UNESCAPE = re.compile(r'\\(["\\])')
_DATE = re.compile(r"([0-9]{4}|\?{4})\.([0-9][0-9]|\?\?)\.([0-9][0-9]|\?\?)\Z")
_SCORE = re.compile(r"[0-9]+-[0-9]+\Z")
_POSITIVE = re.compile(r"[1-9][0-9]*\Z")
_RESULT = re.compile(r"[0-9]+-[0-9]+\Z|\*\Z")
_WORD = re.compile(r"[^\s]{1,30}")
#: the characters that end a word of a play (the grammar's _END): spaces and the punctuation
#: that begins or ends a comment, an annotation, a glyph, a variation or a tag
_WORD_BREAK = frozenset(" \t\n\r\f\v(){};!?$[]")
_REST_OF_LINE = re.compile(r"[^\n]{1,30}")
#: the dice as usually written, read without a regular expression's groups
_DICE = {
    f"{a}{sep}{b}:": (max(a, b), min(a, b))
    for a in range(1, 7)
    for b in range(1, 7)
    for sep in ("-", "")
}
#: the points as usually written
_POINTS = {str(point): point for point in range(BAR + 1)} | {"bar": BAR, "off": OFF}
# Longer numbers are out of every range; int() of 5,000 digits would even raise.
_MAX_DIGITS = 9
_TOO_BIG: int = 10**_MAX_DIGITS
_new_tuple = tuple.__new__  # builds a NamedTuple without its Python-level __new__
#: Black's turn number written apart ("12. ..."): two words, one piece
_SPACED_MARKS = re.compile(r"\.[ \t]+\.\.\.")


def _number(digits: str) -> int:
    """The value of ASCII digits; anything else is out of every range (never an exception)."""
    if len(digits) <= _MAX_DIGITS and digits.isascii() and digits.isdigit():
        return int(digits)
    return _TOO_BIG


def _point(text: str) -> int:
    """A point as written: a number, bar or off; anything else is out of range (never raises)."""
    lowered = text.lower()
    if lowered == "bar":
        return BAR
    if lowered == "off":
        return OFF
    return _number(text)


class _Numbering:
    """Whose play comes next, and in which turn: plays alternate, turn numbers are checked."""

    __slots__ = ("pending", "side", "turn")

    def __init__(self, turn: int, side: Side) -> None:
        self.turn = turn
        self.side = side
        #: a turn number that no play has followed yet (its token and offset in it), so that a
        #: number standing alone ("1." as a whole game, "2... 3.") is reported, not dropped
        self.pending: tuple[Token, int] | None = None

    def accepts(self) -> list[str]:
        if self.side == "white":
            return [f"{self.turn}.", f"{self.turn}..."]
        return [f"{self.turn}...", f"{self.turn + 1}.", f"{self.turn + 1}..."]


class _GameReader:
    """Builds one record from the parser's flat list of tokens, collecting every error."""

    def __init__(self, text: str, first_line: int, file: str | None, index: int) -> None:
        self.text = text
        self.offset = first_line - 1  # chunk line -> file line
        self.file = file
        self.index = index
        self.errors: list[NotationError] = []
        self._lines: list[str] | None = None

    # -- errors ----------------------------------------------------------------------------

    def error(self, expected: str, found: str, line: int, column: int) -> None:
        """Record ``expected <what>, found <what>`` at a chunk line and column."""
        self.errors.append(self.make_error(f"expected {expected}, found {found}", line, column))

    def make_error(self, message: str, line: int, column: int) -> NotationError:
        if self._lines is None:
            self._lines = self.text.split("\n")
        source = self._lines[line - 1] if 0 < line <= len(self._lines) else ""
        caret = "".join("\t" if c == "\t" else " " for c in source[: column - 1]) + "^"
        return NotationError(
            f"{message}\n    {source}\n    {caret}",
            file=self.file,
            game=self.index,
            line=line + self.offset,
            column=column,
        )

    def slip(self, name: str, found: str, line: int, column: int) -> None:
        self.error(slips()[name].expected, found, line, column)

    def end_position(self) -> tuple[int, int]:
        """The chunk line and column just after the game's last character."""
        text = self.text
        end = len(text)  # counted without rstrip(), which would copy a game of megabytes
        while end and text[end - 1].isspace():
            end -= 1
        return text.count("\n", 0, end) + 1, end - text.rfind("\n", 0, end)

    def syntax_error(self, exc: UnexpectedInput) -> None:
        """Turn Lark's exception into ``expected <what>, found <what>``, friendly if we can."""
        if isinstance(exc, UnexpectedCharacters):
            pos = exc.pos_in_stream or 0
            # The lexer stops inside a word ("6-5:24/18" at its colon): show the whole word.
            start = pos
            if pos < len(self.text) and self.text[pos] not in _WORD_BREAK:
                while start > max(pos - 30, 0) and self.text[start - 1] not in _WORD_BREAK:
                    start -= 1
            rest = self.text[start:]
            found_match = (_REST_OF_LINE if rest[:1] in "[{" else _WORD).match(rest)
            found = found_match.group() if found_match else rest[:1]
            expected_names = set(exc.allowed or ())
            line, column = exc.line, exc.column - (pos - start)
        else:
            token = exc.token if isinstance(exc, UnexpectedToken) else None
            expected_names = set(getattr(exc, "expected", ()) or ())
            if token is None or token.type == "$END":
                found = _WORDS["$END"]
                line, column = self.end_position()
            else:
                text = str(token).strip()
                word = (_REST_OF_LINE if text[:1] in "[{" else _WORD).match(text)
                found = word.group() if word else text[:30]
                line, column = token.line, token.column
        friendly = self._friendly(exc, found)
        if friendly is not None:
            self.error(friendly, found, line, column)
            return
        # The parser's state also names rules (start, _lead...), which mean nothing to a reader.
        words = [_WORDS[name] for name in _WORD_ORDER if name in expected_names]
        expected = words[0] if len(words) == 1 else ", ".join(words[:-1]) + " or " + words[-1]
        self.error(expected or "nothing more", found, line, column)

    def _friendly(self, exc: UnexpectedInput, found: str) -> str | None:
        for slip in slips().values():
            if slip.match == "reader" or (slip.found and not slip.found.search(found)):
                continue
            if slip.match == "found":
                return slip.expected
            if slip.match == "lexer":
                if isinstance(exc, UnexpectedCharacters):
                    return slip.expected
                continue
            label = exc.match_examples(_parser().parse, {slip.name: slip.examples})
            if label is not None:
                return slip.expected
        return None

    # -- positions ---------------------------------------------------------------------------

    @staticmethod
    def where(token: Token, offset: int) -> tuple[int, int]:
        """Chunk line and column of the character ``offset`` characters into a token."""
        text = str(token)
        line, column = _at(token)
        newline = text.rfind("\n", 0, offset)
        if newline < 0:
            return line, column + offset
        return line + text.count("\n", 0, offset), offset - newline

    def span(self, token: Token, start: int, end: int) -> Span:
        line, column = self.where(token, start)
        end_line, end_column = self.where(token, end - 1)
        return Span(line + self.offset, column, end_line + self.offset, end_column)

    # -- building ------------------------------------------------------------------------------

    def build(self, items: list[Any], numbering: _Numbering | None = None) -> GameRecord:
        """The record of the parser's items; ``numbering``: where a resumed stretch starts."""
        record = GameRecord(file=self.file, index=self.index, text=self.text)
        position = 0
        while position < len(items):
            item = items[position]
            if not isinstance(item, Token) or item.type not in ("TAG", "COMMENT"):
                break
            if item.type == "TAG":
                self.tag(record, item)
            else:
                record.comments.append(_comment_text(item))
            position += 1
        rest = items[position:]
        result_at = next(
            (i for i, it in enumerate(rest) if isinstance(it, Token) and it.type == "RESULT"),
            len(rest),
        )
        plays: list[WrittenPlay] = []
        closing = str(rest[result_at]).strip() if result_at < len(rest) else _WORDS["$END"]
        numbering = numbering or _Numbering(1, "white")
        record.comments.extend(self.line(rest[:result_at], numbering, plays, False, closing))
        if result_at < len(rest):
            self.result(record, rest[result_at])
            after = tuple(_comment_text(it) for it in rest[result_at + 1 :])
            if plays and after:
                plays[-1] = replace(plays[-1], comments=plays[-1].comments + after)
            else:
                record.comments.extend(after)
        record.plays = plays
        end_line, end_column = self.end_position()
        record.span = Span(1 + self.offset, 1, end_line + self.offset, max(end_column - 1, 1))
        record.errors = self.errors
        return record

    def tag(self, record: GameRecord, token: Token) -> None:
        """Read the tags of a TAG token (one or more tags in a row)."""
        text: str = token  # not str(token), a copy of tags that may be megabytes long
        # The line of each tag and the offset its line begins at, followed from tag to tag (a
        # tag is on one line, its closing "]" at match.end()).
        line, column = _at(token)
        line += self.offset
        line_begin = 1 - column
        scanned = 0
        for match in _TAG.finditer(text):
            start = match.start()
            newlines = text.count("\n", scanned, start)
            if newlines:
                line += newlines
                line_begin = text.rfind("\n", scanned, start) + 1
            scanned = start
            name, value = match.group(1), match.group(2)
            if "\\" in value:
                value = _UNESCAPE.sub(r"\1", value)
            if name in record.tags:
                where = self.where(token, start)
                self.error(f"one [{name}] tag per game", f"a second [{name}]", *where)
                continue
            record.tags[name] = value
            first, last = start - line_begin + 1, match.end() - line_begin + 1
            record.tag_spans[name] = _new_tuple(Span, (line, first, line, last))
            check = _TAG_CHECKS.get(name)
            if check is not None and not check[0].match(value):
                self.error(check[1], f'"{value}"', *self.where(token, match.start(2) - 1))

    def result(self, record: GameRecord, token: Token) -> None:
        record.result = str(token).strip()
        written = record.tags.get("Result")
        if written is not None and _RESULT.match(written) and written != record.result:
            self.error(f"the result of the Result tag, {written}", record.result, *_at(token))

    def line(
        self,
        items: list[Any],
        numbering: _Numbering,
        plays: list[WrittenPlay],
        in_variation: bool,
        closing: str,
    ) -> list[str]:
        """Read a line of play (the main line or a variation) into ``plays``.

        A comment goes with the play before it; the comments before the first play are
        returned, for the caller to place (game comments, or the variation's opening words).
        Annotations, comments and variations are rare enough that the play they follow is
        simply rebuilt with them. ``closing`` is what ends the line (a result, ")", the end of
        the game), named if a turn number is left without its play.
        """
        leading: list[str] = []
        # What the last token was, for annotations and glyphs, which the grammar lets through
        # anywhere: "play" (a play ended it), "annotation", "glyph", or "" (anything else).
        after = ""
        for item in items:
            if isinstance(item, Token):
                kind = item.type
                if kind == "TURN" or kind == "PLAY":
                    after = "play" if self.plays(item, numbering, plays, in_variation) else ""
                    continue
                if kind == "COMMENT":
                    if plays:
                        last = plays[-1]
                        plays[-1] = replace(last, comments=(*last.comments, _comment_text(item)))
                    else:
                        leading.append(_comment_text(item))
                elif kind == "ANNOTATION":
                    text = str(item).strip()
                    if after == "play":
                        plays[-1] = replace(plays[-1], annotation=text)
                        after = "annotation"
                        continue
                    if after:
                        self.error("the annotation right after the play", text, *_at(item))
                    else:
                        self.error("a play before the annotation", text, *_at(item))
                        numbering.pending = None  # that error says it
                elif kind == "NAG":
                    if not after:
                        numbering.pending = None  # the error on the glyph says it
                    self.nag(item, plays if after else None)
                    after = "glyph" if after else ""
                    continue
            else:
                if numbering.pending is not None:
                    self.lone_turn_number(numbering, "(")
                self.variation(item, plays)
            after = ""
        if numbering.pending is not None:
            if in_variation and not plays:
                numbering.pending = None  # "a play in the variation" is reported instead
            else:
                self.lone_turn_number(numbering, closing)
        return leading

    def lone_turn_number(self, numbering: _Numbering, found: str) -> None:
        """Report a turn number that no play followed: nothing written may vanish silently."""
        assert numbering.pending is not None
        token, at = numbering.pending
        numbering.pending = None
        piece = _PIECE.match(str(token), at)
        written = piece.group() if piece is not None else str(token)[at:].split()[0]
        self.error(f"a play after the turn number {written}", found, *self.where(token, at))

    def nag(self, token: Token, plays: list[WrittenPlay] | None) -> None:
        text = str(token).strip()
        if plays is None:
            self.error("a play before the glyph", text, *_at(token))
            return
        value = _number(text[1:])
        if value > 255:
            self.error("a glyph from $0 to $255", text, *_at(token))
        plays[-1] = replace(plays[-1], nags=(*plays[-1].nags, value))

    def variation(self, variation: _Variation, plays: list[WrittenPlay]) -> None:
        if not plays:
            self.error("a play before the variation", "(", *_at(variation.opening))
            return
        replaced = plays[-1]
        alternative: list[WrittenPlay] = []
        numbering = _Numbering(replaced.turn, replaced.side)
        leading = self.line(variation.items, numbering, alternative, True, ")")
        if not alternative:
            self.error("a play in the variation", ")", *_at(variation.closing))
            return
        if leading:
            alternative[0] = replace(alternative[0], comments_before=tuple(leading))
        plays[-1] = replace(replaced, variations=(*replaced.variations, tuple(alternative)))

    def plays(
        self, token: Token, numbering: _Numbering, plays: list[WrittenPlay], in_variation: bool
    ) -> bool:
        """Read the turn numbers and plays of one token; True if its last word ended a play.

        This is the reader's inner loop: a token holds every play up to the next comment,
        annotation or variation. It is split into lines, then words; the common words (dice such
        as ``6-5:``, steps such as ``24/18``, the expected turn number such as ``12.`` or
        ``12...``) are read with a dictionary look-up or one comparison, anything else by
        ``_PIECE`` and the general code below. The open play and the numbering are kept in local
        variables rather than objects, which this loop would otherwise build for every play.
        """
        text = str(token)
        # "12. ..." (Black's number written apart) is two words that only _PIECE reads as one.
        spaced_marks = "..." in text and _SPACED_MARKS.search(text) is not None
        line, left = _at(token)  # the column of offset ``at`` on the current line is at + left
        line += self.offset - 1  # the loop below adds one at every line, the first included
        # The open play: its moves (None when no play is open), side, turn, dice and start.
        moves: list[Move] | None = None
        side: Side = "white"
        turn = 0
        dice: tuple[int, int] | None = None
        begin = begin_line = begin_column = 0
        end = end_line = end_column = 0  # where the open play ends so far
        had_play = False
        open_pass = False  # the open play already has its "pass"
        search = consumed = 0
        row_start = 0
        # Whose play comes next, synchronised with ``numbering`` around the slow paths.
        next_side, next_turn = numbering.side, numbering.turn
        # The last turn number no play has followed yet: its token and offset (-1: none).
        pending_token, pending = numbering.pending or (token, -1)
        # Globals as locals: this loop runs for every word of every play.
        dice_words, step_shapes, new_tuple, new_play = _DICE, _STEP_SHAPES, _new_tuple, _new_play
        find = text.find
        for row in text.split("\n"):
            line += 1
            if row_start:
                left = 1 - row_start
            row_start += len(row) + 1
            for word in row.split():
                at = find(word, search)
                search = at + len(word)
                if at < consumed:
                    continue  # already read as part of the piece before ("12. ...", "6-5 :")
                rolled = dice_words.get(word)
                if rolled is None and moves is not None and word[-1] != ".":
                    shape = step_shapes.get(word)
                    if shape is None:
                        shape = _step_shape(word)
                    if shape:
                        column = at + left
                        for start, stop, repeat, hit, first, last in shape:
                            span = new_tuple(Span, (line, column + first, line, column + last))
                            moves.append(new_tuple(Move, (start, stop, repeat, hit, span)))
                        end, end_line, end_column = search, line, search - 1 + left
                        continue
                    piece = _PIECE.match(text, at)
                    assert piece is not None  # every word matches the catch-all step
                    kind = piece.lastgroup
                    if kind == "step" or (kind == "pass" and not moves and not open_pass):
                        # A step with something wrong in it (the reader says what), or the pass
                        # of "6-6: pass": both belong to the open play (one pass only: in
                        # "6-6: pass pass" the second is the next play).
                        consumed = piece.end()
                        if kind == "step":
                            self.step(token, at, word, moves)
                        else:
                            open_pass = True
                        end, end_line, end_column = consumed, line, consumed - 1 + left
                        continue
                if moves is not None:
                    span = new_tuple(Span, (begin_line, begin_column, end_line, end_column))
                    played = tuple(moves)
                    plays.append(new_play(side, turn, dice, played, text[begin:end], span))
                    moves = None
                if rolled is not None:
                    pending = -1
                    side, turn, dice = next_side, next_turn, rolled
                    begin, begin_line, begin_column = at, line, at + left
                    if next_side == "white":
                        next_side = "black"
                    else:
                        next_side = "white"
                        next_turn += 1
                    end, end_line, end_column = search, line, search - 1 + left
                    moves = []
                    open_pass = False
                    had_play = True
                    continue
                had_play = False
                if word[-1] == "." and not spaced_marks and not (in_variation and not plays):
                    # The turn number expected: nothing to check; "12..." says Black plays next.
                    if next_side == "white" and word == f"{next_turn}.":
                        if pending >= 0:
                            self.lone_turn_number_at(pending_token, pending, word)
                        pending_token, pending = token, at
                        continue
                    if word == f"{next_turn}...":
                        if pending >= 0:
                            self.lone_turn_number_at(pending_token, pending, word)
                        pending_token, pending = token, at
                        next_side = "black"
                        continue
                piece = _PIECE.match(text, at)
                assert piece is not None
                consumed = piece.end()
                kind = piece.lastgroup
                end, end_line, end_column = consumed, line, consumed - 1 + left
                if kind == "turn":
                    if pending >= 0:
                        self.lone_turn_number_at(pending_token, pending, piece.group())
                    pending_token, pending = token, at
                    numbering.side, numbering.turn = next_side, next_turn
                    self.turn_number(token, piece, numbering, in_variation and not plays)
                    next_side, next_turn = numbering.side, numbering.turn
                    continue
                had_play = True
                pending = -1
                side, turn = next_side, next_turn
                if next_side == "white":
                    next_side = "black"
                else:
                    next_side = "white"
                    next_turn += 1
                if kind == "pass":
                    span = new_tuple(Span, (line, at + left, end_line, end_column))
                    plays.append(new_play(side, turn, None, (), text[at:end], span))
                    continue
                begin, begin_line, begin_column = at, line, at + left
                moves = []
                open_pass = False
                if kind == "dice":
                    dice = self.dice(token, piece)
                else:
                    # Steps with no dice before them: the grammar lets them through, so that the
                    # message can say what is missing.
                    self.slip("steps-without-dice", word, *self.where(token, at))
                    dice = None
                    self.step(token, at, word, moves)
        if moves is not None:
            span = new_tuple(Span, (begin_line, begin_column, end_line, end_column))
            plays.append(new_play(side, turn, dice, tuple(moves), text[begin:end], span))
        numbering.side, numbering.turn = next_side, next_turn
        numbering.pending = (pending_token, pending) if pending >= 0 else None
        return had_play

    def lone_turn_number_at(self, token: Token, at: int, found: str) -> None:
        numbering = _Numbering(0, "white")
        numbering.pending = (token, at)
        self.lone_turn_number(numbering, found)

    def dice(self, token: Token, piece: re.Match[str]) -> tuple[int, int]:
        first = piece.group(5) or piece.group(7)
        second = piece.group(6) or piece.group(8)
        high, low = _number(first), _number(second)
        if not (1 <= high <= 6 and 1 <= low <= 6):
            self.slip("dice-range", piece.group().rstrip(": \t"), *self.where(token, piece.start()))
        return (high, low) if high >= low else (low, high)

    def turn_number(
        self, token: Token, piece: re.Match[str], numbering: _Numbering, variation_start: bool
    ) -> None:
        number = _number(piece.group(2))
        black = piece.group(3) is not None
        if (
            number == numbering.turn
            and not variation_start
            and (black or numbering.side == "white")
        ):
            numbering.side = "black" if black else "white"
            return  # the usual case, checked without building the message
        written = f"{number}..." if black else f"{number}."
        if variation_start:
            # A variation replaces the play before it: it starts with that play's number.
            accepted = [
                f"{numbering.turn}..." if numbering.side == "black" else f"{numbering.turn}."
            ]
        else:
            accepted = numbering.accepts()
        if written not in accepted:
            shown = accepted[0] if len(accepted) == 1 else ", ".join(accepted[:-1])
            if len(accepted) > 1:
                shown += " or " + accepted[-1]
            self.error(f"turn {shown}", piece.group(), *self.where(token, piece.start()))
        numbering.turn = number
        numbering.side = "black" if black else "white"

    def step(self, token: Token, start: int, text: str, moves: list[Move]) -> None:
        """Read ``24/18``, ``24/18/13``, ``13/7*(2)``, ``bar/22``, ``6/off`` into moves."""
        count = 1
        tail_hit = False
        body = text
        paren = text.find("(")
        if paren >= 0:
            close = text.index(")", paren)
            count = _number(text[paren + 1 : close])
            tail_hit = text.endswith("*")
            body = text[:paren]
            if not 1 <= count <= 15:
                where = self.where(token, start + paren)
                self.error("a repeat count from 1 to 15", text[paren : close + 1], *where)
        parts = body.split("/")
        points: list[int] = []
        hits: list[bool] = []
        offsets: list[int] = []
        at = start
        for part in parts:
            hit = part.endswith("*")
            name = part[:-1] if hit else part
            point = _point(name)
            if point > BAR:
                self.slip("point-range", name, *self.where(token, at))
            points.append(point)
            hits.append(hit)
            offsets.append(at)
            at += len(part) + 1
        if hits[0]:
            where = self.where(token, start + len(parts[0]) - 1)
            self.error("the hit mark * after the point landed on", body, *where)
        if tail_hit:
            hits[-1] = True
        last = len(parts) - 1
        for k in range(last):
            end = start + len(text) if k + 1 == last else offsets[k + 1] + len(parts[k + 1])
            span = self.span(token, offsets[k], end)
            moves.append(Move(points[k], points[k + 1], count, hits[k + 1], span))


#: the moves of the step words met so far, as (start, end, count, hit, first, last character)
_STEP_SHAPES: dict[str, tuple[tuple[int, int, int, bool, int, int], ...]] = {}
_STEP = re.compile(
    r"((?:[0-9]+|(?i:bar|off))\*?(?:/(?:[0-9]+|(?i:bar|off))\*?)++)(?:\(([0-9]+)\)(\*?))?\Z"
)


def _step_shape(word: str) -> tuple[tuple[int, int, int, bool, int, int], ...]:
    """The moves of a well-formed step word (empty if it is not one), remembered.

    A corpus uses few distinct step words (``24/18``, ``13/9(2)``, ``24/18/13``...), so each is
    split once; a word with anything wrong is left to :meth:`_GameReader.step`, which reports it.
    """
    shape = _read_step(word)
    if len(_STEP_SHAPES) < 10_000:  # bounded, whatever the input
        _STEP_SHAPES[word] = shape
    return shape


def _read_step(word: str) -> tuple[tuple[int, int, int, bool, int, int], ...]:
    match = _STEP.match(word)
    if match is None:
        return ()
    count = _number(match.group(2)) if match.group(2) else 1
    parts = match.group(1).split("/")
    if not 1 <= count <= 15 or parts[0].endswith("*"):
        return ()
    points = []
    offsets = []
    at = 0
    for part in parts:
        point = _POINTS.get(part.rstrip("*").lower())
        if point is None:
            return ()
        points.append((point, part.endswith("*")))
        offsets.append((at, at + len(part) - 1))
        at += len(part) + 1
    if match.group(3):
        points[-1] = (points[-1][0], True)
    moves = []
    for k in range(len(parts) - 1):
        last = len(word) - 1 if k == len(parts) - 2 else offsets[k + 1][1]
        moves.append((points[k][0], points[k + 1][0], count, points[k + 1][1], offsets[k][0], last))
    return tuple(moves)


# WrittenPlay is a frozen dataclass, whose __init__ sets its eleven fields through
# object.__setattr__; the reader builds one per play, so it sets the slots directly, which
# makes the same object three times faster (tests/test_record.py checks they are equal).
_SET = {name: getattr(WrittenPlay, name).__set__ for name in WrittenPlay.__slots__}
_SETTERS = tuple(_SET.values())  # in the order of the slots


def _new_play(
    side: Side,
    turn: int,
    dice: tuple[int, int] | None,
    moves: tuple[Move, ...],
    text: str,
    span: Span,
    _setters: tuple[Any, ...] = _SETTERS,
) -> WrittenPlay:
    """``WrittenPlay(side, turn, dice, moves, text=text, span=span)``, built faster."""
    play: WrittenPlay = object.__new__(WrittenPlay)
    # The setters as locals (a default argument, bound once), in the order of the slots.
    (
        set_side,
        set_turn,
        set_dice,
        set_moves,
        set_annotation,
        set_nags,
        set_comments,
        set_comments_before,
        set_variations,
        set_text,
        set_span,
    ) = _setters
    set_side(play, side)
    set_turn(play, turn)
    set_dice(play, dice)
    set_moves(play, moves)
    set_annotation(play, None)
    set_nags(play, ())
    set_comments(play, ())
    set_comments_before(play, ())
    set_variations(play, ())
    set_text(play, text)
    set_span(play, span)
    return play


def _at(token: Token) -> tuple[int, int]:
    # Lark types the position as optional; every token the lexer makes has one.
    return token.line or 0, token.column or 0


def _comment_text(token: Token) -> str:
    """A comment's words: inside its braces, or its ; lines joined by newlines."""
    text: str = token
    if text[0] != "{":
        return "\n".join(line.strip()[1:].strip() for line in text.strip().split("\n"))
    # One slice of the token, not three copies of a comment that may be a megabyte long.
    end = len(text.rstrip()) - 1
    start = 1
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return text[start:end]


_TAG_CHECKS: dict[str, tuple[re.Pattern[str], str]] = {
    "Date": (_DATE, "a date such as 1818.??.?? (year.month.day, ?? where unknown)"),
    "Result": (_RESULT, "a result such as 2-0 or *"),
    "Match": (_POSITIVE, "a match length in points, such as 7"),
    "Game": (_POSITIVE, "a game number such as 3"),
    "Score": (_SCORE, "a score before the game, such as 2-1"),
}


# --------------------------------------------------------------------------------------------
# Cutting a stream into games: a line scanner, much cheaper than the parser, so that an error in
# one game cannot swallow the next and memory holds one game at a time.

_TAG_LINE = re.compile(r"[ \t]*\[[ \t]*([A-Za-z][A-Za-z0-9_-]*)")
_TAG_START = re.compile(r'[ \t]*\[[ \t]*[A-Za-z][A-Za-z0-9_-]*[ \t]+"')
_RESULT_WORD = re.compile(r"[0-9]+-[0-9]+|\*")


def _ends_with_result(code: str) -> bool:
    """Whether the last word of a line (comments removed) is a result such as 2-0 or *."""
    words = code.rsplit(None, 1)
    return bool(words) and _RESULT_WORD.fullmatch(words[-1]) is not None


_CONTINUES = re.compile(r"\s*(?:(?:[0-9]+|(?i:bar|off))\*?/|(?i:pass)\b|--|:)")


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
                if _TAG_START.match(line):
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
            if not _CONTINUES.match(line):
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


# --------------------------------------------------------------------------------------------
# Bytes to lines: UTF-8 with or without a BOM (or the encoding asked for), CRLF or LF.


class _Decoder:
    """Decodes a binary stream line by line, noting undecodable bytes for the game they fall in."""

    def __init__(self, file: str | None, encoding: str) -> None:
        try:
            info = codecs.lookup(encoding)
        except LookupError:
            raise NotationError(f"unknown encoding {encoding!r}", file=file) from None
        if "\n".encode(info.name, "replace") != b"\n" or "A".encode(info.name) != b"A":
            raise NotationError(
                f"encoding {encoding!r} is not supported: records are read in an"
                " ASCII-compatible encoding such as utf-8 or latin-1",
                file=file,
            )
        self.file = file
        self.encoding = info.name
        self.problems: list[tuple[int, int, str]] = []  # line, column, message

    def lines(self, stream: IO[bytes]) -> Iterator[str]:
        """The lines of the stream, decoded a block at a time (much cheaper than line by line).

        A block that does not decode is decoded again line by line, to note each bad byte with
        its offset, line and column; a NUL byte or an overlong line stops the reading.
        """
        offset = 0  # of the first byte of ``data`` in the stream
        number = 0  # lines yielded so far
        carry = b""  # the start of a line whose end is in the next block
        first = True
        while True:
            block = stream.read(_BLOCK)
            data = carry + block
            if not data:
                return
            if block:
                cut = data.rfind(b"\n") + 1
                if cut == 0 or len(data) - cut > MAX_LINE:
                    if len(data) - cut > MAX_LINE:
                        self.too_long(number + data.count(b"\n", 0, cut) + 1)
                    carry = data
                    continue
                data, carry = data[:cut], data[cut:]
            else:
                carry = b""  # the last line, without its newline
            if first:
                first = False
                if self.encoding == "utf-8" and data.startswith(codecs.BOM_UTF8):
                    data = data[len(codecs.BOM_UTF8) :]
                    offset = len(codecs.BOM_UTF8)
            if b"\x00" in data:
                self.nul(data, offset, number)
            try:
                text = data.decode(self.encoding)
            except UnicodeDecodeError:
                text = self.decode_lines(data, offset, number)
            lines = text.split("\n")
            if text.endswith("\n"):
                lines.pop()
            if len(text) > MAX_LINE:  # only then may one of its lines be too long
                for line in lines:
                    number += 1
                    if len(line) > MAX_LINE:
                        self.too_long(number)
                    yield line[:-1] if line.endswith("\r") else line
            else:
                if "\r" in text:
                    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
                number += len(lines)
                yield from lines
            offset += len(data)

    def decode_lines(self, data: bytes, offset: int, number: int) -> str:
        """Decode a block line by line, noting every byte that does not decode."""
        texts = []
        for raw in data.splitlines(keepends=True):
            number += 1
            try:
                texts.append(raw.decode(self.encoding))
            except UnicodeDecodeError as error:
                column = len(raw[: error.start].decode(self.encoding, "replace")) + 1
                bad = raw[error.start : error.end].hex(" ")
                self.problems.append(
                    (
                        number,
                        column,
                        f"text in {self.encoding}, found the byte {bad} at offset"
                        f" {offset + error.start} (try --encoding latin-1)",
                    )
                )
                texts.append(raw.decode(self.encoding, "replace"))
            offset += len(raw)
        return "".join(texts)

    def nul(self, data: bytes, offset: int, number: int) -> None:
        at = data.index(b"\x00")
        line_start = data.rfind(b"\n", 0, at) + 1
        raise NotationError(
            f"not a text file: a NUL byte at offset {offset + at}",
            file=self.file,
            line=number + data.count(b"\n", 0, at) + 1,
            column=len(data[line_start:at].decode(self.encoding, "replace")) + 1,
        )

    def too_long(self, number: int) -> None:
        raise NotationError(
            f"line {number} is longer than {MAX_LINE:,} characters: not a game record",
            file=self.file,
            line=number,
            column=MAX_LINE + 1,
        )


#: how much of a binary stream is read and decoded at a time
_BLOCK = 1 << 14

#: the longest line a record may have; a longer one is not a record (and would fill memory)
MAX_LINE = 1_000_000


def _bounded_lines(stream: IO[Any], file: str | None) -> Iterator[Any]:
    """The lines of a stream, refusing one longer than :data:`MAX_LINE` before reading it all."""
    number = 0
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE:
            raise NotationError(
                f"line {number} is longer than {MAX_LINE:,} characters: not a game record",
                file=file,
                line=number,
                column=MAX_LINE + 1,
            )
        yield line


def _text_lines(stream: IO[str], file: str | None) -> Iterator[str]:
    for number, line in enumerate(_bounded_lines(stream, file), 1):
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if "\x00" in line:
            raise NotationError(
                "not a text file: a NUL character",
                file=file,
                line=number,
                column=line.index("\x00") + 1,
            )
        if line.endswith("\n"):
            line = line[:-2] if line.endswith("\r\n") else line[:-1]
        yield line


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


def split_games(
    stream: IO[bytes] | IO[str], file: str | None = None, *, encoding: str = "utf-8"
) -> Iterator[GameChunk]:
    """Cut a stream into games without parsing them; raises NotationError for a binary file."""
    if file is None:
        name = getattr(stream, "name", None)
        file = name if isinstance(name, str) else None
    decoder: _Decoder | None = None
    if isinstance(stream.read(0), bytes):
        decoder = _Decoder(file, encoding)
        lines = decoder.lines(stream)  # type: ignore[arg-type]
    else:
        lines = _text_lines(stream, file)  # type: ignore[arg-type]
    for index, (first, chunk) in enumerate(_games(lines), 1):
        while chunk and (not chunk[-1] or chunk[-1].isspace()):
            chunk.pop()
        problems: tuple[tuple[int, int, str], ...] = ()
        if decoder is not None and decoder.problems:
            last = first + len(chunk) - 1
            problems = tuple(p for p in decoder.problems if p[0] <= last)
            decoder.problems = [p for p in decoder.problems if p[0] > last]
        text = "\n".join(chunk)
        chunk.clear()  # its lines are not needed while the game is parsed: one copy, not two
        yield GameChunk(text, first, file, index, problems)


def parse_chunk(chunk: GameChunk) -> GameRecord:
    """The record of one chunk, with its syntax and decoding errors."""
    record = _parse_chunk(chunk.text, chunk.first_line, chunk.file, chunk.index)
    if chunk.problems:
        reader = _GameReader(record.text, chunk.first_line, chunk.file, chunk.index)
        for line, column, message in chunk.problems:
            record.errors.append(
                reader.make_error("expected " + message, line - chunk.first_line + 1, column)
            )
        record.errors.sort(key=lambda e: (e.line or 0, e.column or 0))
    return record


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
    for chunk in split_games(stream, file, encoding=encoding):
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
    reader = _GameReader(text, first_line, file, index)
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
        items: Any = _parser().parse(text)  # a list: the transformer's start() made it
    except UnexpectedInput as error:
        reader.syntax_error(error)
        _resynchronise(reader, error)
        return _salvage(reader)
    if _refused_as_too_deep(reader, items):
        return _salvage(reader)
    return reader.build(items)


def _refused_as_too_deep(reader: _GameReader, items: Any) -> bool:
    """Whether ``items`` nest variations past the limit (then an error of the game, not built)."""
    too_deep = _too_deep(items)
    if too_deep is None:
        return False
    reader.error(
        f"variations nested at most {MAX_VARIATION_DEPTH} deep",
        f"a variation {MAX_VARIATION_DEPTH + 1} deep",
        *_at(too_deep.opening),
    )
    return True


#: after this many syntax errors in one game, the rest of it is not checked
MAX_SYNTAX_ERRORS = 100

#: what the resynchronisation scan steps over: comments (an unclosed one runs to the end), tags,
#: parentheses, turn numbers that begin a word, other words, spaces
_SCAN = re.compile(
    r"\{[^}]*\}?|;[^\n]*|\[[^\]\n]*\]?|(?P<open>\()|(?P<close>\))"
    r"|(?<!\S)(?P<turn>[0-9]+\.)|[^\s{;\[()]+|\s+"
)


def _turn_starts(text: str) -> list[int]:
    """Where the turn numbers of the main line begin (outside comments, tags and variations)."""
    starts = []
    depth = 0
    for match in _SCAN.finditer(text):
        kind = match.lastgroup
        if kind == "open":
            depth += 1
        elif kind == "close":
            depth = max(depth - 1, 0)
        elif kind == "turn" and depth == 0:
            starts.append(match.start())
    return starts


def _resynchronise(reader: _GameReader, error: UnexpectedInput) -> None:
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
            items: Any = _parser().parse(piece)
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


def _stretch(reader: _GameReader, start: int, stop: int) -> tuple[_GameReader, str]:
    """A reader and a text for ``text[start:stop]``, whose lines and columns are the game's."""
    text = reader.text
    lines_before = text.count("\n", 0, start)
    piece = " " * _column_at(text, start) + text[start:stop]
    sub = _GameReader(piece, reader.offset + lines_before + 1, reader.file, reader.index)
    sub._lines = text.split("\n")[lines_before:]  # errors quote the game's own lines
    return sub, piece


def _numbering_at(text: str, start: int) -> _Numbering | None:
    """The numbering a turn number at ``start`` says (``None``: the game's own start)."""
    if start == 0:
        return None
    piece = _PIECE.match(text, start)
    assert piece is not None and piece.lastgroup == "turn"
    return _Numbering(int(piece.group(2)), "black" if piece.group(3) else "white")


def _check_stretch(reader: _GameReader, start: int, stop: int) -> None:
    """The reader's own errors in a stretch before a syntax error, if the stretch parses alone."""
    sub, piece = _stretch(reader, start, stop)
    try:
        items: Any = _parser().parse(piece)
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


def _too_deep(items: list[Any]) -> _Variation | None:
    """The first variation nested deeper than :data:`MAX_VARIATION_DEPTH`, if any."""
    for item in items:
        if isinstance(item, _Variation) and item.depth > MAX_VARIATION_DEPTH:
            variation, level = item, 1
            while level <= MAX_VARIATION_DEPTH:  # down the deepest branch, without recursion
                variation = next(
                    child
                    for child in variation.items
                    if isinstance(child, _Variation) and child.depth == variation.depth - 1
                )
                level += 1
            return variation
    return None


def _salvage(reader: _GameReader) -> GameRecord:
    """A record for a game the parser gave up on: its tags, its text and the error."""
    record = GameRecord(file=reader.file, index=reader.index, text=reader.text)
    for number, line in enumerate(reader.text.split("\n"), 1):
        if not line.lstrip().startswith("["):
            continue
        for match in _TAG.finditer(line):
            name, value = match.group(1), _UNESCAPE.sub(r"\1", match.group(2))
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


# --------------------------------------------------------------------------------------------
# Writing


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str:
    # A comment holding a "}", or a line that would begin a game's tags, is written as ";" lines
    # (each ends its line; the reader joins a run of them into one comment again).
    lines = text.split("\n")
    if "}" in text or any(_TAG_START.match(line) for line in lines[1:]):
        return "".join(f"; {line}\n" if line else ";\n" for line in lines)
    return "{" + text + "}"


def _ordered_tags(tags: dict[str, str]) -> list[str]:
    head = [name for name in TAG_ORDER + TAG_ORDER_RULES if name in tags]
    tail = [name for name in TAG_ORDER_END if name in tags]
    middle = [name for name in tags if name not in head and name not in tail]
    return head + middle + tail


def _play_text(play: WrittenPlay) -> str:
    if play.dice is None:
        text = "pass"
    else:
        text = f"{play.dice[0]}-{play.dice[1]}: "
        text += " ".join([move.notation() for move in play.moves]) if play.moves else "pass"
    if play.annotation:
        text += play.annotation
    return text


def _line_pieces(plays: Iterable[WrittenPlay], top: bool) -> list[str]:
    """The pieces of a line of play; at the top, "\\n" pieces break it into one turn a line."""
    pieces: list[str] = []
    previous: WrittenPlay | None = None
    for play in plays:
        interrupted = previous is None or bool(previous.comments or previous.variations)
        if play.side == "white":
            number = f"{play.turn}."
        elif (
            interrupted
            or previous is None
            or previous.side != "white"
            or previous.turn != play.turn
        ):
            number = f"{play.turn}..."
        else:
            number = ""
        if top and previous is not None and play.turn != previous.turn:
            pieces.append("\n")
        for comment in play.comments_before:
            pieces.append(_comment(comment))
        if number:
            pieces.append(number)
        pieces.append(_play_text(play))
        pieces.extend(f"${nag}" for nag in play.nags)
        pieces.extend(_comment(comment) for comment in play.comments)
        for variation in play.variations:
            pieces.append("(" + _join(_line_pieces(variation, top=False)) + ")")
        previous = play
    return pieces


def _join(pieces: list[str]) -> str:
    text = ""
    for piece in pieces:
        if piece == "\n":
            text = text.rstrip(" ") + "\n"
        elif not text or text.endswith("\n") or text.endswith("("):
            text += piece
        else:
            text += " " + piece
    return text.rstrip(" ")


def write_game(record: GameRecord) -> str:
    """The canonical text of a record, ending with a newline (see ``docs/notation.md``).

    Tags in :data:`TAG_ORDER`, then a blank line, the game's comments, one turn a line, the
    result alone on the last line.
    """
    lines = [f'[{name} "{_escape(record.tags[name])}"]' for name in _ordered_tags(record.tags)]
    body = [_comment(comment).rstrip("\n") for comment in record.comments]
    moves = _join(_line_pieces(record.plays, top=True))
    if moves:
        body.append(moves.rstrip("\n"))
    if record.result is not None:
        body.append(record.result)
    if lines and body:
        lines.append("")
    return "\n".join(lines + body) + "\n"


def write_games(records: Iterable[GameRecord]) -> str:
    """The canonical text of several records, a blank line between games."""
    return "\n".join(write_game(record) for record in records)
