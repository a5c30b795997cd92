"""The position search's query language (``grammar/search.lark``) read into a :class:`Query`:
ranges on the fields a play's ``counts`` carries, tests of the position its key spells, the
rulesets asked for (docs/browse.md, "Searching positions"). ``search.py`` runs it.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from ..errors import NotationError
from ..notation.grammar import grammar_file
from ..numerals import ascii_int
from ..position import SIDES, Position, Side
from ..rules import RULESET_NAMES
from .search_index import LIMITS

#: the longest query read: a query is typed, and its cost is bounded by its length
MAX_QUERY_CHARS = 1000

#: a count criterion's name to the ``counts`` field it compares (bar men are read from the key)
COUNT_FIELDS = {
    "pips-white": "white_pips",
    "pips-black": "black_pips",
    "diff": "diff",
    "off-white": "white_off",
    "off-black": "black_off",
}
#: the four tables of a side's own numbering, as docs/rules.md names them, by their points
TABLES: dict[str, range] = {
    "home": range(1, 7),
    "third": range(7, 13),
    "second": range(13, 19),
    "first": range(19, 25),
}

#: a test of a position, read from its key
Test = Callable[[Position], bool]
#: the grammar's SIDE terminal to a side
_SIDES: dict[str, Side] = {side: side for side in SIDES}


class QueryError(NotationError):
    """A search query that cannot be read: one line, with the column of the mistake."""


@functools.cache
def query_parser() -> Lark:
    """The query language's LALR parser, built on first use and kept for the process."""
    text = grammar_file("search.lark").read_text(encoding="utf-8")
    return Lark(text, parser="lalr")


@dataclass
class Query:
    """A query read: each ``counts`` field's range (both ends included), the tests of the
    position itself, and the rulesets of which a game must reach it (empty: any)."""

    text: str
    ranges: dict[str, tuple[int, int]] = field(default_factory=dict)
    tests: list[Test] = field(default_factory=list)
    rules: set[str] = field(default_factory=set)

    def narrow(self, name: str, low: int, high: int) -> None:
        """``name``'s range narrowed to ``low``..``high`` (two criteria on a field: both hold)."""
        start, end = self.ranges.get(name, LIMITS[name])
        self.ranges[name] = (max(start, low), min(end, high))

    def empty(self) -> bool:
        """Whether no position can meet the ranges (``pips-white:<10 pips-white:>20``)."""
        return any(low > high for low, high in self.ranges.values())


def in_contact(position: Position) -> bool:
    """Whether a man of one side must still pass a man of the other (else the game is a race).

    A man on the bar is behind everything. Otherwise a White man on its point ``p`` and a Black
    man on its ``q`` meet while the Black man stands on the White man's way (below ``p`` in
    White's numbering) or the White man on the Black man's (below ``q`` in Black's): under
    either direction, as each side's way ends at its own 1.
    """
    white, black = position.men("white"), position.men("black")
    if (not white and not position.bar("white")) or (not black and not position.bar("black")):
        return False
    if position.bar("white") or position.bar("black"):
        return True
    direction = position.direction
    for p in white:
        for q in black:
            if Position.to_absolute("black", q, direction) < p:
                return True
            if Position.from_absolute("black", p, direction) < q:
                return True
    return False


def _error(message: str, column: int | None) -> QueryError:
    return QueryError(message, file="query", line=1, column=column)


def _number(token: Token, signed: bool = False) -> int:
    value = ascii_int(str(token), signed=signed)
    if value is None:
        what = "a whole number" if signed else "a number of 0 or more"
        raise _error(f"{token!s} is not {what}", token.column)
    return value


def _bounds(tree: Tree[Token], signed: bool) -> tuple[int, int]:
    """The inclusive range a comparison says: ``<N``, ``>=N``, ``N`` (equal), ``N..M``."""
    tokens = [token for token in tree.children if isinstance(token, Token)]
    numbers = [token for token in tokens if token.type == "NUMBER"]
    if len(numbers) == 2:
        low, high = (_number(token, signed) for token in numbers)
        return low, high
    operator = next((str(token) for token in tokens if token.type == "OPERATOR"), "=")
    value = _number(numbers[0], signed)
    lowest, highest = -(10**9), 10**9
    return {
        "<": (lowest, value - 1),
        "<=": (lowest, value),
        ">": (value + 1, highest),
        ">=": (value, highest),
        "=": (value, value),
    }[operator]


def _men_test(side: Side, points: range, low: int, high: int) -> Test:
    """A test of the men ``side`` has on ``points`` (its own numbering), summed."""

    def test(position: Position) -> bool:
        men = position.men(side)
        return low <= sum(men.get(point, 0) for point in points) <= high

    return test


def _bar_test(side: Side, low: int, high: int) -> Test:
    return lambda position: low <= position.bar(side) <= high


def _courier_test(side: str) -> Test:
    if side == "none":
        return lambda position: not any(position.in_courier_phase(s) for s in SIDES)
    return lambda position: position.in_courier_phase(_SIDES[side])


def _criterion(query: Query, tree: Tree[Token]) -> None:
    """One criterion added to ``query``."""
    kind, children = tree.data, tree.children
    first = children[0]
    assert isinstance(first, Token)
    if kind == "flag":
        wanted = first == "contact"
        query.tests.append(lambda position: in_contact(position) == wanted)
    elif kind == "turn":
        black = int(first == "black")
        query.narrow("black_to_move", black, black)
    elif kind == "rules":
        if str(first) not in RULESET_NAMES:
            named = ", ".join(RULESET_NAMES)
            raise _error(f"no ruleset is called {first!s} (one of {named})", first.column)
        query.rules.add(str(first))
    elif kind == "courier":
        query.tests.append(_courier_test(str(first)))
    else:
        comparison = children[-1]
        assert isinstance(comparison, Tree)
        name = str(first)
        low, high = _bounds(comparison, signed=name == "diff")
        if kind == "count" and name in COUNT_FIELDS:
            query.narrow(COUNT_FIELDS[name], low, high)
        elif kind == "count":  # bar-white, bar-black
            query.tests.append(_bar_test(_SIDES[name.removeprefix("bar-")], low, high))
        elif kind == "point":
            point = _number(first)
            if not 1 <= point <= 24:
                raise _error(f"point {point} is not on the board (1 to 24)", first.column)
            side = _SIDES[str(children[1])]
            query.tests.append(_men_test(side, range(point, point + 1), low, high))
        else:  # a table: its six points' men summed
            query.tests.append(_men_test(_SIDES[str(children[1])], TABLES[name], low, high))


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
    text = text.replace("\r", " ").replace("\n", " ")
    try:
        tree = query_parser().parse(text)
    except (UnexpectedCharacters, UnexpectedToken, UnexpectedEOF) as error:
        message, column = _syntax_message(error, text)
        raise _error(message, column) from None
    query = Query(text)
    for criterion in tree.children:
        assert isinstance(criterion, Tree)
        _criterion(query, criterion)
    return query
