"""Datasette plugin: board diagrams in table cells, and game, position and player pages.

Registered through the ``datasette`` entry point, so plain ``datasette archive.db`` shows it once
the package is installed; ``jacquet serve`` adds the project's metadata on top. Every text that
comes from a record reaches the page through Jinja's autoescaping or :func:`markupsafe.escape`;
the diagrams are built by lxml from a decoded position, never from record text.

Pages (``DB`` is the database's route, as in Datasette's own URLs):

- ``/DB/-/game/ID?ply=N``: tags, score sheet, a board stepping through the game;
- ``/DB/-/position/KEY``: the board, the plays made from it, the games reaching it;
- ``/DB/-/player/ID``: record, points, head-to-head, games;
- ``/-/jacquet/board/KEY.svg``: one diagram (what the game page's script fetches).
"""

from __future__ import annotations

import json
import re
import sqlite3
import weakref
from collections import OrderedDict
from collections.abc import Callable
from functools import cache, lru_cache
from pathlib import Path
from typing import Any, TypeVar, cast
from urllib.parse import quote

from datasette import hookimpl as _datasette_hookimpl
from datasette.database import QueryInterrupted
from datasette.utils import sqlite_timelimit
from datasette.utils.asgi import BadRequest, NotFound, Response
from datasette.views.base import DatasetteError
from jinja2 import ChoiceLoader, FileSystemLoader
from markupsafe import Markup, escape

from ..position import SIDES, Position
from ..svg import board_svg

TEMPLATES = Path(__file__).parent / "templates"
STATIC = Path(__file__).parent / "static"
#: the files under ``static/`` the plugin serves, with their content types
STATIC_FILES = {"jacquet.css": "text/css; charset=utf-8", "jacquet.js": "text/javascript"}

#: cell diagrams: small enough for a table row
CELL_WIDTH = 132

BOARD_WIDTH = 520
#: rows listed on a page before a "more" link to Datasette's own table or query
PAGE_ROWS = 50

#: (table, column) pairs holding position keys; table None is an arbitrary SQL query
_KEY_COLUMNS = {
    ("turns", "key_before"),
    ("turns", "key_after"),
    ("games", "final_key"),
    ("positions", "key"),
    (None, "key_before"),
    (None, "key_after"),
    (None, "final_key"),
    (None, "position_key"),
}
_DIE_FACES = "⚀⚁⚂⚃⚄⚅"
#: every column name render_cell may draw or link (see _cell_link)
_CELL_COLUMNS = frozenset(
    {column for _, column in _KEY_COLUMNS}
    | {"id", "game_id", "other_id", "plies", "white", "black", "white_id", "black_id"}
    | {"player_id", "opponent_id", "name", "player", "opponent", "turn"}
)

#: the longest string or blob any query may make or read, in bytes (SQLITE_LIMIT_LENGTH): a
#: hundred times the longest record of the corpus, and short enough that one call of a
#: quadratic function (``instr``, ``replace``) on two such values ends near the time limit
VALUE_LIMIT = 256 * 1024
#: the most bytes of values one query may hand back to Python (its rows, all columns)
QUERY_BYTES_LIMIT = 32 * 1024 * 1024
#: SQL functions a visitor's query may not call (see :func:`_authorize`)
DENIED_FUNCTIONS = frozenset({"fts3_tokenizer", "printf", "format"})
#: the largest integer SQLite stores: a larger id is no row of the archive
SQLITE_MAX_INT = 2**63 - 1
#: the highest ``?page=`` of the plugin's pages: its offset, doubled, stays within SQLite's int
MAX_PAGE = SQLITE_MAX_INT // (PAGE_ROWS * 4)

_F = TypeVar("_F", bound=Callable[..., Any])


def hookimpl(function: _F) -> _F:
    """Datasette's hook marker, typed for mypy."""
    return cast(_F, _datasette_hookimpl(function))


# -- diagrams ------------------------------------------------------------------------------------


