"""A page of the games list sorted by date within a range of years: along the index of dates.

SQLite, without statistics, prefers an equality's index to a range's: ``status = 'valid' and
year between 1850 and 1871 order by date desc limit 50`` reads every valid game through the
index of ``status`` and sorts them all, some 200,000 rows of the 214,780-game bench archive
(50 ms) for a page of 50. A year is the first four characters of its game's date
(:func:`..archive.names.iso_date`), so the games of a range of years are a range of the index
of dates, already in the list's order: walked from its end, the first 50 that pass the other
filters are the page (1 to 5 ms). Only where they are common enough to be met soon (else the
equality's index is the better way), and for the lists the other filters do not narrow
further (a player's, an event's: their own indexes are better still).

A game whose date is not one (a month 13) keeps its year with no date: such games sort after
every dated game (descending; before them, ascending) and are read apart, by the index's
range of NULL, so that the page holds what the plain query's would.
"""

from __future__ import annotations

from typing import Any

#: the filters that choose few games through an index of their own: with any of them, the plain
#: query is left to SQLite
_NARROWING = ("player", "event", "source", "import_", "consistent", "q")
#: walked when at least one game in this many of the years' range passes the other filters
DENSEST_SKIP = 50
#: the largest year a date's four digits can hold
_LAST_YEAR = 9999


def years_alone(filters: Any) -> bool:
    """Whether ``filters`` choose a range of years and nothing narrower (a player, an event...):
    then the games they count or list are a range of an index that begins with the year (the
    counts', ``(year, rules, status, result)``) or with the date."""
    if filters.year_from is None and filters.year_to is None:
        return False
    return all(getattr(filters, name) in (None, "") for name in _NARROWING)


def date_range(filters: Any) -> tuple[str | None, str | None] | None:
    """The bounds of the dates of ``filters``' years (``(from, before)``, as text; either None
    where unbounded), or None where the walk does not apply: no range of years, a sort by
    something else than the date, or a filter with an index of its own."""
    if filters.sort.lstrip("-") != "date" or not years_alone(filters):
        return None
    start = filters.year_from
    end = filters.year_to
    low = f"{start:04d}" if start is not None and start > 0 else None
    high = f"{end + 1:04d}" if end is not None and 0 <= end < _LAST_YEAR else None
    if end is not None and end < 0:
        high = "0000"  # no date is before year 0
    return low, high


def dense_enough(total: int, in_range: int) -> bool:
    """Whether the games the filters choose (``total``) are common enough among the years'
    (``in_range``) for the walk to meet a page of them soon."""
    return total > 0 and total * DENSEST_SKIP >= in_range


async def dated_page(
    db: Any,
    select: str,
    clause: str,
    params: dict[str, Any],
    bounds: tuple[str | None, str | None],
    descending: bool,
    total: int,
    offset: int,
    rows: int,
) -> list[dict[str, Any]]:
    """The page of ``rows`` games from ``offset`` that ``select`` (``select ... from list``)
    with ``clause`` gives sorted by date (``clause``: the filters' WHERE clause with the year
    and the equalities kept off their indexes, ``games_list.where(indexed=False)``; ``params``
    its values), read along the index of dates within ``bounds`` (:func:`date_range`), then
    the undated games; ``total``: how many games the clause chooses."""
    direction = "desc" if descending else "asc"
    low, high = bounds
    dated = ["date >= :_date_from" if low is not None else "date is not null"]
    if high is not None:
        dated.append("date < :_date_before")
    named = {**params, "_date_from": low, "_date_before": high}
    undated_sql = f"{select}{clause} and date is null"
    undated = (await db.execute(f"select count(*) from ({undated_sql})", named)).rows[0][0]
    parts = [
        (
            f"{select}{clause} and {' and '.join(dated)} order by date {direction}, "
            f"rowid {direction}",
            total - undated,
        ),
        (f"{undated_sql} order by rowid {direction}", undated),
    ]
    if not descending:
        parts.reverse()  # unknown dates sort lowest
    found: list[dict[str, Any]] = []
    skip = offset
    for sql, count in parts:
        if skip >= count:
            skip -= count
            continue
        result = await db.execute(f"{sql} limit {rows - len(found)} offset {skip}", named)
        found += [dict(row) for row in result.rows]
        skip = 0
        if len(found) >= rows:
            break
    return found
