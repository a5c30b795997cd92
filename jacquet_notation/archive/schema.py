"""The archive's layout: its tables, indexes, search and views, and the version of that layout.

The schema is the contract with the Datasette browser (``docs/archive.md``); sqlite-utils
creates it. Nothing here reads or writes a game.
"""

from __future__ import annotations

import sqlite_utils

from .plays import PLAY_VIEWS, create_plies

#: the layout version stored in ``PRAGMA user_version``; see "Migrations" in docs/archive.md
SCHEMA_VERSION = 7

GAME_COLUMNS: tuple[str, ...] = (
    "id",
    "event_id",
    "event",
    "site",
    "date",
    "date_written",
    "year",
    "round",
    "white_id",
    "black_id",
    "white",
    "black",
    "rules",
    "options",
    "tags",
    "source_id",
    "source",
    "transcriber",
    "annotator",
    "result",
    "computed_result",
    "status",
    "error",
    "errors",
    "turns",
    "plies",
    "winner",
    "points",
    "final_key",
    "comments",
    "fingerprint",
    "canonical",
    "original",
    "file",
    "game_index",
    "line",
    "import_id",
    # version 5: the key of the position a [Position] tag sets (NULL: the rules' start), last
    # so that a migrated archive's games have the columns of a new one, in the same order
    "start_key",
    # version 6: the lines of the file left out of ``original`` after a match file's header
    # (the match's earlier games; NULL: none), so that a game's text is stored once
    "gap",
    # version 6: how the game ended (match.ENDINGS: borne-off, drop, resignation, unfinished)
    "ending",
)
_GAME_TYPES: dict[str, type] = {
    column: int
    for column in (
        "event_id",
        "year",
        "white_id",
        "black_id",
        "source_id",
        "turns",
        "plies",
        "points",
        "game_index",
        "line",
        "import_id",
        "gap",
    )
}

TURN_COLUMNS: tuple[str, ...] = (
    "game_id",
    "ply",
    "turn",
    "side",
    "dice",
    "written",
    "steps",
    "pips",
    "key_before",
    "key_after",
    "annotation",
    "nags",
    "comment",
    "error",
    # version 2: the opponent's share of the dice (every die is used), last so that a migrated
    # archive's turns have the columns of a new one, in the same order
    "opponent_steps",
    # version 4: a cube action (``double 2``, ``take``, ``drop``, ``beaver 4``), as the .jqt
    # writes it; None for a roll
    "cube",
)
_TURN_INTS = {"ply", "turn", "pips"}