@lru_cache(maxsize=16384)
def diagram(key: str, width: int = CELL_WIDTH) -> str | None:
    """The SVG diagram of a position key, or None if ``key`` is not one.

    Cached: a key always draws the same board, and table pages repeat the same positions.
    """
    if not key or len(key) > 32:
        return None
    try:
        position = Position.from_key(key)
    except (ValueError, IndexError):
        return None
    return board_svg(position, width=width, title=key)


@lru_cache(maxsize=65536)
def is_key(key: str) -> bool:
    """True when ``key`` decodes to a position (checked, not drawn)."""
    if not key or len(key) > 32:
        return False
    try:
        Position.from_key(key)
    except (ValueError, IndexError):
        return False
    return True


def dice_text(dice: str | None) -> str:
    """``6-5`` with die faces, as the pages show a roll."""
    if not dice:
        return ""
    faces = []
    for part in dice.split("-"):
        faces.append(_DIE_FACES[int(part) - 1] if part.isdigit() and 1 <= int(part) <= 6 else "")
    return f"{''.join(faces)} {dice}".strip()


# -- URLs ----------------------------------------------------------------------------------------


@lru_cache(maxsize=256)
def _database_path(datasette: Any, database: str) -> str:
    """The database's URL prefix; cached, as a table page asks for it in many cells."""
    return str(datasette.urls.database(database))


def game_url(datasette: Any, database: str, game_id: str, ply: int | None = None) -> str:
    url = f"{_database_path(datasette, database)}/-/game/{quote(str(game_id), safe='')}"
    return url if ply is None else f"{url}?ply={ply}"


def position_url(datasette: Any, database: str, key: str) -> str:
    return f"{_database_path(datasette, database)}/-/position/{quote(key, safe='')}"


def player_url(datasette: Any, database: str, player_id: int | str) -> str:
    return f"{_database_path(datasette, database)}/-/player/{quote(str(player_id), safe='')}"


# -- render_cell ---------------------------------------------------------------------------------


def _field(row: Any, name: str) -> Any:
    """A column of a row, or None when the row has no such column."""
    try:
        value = row[name]
    except (IndexError, KeyError, TypeError):
        return None
    if isinstance(value, dict):  # an expanded foreign key: {"value": ..., "label": ...}
        return value.get("value")
    return value


@hookimpl
def render_cell(
    row: Any, value: Any, column: str, table: str | None, database: str, datasette: Any
) -> Markup | None:
    """Diagrams for position keys; links to the game, position and player pages."""
    if column not in _CELL_COLUMNS:
        return None  # most cells: answered before anything else is looked at
    label: Any = value
    if isinstance(value, dict):
        label, value = value.get("label"), value.get("value")
    if value is None:
        return None
    if (table, column) in _KEY_COLUMNS and isinstance(value, str):
        return _diagram_cell(datasette, database, value)
    if table == "positions" and column == "turn":
        # The key is the primary key, which Datasette draws itself as a link to the row page
        # (no render_cell): the side to move carries the diagram instead.
        key = _field(row, "key")
        if isinstance(key, str):
            cell = _diagram_cell(datasette, database, key)
            if cell is not None:
                return Markup(
                    f'{cell}<br><span class="jacquet-turn">{escape(value)} to move</span>'
                )
        return None
    link = _cell_link(row, value, column, table, database, datasette)
    if link is None:
        return None
    href, text = link
    if label is not None and label != value and column.endswith("_id"):
        text = f"{label}"
    # f-strings over escaped parts: Markup.format costs more than the rest of the cell
    return Markup(f'<a class="jacquet-link" href="{escape(href)}">{escape(text)}</a>')


def _diagram_cell(datasette: Any, database: str, key: str) -> Markup | None:
    """A small diagram linking to the position page, the key as its alternative text.

    The drawing is an ``<img>`` of the board's SVG rather than the SVG itself: a table page
    of fifty positions then costs the server nothing per cell, and the browser fetches each
    drawing once (its URL never changes) and only when it scrolls into view.
    """
    if not is_key(key):
        return None
    # a key is [A-Za-z0-9_-] only (is_key decoded it): nothing in it to escape
    return Markup(
        f'<a class="jacquet-cell" href="{position_url(datasette, database, key)}" '
        f'title="{key}"><img src="{_board_prefix(datasette)}{key}.svg?width={CELL_WIDTH}" '
        f'alt="{key}" width="{CELL_WIDTH}" height="{_cell_height()}" loading="lazy"></a>'
    )


