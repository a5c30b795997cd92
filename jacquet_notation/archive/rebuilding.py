"""Rebuilding the archive: every table derived again from the stored original texts."""

from __future__ import annotations

import os
import sqlite3

import sqlite_utils

from ..garbage import fewer_collections
from ..match import GameSummary
from ..rules import Rules
from ..stored_text import unpack
from . import import_rows, store
from .decisions import KEPT_COLUMNS, follow_id
from .groups import refresh_groups
from .matches import refresh_matches
from .opening import open_archive
from .rows import derive_chained, reread
from .schema import GAME_COLUMNS
from .settling import mark_settled
from .store import Store
from .summary import ImportSummary


def rebuild(db: str | os.PathLike[str], *, rules: Rules | None = None) -> ImportSummary:
    """Re-derive every table from the stored original texts, in one transaction.

    After a fix to the rules or the reader: ids, statuses, turns, positions, names, duplicates and
    search are derived again; no game is lost (a game whose id changes keeps its occurrences).
    """
    database = open_archive(db)
    try:
        with fewer_collections(), store.write_lock(database.conn, os.fspath(db)):
            return _rebuild(database, rules)
    finally:
        database.close()


#: what a rebuild writes again: not where a game was read, nor what only its file said (its
#: format and analysis, decisions.py), which the stored text does not hold
_REBUILT = tuple(
    column for column in GAME_COLUMNS if column not in ("file", "import_id", *KEPT_COLUMNS)
)


def _rebuild(db: sqlite_utils.Database, rules: Rules | None) -> ImportSummary:
    conn = db.conn
    summary = ImportSummary()
    for table in ("ply_notes", "plies", "shared_positions"):
        conn.execute(f"DELETE FROM {table}")
    # every turn is written again: the key indexes are built once, at the end
    if store.key_indexes_deferred(conn, 0):
        store.drop_key_indexes(conn)
    target = Store(conn)
    last = conn.execute("SELECT coalesce(max(rowid), 0) FROM games").fetchone()[0]
    after = 0
    previous: GameSummary | None = None  # the game before, for the checks across games
    update = f"UPDATE games SET {', '.join(f'{column} = ?' for column in _REBUILT)} WHERE rowid = ?"
    while True:
        stored = conn.execute(
            "SELECT rowid, id, original, file, game_index, line, gap, import_id FROM games "
            "WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?",
            (after, last, store.BATCH),
        ).fetchall()
        if not stored:
            break
        after = stored[-1][0]
        updates, numbered = [], []
        for rowid, old_id, original, file, index, line, gap, import_id in stored:
            record = reread(unpack(original) or "", file, index or 1, line or 1, gap or 0)
            derived, previous = derive_chained(record, rules, import_id, previous)
            summary.games += 1
            setattr(summary, derived.status, getattr(summary, derived.status) + 1)
            summary.errors.extend(derived.messages)
            game = derived.game
            if derived.id != old_id and target.existing([derived.id]):
                # The game now reads as one already in the archive: keep its sightings there.
                conn.execute(
                    "UPDATE occurrences SET game_id = ? WHERE game_id = ?", (derived.id, old_id)
                )
                conn.execute("DELETE FROM game_numbers WHERE game_id = ?", (old_id,))
                follow_id(conn, old_id, derived.id)
                conn.execute("DELETE FROM games WHERE rowid = ?", (rowid,))
                continue
            target.resolve_names(game)
            if derived.id != old_id:
                conn.execute("PRAGMA defer_foreign_keys = ON")
                conn.execute(
                    "UPDATE occurrences SET game_id = ? WHERE game_id = ?", (derived.id, old_id)
                )
                conn.execute(
                    "UPDATE game_numbers SET game_id = ? WHERE game_id = ?", (derived.id, old_id)
                )
                follow_id(conn, old_id, derived.id)
            updates.append((*(game[column] for column in _REBUILT), rowid))
            numbered.append((_number(conn, derived.id), derived))
        conn.executemany(update, updates)
        target.insert_plies_of(numbered)
    for table, columns in (
        ("players", ("white_id", "black_id")),
        ("events", ("event_id",)),
        ("sources", ("source_id",)),
    ):
        used = " UNION ".join(
            f"SELECT {column} FROM games WHERE {column} IS NOT NULL" for column in columns
        )
        if table == "players":  # a merge outlives its games (docs/archive.md)
            used += " UNION SELECT player_id FROM player_aliases"
        conn.execute(f"DELETE FROM {table} WHERE id NOT IN ({used})")
    # a set of options no game is replayed under any more (version 15)
    conn.execute(
        "DELETE FROM rule_options WHERE id NOT IN "
        "(SELECT options FROM games WHERE options IS NOT NULL)"
    )
    store.build_key_indexes(conn)
    store.share_positions(conn, 0)
    import_rows.recount_imports(db)
    import_rows.mark_reread(conn)
    mark_settled(conn)  # a bulk import's files left pending: every game was counted above
    refresh_matches(conn)
    refresh_groups(conn)
    for table in ("games", "players", "events", "sources"):
        conn.execute(f"INSERT INTO {table}_fts ({table}_fts) VALUES ('rebuild')")
    summary.files = conn.execute("SELECT count(*) FROM imports").fetchone()[0]
    return summary


def _number(conn: sqlite3.Connection, game_id: str) -> int:
    """A stored game's number (``game_numbers``), which its plies keep through a rebuild."""
    found = conn.execute("SELECT number FROM game_numbers WHERE game_id = ?", (game_id,))
    return store.returned_id(found.fetchone())
