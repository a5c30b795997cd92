"""What the position search reads of ``plies``: each play's ``counts`` fields as SQL, and the
partial expression indexes over them (schema version 12; docs/browse.md, "Searching positions").

No column and no table is added: a play already carries the side to move, both sides' pips
and men off of the position it reaches (``plays.position_counts``), and SQLite indexes an
expression of built-in operators over it, which any connection (Datasette's too) reads
without a function of ours. An index costs each play it holds about 11 bytes, as much as half
the text the play was read from: so each index holds only the plays of the rarer positions
its criterion seeks (few pips left, a wide difference, men borne off), where a walk of the
plays in order would find few. A range that strays outside an index's is walked unindexed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from .plays import count_column

#: the fields of ``plies.counts`` a search compares, as SQL over the bare column (an index's
#: expression and a query's must be written alike for SQLite to match them)
FIELDS: dict[str, str] = {
    name: count_column(name, "counts")
    for name in ("white_pips", "black_pips", "black_to_move", "white_off", "black_off")
}
#: the mover's pips minus the other side's
FIELDS["diff"] = (
    f"(CASE {FIELDS['black_to_move']} WHEN 1 THEN {FIELDS['black_pips']} - {FIELDS['white_pips']}"
    f" ELSE {FIELDS['white_pips']} - {FIELDS['black_pips']} END)"
)
#: the widest value of each field (a man on the bar counts 25 pips: 15 x 25)
LIMITS: dict[str, tuple[int, int]] = {
    "white_pips": (0, 375),
    "black_pips": (0, 375),
    "black_to_move": (0, 1),
    "white_off": (0, 15),
    "black_off": (0, 15),
    "diff": (-375, 375),
}


@dataclass(frozen=True)
class SearchIndex:
    """A partial expression index of ``plies``: ``field``'s value for the plays whose value
    lies in one of ``ranges`` (inclusive), in order, then the play's key (game, ply)."""

    name: str
    field: str
    ranges: tuple[tuple[int, int], ...]

    @property
    def where(self) -> str:
        """The index's condition, which a query reading it repeats word for word (SQLite uses
        a partial index only where the query's own terms imply its condition)."""
        field = FIELDS[self.field]
        return " OR ".join(f"{field} BETWEEN {low} AND {high}" for low, high in self.ranges)

    def covers(self, low: int, high: int) -> bool:
        """Whether every value from ``low`` to ``high`` is in the index."""
        return any(start <= low and high <= end for start, end in self.ranges)


#: the indexes (docs/browse.md, "Searching positions", says why these): each side's last 59
#: pips, a difference of 30 pips or more either way, each side's men borne off
SEARCH_INDEXES: tuple[SearchIndex, ...] = (
    SearchIndex("idx_plies_search_white_pips", "white_pips", ((0, 59),)),
    SearchIndex("idx_plies_search_black_pips", "black_pips", ((0, 59),)),
    SearchIndex("idx_plies_search_diff", "diff", ((-375, -30), (30, 375))),
    SearchIndex("idx_plies_search_white_off", "white_off", ((1, 15),)),
    SearchIndex("idx_plies_search_black_off", "black_off", ((1, 15),)),
)


def create_search_indexes(conn: Any) -> None:
    """The search's indexes on ``plies`` (a new archive's, and the step to version 12)."""
    for index in SEARCH_INDEXES:
        conn.execute(
            f"CREATE INDEX IF NOT EXISTS {index.name} ON plies ({FIELDS[index.field]}) "
            f"WHERE {index.where}"
        )
