"""The games list made for people: eight columns, filters, sorts and pages that never fail.

``/DB/-/games`` reads ``game_list``, the narrow copy of ``games`` the archive keeps by triggers
(schema version 3; an older archive served as it is falls back to ``games`` itself, which has
the same columns). Every parameter is checked against a fixed list: an unknown sort is the
default sort, a page past the end is the last page, a filter that is not a number where one is
wanted is ignored, so no address a visitor can type gives a 500 (docs/browse.md, Games list).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from datasette.utils.asgi import Response

from ..numerals import ascii_int
from ..rules import RULESET_NAMES
from .drawing import CELL_WIDTH
from .list_rows import date_range, dated_page, dense_enough, years_alone
from .names import game_label, spell_players
from .position_lookup import spec_key, stored_key
from .shared import checked_archive, footer_metadata, kept
from .urls import board_prefix, game_url, games_list_url, player_url, position_url, table_url

#: games a page of the list
LIST_ROWS = 50
#: the width of a row's thumbnail (the final position; larger on hover)
THUMB_WIDTH = CELL_WIDTH
#: the columns a visitor may sort by, and the SQL of each (the row's rowid breaks ties, so
#: that a page holds the same games however often it is asked for)
SORTS: dict[str, str] = {
    "date": "date",
    "event": "event",
    "white": "white",
    "black": "black",
    "result": "result",
    "rules": "rules",
    "plies": "plies",
    "status": "status",
}
DEFAULT_SORT = "-date"
#: the filters with a fixed set of values, whose counts the list shows beside them
COUNTED = ("rules", "status", "result")
#: the text filters compared for equality
EXACT = ("rules", "status", "result")


@dataclass
class Filters:
    """A visitor's filters, each already checked: what the SQL and the links are made of."""

    player: int | None = None
    event: int | None = None
    source: int | None = None
    import_: int | None = None
    year_from: int | None = None
    year_to: int | None = None
    rules: str | None = None
    status: str | None = None
    result: str | None = None
    #: a named ruleset every play of the game fits (game_rules, schema version 10)
    consistent: str | None = None
    q: str | None = None
    sort: str = DEFAULT_SORT
    page: int = 1
    notes: list[str] = field(default_factory=list)

    def params(self, **changes: Any) -> dict[str, str]:
        """The query string of these filters (with ``changes``), defaults left out."""
        values: dict[str, Any] = {
            "q": self.q,
            "player": self.player,
            "event": self.event,
            "source": self.source,
            "import": self.import_,
            "year_from": self.year_from,
            "year_to": self.year_to,
            "rules": self.rules,
            "status": self.status,
            "result": self.result,
            "consistent": self.consistent,
            "sort": None if self.sort == DEFAULT_SORT else self.sort,
            "page": None if self.page == 1 else self.page,
        }
        values.update(changes)
        return {key: str(value) for key, value in values.items() if value not in (None, "")}


def _int(text: str | None, name: str, notes: list[str]) -> int | None:
    """A whole number, or None (with a note the page shows) when ``text`` is not one."""
    if text is None or text.strip() == "":
        return None
    value = ascii_int(text.strip(), signed=True)
    if value is None:
        notes.append(f"{name} must be a whole number: {text[:40]!r} ignored")
        return None
    if abs(value) > 2**62:
        notes.append(f"{name} is out of range: ignored")
        return None
    return value


def read_filters(args: Any) -> Filters:
    """The filters of a request's query string, checked; never raises."""
    notes: list[str] = []
    filters = Filters(notes=notes)
    filters.player = _int(args.get("player"), "player", notes)
    filters.event = _int(args.get("event"), "event", notes)
    filters.source = _int(args.get("source"), "source", notes)
    filters.import_ = _int(args.get("import"), "import", notes)
    filters.year_from = _int(args.get("year_from"), "year from", notes)
    filters.year_to = _int(args.get("year_to"), "year to", notes)
    for name in EXACT:
        value = (args.get(name) or "").strip()
        setattr(filters, name, value[:100] or None)
    consistent = (args.get("consistent") or "").strip().lower()
    if consistent in RULESET_NAMES:
        filters.consistent = consistent
    elif consistent:
        notes.append(f"consistent with: {consistent[:40]!r} is not a named ruleset: ignored")
    q = (args.get("q") or "").strip()
    filters.q = q[:200] or None
    sort = args.get("sort") or DEFAULT_SORT
    if sort.lstrip("-") not in SORTS:
        notes.append(f"cannot sort by {sort[:40]!r}: sorted by date instead")
        sort = DEFAULT_SORT
    filters.sort = sort
    page = _int(args.get("page"), "page", notes)
    filters.page = max(1, page or 1)
    return filters


