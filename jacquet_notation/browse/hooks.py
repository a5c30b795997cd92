"""The hooks through which Datasette calls the plugin: cells, connections, errors, routes.

Registered as the package :mod:`jacquet_notation.browse` (its ``__init__`` imports them).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable
from functools import cache
from typing import Any, TypeVar, cast

from datasette import hookimpl as _datasette_hookimpl
from datasette.views.base import DatasetteError
from markupsafe import Markup, escape

from ..bibliography import page_order
from ..position import KEY_CHARACTER_CLASS, Position
from ..stored_text import unpack
from ..wording import plural
from .collections import event_view, source_view
from .compare import compare_view
from .desk import CHECK_PATH, DESK_PATH, check_view, desk_view
from .drawing import CELL_WIDTH, diagram, is_key
from .game_page import game_view
from .games_list import games_list_view
from .home import archive_home_view, home_view
from .json_cells import JSON_COLUMNS, json_cell
from .limits import VALUE_LIMIT, RowBudget, authorize
from .matches import match_view
from .player_page import player_view
from .position_lookup import position_lookup_view
from .position_page import board_view, position_view
from .reopening import reopen_when_replaced
from .search_page import search_view
from .urls import (
    BOARD_PATH,
    board_prefix,
    event_url,
    game_url,
    match_url,
    player_url,
    position_url,
    source_url,
    static_url,
)

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
#: every column name render_cell may draw or link (see _cell_link)
_CELL_COLUMNS = frozenset(
    {column for _, column in _KEY_COLUMNS}
    | {"id", "game_id", "other_id", "plies", "white", "black", "white_id", "black_id"}
    | {"player_id", "opponent_id", "name", "player", "opponent", "turn"}
    | JSON_COLUMNS
    | {"event", "event_id", "source", "source_id", "match_id"}
    | {"original"}
)

_F = TypeVar("_F", bound=Callable[..., Any])


def hookimpl(function: _F) -> _F:
    """Datasette's hook marker, typed for mypy."""
    return cast(_F, _datasette_hookimpl(function))


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


#: the views that read as tables (version 7): Datasette links a cell of bytes to its row by
#: rowid, which a view has not, so such a cell (only damage puts one there) is drawn here
_VIEWS_AS_TABLES = frozenset({"turns", "positions"})


def _bytes_cell(value: bytes) -> Markup:
    return Markup(f"<em>(binary, {plural(len(value), 'byte')})</em>")


#: the most of a record's text a table's cell shows (the game page shows it whole)
TEXT_CELL_LIMIT = 2000


def _text_cell(value: Any) -> Markup | None:
    """A record's text, kept packed since version 7, shown as text (its start, in a cell)."""
    if not isinstance(value, bytes):
        return None  # a text of before version 7, shown by Datasette as it is
    try:
        text = unpack(value) or ""
    except ValueError:
        return Markup("<em>(damaged text)</em>")
    shown = text if len(text) <= TEXT_CELL_LIMIT else text[:TEXT_CELL_LIMIT] + " …"
    return Markup(f'<pre class="jacquet-record">{escape(shown)}</pre>')


@hookimpl
def render_cell(
    row: Any, value: Any, column: str, table: str | None, database: str, datasette: Any
) -> Markup | None:
    """Diagrams for position keys; links to the game, position and player pages."""
    if column not in _CELL_COLUMNS:
        if isinstance(value, bytes) and table in _VIEWS_AS_TABLES:
            return _bytes_cell(value)
        return None  # most cells: answered before anything else is looked at
    label: Any = value
    if isinstance(value, dict):
        label, value = value.get("label"), value.get("value")
    if value is None:
        return None
    if isinstance(value, bytes) and table in _VIEWS_AS_TABLES:
        return _bytes_cell(value)
    if column in JSON_COLUMNS:
        # version 15: games.options is an id of rule_options, which Datasette labels with the
        # set's JSON: the set is drawn, as the JSON in the row was
        shown = label if column == "options" and isinstance(label, str) else value
        return json_cell(column, shown) if table in ("games", "rule_options", None) else None
    if column == "original":
        return _text_cell(value)
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
        f'title="{key}"><img src="{board_prefix(datasette)}{key}.svg?width={CELL_WIDTH}" '
        f'alt="{key}" width="{CELL_WIDTH}" height="{_cell_height()}" loading="lazy"></a>'
    )


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
    if table == "matches" and column == "match_id":
        # the row's id is its primary key, drawn by Datasette itself: the match's own id links
        return match_url(datasette, database, _field(row, "id")), str(value)
    if table in ("games", "matches") and column in ("white", "black"):
        player_id = _field(row, f"{column}_id")
        if player_id is None:
            return None
        return player_url(datasette, database, player_id), str(value)
    if table in ("games", None) and column in ("white_id", "black_id", "player_id"):
        return player_url(datasette, database, value), str(value)
    if table in ("games", None) and column in ("event_id", "source_id"):
        page = event_url if column == "event_id" else source_url
        return page(datasette, database, value), str(value)
    if table == "games" and column in ("event", "source"):
        row_id = _field(row, f"{column}_id")
        if row_id is None:
            return None
        page = event_url if column == "event" else source_url
        return page(datasette, database, row_id), str(value)
    if table in ("events", "sources") and column == "name":
        page = event_url if table == "events" else source_url
        return page(datasette, database, _field(row, "id")), str(value)
    if table == "players" and column == "name":
        return player_url(datasette, database, _field(row, "id")), str(value)
    if table in ("player_records", "head_to_head") and column in ("name", "player"):
        return player_url(datasette, database, _field(row, "player_id")), str(value)
    if table == "head_to_head" and column == "opponent":
        return player_url(datasette, database, _field(row, "opponent_id")), str(value)
    if table in ("player_records", "head_to_head") and column in ("player_id", "opponent_id"):
        return player_url(datasette, database, value), str(value)
    return None


