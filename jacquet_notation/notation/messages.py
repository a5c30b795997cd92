"""Where a record's errors are made: a chunk's lines and columns, quoted, and Lark's syntax
errors said in a transcriber's words ("expected a play such as 6-5: 24/18 24/19, found ...")."""

from __future__ import annotations

import re

from lark import Token
from lark.exceptions import UnexpectedCharacters, UnexpectedInput, UnexpectedToken

from ..errors import NotationError
from ..record import Span
from .grammar import parse, slips

#: what each terminal of the grammar is, in a transcriber's words, for "expected ..." messages
TERMINAL_WORDS = {
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
_WORD_ORDER = list(TERMINAL_WORDS)
_WORD = re.compile(r"[^\s]{1,30}")
#: the characters that end a word of a play (the grammar's _END): spaces and the punctuation
#: that begins or ends a comment, an annotation, a glyph, a variation or a tag
_WORD_BREAK = frozenset(" \t\n\r\f\v(){};!?$[]")
_REST_OF_LINE = re.compile(r"[^\n]{1,30}")


class ErrorCollector:
    """The errors of one chunk of text, each with its file line and column and its line quoted.

    The reader of a record is one (:class:`~.reader.GameReader`); parsing makes one for the
    decoding problems of a chunk, and one per stretch it checks after a syntax error.
    """

    def __init__(self, text: str, first_line: int, file: str | None, index: int) -> None:
        self.text = text
        self.offset = first_line - 1  # chunk line -> file line
        self.file = file
        self.index = index
        self.errors: list[NotationError] = []
        #: the lines errors quote (the chunk's own unless set: a stretch quotes its game's)
        self.lines: list[str] | None = None

    # -- errors ----------------------------------------------------------------------------

    def error(self, expected: str, found: str, line: int, column: int) -> None:
        """Record ``expected <what>, found <what>`` at a chunk line and column."""
        self.errors.append(self.make_error(f"expected {expected}, found {found}", line, column))

    def make_error(self, message: str, line: int, column: int) -> NotationError:
        if self.lines is None:
            self.lines = self.text.split("\n")
        source = self.lines[line - 1] if 0 < line <= len(self.lines) else ""
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
                found = TERMINAL_WORDS["$END"]
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
        words = [TERMINAL_WORDS[name] for name in _WORD_ORDER if name in expected_names]
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
            label = exc.match_examples(parse, {slip.name: slip.examples})
            if label is not None:
                return slip.expected
        return None

    # -- positions ---------------------------------------------------------------------------

    @staticmethod
    def where(token: Token, offset: int) -> tuple[int, int]:
        """Chunk line and column of the character ``offset`` characters into a token."""
        text = str(token)
        line, column = token_at(token)
        newline = text.rfind("\n", 0, offset)
        if newline < 0:
            return line, column + offset
        return line + text.count("\n", 0, offset), offset - newline

    def span(self, token: Token, start: int, end: int) -> Span:
        line, column = self.where(token, start)
        end_line, end_column = self.where(token, end - 1)
        return Span(line + self.offset, column, end_line + self.offset, end_column)


def token_at(token: Token) -> tuple[int, int]:
    """A token's line and column (Lark types them as optional; every token the lexer makes has
    both)."""
    # Lark types the position as optional; every token the lexer makes has one.
    return token.line or 0, token.column or 0
