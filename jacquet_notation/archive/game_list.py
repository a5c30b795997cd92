"""The ``game_list`` table: a narrow copy of ``games``, kept by triggers.

What the browser's games list and home page show of a game, and what the opening tree sums,
read from rows of about a hundred bytes rather than from the records' texts: a list sorted or
counted over every game, or a position's plays summed over every game through it, reads a few
megabytes of pages rather than the whole of ``games``.
"""

from __future__ import annotations

import sqlite_utils

#: the columns of ``game_list``: the list's, then (version 17) the winner and the points, which
#: the opening tree sums (last, so that a migrated archive's table has a new one's columns in
#: the same order)
GAME_LIST_COLUMNS: tuple[str, ...] = (
    "id",
    "date",
    "year",
    "event_id",
    "event",
    "source_id",
    "white_id",
    "white",
    "black_id",
    "black",
    "result",
    "rules",
    "plies",
    "status",
    "final_key",
    "import_id",
    "winner",
    "points",
)
#: the game_list indexes: each filter of the games list and each of its sorts (a sort walks its
#: index, a page at a time, rather than sorting every game); the year's also holds the counted
#: columns, so that the counts of a range of years read the index alone
GAME_LIST_INDEXES: tuple[tuple[str, ...], ...] = (
    ("date",),
    ("year", "rules", "status", "result"),
    ("event_id",),
    ("source_id",),
    # a player's filter; since version 16 holding what the page's spellings count, so that
    # they read the index alone (schema.PLAYER_INDEXES)
    ("white_id", "white", "event_id", "source_id", "year"),
    ("black_id", "black", "event_id", "source_id", "year"),
    ("event",),
    ("white",),
    ("black",),
    ("result",),
    ("rules",),
    ("plies",),
    ("status",),
)
#: the triggers that keep ``game_list`` equal to ``games``
GAME_LIST_TRIGGERS = ("game_list_insert", "game_list_update", "game_list_delete")


def create_game_list(db: sqlite_utils.Database) -> None:
    """The ``game_list`` table (schema version 3) with its indexes and the triggers that keep it
    equal to ``games``; filled from the games already there (the migration from version 2).

    Triggers rather than the writer: the copy is defined here once, and every way a game row
    changes (import, rebuild, a migration) keeps it, with no second code path to forget. Each
    column has the type ``games`` gives it.
    """
    types = db.table("games").columns_dict
    db.table("game_list").create({column: types[column] for column in GAME_LIST_COLUMNS}, pk="id")
    for indexed in GAME_LIST_INDEXES:
        db.table("game_list").create_index(list(indexed))
    create_game_list_triggers(db)
    columns = ", ".join(GAME_LIST_COLUMNS)
    db.execute(f"INSERT INTO game_list ({columns}) SELECT {columns} FROM games ORDER BY rowid")


def create_game_list_triggers(
    db: sqlite_utils.Database, copied: tuple[str, ...] = GAME_LIST_COLUMNS
) -> None:
    """:data:`GAME_LIST_TRIGGERS`, copying the columns ``copied`` (made again by the step to
    version 17, which adds two columns; a test lays out version 16 with the columns before)."""
    columns = ", ".join(copied)
    new = ", ".join(f"new.{column}" for column in copied)
    # one statement at a time: executescript would commit the caller's transaction
    db.execute(
        f"CREATE TRIGGER game_list_insert AFTER INSERT ON games BEGIN "
        f"INSERT OR REPLACE INTO game_list ({columns}) VALUES ({new}); END"
    )
    db.execute(
        f"CREATE TRIGGER game_list_update AFTER UPDATE ON games BEGIN "
        f"DELETE FROM game_list WHERE id = old.id; "
        f"INSERT OR REPLACE INTO game_list ({columns}) VALUES ({new}); END"
    )
    db.execute(
        "CREATE TRIGGER game_list_delete AFTER DELETE ON games BEGIN "
        "DELETE FROM game_list WHERE id = old.id; END"
    )


def add_winner_and_points(db: sqlite_utils.Database) -> None:
    """Version 17: ``game_list`` given each game's winner and points, copied from ``games``, and
    its triggers made again to keep them; nothing for a table that has them already (one an
    earlier step of the same migration made)."""
    if "winner" in db.table("game_list").columns_dict:
        return
    types = db.table("games").columns_dict
    for column in ("winner", "points"):
        db.table("game_list").add_column(column, types[column])
    conn = db.conn
    conn.execute(
        "UPDATE game_list SET (winner, points) = "
        "(SELECT g.winner, g.points FROM games g WHERE g.id = game_list.id)"
    )
    for trigger in GAME_LIST_TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {trigger}")
    create_game_list_triggers(db)
