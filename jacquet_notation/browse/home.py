"""The archive's home page: what it holds, a search box, the latest games, the imports.

Served at ``/`` (``jacquet serve`` serves one archive, and ``/`` is the archive) and at
``/DB/-/home``. Every figure is a link into the games list filtered to it. The counts read the
narrow ``game_list`` (or ``games`` on an older archive) and are kept until the file changes
(:func:`.games_list.kept_rows`), so a visit costs a few indexed lookups.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from datasette.utils.asgi import NotFound, Request, Response

from .citations import cite_sources
from .games_list import THUMB_WIDTH, kept_rows, list_source
from .metadata import DEFAULT_TITLE
from .names import spell_players
from .pictures import home_charts
from .shared import checked_archive, footer_metadata
from .urls import (
    board_prefix,
    event_url,
    game_url,
    games_list_url,
    player_url,
    source_url,
    table_url,
)

#: the latest games shown, the imports listed, the errors of each import shown
RECENT_GAMES = 8
RECENT_IMPORTS = 10
IMPORT_ERRORS = 5
#: names listed under players, events and sources (the most games first)
TOP_NAMES = 12


def _title(given: str | None, rulesets: list[dict[str, Any]]) -> str:
    """The home's title: the metadata's when someone gave one, else by what the archive holds:
    backgammon, the Jacquet family (every other ruleset), both, or a neutral one while it holds
    no game."""
    if given and given != DEFAULT_TITLE:
        return given
    held = {row["value"] for row in rulesets if row["value"] and row["n"]}
    backgammon, jacquet = "backgammon" in held, bool(held - {"backgammon"})
    if backgammon and jacquet:
        return "Jacquet and backgammon archive"
    if backgammon:
        return "Backgammon archive"
    return "Jacquet archive" if jacquet else "Game archive"


async def top_names(
    db: Any, source: str, column: str, table: str, limit: int = TOP_NAMES
) -> list[dict[str, Any]]:
    """The names of ``table`` with the most games (through ``column`` of the list; a player
    counts as White and as Black).

    Each column is counted by walking its own index (``group by`` on an indexed column) and a
    player's two counts are added afterwards: a union of both columns grouped at once sorts
    every game twice over, about 7 times slower (minutes at a million games, cold).
    """
    counted = ("white_id", "black_id") if column == "player" else (column,)
    rows = " union all ".join(
        f"select {one} as ref, count(*) as n from {source} where {one} is not null group by {one}"
        for one in counted
    )
    return await kept_rows(
        db,
        f"select c.ref as id, t.name as name, c.n as n from "
        f"(select ref, sum(n) as n from ({rows}) group by ref order by n desc limit {limit}) c "
        f"join {table} t on t.id = c.ref order by c.n desc, t.name",
        {},
    )


async def home_view(datasette: Any, request: Any) -> Response:
    """``/``: the home of the one archive served (Datasette's index when there are several)."""
    names = [
        name
        for name, database in datasette.databases.items()
        if name != "_internal" and database.path is not None
    ]
    if len(names) != 1:
        raise NotFound("several databases: open one of them")  # never so under jacquet serve
    route = datasette.databases[names[0]].route
    scope = dict(request.scope, url_route={"kwargs": {"database": route}})
    return await archive_home_view(datasette, Request(scope, request.receive))


async def archive_home_view(datasette: Any, request: Any) -> Response:
    """An archive's home: its games counted by status, rules and decade, the players, events
    and sources with most games, the games and imports added last."""
    db, name = await checked_archive(datasette, request, ("games",))
    source = await list_source(db)

    def games(**params: Any) -> str:
        return games_list_url(datasette, name, params)

    status = {
        row["status"]: row["n"]
        for row in await kept_rows(
            db, f"select status, count(*) as n from {source} group by status", {}
        )
    }
    total = sum(status.values())
    counted = {
        table: (await kept_rows(db, f"select count(*) as n from {table}", {}))[0]["n"]
        for table in ("players", "events", "sources", "imports")
    }
    rulesets = await kept_rows(
        db,
        f"select rules as value, count(*) as n from {source} group by rules order by n desc",
        {},
    )
    try:
        counted["matches"] = (await kept_rows(db, "select count(*) as n from matches", {}))[0]["n"]
    except sqlite3.Error:  # an archive from before version 4 has no matches table
        counted["matches"] = 0
    years = (
        await kept_rows(
            db,
            f"select min(year) as first, max(year) as last from {source} where year is not null",
            {},
        )
    )[0]
    per_year = await kept_rows(
        db,
        f"select year, count(*) as n from {source} where year is not null "
        "group by year order by year",
        {},
    )
    decades = decades_of(per_year)
    players = await top_names(db, source, "player", "players")
    events = await top_names(db, source, "event_id", "events")
    sources = await top_names(db, source, "source_id", "sources")
    sources = await cite_sources(db, sources, kept_rows)
    recent = await _recent_games(datasette, db, name, source)
    imports = await _recent_imports(datasette, db, name)
    context = {
        "metadata": footer_metadata(datasette, name),
        "title": _title(datasette.metadata("title", database=name), rulesets),
        "database": name,
        "total": total,
        "status": [
            {"label": label, "n": status.get(label, 0), "url": games(status=label)}
            for label in ("valid", "invalid", "unreadable")
        ],
        "counted": counted,
        "rulesets": [{**row, "url": games(rules=row["value"])} for row in rulesets],
        "years": years,
        "decades": [
            {**row, "url": games(year_from=row["decade"], year_to=row["decade"] + 9)}
            for row in decades
        ],
        "players": [{**row, "url": games(player=row["id"])} for row in players],
        "events": [
            {**row, "url": games(event=row["id"]), "page": event_url(datasette, name, row["id"])}
            for row in events
        ],
        "sources": [
            {**row, "url": games(source=row["id"]), "page": source_url(datasette, name, row["id"])}
            for row in sources
        ],
        "recent": recent,
        "imports": imports,
        "all_games_url": games(),
        "search_url": games(),
        "players_url": table_url(datasette, name, "players"),
        "events_url": table_url(datasette, name, "events"),
        "sources_url": table_url(datasette, name, "sources"),
        "imports_url": table_url(datasette, name, "imports"),
        "matches_url": table_url(datasette, name, "matches"),
        "database_url": str(datasette.urls.database(name)),
        "thumb_width": THUMB_WIDTH,
        "charts": home_charts(per_year, rulesets),
    }
    return Response.html(
        await datasette.render_template("jacquet/home.html", context, request=request)
    )


def decades_of(per_year: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The games of each decade, added up from the years' counts (the year's index answers
    those in order; grouping by an expression of the year would sort every game again)."""
    decades: dict[int, int] = {}
    for row in per_year:
        decade = row["year"] // 10 * 10
        decades[decade] = decades.get(decade, 0) + row["n"]
    return [{"decade": decade, "n": n} for decade, n in decades.items()]


async def _recent_games(datasette: Any, db: Any, name: str, source: str) -> list[dict[str, Any]]:
    """The games imported last, each with its thumbnail and its players' links."""
    recent = [
        dict(row)
        for row in (
            await db.execute(
                f"select id, date, event, white, white_id, black, black_id, result, rules, "
                f"plies, status, final_key from {source} order by rowid desc "
                f"limit {RECENT_GAMES}"
            )
        ).rows
    ]
    await spell_players(db, recent)
    prefix = board_prefix(datasette)
    for game in recent:
        game["url"] = game_url(datasette, name, game["id"])
        game["thumb"] = (
            f"{prefix}{game['final_key']}.svg?width={THUMB_WIDTH}" if game["final_key"] else None
        )
        for side in ("white", "black"):
            ident = game[f"{side}_id"]
            game[f"{side}_url"] = player_url(datasette, name, ident) if ident else None
    return recent


async def _recent_imports(datasette: Any, db: Any, name: str) -> list[dict[str, Any]]:
    """The last imports, each with links to its games and the first of its errors."""

    def games(**params: Any) -> str:
        return games_list_url(datasette, name, params)

    imports = [
        dict(row)
        for row in (
            await db.execute(
                "select id, path, started, finished, games, valid, invalid, unreadable, "
                f"new_games, status, error from imports order by id desc limit {RECENT_IMPORTS}"
            )
        ).rows
    ]
    for item in imports:
        item["url"] = games(**{"import": item["id"]})
        item["problems_url"] = games(**{"import": item["id"], "status": "invalid"})
        item["unreadable_url"] = games(**{"import": item["id"], "status": "unreadable"})
        item["errors"] = []
        if (item["invalid"] or 0) + (item["unreadable"] or 0):
            item["errors"] = [
                {**dict(row), "url": game_url(datasette, name, row["id"])}
                for row in (
                    await db.execute(
                        "select id, line, error from games where import_id = ? "
                        "and status != 'valid' order by game_index "
                        f"limit {IMPORT_ERRORS}",
                        [item["id"]],
                    )
                ).rows
            ]
    return imports