VIEWS = {
    **PLAY_VIEWS,
    "player_records": """
SELECT p.id AS player_id, p.name AS name,
  count(g.id) AS games,
  sum(CASE WHEN g.winner = s.side THEN 1 ELSE 0 END) AS wins,
  sum(CASE WHEN g.winner IS NOT NULL AND g.winner != s.side THEN 1 ELSE 0 END) AS losses,
  sum(CASE WHEN g.winner = s.side THEN g.points ELSE 0 END) AS points_won,
  sum(CASE WHEN g.winner IS NOT NULL AND g.winner != s.side THEN g.points ELSE 0 END)
    AS points_lost
FROM players p
JOIN (SELECT id, white_id AS player_id, 'white' AS side FROM games
      UNION ALL SELECT id, black_id, 'black' FROM games) s ON s.player_id = p.id
JOIN games g ON g.id = s.id
GROUP BY p.id""",
    "head_to_head": """
SELECT s.player_id AS player_id, s.opponent_id AS opponent_id,
  p.name AS player, o.name AS opponent,
  count(*) AS games,
  sum(CASE WHEN g.winner = s.side THEN 1 ELSE 0 END) AS wins,
  sum(CASE WHEN g.winner = s.side THEN g.points
           WHEN g.winner IS NOT NULL THEN -g.points ELSE 0 END) AS points
FROM (SELECT id, white_id AS player_id, black_id AS opponent_id, 'white' AS side FROM games
      UNION ALL SELECT id, black_id, white_id, 'black' FROM games) s
JOIN games g ON g.id = s.id
JOIN players p ON p.id = s.player_id
JOIN players o ON o.id = s.opponent_id
GROUP BY s.player_id, s.opponent_id""",
    "opening_rolls": """
SELECT t.dice AS dice, t.steps AS first_play, count(*) AS games,
  sum(CASE WHEN g.winner = 'white' THEN 1 ELSE 0 END) AS white_wins,
  sum(CASE WHEN g.winner = 'black' THEN 1 ELSE 0 END) AS black_wins,
  sum(CASE WHEN g.winner IS NULL THEN 1 ELSE 0 END) AS unfinished
FROM turns t JOIN games g ON g.id = t.game_id
WHERE t.ply = 1 AND g.status = 'valid' AND g.start_key IS NULL
GROUP BY t.dice, t.steps""",
    "player_matches": """
SELECT p.id AS player_id, p.name AS name,
  count(m.id) AS matches,
  sum(CASE WHEN m.winner = s.side THEN 1 ELSE 0 END) AS won,
  sum(CASE WHEN m.winner IS NOT NULL AND m.winner != s.side THEN 1 ELSE 0 END) AS lost,
  sum(CASE WHEN m.winner IS NULL THEN 1 ELSE 0 END) AS unfinished
FROM players p
JOIN (SELECT id, white_id AS player_id, 'white' AS side FROM matches
      UNION ALL SELECT id, black_id, 'black' FROM matches) s ON s.player_id = p.id
JOIN matches m ON m.id = s.id
GROUP BY p.id""",
    # version 6: a view where a table held a row for every pair of games sharing a fingerprint
    # (2,000 copies of one game made two million rows); a game's group is its fingerprint,
    # indexed, and the pairs are told only when asked. ``reason`` as the table's was worded.
    "duplicates": """
SELECT later.id AS game_id, earlier.id AS other_id,
  CASE
    WHEN later.tags IS NOT earlier.tags THEN 'tags differ: ' || (
      SELECT group_concat(name, ', ') FROM (
        SELECT name FROM (
          SELECT key AS name FROM json_each(later.tags)
          UNION SELECT key FROM json_each(earlier.tags))
        WHERE json_extract(later.tags, '$."' || name || '"')
          IS NOT json_extract(earlier.tags, '$."' || name || '"')
        ORDER BY name))
      || CASE WHEN later.comments IS NOT earlier.comments THEN '; comments differ' ELSE '' END
    WHEN later.comments IS NOT earlier.comments THEN 'comments differ'
    ELSE 'annotations or variations differ'
  END AS reason
FROM games later
JOIN games earlier ON earlier.fingerprint = later.fingerprint AND earlier.rowid < later.rowid
WHERE later.fingerprint IS NOT NULL""",
    "invalid_games": """
SELECT id, white, black, date, file, error, status
FROM games WHERE status != 'valid'""",
}


#: the columns of ``game_list``: what the browser's games list and home page show of a game,
#: kept by triggers on ``games`` (a narrow copy, so that a list sorted or counted over every
#: game reads a few megabytes rather than the records' texts)
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
)
#: the game_list indexes: each filter of the games list and each of its sorts (a sort walks its
#: index, a page at a time, rather than sorting every game); the year's also holds the counted
#: columns, so that the counts of a range of years read the index alone
GAME_LIST_INDEXES: tuple[tuple[str, ...], ...] = (
    ("date",),
    ("year", "rules", "status", "result"),
    ("event_id",),
    ("source_id",),
    ("white_id",),
    ("black_id",),
    ("event",),
    ("white",),
    ("black",),
    ("result",),
    ("rules",),
    ("plies",),
    ("status",),
)