@lru_cache(maxsize=16)
def _board_prefix(datasette: Any) -> str:
    return str(datasette.urls.path("/-/jacquet/board/"))


@cache
def _cell_height() -> int:
    """The height of a cell's diagram: the drawing's own proportions at CELL_WIDTH."""
    start = diagram(Position.start().key(), CELL_WIDTH) or ""
    found = re.search(r'height="([0-9]+)"', start)
    return int(found.group(1)) if found else CELL_WIDTH


def _cell_link(
    row: Any, value: Any, column: str, table: str | None, database: str, datasette: Any
) -> tuple[str, str] | None:
    """Where a cell links to among the plugin's pages, and the text of the link."""
    if table in ("games", "invalid_games", None) and column in ("id", "game_id"):
        if table is None and column == "id":
            return None  # an arbitrary query's id is not a game's
        return game_url(datasette, database, str(value)), str(value)
    if table in ("occurrences", "duplicates") and column in ("game_id", "other_id"):
        return game_url(datasette, database, str(value)), str(value)
    if table == "turns" and column == "game_id":
        ply = _field(row, "ply")
        return game_url(datasette, database, str(value), ply), str(value)
    if table == "games" and column == "plies":
        return game_url(datasette, database, str(_field(row, "id")), 0), f"{value} ▶"
    if table == "games" and column in ("white", "black"):
        player_id = _field(row, f"{column}_id")
        if player_id is None:
            return None
        return player_url(datasette, database, player_id), str(value)
    if table in ("games", None) and column in ("white_id", "black_id", "player_id"):
        return player_url(datasette, database, value), str(value)
    if table == "players" and column == "name":
        return player_url(datasette, database, _field(row, "id")), str(value)
    if table in ("player_records", "head_to_head") and column in ("name", "player"):
        return player_url(datasette, database, _field(row, "player_id")), str(value)
    if table == "head_to_head" and column == "opponent":
        return player_url(datasette, database, _field(row, "opponent_id")), str(value)
    if table in ("player_records", "head_to_head") and column in ("player_id", "opponent_id"):
        return player_url(datasette, database, value), str(value)
    return None


# -- what a visitor's query may cost -------------------------------------------------------------


class QueryTooLarge(sqlite3.OperationalError):
    """A query's rows passed :data:`QUERY_BYTES_LIMIT`: refused like an invalid query (400)."""


class _RowBudget:
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


def _authorize(action: int, arg1: str | None, arg2: str | None, *_: str | None) -> int:
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


@hookimpl
def prepare_connection(conn: sqlite3.Connection, database: str, datasette: Any) -> None:
    """Bound what any query may cost: the time limit holds only between SQLite's steps, and
    one value built in a single step (``zeroblob(200000000)``) took 19 s and 6 GB."""
    if database == "_internal":
        return  # Datasette's own catalogue, never a visitor's
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, VALUE_LIMIT)
    conn.set_authorizer(_authorize)
    conn.row_factory = _RowBudget()


@hookimpl
def handle_exception(datasette: Any, request: Any, exception: Exception) -> None:
    """A visitor's mistake answered 400 rather than 500: a column not offered for sorting
    (``?_sort=canonical``), a value past :data:`VALUE_LIMIT`. Datasette's own error page still
    answers; only the status is the visitor's."""
    if isinstance(exception, DatasetteError) and str(exception.message).startswith(
        "Cannot sort table by"
    ):
        exception.status = 400


def _page(request: Any) -> int:
    """The ``?page=`` of a plugin page: 0 unless a whole number; past :data:`MAX_PAGE`, 400."""
    try:
        page = max(0, int(request.args.get("page", 0)))
    except ValueError:
        return 0
    if page > MAX_PAGE:
        raise BadRequest(f"page must be at most {MAX_PAGE}")
    return page


# -- static files, templates ---------------------------------------------------------------------


