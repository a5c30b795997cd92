"""The collection's pages: an event (its games and a crosstable) and a source (a book or a
collection, its games in the order they were written down).

Historians and clubs think of an archive as tournaments and books rather than rows; these pages
read the ``events``, ``sources`` and ``games`` tables by SQL, as the other pages do.
"""

from __future__ import annotations

import sqlite3
from collections import defaultdict
from typing import Any

from datasette.utils.asgi import Response
from markupsafe import Markup, escape

from ..position import SIDES
from ..wording import plural
from .citations import PAGE_FIELD, PAGE_ORDER, source_citation
from .names import game_label, spell_players
from .shared import (
    PAGE_ROWS,
    checked_archive,
    footer_metadata,
    one_row,
    page_links,
    page_number,
    query_rows,
    url_row_id,
)
from .urls import event_url, game_url, match_url, optional_url, player_url, source_url

#: players shown in a crosstable: past this many, the ones with the most points
CROSSTABLE_PLAYERS = 40

_GAME_FIELDS = (
    "games.id, games.date, games.round, games.white, games.black, games.white_id, "
    "games.black_id, games.result, games.winner, games.points, games.plies, games.rules, "
    "games.status, games.event_id, games.source_id, games.game_index, events.name as event_name"
)


async def _named_row(db: Any, request: Any, database: str, table: str, what: str) -> dict[str, Any]:
    """The event or source the URL names (its id and name); 404 when there is none."""
    row_id = url_row_id(request.url_vars["row_id"], database, what)
    return await one_row(db, f"select id, name from {table} where id = ?", row_id, what, database)


def _link_games(datasette: Any, name: str, games: list[dict[str, Any]]) -> None:
    """Each listed game's links: the game (by its players and result), its players, its event."""
    for game in games:
        game["url"] = game_url(datasette, name, game["id"])
        game["label"] = game_label(game)
        for side in ("white", "black"):
            game[f"{side}_url"] = optional_url(player_url, datasette, name, game[f"{side}_id"])
        game["event_url"] = optional_url(event_url, datasette, name, game["event_id"])
        game["invalid"] = game["status"] != "valid"


def _cells_html(row: dict[str, Any], players: list[dict[str, Any]], unit: str = "game") -> Markup:
    """A crosstable row's cells, one per player shown (the row's own cell a dash): the points
    won over the games played (``unit`` "game"), or the matches won over the matches played
    (``unit`` "match", with the games' points in the cell's title).

    Drawn here rather than in the template: up to 40 x 40 cells took Jinja about 19 ms a page,
    which put the event page above Datasette's own plain table page at 100,000 games.
    """
    cells = []
    for col in players:
        cell = row["cells"].get(col["id"])
        own = col["id"] == row["id"]
        classes = "jacquet-cell-points self" if own else "jacquet-cell-points"
        if cell:
            played = cell["games"]
            title = f"{row['name']} v {col['name']}: {plural(played, unit)}, {cell['wins']} won"
            shown = cell["points"]
            if unit == "match":
                title += (
                    f", {plural(cell['points'], 'point')} in {plural(cell['game_count'], 'game')}"
                )
                shown = cell["wins"]
            cells.append(
                f'<td class="{classes}" title="{escape(title)}">'
                f"{escape(shown)}<small>/{escape(played)}</small></td>"
            )
        else:
            cells.append(f'<td class="{classes}">{"—" if own else ""}</td>')
    return Markup("".join(cells))


def crosstable(pairings: list[dict[str, Any]], by_wins: bool = False) -> list[dict[str, Any]]:
    """Players by points won (``by_wins``: by wins, then points), each with a cell per
    opponent: what they played (``games``: games, or a backgammon event's matches), the wins
    and the points the row's player won (and ``game_count``, the games, where given). Built
    from the rows grouped by (White, Black): a player's totals are the sums of their row, so
    the table agrees with the games (or matches) it was read from."""
    players: dict[Any, dict[str, Any]] = {}

    def player(player_id: Any, name: Any) -> dict[str, Any]:
        entry = players.get(player_id)
        if entry is None:
            entry = players[player_id] = {
                "id": player_id,
                "name": name if name not in (None, "") else "?",
                "cells": {},
                "games": 0,
                "wins": 0,
                "losses": 0,
                "points_won": 0,
                "points_lost": 0,
                "game_count": 0,
            }
        return entry

    for row in pairings:
        white = player(row["white_id"], row["white"])
        black = player(row["black_id"], row["black"])
        for me, other, won, lost, won_points, lost_points in (
            (white, black, "white_wins", "black_wins", "white_points", "black_points"),
            (black, white, "black_wins", "white_wins", "black_points", "white_points"),
        ):
            cell = me["cells"].setdefault(
                other["id"], {"games": 0, "points": 0, "wins": 0, "game_count": 0}
            )
            cell["games"] += row["games"]
            cell["game_count"] += row.get("game_count") or 0
            me["game_count"] += row.get("game_count") or 0
            cell["wins"] += row[won] or 0
            cell["points"] += row[won_points] or 0
            me["games"] += row["games"]
            me["wins"] += row[won] or 0
            me["losses"] += row[lost] or 0
            me["points_won"] += row[won_points] or 0
            me["points_lost"] += row[lost_points] or 0
    ranked = sorted(
        players.values(),
        key=lambda p: (
            (-p["wins"], -p["points_won"]) if by_wins else (-p["points_won"], -p["wins"]),
            str(p["name"]).casefold(),
        ),
    )
    for entry in ranked:
        entry["unfinished"] = entry["games"] - entry["wins"] - entry["losses"]
    return ranked


