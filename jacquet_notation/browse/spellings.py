"""A player's spellings (``jacquet players --merge``, docs/browse.md): every way his name was
written in the games of his id, with how many games and where each was used (events, sources).

The games keep their names as written; the player page lists them beside the one spelling
the other pages show (``players.name``).
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from .shared import query_rows
from .urls import event_url, source_url

#: the events and sources named for one spelling (the most games first); the rest are counted
PLACES_SHOWN = 5


async def player_spellings(
    datasette: Any, db: Any, name: str, player_id: int
) -> list[dict[str, Any]]:
    """Each spelling of the player's games, the most used first: ``spelling``, ``games``, the
    first and last ``year``, and its ``events`` and ``sources`` (at most
    :data:`PLACES_SHOWN` of each, as ``{name, url, games}``, with ``more_events`` and
    ``more_sources`` counting the rest). Read through each side's index, as the record is."""
    rows = await query_rows(
        db,
        # each side counted along its index of game_list (version 16: it holds these columns,
        # in this order), so no game's row is read and no side sorted, then the two added
        "select spelling, event_id, source_id, sum(games) as games, min(first) as first, "
        "max(last) as last from ("
        " select white as spelling, event_id, source_id, count(*) as games, min(year) as first,"
        " max(year) as last from game_list where white_id = :id"
        " group by white, event_id, source_id"
        " union all select black, event_id, source_id, count(*), min(year), max(year)"
        " from game_list where black_id = :id group by black, event_id, source_id"
        ") group by spelling, event_id, source_id",
        {"id": player_id},
    )
    spellings: dict[str, dict[str, Any]] = {}
    places: dict[str, dict[str, dict[int, int]]] = defaultdict(
        lambda: {"events": defaultdict(int), "sources": defaultdict(int)}
    )
    for row in rows:
        spelling = row["spelling"] or "?"
        entry = spellings.setdefault(
            spelling, {"spelling": spelling, "games": 0, "first": None, "last": None}
        )
        entry["games"] += row["games"]
        for bound, pick in (("first", min), ("last", max)):
            if row[bound] is not None:
                known = entry[bound]
                entry[bound] = row[bound] if known is None else pick(known, row[bound])
        for kind, column in (("events", "event_id"), ("sources", "source_id")):
            if row[column] is not None:
                places[spelling][kind][row[column]] += row["games"]
    ordered = sorted(spellings.values(), key=lambda s: (-s["games"], s["spelling"]))
    for kind, table, url in (("events", "events", event_url), ("sources", "sources", source_url)):
        wanted = {id_ for entry in ordered for id_ in _top(places[entry["spelling"]][kind])}
        named = await _names(db, table, wanted)
        for entry in ordered:
            counts = places[entry["spelling"]][kind]
            entry[kind] = [
                {
                    "name": named.get(id_, "?"),
                    "url": url(datasette, name, id_),
                    "games": counts[id_],
                }
                for id_ in _top(counts)
            ]
            entry[f"more_{kind}"] = max(0, len(counts) - PLACES_SHOWN)
    return ordered


def _top(counts: dict[int, int]) -> list[int]:
    """The ids of the places most used, at most :data:`PLACES_SHOWN`."""
    return sorted(counts, key=lambda id_: (-counts[id_], id_))[:PLACES_SHOWN]


async def _names(db: Any, table: str, ids: set[int]) -> dict[int, str]:
    """The names of ``ids`` in ``table`` (events or sources)."""
    if not ids:
        return {}
    wanted = sorted(ids)
    found = await query_rows(
        db, f"select id, name from {table} where id in ({', '.join('?' * len(wanted))})", wanted
    )
    return {row["id"]: row["name"] for row in found}