def create_game_list(db: sqlite_utils.Database) -> None:
    """The ``game_list`` table (schema version 3) with its indexes and the triggers that keep it
    equal to ``games``; filled from the games already there (the migration from version 2).

    Triggers rather than the writer: the copy is defined here once, and every way a game row
    changes (import, rebuild, a migration) keeps it, with no second code path to forget.
    """
    columns = ", ".join(GAME_LIST_COLUMNS)
    new = ", ".join(f"new.{column}" for column in GAME_LIST_COLUMNS)
    db.table("game_list").create(
        {column: _GAME_TYPES.get(column, str) for column in GAME_LIST_COLUMNS}, pk="id"
    )
    for indexed in GAME_LIST_INDEXES:
        db.table("game_list").create_index(list(indexed))
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
    db.execute(f"INSERT INTO game_list ({columns}) SELECT {columns} FROM games ORDER BY rowid")


#: the columns of ``matches`` (version 4): one row per match of an imported file
MATCH_COLUMNS: dict[str, type] = {
    "id": int,
    "import_id": int,
    "file": str,
    "match_id": str,
    "site": str,
    "white_id": int,
    "black_id": int,
    "white": str,
    "black": str,
    "length": int,
    "crawford": int,
    "games": str,
    "game_count": int,
    "score_white": int,
    "score_black": int,
    "winner": str,
    "status": str,
    "errors": str,
}


def create_matches(db: sqlite_utils.Database) -> None:
    """The ``matches`` table and its indexes (a new archive's, and version 4's migration)."""
    db.table("matches").create(
        MATCH_COLUMNS,
        pk="id",
        foreign_keys=[
            ("import_id", "imports", "id"),
            ("white_id", "players", "id"),
            ("black_id", "players", "id"),
        ],
        if_not_exists=True,
    )
    for column in ("import_id", "white_id", "black_id"):
        db.table("matches").create_index([column], if_not_exists=True)


def create_views(db: sqlite_utils.Database, replace: bool = False) -> None:
    """The views (``replace``: made again, as a migration that changes one needs)."""
    for name, sql in VIEWS.items():
        db.create_view(name, sql.strip(), replace=replace)


def create_schema(db: sqlite_utils.Database) -> None:
    """Create every table, index, search index and view (inside the caller's transaction)."""
    db.table("imports").create(
        {
            "id": int,
            "path": str,
            "sha256": str,
            "started": str,
            "finished": str,
            "games": int,
            "valid": int,
            "invalid": int,
            "unreadable": int,
            "new_games": int,
            "status": str,
            "error": str,
            "reader": str,
        },
        pk="id",
    )
    for table in ("players", "events", "sources"):
        db.table(table).create({"id": int, "name": str, "normalised": str}, pk="id")
        db.table(table).create_index(["normalised"], unique=True)
    db.table("games").create(
        {column: _GAME_TYPES.get(column, str) for column in GAME_COLUMNS},
        pk="id",
        foreign_keys=[
            ("event_id", "events", "id"),
            ("white_id", "players", "id"),
            ("black_id", "players", "id"),
            ("source_id", "sources", "id"),
            ("import_id", "imports", "id"),
        ],
    )
    for column in (
        "white_id",
        "black_id",
        "event_id",
        "source_id",
        "date",
        "year",
        "status",
        "rules",
        "result",  # a facet of the browser: without it, every table page reads every game
        "fingerprint",
        "import_id",
    ):
        db.table("games").create_index([column])
    create_plies(db)
    db.table("occurrences").create(
        {"import_id": int, "game_index": int, "game_id": str, "line": int},
        pk=("import_id", "game_index"),
        foreign_keys=[("import_id", "imports", "id"), ("game_id", "games", "id")],
    )
    db.table("occurrences").create_index(["game_id"])
    create_matches(db)
    db.table("imports").create_index(["sha256"])
    db.table("games").enable_fts(
        ["white", "black", "event", "site", "source", "comments"], create_triggers=True
    )
    for table in ("players", "events", "sources"):
        db.table(table).enable_fts(["name"], create_triggers=True)
    create_views(db)
    create_game_list(db)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
