"""What a visitor's query may cost: the longest value, the bytes of rows, the functions denied.

Datasette's time limit holds only between SQLite's steps; these bound what one step, or one
query's rows, may take. :func:`.hooks.prepare_connection` puts them on every connection.
"""

from __future__ import annotations

import sqlite3
import weakref
from typing import Any

#: the longest string or blob any query may make or read, in bytes (SQLITE_LIMIT_LENGTH): a
#: hundred times the longest record of the corpus, and short enough that one call of a
#: quadratic function (``instr``, ``replace``) on two such values ends near the time limit
VALUE_LIMIT = 256 * 1024
#: the most bytes of values one query may hand back to Python (its rows, all columns)
QUERY_BYTES_LIMIT = 32 * 1024 * 1024
#: SQL functions a visitor's query may not call (see :func:`authorize`)
DENIED_FUNCTIONS = frozenset({"fts3_tokenizer", "printf", "format"})


class QueryTooLarge(sqlite3.OperationalError):
    """A query's rows passed :data:`QUERY_BYTES_LIMIT`: refused like an invalid query (400)."""


class RowBudget:
    """A connection's row factory that counts the bytes each query's rows bring into Python.

    SQLite's length limit bounds one value; this bounds a query: a thousand rows of many
    columns of near-limit values would otherwise still be gigabytes. Each connection runs one
    query at a time, so the count restarts with each new cursor.
    """

    def __init__(self, limit: int = QUERY_BYTES_LIMIT) -> None:
        self.limit = limit
        self.cursor: weakref.ref[sqlite3.Cursor] | None = None
        self.used = 0

    def __call__(self, cursor: sqlite3.Cursor, values: tuple[Any, ...]) -> sqlite3.Row:
        if self.cursor is None or self.cursor() is not cursor:
            self.cursor = weakref.ref(cursor)
            self.used = 0
        for value in values:
            self.used += len(value) if isinstance(value, (str, bytes)) else 8
        if self.used > self.limit:
            raise QueryTooLarge(
                f"the query's results pass {self.limit // (1024 * 1024)} MB: "
                "ask for fewer rows or columns"
            )
        return sqlite3.Row(cursor, values)


def authorize(action: int, arg1: str | None, arg2: str | None, *_: str | None) -> int:
    """SQLite's authorizer: deny the functions of :data:`DENIED_FUNCTIONS`.

    ``fts3_tokenizer('simple')`` returns a pointer of the server's memory (and with an argument
    would install a tokenizer from one); Python 3.11 cannot switch it off through
    ``setconfig``. ``printf``/``format`` with a width or precision of hundreds of millions runs
    for seconds inside one call, out of the time limit's reach, even when the length limit
    refuses its result.
    """
    if action == sqlite3.SQLITE_FUNCTION and (arg2 or "").lower() in DENIED_FUNCTIONS:
        return sqlite3.SQLITE_DENY
    return sqlite3.SQLITE_OK
