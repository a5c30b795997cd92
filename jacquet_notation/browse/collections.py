"""The collection's pages: an event (its games and a crosstable) and a source (a book or a
collection, its games in the order they were written down).

Historians and clubs think of an archive as tournaments and books rather than rows; these pages
read the ``events``, ``sources`` and ``games`` tables by SQL, as the other pages do.
"""

from __future__ import annotations

from typing import Any

from datasette.utils.asgi import Response
from markupsafe import Markup, escape

from ..wording import plural
from .names import game_label, spell_players
from .pages import PAGE_ROWS, _archive, _footer, _one_row, _page, _page_links, _row_id, _rows
from .urls import event_url, game_url, optional_url, player_url, source_url

#: players shown in a crosstable: past this many, the ones with the most points
CROSSTABLE_PLAYERS = 40

_GAME_FIELDS = (
    "games.id, games.date, games.round, games.white, games.black, games.white_id, "
    "games.black_id, games.result, games.winner, games.points, games.plies, games.rules, "
    "games.status, games.event_id, games.source_id, games.game_index, events.name as event_name"
)


async def _named_row(db: Any, request: Any, database: str, table: str, what: str) -> dict[str, Any]:
    """The event or source the URL names (its id and name); 404 when there is none."""
    row_id = _row_id(request.url_vars["row_id"], database, what)
    return await _one_row(db, f"select id, name from {table} where id = ?", row_id, what, database)


def _link_games(datasette: Any, name: str, games: list[dict[str, Any]]) -> None:
    """Each listed game's links: the game (by its players and result), its players, its event."""
    for game in games:
        game["url"] = game_url(datasette, name, game["id"])
        game["label"] = game_label(game)
        for side in ("white", "black"):
            game[f"{side}_url"] = optional_url(player_url, datasette, name, game[f"{side}_id"])
        game["event_url"] = optional_url(event_url, datasette, name, game["event_id"])
        game["invalid"] = game["status"] != "valid"


def _cells_html(row: dict[str, Any], players: list[dict[str, Any]]) -> Markup:
    """A crosstable row's cells, one per player shown (the row's own cell a dash).

    Drawn here rather than in the template: up to 40 x 40 cells took Jinja about 19 ms a page,
    which put the event page above Datasette's own plain table page at 100,000 games.
    """
    cells = []
    for col in players:
        cell = row["cells"].get(col["id"])
        own = col["id"] == row["id"]
        classes = "jacquet-cell-points self" if own else "jacquet-cell-points"
        if cell:
            games = cell["games"]
            title = f"{row['name']} v {col['name']}: {plural(games, 'game')}, {cell['wins']} won"
            cells.append(
                f'<td class="{classes}" title="{escape(title)}">'
                f"{escape(cell['points'])}<small>/{escape(games)}</small></td>"
            )
        else:
            cells.append(f'<td class="{classes}">{"—" if own else ""}</td>')
    return Markup("".join(cells))


def crosstable(pairings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Players by points won, each with a cell per opponent: the games between them and the
    points the row's player won. Built from the games grouped by (White, Black): a player's
    totals are the sums of their row, so the table agrees with the games it was read from."""
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
            }
        return entry

    for row in pairings:
        white = player(row["white_id"], row["white"])
        black = player(row["black_id"], row["black"])
        for me, other, won, lost, won_points, lost_points in (
            (white, black, "white_wins", "black_wins", "white_points", "black_points"),
            (black, white, "black_wins", "white_wins", "black_points", "white_points"),
        ):
            cell = me["cells"].setdefault(other["id"], {"games": 0, "points": 0, "wins": 0})
            cell["games"] += row["games"]
            cell["wins"] += row[won] or 0
            cell["points"] += row[won_points] or 0
            me["games"] += row["games"]
            me["wins"] += row[won] or 0
            me["losses"] += row[lost] or 0
            me["points_won"] += row[won_points] or 0
            me["points_lost"] += row[lost_points] or 0
    ranked = sorted(
        players.values(),
        key=lambda p: (-p["points_won"], -p["wins"], str(p["name"]).casefold()),
    )
    for entry in ranked:
        entry["unfinished"] = entry["games"] - entry["wins"] - entry["losses"]
    return ranked


async def _listed_games(
    datasette: Any,
    request: Any,
    db: Any,
    name: str,
    column: str,
    row: dict[str, Any],
    order: str,
    here: str,
) -> dict[str, Any]:
    """What an event's and a source's pages share: a page of the games whose ``column``
    (``event_id`` or ``source_id``) is the ``row``'s id, in ``order``, each linked, with the
    links to the pages around it (at ``here``) and to Datasette's games table filtered alike."""
    page = _page(request)
    games = await _rows(
        db,
        f"select {_GAME_FIELDS} from games left join events on events.id = games.event_id "
        f"where games.{column} = :id order by {order} limit :limit offset :offset",
        {"id": row["id"], "limit": PAGE_ROWS + 1, "offset": page * PAGE_ROWS},
    )
    more = len(games) > PAGE_ROWS
    games = games[:PAGE_ROWS]
    await spell_players(db, games)
    _link_games(datasette, name, games)
    return {
        "metadata": _footer(datasette, name),
        "database": name,
        "games": games,
        "first_number": page * PAGE_ROWS + 1,
        **_page_links(here, page, more),
        "table_url": f"{datasette.urls.table(name, 'games')}?{column}={row['id']}",
    }


async def event_view(datasette: Any, request: Any) -> Response:
    db, name = await _archive(datasette, request, ("games", "events"))
    event = await _named_row(db, request, name, "events", "event")
    event_id = event["id"]
    summary = (
        await _rows(
            db,
            "select count(*) as games, sum(status = 'valid') as valid, min(date) as first, "
            "max(date) as last, count(distinct source_id) as sources from games "
            "where event_id = ?",
            [event_id],
        )
    )[0]
    pairings = await _rows(
        db,
        "select white_id, black_id, max(white) as white, max(black) as black, "
        "count(*) as games, sum(winner = 'white') as white_wins, "
        "sum(winner = 'black') as black_wins, "
        "sum(case when winner = 'white' then points else 0 end) as white_points, "
        "sum(case when winner = 'black' then points else 0 end) as black_points "
        "from games where event_id = ? group by white_id, black_id",
        [event_id],
    )
    await spell_players(db, pairings)
    table = crosstable(pairings)
    shown = table[:CROSSTABLE_PLAYERS]
    for entry in shown:
        entry["url"] = optional_url(player_url, datasette, name, entry["id"])
    for entry in shown:
        entry["cells_html"] = _cells_html(entry, shown)
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
    }
    return Response.html(
        await datasette.render_template("jacquet/event.html", context, request=request)
    )


async def source_view(datasette: Any, request: Any) -> Response:
    db, name = await _archive(datasette, request, ("games", "sources"))
    source = await _named_row(db, request, name, "sources", "source")
    summary = (
        await _rows(
            db,
            "select count(*) as games, sum(status = 'valid') as valid, min(date) as first, "
            "max(date) as last from games where source_id = ?",
            [source["id"]],
        )
    )[0]
    # in the order the source gives them: the order of import, then of the file
    order = "games.import_id, games.game_index, games.id"
    here = source_url(datasette, name, source["id"])
    context = {
        **await _listed_games(datasette, request, db, name, "source_id", source, order, here),
        "source": source,
        "summary": summary,
    }
    return Response.html(
        await datasette.render_template("jacquet/source.html", context, request=request)
    )
