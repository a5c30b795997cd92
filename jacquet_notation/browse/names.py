"""How the pages name players and games: a player spelled one way, a game by its players.

The archive keeps each game's names as its record wrote them (``games.white``, ``games.black``)
and one row per player, found by the normalised name (``archive/rows.py``'s
``normalise_name``: ``lasse`` and ``Lasse`` are one player) and spelled as first imported
(``players.name``). The pages show that one spelling wherever a game row carries a player's id,
so that one player never appears in two spellings side by side (docs/browse.md).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

#: the (name, id) columns of a game row
GAME_PLAYERS: tuple[tuple[str, str], ...] = (("white", "white_id"), ("black", "black_id"))

#: ids asked for in one statement (SQLite's default limit on parameters is far above it)
_CHUNK = 500


async def spell_players(
    db: Any, rows: Iterable[dict[str, Any]], columns: Sequence[tuple[str, str]] = GAME_PLAYERS
) -> None:
    """Set each row's name columns to the ``players`` table's spelling of its player ids
    (``columns``: pairs of a name column and its id column). A row without an id, or with one
    the table lacks, keeps the name it has. One indexed query per 500 ids."""
    rows = list(rows)
    ids = sorted({row[ident] for row in rows for _, ident in columns if row.get(ident) is not None})
    names: dict[Any, str] = {}
    for start in range(0, len(ids), _CHUNK):
        chunk = ids[start : start + _CHUNK]
        result = await db.execute(
            f"select id, name from players where id in ({', '.join('?' * len(chunk))})", chunk
        )
        names.update((row["id"], row["name"]) for row in result.rows)
    for row in rows:
        for column, ident in columns:
            name = names.get(row.get(ident))
            if name:
                row[column] = name


def game_label(game: dict[str, Any]) -> str:
    """A game as a list links it: ``Llabba v Bigeagle32, 1-0``; ``?`` for a missing name, and
    no result while there is none (``*``, an unfinished or unknown one)."""
    players = f"{game.get('white') or '?'} v {game.get('black') or '?'}"
    result = game.get("result")
    return f"{players}, {result}" if result and result != "*" else players