def one_event(pairings: list[dict[str, Any]]) -> bool:
    """Whether an event's pairings are those of one tournament: two players at most, or at
    least half its players met two opponents or more. A round robin, a Swiss or a knockout's
    first half passes; a server's generic event name ("Online match": a few regular players,
    each against strangers, a star of one-off pairs) does not, and is listed as its matches
    rather than drawn as one crosstable of players who never met (docs/browse.md)."""
    opponents: dict[Any, set[Any]] = defaultdict(set)
    for row in pairings:
        opponents[row["white_id"]].add(row["black_id"])
        opponents[row["black_id"]].add(row["white_id"])
    if len(opponents) <= 2:
        return True
    return 2 * sum(len(met - {me}) >= 2 for me, met in opponents.items()) >= len(opponents)


#: an event's matches (a backgammon event): the matches whose games are the event's, found
#: through the games' import (indexed) and checked against each match's list of games; read
#: from ``game_list``, as the event's summary and pairings are (version 17: every column they
#: read is there), rows a tenth the size of ``games``
_EVENT_MATCHES = (
    "with event_matches as ("
    " select distinct m.id from game_list g join matches m on m.import_id = g.import_id"
    " where g.event_id = :id and g.id in (select value from json_each(m.games))"
    "), match_games as ("
    " select m.id, count(g.id) as game_count,"
    "  sum(case when (g.winner = 'white' and g.white_id is m.white_id)"
    "   or (g.winner = 'black' and g.black_id is m.white_id) then g.points else 0 end)"
    "   as white_points,"
    "  sum(case when (g.winner = 'white' and g.white_id is m.black_id)"
    "   or (g.winner = 'black' and g.black_id is m.black_id) then g.points else 0 end)"
    "   as black_points,"
    "  min(g.date) as date"
    " from event_matches e join matches m on m.id = e.id, json_each(m.games) j"
    " join game_list g on g.id = j.value group by m.id"
    ") "
)


async def _event_matches(db: Any, event_id: int) -> list[dict[str, Any]]:
    """The event's matches, each with its games' count and points per side and its first
    date; none when the event is not backgammon's or the archive has no ``matches`` (before
    version 4)."""
    try:
        return await query_rows(
            db,
            _EVENT_MATCHES + "select m.id, m.white_id, m.black_id, m.white, m.black, m.length, "
            "m.score_white, m.score_black, m.winner, m.status, m.site, p.game_count, "
            "p.white_points, p.black_points, p.date from match_games p "
            "join matches m on m.id = p.id order by p.date, m.id",
            {"id": event_id},
        )
    except sqlite3.Error:
        return []