def _fts_query(text: str) -> str:
    """A visitor's words as an FTS5 query of quoted terms (no FTS syntax error possible)."""
    words = [word.replace('"', "") for word in text.split()]
    return " ".join(f'"{word}"' for word in words if word)


def where(
    filters: Filters, *, exact: bool = True, indexed: bool = True
) -> tuple[str, dict[str, Any]]:
    """The WHERE clause of ``filters`` (without the exact ones unless ``exact``: the counts
    group by those, see :func:`tally`); ``indexed=False`` keeps the year and the exact ones off
    their indexes (``+year``: :mod:`.list_rows` walks the dates' instead)."""
    clauses: list[str] = []
    params: dict[str, Any] = {}
    plain = "" if indexed else "+"
    if filters.player is not None:
        clauses.append("(white_id = :player or black_id = :player)")
        params["player"] = filters.player
    for name, column in (("event", "event_id"), ("source", "source_id"), ("import_", "import_id")):
        value = getattr(filters, name)
        if value is not None:
            clauses.append(f"{column} = :{name}")
            params[name] = value
    if filters.year_from is not None:
        clauses.append(f"{plain}year >= :year_from")
        params["year_from"] = filters.year_from
    if filters.year_to is not None:
        clauses.append(f"{plain}year <= :year_to")
        params["year_to"] = filters.year_to
    for name in EXACT:
        value = getattr(filters, name)
        if value is not None and exact:
            clauses.append(f"{plain}{name} = :{name}")
            params[name] = value
    if filters.consistent is not None:
        # a range of game_rules' key: the games consistent with one ruleset, read by index
        clauses.append("id in (select game_id from game_rules where rules = :consistent)")
        params["consistent"] = filters.consistent
    if filters.q:
        query = _fts_query(filters.q)
        if query:
            clauses.append(
                "id in (select id from games where rowid in "
                "(select rowid from games_fts where games_fts match :q))"
            )
            params["q"] = query
    return (" where " + " and ".join(clauses)) if clauses else "", params


def _matches(row: dict[str, Any], filters: Filters, skip: str | None) -> bool:
    """Whether a group of :func:`tally` passes every exact filter but ``skip``."""
    return all(
        getattr(filters, name) is None or row[name] == getattr(filters, name)
        for name in EXACT
        if name != skip
    )


def tally(groups: list[dict[str, Any]], filters: Filters) -> dict[str, list[tuple[Any, int]]]:
    """Each counted filter's values with their games, counting the games that match every
    other filter (choosing ``status=invalid`` still shows how many are valid), most first."""
    result: dict[str, list[tuple[Any, int]]] = {}
    for column in COUNTED:
        sums: dict[Any, int] = {}
        for row in groups:
            if row[column] not in (None, "") and _matches(row, filters, column):
                sums[row[column]] = sums.get(row[column], 0) + row["n"]
        result[column] = sorted(sums.items(), key=lambda item: (-item[1], str(item[0])))[:30]
    return result


def order_by(sort: str) -> str:
    column = SORTS[sort.lstrip("-")]
    direction = "desc" if sort.startswith("-") else "asc"
    # unknown values (NULL) sort lowest, as in SQLite and Datasette: first ascending, last
    # descending; either way the sort walks the column's index (game_list.GAME_LIST_INDEXES)
    return f"{column} {direction}, rowid {direction}"