@hookimpl
def prepare_jinja2_environment(env: Any, datasette: Any) -> None:
    """Make ``jacquet/*.html`` findable after the user's and Datasette's own templates.

    Datasette finds a plugin's templates only in a package; this plugin is a module, so its
    templates folder is added here, last, so that ``--template-dir`` can still override them.
    """
    env.loader = ChoiceLoader([env.loader, FileSystemLoader(str(TEMPLATES))])


@hookimpl
def extra_css_urls(datasette: Any) -> list[str]:
    return [datasette.urls.path("/-/jacquet/static/jacquet.css")]


@cache
def _static(name: str) -> bytes:
    return (STATIC / name).read_bytes()


async def static_view(request: Any) -> Response:
    name = request.url_vars["name"]
    if name not in STATIC_FILES:
        raise NotFound(f"no such file: {name}")
    return Response(
        _static(name),
        content_type=STATIC_FILES[name],
        headers={"cache-control": "max-age=3600, public"},
    )


async def board_view(request: Any) -> Response:
    """One diagram as an SVG document; a key always draws the same board, so it is cached."""
    key = request.url_vars["key"]
    try:
        width = int(request.args.get("width", BOARD_WIDTH))
    except ValueError:
        width = BOARD_WIDTH
    svg = diagram(key, max(60, min(width, 1600)))
    if svg is None:
        raise NotFound(f"not a position key: {key}")
    return Response(
        svg,
        content_type="image/svg+xml; charset=utf-8",
        headers={"cache-control": "max-age=31536000, public, immutable"},
    )


@hookimpl
def register_routes() -> list[tuple[str, Any]]:
    return [
        (r"^/-/jacquet/static/(?P<name>[a-z]+\.(css|js))$", static_view),
        (r"^/-/jacquet/board/(?P<key>[A-Za-z0-9_-]{1,32})\.svg$", board_view),
        (r"^/(?P<database>[^/]+)/-/game/(?P<game_id>[^/]+)$", game_view),
        (r"^/(?P<database>[^/]+)/-/position/(?P<key>[A-Za-z0-9_-]{1,32})$", position_view),
        (r"^/(?P<database>[^/]+)/-/player/(?P<player_id>[0-9]+)$", player_view),
    ]


# -- pages ---------------------------------------------------------------------------------------


async def _archive(datasette: Any, request: Any, tables: tuple[str, ...]) -> tuple[Any, str]:
    """The database named by the URL, after Datasette's own permission checks."""
    try:
        db = datasette.get_database(route=request.url_vars["database"])
    except KeyError:
        raise NotFound("Database not found") from None
    name = db.name
    await datasette.ensure_permissions(
        request.actor,
        [("view-table", (name, table)) for table in tables]
        + [("view-database", name), "view-instance"],
    )
    if not await db.table_exists("games"):
        raise NotFound(f"{name} is not a Jacquet archive (no games table)")
    return db, name


def _footer(datasette: Any, database: str) -> dict[str, Any]:
    """The license and source lines of Datasette's footer, from the metadata."""
    merged = datasette.metadata(database=database) or {}  # one lookup: each one copies it all
    return {
        key: merged.get(key)
        for key in ("license", "license_url", "source", "source_url", "about", "about_url")
    }


async def _rows(db: Any, sql: str, params: Any = None) -> list[dict[str, Any]]:
    result = await db.execute(sql, params or [])
    return [dict(row) for row in result.rows]


def _ply_caption(ply: dict[str, Any] | None) -> str:
    """What the board shows: ``12. White 6-5: 24/18 18/13``."""
    if ply is None:
        return "Start of the game"
    side = "White" if ply["side"] == "white" else "Black"
    dots = "." if ply["side"] == "white" else "..."
    play = ply["steps"] or ply["written"] or "(no move)"
    caption = f"{ply['turn']}{dots} {side} {ply['dice'] or ''}: {play}"
    if ply["error"]:
        caption += f" — {ply['error']}"
    return caption


