"""Positions found by what they look like: the query language (``grammar/search.lark``) read
into SQL over ``position_features``, and the search run, a page at a time.

A query is criteria separated by spaces, every one of which a position must meet
(docs/browse.md, "Searching positions"). Each criterion becomes one condition on a column of
``position_features`` (``features.py``); the indexed ones let SQLite read an index's range
rather than the table. Both ``jacquet search`` and the browser's search page run
:func:`search`.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import NotationError
from ..notation.grammar import grammar_file
from ..numerals import ascii_int
from ..rules import RULESET_NAMES
from .features import TABLES
from .store import Connection

#: the longest query read: a query is typed, and its cost is bounded by its length
MAX_QUERY_CHARS = 1000
#: results a page, and the most a caller may ask for
PAGE_SIZE = 50
MOST_RESULTS = 500

#: a count criterion's name to its column
COUNT_COLUMNS = {
    "pips-white": "white_pips",
    "pips-black": "black_pips",
    "diff": "diff",
    "off-white": "white_off",
    "off-black": "black_off",
    "bar-white": "white_bar",
    "bar-black": "black_bar",
}
_OPERATORS = {"<": "<", "<=": "<=", ">": ">", ">=": ">=", "=": "="}


class QueryError(NotationError):
    """A search query that cannot be read: one line, with the column of the mistake."""


@functools.cache
def query_parser() -> Lark:
    """The query language's LALR parser, built on first use and kept for the process."""
    text = grammar_file("search.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr")


@dataclass(frozen=True)
class Query:
    """A query read: the SQL conditions on ``position_features f`` and their arguments."""

    text: str
    conditions: tuple[str, ...]
    arguments: tuple[Any, ...]

    def where(self) -> str:
        """The conditions as one ``WHERE`` clause's text (``1`` for an empty query)."""
        return " AND ".join(self.conditions) or "1"


def _error(message: str, column: int | None) -> QueryError:
    return QueryError(message, file="query", line=1, column=column)


def _number(token: Token, signed: bool = False) -> int:
    value = ascii_int(str(token), signed=signed)
    if value is None:
        what = "a whole number" if signed else "a number of 0 or more"
        raise _error(f"{token!s} is not {what}", token.column)
    return value


def _comparison(column: str, tree: Tree[Token], signed: bool) -> tuple[str, tuple[int, ...]]:
    """``column`` compared as ``tree`` says: ``<N``, ``>=N``, ``N`` (equal), ``N..M``."""
    tokens = [token for token in tree.children if isinstance(token, Token)]
    numbers = [token for token in tokens if token.type == "NUMBER"]
    if len(numbers) == 2:
        low, high = (_number(token, signed) for token in numbers)
        return f"f.{column} BETWEEN ? AND ?", (low, high)
    operator = next((str(token) for token in tokens if token.type == "OPERATOR"), "=")
    return f"f.{column} {_OPERATORS[operator]} ?", (_number(numbers[0], signed),)


def _criterion(tree: Tree[Token]) -> tuple[str, tuple[Any, ...]]:
    """One criterion's condition and arguments."""
    kind, children = tree.data, tree.children
    first = children[0]
    assert isinstance(first, Token)
    if kind == "flag":
        return ("f.contact = 1" if first == "contact" else "f.contact = 0"), ()
    if kind == "turn":
        return "f.turn = ?", (str(first),)
    if kind == "rules":
        if str(first) not in RULESET_NAMES:
            named = ", ".join(RULESET_NAMES)
            raise _error(f"no ruleset is called {first!s} (one of {named})", first.column)
        return "f.rules = ?", (str(first),)
    if kind == "courier":
        if first == "none":
            return "f.white_courier = 0 AND f.black_courier = 0", ()
        return f"f.{first}_courier = 1", ()
    comparison = children[-1]
    assert isinstance(comparison, Tree)
    if kind == "count":
        return _comparison(COUNT_COLUMNS[str(first)], comparison, signed=first == "diff")
    side = children[1]
    if kind == "point":
        point = _number(first)
        if not 1 <= point <= 24:
            raise _error(f"point {point} is not on the board (1 to 24)", first.column)
        return _comparison(f"{side}_{point}", comparison, signed=False)
    # a table: its six points' men summed
    total = " + ".join(f"f.{side}_{point}" for point in TABLES[str(first)])
    condition, arguments = _comparison("_", comparison, signed=False)
    return condition.replace("f._", f"({total})", 1), arguments