async def kept_rows(db: Any, sql: str, params: dict[str, Any]) -> list[dict[str, Any]]:
    """The rows of a counting query, kept until the archive's file changes (:func:`.shared.kept`).

    Counts over every game (the list's total, each filter's counts, the home page's summary)
    cost tens of milliseconds on a large archive and change only when an import commits.
    """

    async def answer() -> list[dict[str, Any]]:
        result = await db.execute(sql, params)
        return [dict(row) for row in result.rows]

    return await kept(db, ("rows", sql, tuple(sorted(params.items()))), answer)


async def list_source(db: Any) -> str:
    """``game_list`` where the archive has it (version 3), else ``games`` (same columns)."""
    return "game_list" if await db.table_exists("game_list") else "games"


async def _names(db: Any, table: str, ident: int | None) -> str | None:
    if ident is None:
        return None
    rows = await db.execute(f"select name from {table} where id = ?", [ident])
    return str(rows.rows[0][0]) if rows.rows else f"#{ident} (none)"


def _counts(
    datasette: Any, name: str, groups: list[dict[str, Any]], filters: Filters
) -> dict[str, list[dict[str, Any]]]:
    """Each counted filter's values with their games and the link that chooses each."""
    counts: dict[str, list[dict[str, Any]]] = {}
    for column, tallied in tally(groups, filters).items():
        counts[column] = [
            {
                "value": value,
                "n": n,
                "url": games_list_url(
                    datasette, name, filters.params(**{column: value, "page": None})
                ),
                "chosen": value == getattr(filters, column),
            }
            for value, n in tallied
        ]
    return counts


def _headers(link: Callable[..., str], sort: str) -> list[dict[str, str]]:
    """The list's column headers, each a link sorting by it (again: the other way round)."""
    headers = []
    for column in ("date", "event", "white", "black", "result", "rules", "plies", "status"):
        current = sort.lstrip("-") == column
        descending = sort.startswith("-")
        # a second click on the sorted column turns the order round
        target = (column if descending else f"-{column}") if current else column
        headers.append(
            {
                "column": column,
                "url": link(sort=target, page=None),
                "arrow": ("▼" if descending else "▲") if current else "",
            }
        )
    return headers


async def _keep_consistent(db: Any, filters: Filters) -> None:
    """The ``consistent`` filter dropped, with a note, on an archive without ``game_rules``
    (older than schema version 10, served as it is)."""
    if filters.consistent is not None and not await db.table_exists("game_rules"):
        filters.notes.append(
            "this archive does not keep the rulesets its games are consistent with "
            "(schema version 10; jacquet archive --rebuild): shown without that filter"
        )
        filters.consistent = None


async def _position_searched(datasette: Any, db: Any, name: str, q: str) -> Response | None:
    """The search box given a position's key, gnubg ID or XGID that a game reached: its page
    (else None, and the words are searched as ever: a name may look like an ID)."""
    key = spec_key(q)
    if key is None or not await stored_key(db, key):
        return None
    return Response.redirect(position_url(datasette, name, key))


async def _counted(
    db: Any, source: str, filters: Filters, with_counts: bool
) -> tuple[int, list[dict[str, Any]]]:
    """How many games the filters choose, and (``with_counts``) the groups every filter's
    counts are read from; a search the FTS index cannot take is noted and counts nothing."""
    clause, params = where(filters)
    try:
        if not with_counts:
            rows = await kept_rows(db, f"select count(*) as n from {source}{clause}", params)
            return rows[0]["n"], []
        # one pass for the total and every filter's counts: the games matching all but the
        # exact filters, grouped by those (a few hundred groups at most); within a range of
        # years, by the year first, the counts' index's order, so that SQLite adds up as it
        # walks the range rather than sorting it (the groups are added up all the same)
        loose, loose_params = where(filters, exact=False)
        columns = ", ".join(("year", *COUNTED) if years_alone(filters) else COUNTED)
        groups = await kept_rows(
            db,
            f"select {columns}, count(*) as n from {source}{loose} group by {columns}",
            loose_params,
        )
        return sum(row["n"] for row in groups if _matches(row, filters, None)), groups
    except sqlite3.OperationalError as error:
        # a search the FTS index cannot take, say: the list says so and shows no games
        filters.notes.append(f"the search could not be run: {error}")
        return 0, []


