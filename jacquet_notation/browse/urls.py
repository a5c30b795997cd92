"""The URLs of the plugin's pages, as the table cells and the pages link to them."""

from __future__ import annotations

from functools import lru_cache
from typing import Any
from urllib.parse import quote


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
