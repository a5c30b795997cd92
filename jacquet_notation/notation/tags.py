"""The tag section and the comments of a record: tags read and checked, a comment's words."""

from __future__ import annotations

import functools
import re
from collections.abc import Callable

from lark import Token

from ..record import GameRecord, Span
from .grammar import possessive, terminal
from .messages import ErrorCollector, token_at
from .words import new_tuple


@functools.cache
def tag_pattern() -> re.Pattern[str]:
    """One tag's name and value (groups 1 and 2), from the grammar's terminals.

    Its closing ``]`` is left out, so that a game the parser gave up on still has the tags of
    lines cut short (parsing's salvage); the value's repetition never gives back (``possessive``),
    so a tag of megabytes costs no backtracking state.
    """
    value = possessive(terminal("_TAG_VALUE"))
    return re.compile(rf'\[[ \t]*({terminal("_TAG_NAME")})[ \t]+"({value})"[ \t]*')


UNESCAPE = re.compile(r'\\(["\\])')
_DATE = re.compile(r"([0-9]{4}|\?{4})\.([0-9][0-9]|\?\?)\.([0-9][0-9]|\?\?)\Z")
#: a match's numbers have at most 9 digits, as in match files: a longer one is no game's
_SCORE = re.compile(r"[0-9]{1,9}-[0-9]{1,9}\Z")
_POSITIVE = re.compile(r"[1-9][0-9]{0,8}\Z")


@functools.cache
def _result_word() -> re.Pattern[str]:
    return re.compile(terminal("_RESULT_WORD"))


def _is_result(value: str) -> bool:
    """Whether a [Result] tag holds a result the grammar reads, of numbers of at most 9 digits
    (as in match files: a longer one is no game's)."""
    return _result_word().fullmatch(value) is not None and all(
        len(number) <= 9 for number in value.split("-")
    )


def read_tags(reader: ErrorCollector, record: GameRecord, token: Token) -> None:
    """Read the tags of a TAG token (one or more tags in a row)."""
    text: str = token  # not str(token), a copy of tags that may be megabytes long
    # The line of each tag and the offset its line begins at, followed from tag to tag (a
    # tag is on one line, its closing "]" at match.end()).
    line, column = token_at(token)
    line += reader.offset
    line_begin = 1 - column
    scanned = 0
    for match in tag_pattern().finditer(text):
        start = match.start()
        newlines = text.count("\n", scanned, start)
        if newlines:
            line += newlines
            line_begin = text.rfind("\n", scanned, start) + 1
        scanned = start
        name, value = match.group(1), match.group(2)
        if "\\" in value:
            value = UNESCAPE.sub(r"\1", value)
        if name in record.tags:
            where = reader.where(token, start)
            reader.error(f"one [{name}] tag per game", f"a second [{name}]", *where)
            continue
        record.tags[name] = value
        first, last = start - line_begin + 1, match.end() - line_begin + 1
        record.tag_spans[name] = new_tuple(Span, (line, first, line, last))
        check = _TAG_CHECKS.get(name)
        if check is not None and not check[0](value):
            reader.error(check[1], f'"{value}"', *reader.where(token, match.start(2) - 1))


def read_result(reader: ErrorCollector, record: GameRecord, token: Token) -> None:
    """The result a RESULT token gives, checked against the [Result] tag."""
    record.result = str(token).strip()
    written = record.tags.get("Result")
    if written is not None and _is_result(written) and written != record.result:
        reader.error(f"the result of the Result tag, {written}", record.result, *token_at(token))


def comment_text(token: Token) -> str:
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


_TAG_CHECKS: dict[str, tuple[Callable[[str], object], str]] = {
    "Date": (_DATE.match, "a date such as 1818.??.?? (year.month.day, ?? where unknown)"),
    "Result": (_is_result, "a result such as 2-0 or *"),
    "Match": (_POSITIVE.match, "a match length in points, such as 7"),
    "Game": (_POSITIVE.match, "a game number such as 3"),
    "Score": (_SCORE.match, "a score before the game, such as 2-1"),
}