async def _in_years(db: Any, source: str, filters: Filters, groups: list[dict[str, Any]]) -> int:
    """The games of the filters' range of years (every other filter left out): the counts'
    groups add up to it where they were read, else one range of the years' index, kept."""
    if groups:
        return sum(row["n"] for row in groups)
    years = Filters(year_from=filters.year_from, year_to=filters.year_to)
    clause, params = where(years)
    rows = await kept_rows(db, f"select count(*) as n from {source}{clause}", params)
    return int(rows[0]["n"])


async def games_list_view(datasette: Any, request: Any) -> Response:
    """``/DB/-/games``: a page of the games the filters choose, sorted, with their counts."""
    db, name = await checked_archive(datasette, request, ("games",))
    found = await _position_searched(datasette, db, name, request.args.get("q", ""))
    if found is not None:
        return found
    source = await list_source(db)
    filters = read_filters(request.args)
    await _keep_consistent(db, filters)
    clause, params = where(filters)
    with_counts = request.args.get("counts", "1") != "0"
    total, groups = await _counted(db, source, filters, with_counts)
    pages = max(1, (total + LIST_ROWS - 1) // LIST_ROWS)
    if filters.page > pages:
        filters.notes.append(f"there are {pages} pages: showing the last")
        filters.page = pages
    games: list[dict[str, Any]] = []
    select = (
        "select id, date, event, event_id, white, white_id, black, black_id, result, "
        f"rules, plies, status, final_key from {source}"
    )
    offset = (filters.page - 1) * LIST_ROWS
    bounds = date_range(filters) if total else None
    if bounds is not None and dense_enough(total, await _in_years(db, source, filters, groups)):
        descending = filters.sort.startswith("-")
        unindexed, _ = where(filters, indexed=False)
        games = await dated_page(
            db, select, unindexed, params, bounds, descending, total, offset, LIST_ROWS
        )
    elif total:
        result = await db.execute(
            f"{select}{clause} order by {order_by(filters.sort)} limit {LIST_ROWS} offset :offset",
            {**params, "offset": offset},
        )
        games = [dict(row) for row in result.rows]
    if games:
        await spell_players(db, games)
    prefix = board_prefix(datasette)
    for game in games:
        game["url"] = game_url(datasette, name, game["id"])
        game["label"] = game_label(game)
        game["white_url"] = (
            player_url(datasette, name, game["white_id"]) if game["white_id"] else None
        )
        game["black_url"] = (
            player_url(datasette, name, game["black_id"]) if game["black_id"] else None
        )
        game["event_url"] = (
            games_list_url(datasette, name, {"event": game["event_id"]})
            if game["event_id"]
            else None
        )
        game["thumb"] = (
            f"{prefix}{game['final_key']}.svg?width={THUMB_WIDTH}" if game["final_key"] else None
        )
    counts = _counts(datasette, name, groups, filters) if with_counts else {}
    here = filters.params()

    def link(**changes: Any) -> str:
        return games_list_url(datasette, name, filters.params(**changes))

    headers = _headers(link, filters.sort)
    context = {
        "metadata": footer_metadata(datasette, name),
        "database": name,
        "filters": filters,
        "here": here,
        "games": games,
        "total": total,
        "pages": pages,
        "headers": headers,
        "counts": counts,
        "player_name": await _names(db, "players", filters.player),
        "event_name": await _names(db, "events", filters.event),
        "source_name": await _names(db, "sources", filters.source),
        "first_url": link(page=None) if filters.page > 1 else None,
        "previous_url": link(page=filters.page - 1 if filters.page > 2 else None)
        if filters.page > 1
        else None,
        "next_url": link(page=filters.page + 1) if filters.page < pages else None,
        "last_url": link(page=pages) if filters.page < pages else None,
        "clear_url": games_list_url(datasette, name, {}),
        "remove_urls": {
            key: link(**{key: None, "page": None}) for key in here if key not in ("sort", "page")
        },
        "all_columns_url": table_url(datasette, name, "games"),
        "action": games_list_url(datasette, name, {}),
        "thumb_width": THUMB_WIDTH,
        "ruleset_names": RULESET_NAMES,
    }
    return Response.html(
        await datasette.render_template("jacquet/games.html", context, request=request)
    )