def _stop_note(ply: dict[str, Any]) -> str:
    """Said at an illegal ply and every later one: the board no longer follows the captions."""
    side = "White" if ply["side"] == "white" else "Black"
    dots = "." if ply["side"] == "white" else "..."
    play = ply["written"] or f"{ply['dice'] or ''}: (no move)"
    return (
        f"The line stopped at {ply['turn']}{dots} {side} {play}: the board stays at the position "
        f"before it, and later plays are shown as written, not replayed. Why: {ply['error']}"
    )


async def game_view(datasette: Any, request: Any) -> Response:
    db, name = await _archive(datasette, request, ("games", "turns"))
    game_id = request.url_vars["game_id"]
    games = await _rows(
        db,
        "select games.*, events.name as event_name, sources.name as source_name from games "
        "left join events on events.id = games.event_id "
        "left join sources on sources.id = games.source_id where games.id = ?",
        [game_id],
    )
    if not games:
        raise NotFound(f"No game {game_id} in {name}")
    game = games[0]
    turns = await _rows(
        db,
        "select ply, turn, side, dice, written, steps, pips, key_before, key_after, "
        "annotation, nags, comment, error from turns where game_id = ? order by ply",
        [game_id],
    )
    # The board's states: 0 is the start, n the position after the n-th ply. After an illegal
    # ply the line stops, so its state shows the position it was written against.
    # A play that was not replayed (after an illegal one) has no keys: the board stays put, and
    # its state says so (``stopped``), so that no caption seems to be what the board shows.
    start_key = (turns[0]["key_before"] if turns else None) or _start_key(game)
    states: list[dict[str, Any]] = [
        {"ply": 0, "key": start_key, "caption": _ply_caption(None), "dice": "", "stopped": ""}
    ]
    stopped = ""
    for ply in turns:
        if not stopped and ply["error"]:
            stopped = _stop_note(ply)
        states.append(
            {
                "ply": ply["ply"],
                "key": ply["key_after"] or ply["key_before"] or states[-1]["key"],
                "caption": _ply_caption(ply),
                "dice": dice_text(ply["dice"]),
                "error": bool(ply["error"]),
                "stopped": stopped,
            }
        )
    try:
        current = int(request.args.get("ply", 0))
    except ValueError:
        current = 0
    current = max(0, min(current, len(states) - 1))
    state = states[current]
    for index, item in enumerate(states):
        item["url"] = game_url(datasette, name, game_id, index)
        item["board"] = datasette.urls.path(f"/-/jacquet/board/{item['key']}.svg")
        item["position_url"] = position_url(datasette, name, item["key"])

    # The score sheet: a row per turn, White's and Black's plays (a list, in case a record
    # gives one side two plays in a turn: that is an error the sheet must still show).
    sheet: dict[int, dict[str, list[dict[str, Any]]]] = {}
    for ply in turns:
        sheet.setdefault(ply["turn"] or 0, {}).setdefault(ply["side"], []).append(ply)
    tags = _tags(game)
    errors: list[dict[str, Any]] = []
    if game.get("errors"):
        try:
            errors = [e for e in json.loads(game["errors"]) if isinstance(e, dict)]
        except (TypeError, ValueError):
            errors = []
    if not errors and game.get("error"):
        errors = [{"message": game["error"]}]
    context = {
        "metadata": _footer(datasette, name),
        "database": name,
        "game": game,
        "tags": tags,
        "errors": errors,
        "sheet": sorted(sheet.items()),
        "states": states,
        "current": current,
        "state": state,
        "board_svg": Markup(diagram(state["key"], BOARD_WIDTH) or ""),
        "white_url": player_url(datasette, name, game["white_id"])
        if game.get("white_id") is not None
        else None,
        "black_url": player_url(datasette, name, game["black_id"])
        if game.get("black_id") is not None
        else None,
        "row_url": f"{datasette.urls.table(name, 'games')}/{quote(game_id, safe='')}",
        "script_url": datasette.urls.path("/-/jacquet/static/jacquet.js"),
        "options": _options(game.get("options")),
    }
    return Response.html(
        await datasette.render_template("jacquet/game.html", context, request=request)
    )