# -- connections and errors ----------------------------------------------------------------------


@hookimpl
def prepare_connection(conn: sqlite3.Connection, database: str, datasette: Any) -> None:
    """Bound what any query may cost: the time limit holds only between SQLite's steps, and
    one value built in a single step (``zeroblob(200000000)``) took 19 s and 6 GB."""
    if database == "_internal":
        return  # Datasette's own catalogue, never a visitor's
    conn.setlimit(sqlite3.SQLITE_LIMIT_LENGTH, VALUE_LIMIT)
    # the source page's order of pages and plates, one definition (docs/browse.md)
    conn.create_function("jacquet_page_order", 1, page_order, deterministic=True)
    conn.set_authorizer(authorize)
    conn.row_factory = RowBudget()


@hookimpl
def startup(datasette: Any) -> None:
    """Every archive an import may change is read again should its files be replaced while it
    is served (:mod:`.reopening`): never 500 "malformed" until a restart."""
    for db in datasette.databases.values():
        if db.path is not None and db.is_mutable:
            reopen_when_replaced(db)


@hookimpl
def handle_exception(datasette: Any, request: Any, exception: Exception) -> None:
    """A visitor's mistake answered 400 rather than 500: a column not offered for sorting
    (``?_sort=canonical``), a value past :data:`VALUE_LIMIT`. Datasette's own error page still
    answers; only the status is the visitor's."""
    if isinstance(exception, DatasetteError) and str(exception.message).startswith(
        "Cannot sort table by"
    ):
        exception.status = 400


# -- files and routes ----------------------------------------------------------------------------
# The package's ``templates/`` and ``static/`` folders are Datasette's to find: templates after
# ``--template-dir``'s, static files under ``/-/static-plugins/`` (see urls.static_url).


@hookimpl
def extra_css_urls(datasette: Any) -> list[str]:
    return [static_url(datasette, "jacquet.css"), static_url(datasette, "front.css")]


@hookimpl
def register_routes() -> list[tuple[str, Any]]:
    return [
        (rf"^{BOARD_PATH}(?P<key>{KEY_CHARACTER_CLASS}{{1,32}})\.svg$", board_view),
        (r"^/(?P<database>[^/]+)/-/game/(?P<game_id>[^/]+)$", game_view),
        (r"^/(?P<database>[^/]+)/-/compare/(?P<game_id>[^/]+)$", compare_view),
        (
            rf"^/(?P<database>[^/]+)/-/position/(?P<key>{KEY_CHARACTER_CLASS}{{1,32}})$",
            position_view,
        ),
        (r"^/(?P<database>[^/]+)/-/position$", position_lookup_view),
        (r"^/(?P<database>[^/]+)/-/search$", search_view),
        (r"^/(?P<database>[^/]+)/-/player/(?P<player_id>[0-9]+)$", player_view),
        (r"^/(?P<database>[^/]+)/-/match/(?P<match_id>[0-9]+)$", match_view),
        # the front door: the archive's home at / (before Datasette's own index) and the list
        (r"^/$", home_view),
        (r"^/(?P<database>[^/]+)/-/home$", archive_home_view),
        (r"^/(?P<database>[^/]+)/-/games$", games_list_view),
        (r"^/(?P<database>[^/]+)/-/event/(?P<row_id>[0-9]+)$", event_view),
        (r"^/(?P<database>[^/]+)/-/source/(?P<row_id>[0-9]+)$", source_view),
        # the transcriber's desk: a page and its JSON endpoint, nothing stored (desk.py)
        (rf"^{DESK_PATH}$", desk_view),
        (rf"^{CHECK_PATH}$", check_view),
    ]


@hookimpl
def prepare_jinja2_environment(env: Any, datasette: Any) -> None:
    """The ``plural`` filter (``{{ n|plural("game") }}``: 1 game, 2 games) for the plugin's
    templates, so that a page says a count as the commands do (:mod:`jacquet_notation.wording`)."""
    env.filters["plural"] = plural
