"""The archive's layout: its tables, indexes, search and views, and the version of that layout.

The schema is the contract with the Datasette browser (``docs/archive.md``); sqlite-utils
creates it. Nothing here reads or writes a game.
"""

from __future__ import annotations

import sqlite_utils

from ..rules import RULESET_NAMES
from .decisions import create_decisions
from .game_list import GAME_LIST_COLUMNS as GAME_LIST_COLUMNS
from .game_list import GAME_LIST_INDEXES as GAME_LIST_INDEXES
from .game_list import create_game_list
from .plays import create_plies
from .search_index import create_search_indexes
from .views import VIEWS as VIEWS

#: the layout version stored in ``PRAGMA user_version``; see "Migrations" in docs/archive.md
SCHEMA_VERSION = 17

#: the page size of a new archive (version 13; an archive made before keeps its own: a WAL file's
#: page size is fixed once written). A game's row is about 2 KiB, two to a 4 KiB page with a
#: quarter of it left unused; 8 KiB pages hold four or five (measured on 2,000 self-play games:
#: ``games`` 28% unused at 4 KiB, 11% at 8 KiB, docs/archive.md "Version 13"). 16 KiB would
#: fill them better still, but each of the archive's eighty tables and indexes takes a page at
#: least, which a small archive pays for.
PAGE_SIZE = 8192

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
    # version 9: the format a game came from (jacquet, mat, sgf, xg), and who analysed it
    # (decisions.py): kept by a rebuild, as the text stored no longer says
    "format",
    "analyser",
    "analyser_settings",
    "analyser_units",
    # version 10: the named rulesets every play of the game fits (jacquet infer), separated by
    # spaces in RULESET_NAMES' order; NULL for a game that could not be read. game_rules holds
    # them a row each, for the games list's filter
    "consistent_rules",
    # version 15: the game's rules options, the id of their JSON in ``rule_options`` (stored
    # once for the games that share it), last because the step from 14 adds it anew
    "options",
)
#: what a game's columns refer to (column, table, its key); ``options`` since version 15
GAME_REFERENCES: tuple[tuple[str, str, str], ...] = (
    ("event_id", "events", "id"),
    ("white_id", "players", "id"),
    ("black_id", "players", "id"),
    ("source_id", "sources", "id"),
    ("import_id", "imports", "id"),
    ("options", "rule_options", "id"),
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
        "options",
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


def _rules_array(names: str) -> str:
    """The space-separated ruleset names of a ``consistent_rules`` cell as a JSON array, read by
    ``json_each`` (a trigger may not use WITH)."""
    return (
        f"json_each(CASE WHEN coalesce({names}, '') = '' THEN '[]' "
        f"ELSE '[\"' || replace({names}, ' ', '\",\"') || '\"]' END)"
    )


def create_game_rules_triggers(db: sqlite_utils.Database) -> None:
    """The triggers that keep ``game_rules`` equal to ``games.consistent_rules`` (version 13:
    without an index on ``game_id``).

    A game's rows are deleted through the table's key, ruleset by ruleset: by the names the old
    row held (an update, a delete), or, for an insert (whose ``INSERT OR REPLACE`` of a row fires
    no delete trigger), by every named ruleset this jacquet knows and the new row's own. The
    index on ``game_id`` that a delete by game alone would need held a second copy of every row
    (1.3% of a self-play archive) for no query but these.
    """
    known = ", ".join(f"'{name}'" for name in RULESET_NAMES)
    fill = (
        "INSERT OR IGNORE INTO game_rules (rules, game_id) "
        f"SELECT value, new.id FROM {_rules_array('new.consistent_rules')};"
    )
    clear_old = (
        "DELETE FROM game_rules WHERE game_id = old.id AND rules IN "
        f"(SELECT value FROM {_rules_array('old.consistent_rules')});"
    )
    clear_new = (
        f"DELETE FROM game_rules WHERE game_id = new.id AND (rules IN ({known}) OR rules IN "
        f"(SELECT value FROM {_rules_array('new.consistent_rules')}));"
    )
    for event, body in (
        ("insert", f"{clear_new} {fill}"),
        ("update", f"{clear_old} {fill}"),
        ("delete", clear_old),
    ):
        db.execute(
            f"CREATE TRIGGER game_rules_{event} AFTER {event.upper()} ON games BEGIN {body} END"
        )


def create_game_rules(db: sqlite_utils.Database) -> None:
    """The ``game_rules`` table (schema version 10): a row for each named ruleset a game is
    consistent with (``games.consistent_rules`` split), keyed by ruleset so that the games
    consistent with one are an index's range, kept by triggers on ``games`` as ``game_list`` is.

    An import's ``INSERT`` of a game row that replaces one fires no delete trigger, so the
    insert trigger clears the game's rows first.
    """
    db.execute(
        "CREATE TABLE game_rules (rules TEXT NOT NULL, game_id TEXT NOT NULL, "
        "PRIMARY KEY (rules, game_id)) WITHOUT ROWID"
    )
    create_game_rules_triggers(db)
    db.execute(
        "INSERT OR IGNORE INTO game_rules (rules, game_id) SELECT j.value, g.id FROM games g, "
        "json_each('[\"' || replace(g.consistent_rules, ' ', '\",\"') || '\"]') j "
        "WHERE coalesce(g.consistent_rules, '') != ''"
    )


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


def create_groups(db: sqlite_utils.Database) -> None:
    """Version 7: ``game_groups``, a row for each game in a group of printings of one game
    (``archive/groups.py``), and the index of the games' last positions it looks them up by."""
    db.table("game_groups").create(
        {"game_id": str, "group_id": str},
        pk="game_id",
        foreign_keys=[("game_id", "games", "id")],
        if_not_exists=True,
    )
    db.table("game_groups").create_index(["group_id"], if_not_exists=True)
    db.table("games").create_index(["final_key"], if_not_exists=True)


def create_player_aliases(db: sqlite_utils.Database) -> None:
    """The ``player_aliases`` table (version 8): a spelling's lookup key made another player's.

    Keyed by the spelling's ``normalised`` name rather than by a players row, so that the merge
    outlives the rows it joined: an import or a rebuild looks each name up here before
    ``players`` (``store.Store.name_id``), and the games of every spelling point at one id.
    """
    db.table("player_aliases").create(
        {"normalised": str, "name": str, "player_id": int, "merged": str},
        pk="normalised",
        foreign_keys=[("player_id", "players", "id")],
        if_not_exists=True,
    )
    db.table("player_aliases").create_index(["player_id"], if_not_exists=True)


def create_rule_options(db: sqlite_utils.Database) -> None:
    """The ``rule_options`` table (version 15): each distinct set of rules options, as JSON,
    once; ``games.options`` holds its id.

    A game's options took 287 bytes of its row, though an archive holds one set for each
    ruleset its games were replayed under (a handful): 4% of the shared match files' archive.
    ``options`` is unique, so that the writer's lookup of a set (:meth:`.store.Store.options_id`)
    and the migration's are one index probe, and no set is stored twice.
    """
    db.execute(
        "CREATE TABLE IF NOT EXISTS rule_options (id INTEGER PRIMARY KEY, "
        "options TEXT NOT NULL UNIQUE)"
    )


def create_views(db: sqlite_utils.Database, replace: bool = False) -> None:
    """The views (``replace``: made again, as a migration that changes one needs)."""
    for name, sql in VIEWS.items():
        db.create_view(name, sql.strip(), replace=replace)


#: version 16: each side's games of a player, through indexes that hold what the player page
#: sums (a player of 200,000 games: as many index entries, not scattered rows), its newest
#: first (a page of them: 51 entries) and its analysed ones (few); ``white_id = ?`` uses them
PLAYER_INDEXES: tuple[str, ...] = tuple(
    definition.format(side=side, other=other)
    for side, other in (("white", "black"), ("black", "white"))
    for definition in (
        "idx_games_{side}_sums ON games ({side}_id, {other}_id, winner, points, year)",
        "idx_games_{side}_newest ON games ({side}_id, date DESC, id)",
        "idx_games_{side}_analysed ON games ({side}_id, date) WHERE analyser IS NOT NULL",
    )
)


def create_player_indexes(db: sqlite_utils.Database) -> None:
    """:data:`PLAYER_INDEXES` (version 16), in place of each side's index of one column."""
    for definition in PLAYER_INDEXES:
        db.execute(f"CREATE INDEX IF NOT EXISTS {definition}")
    for side in ("white", "black"):
        db.execute(f"DROP INDEX IF EXISTS idx_games_{side}_id")


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
    create_rule_options(db)
    db.table("games").create(
        {column: _GAME_TYPES.get(column, str) for column in GAME_COLUMNS},
        pk="id",
        foreign_keys=list(GAME_REFERENCES),
    )
    for column in (
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
    create_player_indexes(db)
    create_plies(db)
    create_search_indexes(db)
    db.table("occurrences").create(
        {"import_id": int, "game_index": int, "game_id": str, "line": int},
        pk=("import_id", "game_index"),
        foreign_keys=[("import_id", "imports", "id"), ("game_id", "games", "id")],
    )
    db.table("occurrences").create_index(["game_id"])
    create_matches(db)
    create_groups(db)
    create_player_aliases(db)
    db.table("imports").create_index(["sha256"])
    db.table("games").enable_fts(
        ["white", "black", "event", "site", "source", "comments"], create_triggers=True
    )
    for table in ("players", "events", "sources"):
        db.table(table).enable_fts(["name"], create_triggers=True)
    create_views(db)
    create_game_list(db)
    create_decisions(db)
    create_game_rules(db)
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