def _start_key(game: dict[str, Any]) -> str:
    """The board of a game without a replayed play: its final key (the start, as stored)."""
    return str(game.get("final_key") or Position.start().key())


def _tags(game: dict[str, Any]) -> list[tuple[str, str]]:
    """The record's tags in its own order (the ``tags`` JSON), else those kept as columns;
    then what the archive worked out (the result by the rules, the status, the file)."""
    tags: list[tuple[str, str]] = []
    try:
        stored = json.loads(game.get("tags") or "null")
    except ValueError:
        stored = None
    if isinstance(stored, dict):
        tags = [(str(name), str(value)) for name, value in stored.items()]
    else:
        for label, column in (
            ("Event", "event"),
            ("Site", "site"),
            ("Date", "date"),
            ("Round", "round"),
            ("White", "white"),
            ("Black", "black"),
            ("Result", "result"),
            ("Rules", "rules"),
            ("Source", "source"),
            ("Transcriber", "transcriber"),
            ("Annotator", "annotator"),
        ):
            value = game.get(column)
            if value is None and column in ("event", "source"):
                value = game.get(f"{column}_name")
            if value not in (None, ""):
                tags.append((label, str(value)))
    for label, column in (
        ("Result by the rules", "computed_result"),
        ("Status", "status"),
        ("File", "file"),
        ("Game in file", "game_index"),
    ):
        if game.get(column) not in (None, ""):
            tags.append((label, str(game[column])))
    return tags


def _options(text: str | None) -> list[tuple[str, str]]:
    if not text:
        return []
    try:
        options = json.loads(text)
    except ValueError:
        return []
    return sorted((str(k), str(v)) for k, v in options.items()) if isinstance(options, dict) else []


async def position_view(datasette: Any, request: Any) -> Response:
    db, name = await _archive(datasette, request, ("games", "turns"))
    key = request.url_vars["key"]
    svg = diagram(key, BOARD_WIDTH)
    if svg is None:
        raise NotFound(f"{key} is not a position key")
    position = Position.from_key(key)
    stored = await _rows(db, "select * from positions where key = ?", [key])
    try:
        plays: list[dict[str, Any]] | None = [
            dict(play)
            for play in await _plays_from(db, key, datasette.setting("sql_time_limit_ms"))
        ]
    except QueryInterrupted:
        plays = None  # too many games through here to sum up within the time limit
    for play in plays or []:
        play["url"] = position_url(datasette, name, play["key_after"])
        play["dice_text"] = dice_text(play["dice"])
        play["net"] = (play["points_won"] or 0) - (play["points_lost"] or 0)
    page = _page(request)
    games = await _games_reaching(db, key, page * PAGE_ROWS, PAGE_ROWS + 1)
    more = len(games) > PAGE_ROWS
    games = games[:PAGE_ROWS]
    for game in games:
        game["url"] = game_url(datasette, name, game["id"], game["ply"])
        game["white_url"] = (
            player_url(datasette, name, game["white_id"]) if game["white_id"] else None
        )
        game["black_url"] = (
            player_url(datasette, name, game["black_id"]) if game["black_id"] else None
        )
    context = {
        "metadata": _footer(datasette, name),
        "database": name,
        "key": key,
        "position": position,
        "turn": "White" if position.turn == "white" else "Black",
        "stored": stored[0] if stored else None,
        "board_svg": Markup(svg),
        "plays": plays,
        "time_limit_ms": datasette.setting("sql_time_limit_ms"),
        "games": games,
        "page": page,
        "more_url": f"{position_url(datasette, name, key)}?page={page + 1}" if more else None,
        "less_url": f"{position_url(datasette, name, key)}?page={page - 1}" if page else None,
        "pips": {side: position.pips(side) for side in SIDES},
        "off": {side: position.off(side) for side in SIDES},
        "turns_url": f"{datasette.urls.table(name, 'turns')}?key_before={quote(key)}",
    }
    return Response.html(
        await datasette.render_template("jacquet/position.html", context, request=request)
    )


