"""What a position looks like, stored for the search (schema version 11, ``position_features``).

A row for each distinct position key and each ruleset of the games through it: the side to
move, the pips and their difference, contact or race, men borne off and on the bar, the
couriers' state, the men of each side on each of its points. Everything but the ruleset is a
function of the key alone (``Position.from_key``), so that a row once written stays true; the
ruleset is the stored games' ``rules`` column. The search (``archive/search.py``) reads this
table, never the turns, so that a criterion is answered from an index (docs/browse.md,
"Searching positions").
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, Protocol

import sqlite_utils

from ..position import SIDES, Position, Side


class Connection(Protocol):
    """What :func:`refresh_features` needs of a connection: sqlite3's or the writer's APSW one
    (``store.Connection``, which this module, beneath ``schema.py``, may not import)."""

    def execute(self, statement: str, bindings: Any = ..., /) -> Any:
        """Run one statement."""

    def executemany(self, statement: str, sequence: Iterable[Any], /) -> Any:
        """Run one statement for each row."""


#: the four tables of a side's own numbering, as docs/rules.md names them, by their points
TABLES: dict[str, range] = {
    "home": range(1, 7),
    "third": range(7, 13),
    "second": range(13, 19),
    "first": range(19, 25),
}

#: the columns stored besides the key and the ruleset, each an int but ``turn``
FEATURE_COLUMNS: tuple[str, ...] = (
    "turn",
    "white_pips",
    "black_pips",
    "diff",
    "contact",
    "white_off",
    "black_off",
    "white_bar",
    "black_bar",
    "white_courier",
    "black_courier",
    *(f"{side}_{point}" for side in SIDES for point in range(1, 25)),
)

#: the indexes: the criteria that narrow best (docs/browse.md says which these are)
FEATURE_INDEXES: tuple[tuple[str, ...], ...] = (
    ("rules", "turn"),
    ("white_pips",),
    ("black_pips",),
    ("diff",),
    ("white_off",),
    ("black_off",),
)


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


def features(key: str) -> dict[str, Any]:
    """The stored columns of the position ``key`` (all of :data:`FEATURE_COLUMNS`)."""
    position = Position.from_key(key)
    pips = {side: position.pips(side) for side in SIDES}
    mover: Side = position.turn
    other: Side = "black" if mover == "white" else "white"
    row: dict[str, Any] = {
        "turn": mover,
        "white_pips": pips["white"],
        "black_pips": pips["black"],
        "diff": pips[mover] - pips[other],
        "contact": int(in_contact(position)),
    }
    for side in SIDES:
        row[f"{side}_off"] = position.off(side)
        row[f"{side}_bar"] = position.bar(side)
        row[f"{side}_courier"] = int(position.in_courier_phase(side))
    for side in SIDES:
        men = position.men(side)
        for point in range(1, 25):
            row[f"{side}_{point}"] = men.get(point, 0)
    return row


def create_features(db: sqlite_utils.Database) -> None:
    """The ``position_features`` table and its indexes (a new archive's, and version 11's)."""
    columns = ", ".join(
        f"{column} {'TEXT' if column == 'turn' else 'INTEGER'} NOT NULL"
        for column in FEATURE_COLUMNS
    )
    db.execute(
        f"CREATE TABLE IF NOT EXISTS position_features (key TEXT NOT NULL, rules TEXT NOT NULL, "
        f"{columns}, PRIMARY KEY (key, rules)) WITHOUT ROWID"
    )
    for indexed in FEATURE_INDEXES:
        name = "position_features_" + "_".join(indexed)
        db.execute(f"CREATE INDEX IF NOT EXISTS {name} ON position_features ({', '.join(indexed)})")


#: the (key, ruleset) pairs of the stored turns that have no row yet; ``{games}`` narrows the
#: games read (an import's, or every game's)
_MISSING = """
SELECT DISTINCT pair.key, pair.rules FROM (
  SELECT t.key_before AS key, coalesce(g.rules, '') AS rules
    FROM games g JOIN turns t ON t.game_id = g.id WHERE {games}
  UNION
  SELECT t.key_after, coalesce(g.rules, '')
    FROM games g JOIN turns t ON t.game_id = g.id WHERE {games} AND t.key_after IS NOT NULL
  UNION
  SELECT g.final_key, coalesce(g.rules, '') FROM games g
    WHERE {games} AND g.final_key IS NOT NULL
) AS pair
WHERE pair.key IS NOT NULL AND NOT EXISTS (
  SELECT 1 FROM position_features f WHERE f.key = pair.key AND f.rules = pair.rules)
"""


def refresh_features(conn: Connection, import_id: int | None = None) -> int:
    """Write the rows of one import's games' positions (every game's, afresh, when None); the
    number written. A key that does not read as a position (a damaged row) is left out."""
    arguments: tuple[int, ...] = ()
    if import_id is None:
        conn.execute("DELETE FROM position_features")
        query = _MISSING.format(games="1")
    else:
        games = "g.id IN (SELECT game_id FROM occurrences WHERE import_id = ?)"
        query, arguments = _MISSING.format(games=games), (import_id,) * 3
    pairs = list(conn.execute(query, arguments))
    insert = (
        f"INSERT OR IGNORE INTO position_features (key, rules, {', '.join(FEATURE_COLUMNS)}) "
        f"VALUES ({', '.join('?' * (len(FEATURE_COLUMNS) + 2))})"
    )
    rows = []
    for key, rules in pairs:
        try:
            row = features(key)
        except ValueError:
            continue
        rows.append((key, rules, *(row[column] for column in FEATURE_COLUMNS)))
    conn.executemany(insert, rows)
    return len(rows)