def _match_pairings(matches: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The event's matches grouped by (White, Black) as ``crosstable`` reads them: the
    matches played and won by each side, the games and the games' points beside."""
    pairs: dict[tuple[Any, Any], dict[str, Any]] = {}
    for match in matches:
        pair = pairs.setdefault(
            (match["white_id"], match["black_id"]),
            {
                "white_id": match["white_id"],
                "black_id": match["black_id"],
                "white": match["white"],
                "black": match["black"],
                "games": 0,
                "white_wins": 0,
                "black_wins": 0,
                "white_points": 0,
                "black_points": 0,
                "game_count": 0,
            },
        )
        pair["games"] += 1
        pair["white_wins"] += match["winner"] == "white"
        pair["black_wins"] += match["winner"] == "black"
        pair["white_points"] += match["white_points"] or 0
        pair["black_points"] += match["black_points"] or 0
        pair["game_count"] += match["game_count"] or 0
    return list(pairs.values())


async def _listed_games(
    datasette: Any,
    request: Any,
    db: Any,
    name: str,
    column: str,
    row: dict[str, Any],
    order: str,
    here: str,
    fields: str = _GAME_FIELDS,
) -> dict[str, Any]:
    """What an event's and a source's pages share: a page of the games whose ``column``
    (``event_id`` or ``source_id``) is the ``row``'s id, in ``order``, each linked, with the
    links to the pages around it (at ``here``) and to Datasette's games table filtered alike."""
    page = page_number(request)
    games = await query_rows(
        db,
        f"select {fields} from games left join events on events.id = games.event_id "
        f"where games.{column} = :id order by {order} limit :limit offset :offset",
        {"id": row["id"], "limit": PAGE_ROWS + 1, "offset": page * PAGE_ROWS},
    )
    more = len(games) > PAGE_ROWS
    games = games[:PAGE_ROWS]
    await spell_players(db, games)
    _link_games(datasette, name, games)
    return {
        "metadata": footer_metadata(datasette, name),
        "database": name,
        "games": games,
        "first_number": page * PAGE_ROWS + 1,
        **page_links(here, page, more),
        "table_url": f"{datasette.urls.table(name, 'games')}?{column}={row['id']}",
    }


async def event_view(datasette: Any, request: Any) -> Response:
    db, name = await checked_archive(datasette, request, ("games", "events"))
    event = await _named_row(db, request, name, "events", "event")
    event_id = event["id"]
    summary = (
        await query_rows(
            db,
            "select count(*) as games, sum(status = 'valid') as valid, min(date) as first, "
            "max(date) as last, count(distinct source_id) as sources from game_list "
            "where event_id = ?",
            [event_id],
        )
    )[0]
    pairings = await query_rows(
        db,
        "select white_id, black_id, max(white) as white, max(black) as black, "
        "count(*) as games, sum(winner = 'white') as white_wins, "
        "sum(winner = 'black') as black_wins, "
        "sum(case when winner = 'white' then points else 0 end) as white_points, "
        "sum(case when winner = 'black' then points else 0 end) as black_points "
        "from game_list where event_id = ? group by white_id, black_id",
        [event_id],
    )
    # a backgammon event is scored in matches won, the games' points beside (Jacquet's in games)
    backgammon = (
        await query_rows(
            db,
            "select 1 from game_list where event_id = ? and rules = 'backgammon' limit 1",
            [event_id],
        )
    ) != []
    matches = await _event_matches(db, event_id) if backgammon else []
    unit = "match" if matches else "game"
    if matches:
        pairings = _match_pairings(matches)
    listed = matches if matches and not one_event(pairings) else []
    await spell_players(db, pairings)
    table = [] if listed else crosstable(pairings, by_wins=unit == "match")
    shown = table[:CROSSTABLE_PLAYERS]
    for entry in shown:
        entry["url"] = optional_url(player_url, datasette, name, entry["id"])
    for entry in shown:
        entry["cells_html"] = _cells_html(entry, shown, unit)
    await spell_players(db, listed)
    for match in listed:
        match["url"] = match_url(datasette, name, match["id"])
        for side in ("white", "black"):
            match[f"{side}_url"] = optional_url(player_url, datasette, name, match[f"{side}_id"])
        match["winner_name"] = match[match["winner"]] if match["winner"] in SIDES else ""
    # in the event's order: by date and round, then as imported
    order = (
        "games.date, cast(games.round as integer), games.round, games.import_id, "
        "games.game_index, games.id"
    )
    here = event_url(datasette, name, event_id)
    context = {
        **await _listed_games(datasette, request, db, name, "event_id", event, order, here),
        "event": event,
        "summary": summary,
        "players": shown,
        "players_left_out": len(table) - len(shown),
        "unit": unit,
        "matches": listed,
        "pairs": len({frozenset((m["white_id"], m["black_id"])) for m in listed}),
    }
    return Response.html(
        await datasette.render_template("jacquet/event.html", context, request=request)
    )


async def source_view(datasette: Any, request: Any) -> Response:
    db, name = await checked_archive(datasette, request, ("games", "sources"))
    source = await _named_row(db, request, name, "sources", "source")
    summary = (
        await query_rows(
            db,
            "select count(*) as games, sum(status = 'valid') as valid, min(date) as first, "
            "max(date) as last from game_list where source_id = ?",
            [source["id"]],
        )
    )[0]
    # in the order the source gives them: by page or plate, then the order of import and file
    here = source_url(datasette, name, source["id"])
    fields = f"{_GAME_FIELDS}, {PAGE_FIELD}"
    context = {
        **await _listed_games(
            datasette, request, db, name, "source_id", source, PAGE_ORDER, here, fields
        ),
        "source": source,
        "cited": await source_citation(db, source["id"]),
        "summary": summary,
    }
    return Response.html(
        await datasette.render_template("jacquet/source.html", context, request=request)
    )