#: plays from a position, per (database file, key): only for immutable files, which cannot change
_PLAYS_CACHE: OrderedDict[tuple[str, str], list[dict[str, Any]]] = OrderedDict()
_PLAYS_CACHE_SIZE = 4096
#: how many times the SQL time limit the sum of plays from a position may take when it is kept
KEPT_QUERY_FACTOR = 10
_PLAYS_SQL = (
    "select t.dice, min(t.steps) as steps, t.key_after, count(*) as games, "
    "sum(g.winner = t.side) as wins, sum(g.winner is not null and g.winner != t.side) "
    "as losses, sum(case when g.winner = t.side then g.points else 0 end) as points_won, "
    "sum(case when g.winner != t.side then g.points else 0 end) as points_lost "
    "from turns t join games g on g.id = t.game_id "
    "where t.key_before = ? and t.key_after is not null "
    "group by t.dice, t.key_after order by games desc, t.dice, steps limit 500"
)


async def _plays_from(db: Any, key: str, time_limit_ms: int) -> list[dict[str, Any]]:
    """The plays made from ``key``, grouped by the roll and the position reached (two spellings
    of one play reach one position), with the games, wins and points of the side that made them.

    The start position has a row per game of the archive to sum; an immutable archive cannot
    change, so each answer is kept (a few thousand of them) and the next visit is immediate.
    Because it is kept, the sum may take ``KEPT_QUERY_FACTOR`` times the SQL time limit: under
    load the start position's sum can pass the limit, and an answer never kept would cost the
    full limit on every visit. A mutable archive gets the plain limit.
    """
    if db.is_mutable:
        return await _rows(db, _PLAYS_SQL, [key])
    cache_key = (str(db.path), key)
    if cache_key in _PLAYS_CACHE:
        _PLAYS_CACHE.move_to_end(cache_key)
        return _PLAYS_CACHE[cache_key]
    limit = time_limit_ms * KEPT_QUERY_FACTOR

    def run(connection: sqlite3.Connection) -> list[dict[str, Any]]:
        with sqlite_timelimit(connection, limit):
            try:
                cursor = connection.execute(_PLAYS_SQL, [key])
                names = [column[0] for column in cursor.description]
                return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
            except sqlite3.OperationalError as error:
                if "interrupted" in str(error):
                    raise QueryInterrupted(error, _PLAYS_SQL, [key]) from None
                raise

    plays: list[dict[str, Any]] = await db.execute_fn(run)
    _PLAYS_CACHE[cache_key] = plays
    while len(_PLAYS_CACHE) > _PLAYS_CACHE_SIZE:
        _PLAYS_CACHE.popitem(last=False)
    return plays


async def _games_reaching(db: Any, key: str, offset: int, limit: int) -> list[dict[str, Any]]:
    """Games whose main line reaches ``key``, with the ply where it first does (0: the start).

    Read in index order (turns' rowid, the order of import) rather than sorted, so that the
    start position, reached by every game, costs a page of rows and not the whole archive.
    """
    wanted = offset + limit
    found = await _rows(
        db,
        "select game_id, ply from turns where key_after = :key order by rowid limit :n",
        {"key": key, "n": wanted * 2},
    )
    if len(found) < wanted * 2:
        # nothing before ply 1 reaches a position: only a start position is reached at ply 0
        found += await _rows(
            db,
            "select game_id, 0 as ply from turns where key_before = :key and ply = 1 "
            "order by rowid limit :n",
            {"key": key, "n": wanted},
        )
    first: dict[str, int] = {}
    for row in found:
        if row["game_id"] not in first or row["ply"] < first[row["game_id"]]:
            first[row["game_id"]] = row["ply"]
    chosen = list(first.items())[offset : offset + limit]
    if not chosen:
        return []
    rows = await _rows(
        db,
        "select id, date, white, black, white_id, black_id, result, winner, points, plies "
        f"from games where id in ({', '.join('?' * len(chosen))})",
        [game_id for game_id, _ in chosen],
    )
    by_id = {row["id"]: row for row in rows}
    games = []
    for game_id, ply in chosen:
        if game_id in by_id:
            games.append({**by_id[game_id], "ply": ply})
    return games


