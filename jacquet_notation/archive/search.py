"""Positions found by what they look like: a :class:`.search_query.Query` answered a page at a
time by walking the plays that reach positions, in an index's order, within a row budget
(docs/browse.md, "Searching positions"). ``jacquet search`` and the browser's search page
both run :func:`search`.

The walk reads the narrowest indexed range of the query (``search_index.py``) or, with none,
the plays in their key's order; every other criterion is checked on the row read (the counts'
fields in SQL's values, the rest on the position its key spells). It stops when the page is
full and the count settled, or when :data:`ROW_BUDGET` plays have been read: then the count
is a floor ("at least N"). The cost of a search is thus bounded whatever the archive's size.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ..position import Position
from .plays import plays_of
from .search_index import FIELDS, LIMITS, SEARCH_INDEXES, SearchIndex
from .search_query import Query, QueryError, in_contact, read_query
from .store import Connection

__all__ = ["Found", "Query", "QueryError", "read_query", "search", "walk_sql"]

#: results a page, and the most a caller may ask for
PAGE_SIZE = 50
MOST_RESULTS = 500
#: the plays one search reads at most (a page and its count): about 0.2 s of this machine
ROW_BUDGET = 20_000
#: the positions one search spells from their keys at most, for the criteria a play's counts
#: do not say (contact, the bar, points, tables, the courier): about 0.1 ms each
KEY_BUDGET = 5_000
#: the fields read with each play, in this order
_READ = ("white_pips", "black_pips", "black_to_move", "white_off", "black_off", "diff")


@dataclass(frozen=True)
class Found:
    """One page of a search's answer: the positions, how many meet the query (all of them
    when ``exact``, else those the row budget reached: at least that many), where it began."""

    rows: list[dict[str, Any]]
    total: int
    offset: int
    exact: bool

    @property
    def more(self) -> int:
        """Positions known to meet the query after this page."""
        return max(0, self.total - self.offset - len(self.rows))


def _indexed(query: Query, index: SearchIndex) -> bool:
    found = query.ranges.get(index.field)
    return found is not None and found != LIMITS[index.field] and index.covers(*found)


def walk_sql(query: Query, index: SearchIndex | None) -> tuple[str, tuple[int | str, ...]]:
    """The statement walking the plays for ``query``: ``index``'s range in its order, or (with
    none) the games of its one ruleset through the games' index on rules, or every play in its
    key's order; ``?`` last for the row budget."""
    columns = ", ".join(FIELDS[name] for name in _READ)
    select = f"SELECT p.key_after, p.game, {columns} FROM plies p"
    if index is None and len(query.rules) == 1:
        # one ruleset: its games in the games' index on rules, each game's plays in order
        return (
            f"{select.replace(' FROM plies p', '')} FROM games g INDEXED BY idx_games_rules "
            "CROSS JOIN game_numbers n CROSS JOIN plies p WHERE g.rules = ? "
            f"AND n.game_id = g.id AND {plays_of('n.number')} AND p.key_after IS NOT NULL "
            "AND p.counts IS NOT NULL ORDER BY g.rowid, p.id LIMIT ?",
            (next(iter(query.rules)),),
        )
    if index is None:
        return (
            f"{select} WHERE p.key_after IS NOT NULL AND p.counts IS NOT NULL "
            "ORDER BY p.id LIMIT ?",
            (),
        )
    field = FIELDS[index.field]
    low, high = query.ranges[index.field]
    return (
        f"{select} INDEXED BY {index.name} WHERE {field} BETWEEN ? AND ? AND ({index.where}) "
        f"AND p.key_after IS NOT NULL ORDER BY {field} LIMIT ?",
        (low, high),
    )


def narrowest_index(conn: Connection, query: Query) -> SearchIndex | None:
    """The index whose range holds the fewest plays (counted within the budget), if any
    criterion has one."""
    best: tuple[int, SearchIndex] | None = None
    for index in SEARCH_INDEXES:
        if not _indexed(query, index):
            continue
        statement, arguments = walk_sql(query, index)
        counted = f"SELECT count(*) FROM ({statement})"
        plays = int(next(iter(conn.execute(counted, (*arguments, ROW_BUDGET))))[0])
        if best is None or plays < best[0]:
            best = (plays, index)
    return best[1] if best else None


class _Rulesets:
    """Each game's ruleset, looked up once a game (a walk reads many plays of one game)."""

    def __init__(self, conn: Connection) -> None:
        self.conn, self.known = conn, dict[int, str]()

    def of(self, game: int) -> str:
        if game not in self.known:
            found = list(
                self.conn.execute(
                    "SELECT coalesce(g.rules, '') FROM game_numbers n JOIN games g "
                    "ON g.id = n.game_id WHERE n.number = ?",
                    (game,),
                )
            )
            self.known[game] = str(found[0][0]) if found else ""
        return self.known[game]


def _position_meets(query: Query, key: str) -> bool:
    try:
        position = Position.from_key(key)
    except ValueError:  # a damaged key is no position
        return False
    return all(test(position) for test in query.tests)


def search(conn: Connection, query: Query, *, limit: int = PAGE_SIZE, offset: int = 0) -> Found:
    """One page (``limit`` positions from ``offset``) of the positions meeting ``query``, in
    the walked index's order (ascending), with the count as far as the budget reached."""
    limit, offset = max(1, min(limit, MOST_RESULTS)), max(0, offset)
    if query.empty():
        return Found([], 0, offset, True)
    statement, arguments = walk_sql(query, narrowest_index(conn, query))
    rulesets = _Rulesets(conn)
    # each range as (place in the row read, low, high): a row is checked without a dict
    ranges = [(2 + _READ.index(name), low, high) for name, (low, high) in query.ranges.items()]
    judged: dict[str, bool] = {}  # every key read, and whether its position meets the tests
    matched: dict[str, tuple[Any, ...]] = {}  # the rows that meet the query, in order
    seen_rules: dict[str, set[str]] = {}
    read, spent = 0, False
    for row in conn.execute(statement, (*arguments, ROW_BUDGET)):
        read += 1
        if not all(low <= row[place] <= high for place, low, high in ranges):
            continue
        key, game = row[0], row[1]
        if query.rules and rulesets.of(game) not in query.rules:
            continue
        if query.tests:
            meets = judged.get(key)
            if meets is None:
                if len(judged) >= KEY_BUDGET:
                    spent = True
                    break
                meets = judged[key] = _position_meets(query, key)
            if not meets:
                continue
        if key not in matched:
            matched[key] = row
        if len(matched) <= offset + limit and offset < len(matched):
            seen_rules.setdefault(key, set()).add(rulesets.of(game))
    keys = list(matched)[offset : offset + limit]
    rows = [_described(conn, matched[key], seen_rules.get(key, set())) for key in keys]
    return Found(rows, len(matched), offset, exact=read < ROW_BUDGET and not spent)


def _described(conn: Connection, row: tuple[Any, ...], rules: set[str]) -> dict[str, Any]:
    """A result as shown: the side to move named, race or contact, the games through it."""
    key = row[0]
    values = dict(zip(_READ, row[2:], strict=True))
    shared = list(conn.execute("SELECT games FROM shared_positions WHERE key = ?", (key,)))
    return {
        "key": key,
        "turn": "black" if values["black_to_move"] else "white",
        **{name: values[name] for name in _READ if name != "black_to_move"},
        "contact": in_contact(Position.from_key(key)),
        "games": int(shared[0][0]) if shared and shared[0][0] is not None else 1,
        "rules": " ".join(sorted(rules)),
    }
