"""The URLs of the plugin's pages and files, as the table cells and the pages link to them."""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from typing import Any
from urllib.parse import quote, urlencode

#: the distribution's name (pyproject.toml): Datasette serves the package's ``static/`` folder
#: at ``/-/static-plugins/jacquet-notation/``
PLUGIN_NAME = "jacquet-notation"
#: where one diagram is drawn: ``BOARD_PATH + KEY + ".svg"`` (see :func:`.pages.board_view`)
BOARD_PATH = "/-/jacquet/board/"


@lru_cache(maxsize=256)
def _database_path(datasette: Any, database: str) -> str:
    """The database's URL prefix; cached, as a table page asks for it in many cells."""
    return str(datasette.urls.database(database))


def optional_url(
    make: Callable[[Any, str, Any], str], datasette: Any, database: str, row_id: Any
) -> str | None:
    """``make``'s URL of ``row_id`` (``player_url``, ``event_url``, …), or None where there is no
    row to link: a game of no event, a name without a player."""
    return None if row_id is None else make(datasette, database, row_id)


def game_url(datasette: Any, database: str, game_id: str, ply: int | None = None) -> str:
    url = f"{_database_path(datasette, database)}/-/game/{quote(str(game_id), safe='')}"
    return url if ply is None else f"{url}?ply={ply}"


def position_url(datasette: Any, database: str, key: str) -> str:
    return f"{_database_path(datasette, database)}/-/position/{quote(key, safe='')}"


def search_url(datasette: Any, database: str) -> str:
    """The search page of positions by what they look like (``search_page.py``)."""
    return f"{_database_path(datasette, database)}/-/search"


def player_url(datasette: Any, database: str, player_id: int | str) -> str:
    return f"{_database_path(datasette, database)}/-/player/{quote(str(player_id), safe='')}"


@lru_cache(maxsize=16)
def board_prefix(datasette: Any) -> str:
    """The URL of every diagram but its key; cached, as a table page asks for it in many cells."""
    return str(datasette.urls.path(BOARD_PATH))


def board_url(datasette: Any, key: str) -> str:
    """The URL of ``key``'s diagram as an SVG document."""
    return f"{board_prefix(datasette)}{key}.svg"


def static_url(datasette: Any, name: str) -> str:
    """The URL of a file of the package's ``static/`` folder, as Datasette serves it."""
    return str(datasette.urls.static_plugins(PLUGIN_NAME, name))


def games_list_url(datasette: Any, database: str, params: dict[str, Any] | None = None) -> str:
    """The games list (``/DB/-/games``) with ``params`` as its query string (filters, sort,
    page: see :mod:`.games_list`); a value of None is left out."""
    url = f"{_database_path(datasette, database)}/-/games"
    pairs = {key: str(value) for key, value in (params or {}).items() if value is not None}
    return f"{url}?{urlencode(pairs)}" if pairs else url


def home_url(datasette: Any) -> str:
    """The archive's home page: ``/`` (one archive is served, and ``/`` is the archive)."""
    return str(datasette.urls.path("/"))


def table_url(datasette: Any, database: str, table: str) -> str:
    """Datasette's own page of a table, with every column (for SQL users)."""
    return str(datasette.urls.table(database, table))


def event_url(datasette: Any, database: str, event_id: int | str) -> str:
    return f"{_database_path(datasette, database)}/-/event/{quote(str(event_id), safe='')}"


def source_url(datasette: Any, database: str, source_id: int | str) -> str:
    return f"{_database_path(datasette, database)}/-/source/{quote(str(source_id), safe='')}"


def match_url(datasette: Any, database: str, match_id: int | str) -> str:
    """A match's page (``/DB/-/match/ID``, :mod:`.matches`): its games, scores and ending."""
    return f"{_database_path(datasette, database)}/-/match/{quote(str(match_id), safe='')}"


def compare_url(datasette: Any, database: str, game_id: str, other_id: str | None = None) -> str:
    """The comparison page of a game (``/DB/-/compare/ID``, :mod:`.compare`), with another."""
    url = f"{_database_path(datasette, database)}/-/compare/{quote(str(game_id), safe='')}"
    return url if other_id is None else f"{url}?{urlencode({'with': other_id})}"