async def player_view(datasette: Any, request: Any) -> Response:
    db, name = await _archive(datasette, request, ("games", "players"))
    digits = request.url_vars["player_id"]  # the route takes digits only
    # past SQLite's largest integer (or Python's longest int text) no player can be found
    if len(digits) > len(str(SQLITE_MAX_INT)) or int(digits) > SQLITE_MAX_INT:
        raise NotFound(f"No player {digits[:40]} in {name}")
    player_id = int(digits)
    players = await _rows(db, "select * from players where id = ?", [player_id])
    if not players:
        raise NotFound(f"No player {player_id} in {name}")
    player = players[0]
    # Two indexed halves (as White, as Black) rather than one OR over the whole table.
    sides = await _rows(
        db,
        "select 'white' as side, count(*) as games, sum(winner = 'white') as wins, "
        "sum(winner = 'black') as losses, "
        "sum(case when winner = 'white' then points else 0 end) as points_won, "
        "sum(case when winner = 'black' then points else 0 end) as points_lost "
        "from games where white_id = :id union all "
        "select 'black', count(*), sum(winner = 'black'), sum(winner = 'white'), "
        "sum(case when winner = 'black' then points else 0 end), "
        "sum(case when winner = 'white' then points else 0 end) "
        "from games where black_id = :id",
        {"id": player_id},
    )
    record = {
        field: sum(side[field] or 0 for side in sides)
        for field in ("games", "wins", "losses", "points_won", "points_lost")
    }
    record["unfinished"] = record["games"] - record["wins"] - record["losses"]
    opponents = await _rows(
        db,
        "select opponent_id, max(opponent) as opponent, count(*) as games, "
        "sum(won) as wins, sum(lost) as losses, sum(won_points) as points_won, "
        "sum(lost_points) as points_lost from ("
        " select black_id as opponent_id, black as opponent, winner = 'white' as won,"
        "  winner = 'black' as lost,"
        "  case when winner = 'white' then points else 0 end as won_points,"
        "  case when winner = 'black' then points else 0 end as lost_points"
        "  from games where white_id = :id"
        " union all select white_id, white, winner = 'black', winner = 'white',"
        "  case when winner = 'black' then points else 0 end,"
        "  case when winner = 'white' then points else 0 end"
        "  from games where black_id = :id"
        ") group by opponent_id order by games desc, opponent limit 200",
        {"id": player_id},
    )
    for opponent in opponents:
        opponent["url"] = (
            player_url(datasette, name, opponent["opponent_id"])
            if opponent["opponent_id"] is not None
            else None
        )
    page = _page(request)
    games = await _rows(
        db,
        "select * from (select id, date, white, black, white_id, black_id, result, winner, "
        "points, plies, rules, status from games where white_id = :id union "
        "select id, date, white, black, white_id, black_id, result, winner, points, plies, "
        "rules, status from games where black_id = :id) "
        "order by date desc, id limit :limit offset :offset",
        {"id": player_id, "limit": PAGE_ROWS + 1, "offset": page * PAGE_ROWS},
    )
    more = len(games) > PAGE_ROWS
    games = games[:PAGE_ROWS]
    for game in games:
        game["url"] = game_url(datasette, name, game["id"])
        mine = "white" if game["white_id"] == player_id else "black"
        game["colour"] = "White" if mine == "white" else "Black"
        opponent_id = game["black_id"] if mine == "white" else game["white_id"]
        game["opponent"] = game["black"] if mine == "white" else game["white"]
        game["opponent_url"] = (
            player_url(datasette, name, opponent_id) if opponent_id is not None else None
        )
        game["outcome"] = (
            "won" if game["winner"] == mine else "lost" if game["winner"] else "unfinished"
        )
    here = player_url(datasette, name, player_id)
    context = {
        "metadata": _footer(datasette, name),
        "database": name,
        "player": player,
        "record": record,
        "sides": sides,
        "opponents": opponents,
        "games": games,
        "page": page,
        "more_url": f"{here}?page={page + 1}" if more else None,
        "less_url": f"{here}?page={page - 1}" if page else None,
    }
    return Response.html(
        await datasette.render_template("jacquet/player.html", context, request=request)
    )
