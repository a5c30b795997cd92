"""One player under many spellings: merging two players of an archive, and undoing it.

A merge moves every game of the other spelling onto the player named first and records the
other spelling's lookup key in ``player_aliases``, so that later imports and rebuilds, which
look names up through :meth:`.store.Store.name_id`, give its games the same id. The games keep
the spelling they were written with (``games.white``, ``games.black``); only the ids join.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass

from ..wording import plural
from .names import normalise_name
from .opening import open_archive, open_reader
from .store import ArchiveError, Store, now, write_lock


@dataclass(frozen=True)
class Merge:
    """What a merge or unmerge did: the player kept, the spelling moved and its games."""

    player: str
    spelling: str
    games: int


def player_id(conn: sqlite3.Connection, name: str) -> int | None:
    """The id ``name`` is stored under: its own players row, or the player it was merged into
    (the store's one lookup of a name)."""
    return Store(conn).known_id("players", name)


def _display_name(conn: sqlite3.Connection, id_: int) -> str:
    return str(conn.execute("SELECT name FROM players WHERE id = ?", (id_,)).fetchone()[0])


def _move_games(conn: sqlite3.Connection, old: int, new: int, key: str | None = None) -> int:
    """Point the games (and matches) of player ``old`` at ``new``: all of them, or with ``key``
    only those whose name as written normalises to it. Returns the games moved."""
    moved = 0
    for side in ("white", "black"):
        found = conn.execute(
            f"SELECT rowid, {side} FROM games WHERE {side}_id = ?", (old,)
        ).fetchall()
        rowids = [rowid for rowid, name in found if key is None or normalise_name(name) == key]
        conn.executemany(
            f"UPDATE games SET {side}_id = ? WHERE rowid = ?", ((new, r) for r in rowids)
        )
        moved += len(rowids)
        matches = conn.execute(
            f"SELECT id, {side} FROM matches WHERE {side}_id = ?", (old,)
        ).fetchall()
        conn.executemany(
            f"UPDATE matches SET {side}_id = ? WHERE id = ?",
            ((new, id_) for id_, name in matches if key is None or normalise_name(name) == key),
        )
    return moved


def merge(db: str | os.PathLike[str], name: str, other: str) -> Merge:
    """Record that ``other`` is a spelling of the player ``name``: its games count as his.

    Refused (:class:`ArchiveError`) when either is not a player of the archive, when they are
    one player already, or when they played each other (one man does not play himself; a
    record that says so is to be corrected, not merged).
    """
    database = open_archive(db)
    conn = database.conn
    path = os.fspath(db)
    try:
        with write_lock(conn, path):
            kept, moved = player_id(conn, name), player_id(conn, other)
            for wanted, found in ((name, kept), (other, moved)):
                if found is None:
                    raise ArchiveError(f"{path}: no player named {wanted!r} in the archive")
            assert kept is not None and moved is not None
            if kept == moved:
                raise ArchiveError(f"{path}: {name!r} and {other!r} are one player already")
            met = conn.execute(
                "SELECT count(*) FROM games WHERE (white_id = ? AND black_id = ?) "
                "OR (white_id = ? AND black_id = ?)",
                (kept, moved, moved, kept),
            ).fetchone()[0]
            if met:
                raise ArchiveError(
                    f"{path}: {name!r} and {other!r} played each other "
                    f"({plural(met, 'game')}): not one player"
                )
            spelling, key = conn.execute(
                "SELECT name, normalised FROM players WHERE id = ?", (moved,)
            ).fetchone()
            games = _move_games(conn, moved, kept)
            # the other player's own aliases follow him
            conn.execute(
                "UPDATE player_aliases SET player_id = ? WHERE player_id = ?", (kept, moved)
            )
            conn.execute(
                "INSERT INTO player_aliases (normalised, name, player_id, merged) "
                "VALUES (?, ?, ?, ?)",
                (key, spelling, kept, now()),
            )
            conn.execute("DELETE FROM players WHERE id = ?", (moved,))
            return Merge(_display_name(conn, kept), spelling, games)
    finally:
        database.close()


def unmerge(db: str | os.PathLike[str], name: str, other: str) -> Merge:
    """Undo :func:`merge`: ``other`` becomes a player of his own again, with the games written
    under his spelling (however accented or cased). Refused when ``other`` is not a spelling
    merged into ``name``."""
    database = open_archive(db)
    conn = database.conn
    path = os.fspath(db)
    try:
        with write_lock(conn, path):
            kept = player_id(conn, name)
            key = normalise_name(other)
            alias = conn.execute(
                "SELECT name, player_id FROM player_aliases WHERE normalised = ?", (key,)
            ).fetchone()
            if kept is None or alias is None or int(alias[1]) != kept:
                raise ArchiveError(f"{path}: {other!r} is not a spelling merged into {name!r}")
            spelling = str(alias[0])
            conn.execute("DELETE FROM player_aliases WHERE normalised = ?", (key,))
            restored = conn.execute(
                "INSERT INTO players (name, normalised) VALUES (?, ?) RETURNING id",
                (spelling, key),
            ).fetchone()[0]
            games = _move_games(conn, kept, int(restored), key)
            return Merge(_display_name(conn, kept), spelling, games)
    finally:
        database.close()


def merged_players(db: str | os.PathLike[str]) -> list[tuple[str, list[str]]]:
    """Every player merged from several spellings: his name and the other spellings (those
    merged into him, and any other his games were written with), by name; what the XML
    export's ``<players>`` holds. Reads the archive without writing it (an older archive, which
    has no merges, gives none)."""
    path = os.fspath(db)
    if not os.path.isfile(path):
        raise ArchiveError(f"{path}: no such archive")
    conn = open_reader(path)
    try:
        if not conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'player_aliases'").fetchone():
            return []
        merged: dict[int, tuple[str, set[str]]] = {}
        for id_, name, spelling in conn.execute(
            "SELECT p.id, p.name, a.name FROM player_aliases a JOIN players p ON p.id = a.player_id"
        ):
            merged.setdefault(int(id_), (str(name), set()))[1].add(str(spelling))
        for id_, (name, spellings) in merged.items():
            for side in ("white", "black"):
                spellings.update(
                    str(row[0])
                    for row in conn.execute(
                        f"SELECT DISTINCT {side} FROM games WHERE {side}_id = ?", (id_,)
                    )
                )
            spellings.discard(name)
    except sqlite3.DatabaseError as error:
        raise ArchiveError(f"{path}: not a usable archive: {error}") from None
    finally:
        conn.close()
    return sorted((name, sorted(spellings)) for name, spellings in merged.values())