def _syntax_message(error: UnexpectedInput, text: str) -> tuple[str, int | None]:
    """Lark's error said in one line: what stands at the column, what could stand there."""
    column = getattr(error, "column", None)
    if isinstance(error, UnexpectedEOF) or (
        isinstance(error, UnexpectedToken) and error.token.type == "$END"
    ):
        return "the query ends inside a criterion", len(text) + 1
    start = (column or 1) - 1
    word = text[start:].split(" ", 1)[0] or text[start : start + 1]
    return (
        f"cannot read {word!r}: a criterion is turn:, rules:, pips-white:, pips-black:, diff:, "
        "race, contact, off-white:, off-black:, bar-white:, bar-black:, point:, table: or "
        "courier:",
        column,
    )


def read_query(text: str) -> Query:
    """``text`` read as a query; raises :class:`QueryError` at the column of a mistake."""
    if len(text) > MAX_QUERY_CHARS:
        raise _error(f"a query is at most {MAX_QUERY_CHARS} characters", MAX_QUERY_CHARS + 1)
    if "\n" in text or "\r" in text:
        text = text.replace("\r", " ").replace("\n", " ")
    try:
        tree = query_parser().parse(text)
    except (UnexpectedCharacters, UnexpectedToken, UnexpectedEOF) as error:
        message, column = _syntax_message(error, text)
        raise _error(message, column) from None
    conditions: list[str] = []
    arguments: list[Any] = []
    for criterion in tree.children:
        assert isinstance(criterion, Tree)
        condition, values = _criterion(criterion)
        conditions.append(condition)
        arguments.extend(values)
    return Query(text, tuple(conditions), tuple(arguments))


@dataclass(frozen=True)
class Found:
    """One page of a search's answer: the positions, and how many meet the query in all."""

    rows: list[dict[str, Any]]
    total: int
    offset: int

    @property
    def more(self) -> int:
        """Positions meeting the query after this page."""
        return max(0, self.total - self.offset - len(self.rows))


def search_sql(query: Query) -> tuple[str, str]:
    """The statements of one page of positions meeting ``query`` and of their count.

    A position is one row whatever the rulesets it was reached under (their names listed),
    with the games through it, most first.
    """
    # the matching rows first, from the narrowest criterion's index (materialized, so that
    # the grouping by key cannot turn the plan into a walk of the whole table in key order)
    page = (
        "WITH m AS MATERIALIZED (SELECT f.key AS key, f.rules AS rules, f.contact AS contact "
        f"FROM position_features f WHERE {query.where()}) "
        "SELECT m.key AS key, p.turn AS turn, p.white_pips AS white_pips, "
        "p.black_pips AS black_pips, p.white_off AS white_off, p.black_off AS black_off, "
        "max(m.contact) AS contact, group_concat(m.rules, ' ') AS rules, p.games AS games "
        "FROM m JOIN positions p ON p.key = m.key "
        "GROUP BY m.key ORDER BY p.games DESC, m.key LIMIT ? OFFSET ?"
    )
    count = (
        "SELECT count(DISTINCT f.key) FROM position_features f "
        f"JOIN positions p ON p.key = f.key WHERE {query.where()}"
    )
    return page, count


def search(conn: Connection, query: Query, *, limit: int = PAGE_SIZE, offset: int = 0) -> Found:
    """One page (``limit`` positions from ``offset``) of the positions meeting ``query``."""
    limit = max(1, min(limit, MOST_RESULTS))
    page, count = search_sql(query)
    cursor = conn.execute(page, (*query.arguments, limit, max(0, offset)))
    names = [column[0] for column in cursor.description]
    rows = [dict(zip(names, row, strict=True)) for row in cursor]
    total = int(next(iter(conn.execute(count, query.arguments)))[0])
    return Found(rows, total, max(0, offset))
