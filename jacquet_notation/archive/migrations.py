"""The archive's migrations: each step from a schema version (``PRAGMA user_version``) to the
next, run in order in one transaction by :func:`migrate`; see "Migrations" in docs/archive.md.

Apart from opening.py, which checks a file and decides whether it must be migrated, so that a
new step lands here beside the others.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable

import sqlite_utils

from . import import_rows, store
from .decisions import create_decisions
from .game_list import add_winner_and_points, create_game_list
from .groups import refresh_groups
from .matches import refresh_matches
from .plays import PLY_COLUMNS, create_plies_table, migrate_turns, rekey_plies
from .rows import DerivedGame, derive, reread
from .schema import (
    GAME_LIST_INDEXES,
    SCHEMA_VERSION,
    VIEWS,
    create_game_rules,
    create_game_rules_triggers,
    create_groups,
    create_matches,
    create_player_aliases,
    create_player_indexes,
    create_rule_options,
    create_schema,
    create_views,
)
from .search_index import create_search_indexes
from .store import Store


def migrate(db: sqlite_utils.Database, version: int) -> None:
    """Bring an archive from ``version`` up to :data:`SCHEMA_VERSION`, in one transaction."""
    with db.atomic():
        if version == 0:
            _migrate_0_to_1(db)  # creates the whole current schema
        else:
            db.table("games").create_index(["result"], if_not_exists=True)
            for target, step in enumerate(_STEPS, start=2):
                if version < target:
                    step(db)
            if version < 7:  # the groups read the plays as the last step stores them
                refresh_groups(db.conn)
            db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


def add_reader_column(db: sqlite_utils.Database) -> None:
    """``imports.reader`` (added within version 5): which reader read each file. Imports made
    before it have none, so their games are derived again by the next import
    (:func:`.import_rows.stale_imports`)."""
    if "reader" not in db.table("imports").columns_dict:
        db.execute("ALTER TABLE imports ADD COLUMN reader TEXT")


def _migrate_1_to_2(db: sqlite_utils.Database) -> None:
    """Version 2 keeps the opponent's share of a Versailles turn apart: ``turns.opponent_steps``.

    Rows written before had no share (the rule was not played), so the column starts empty;
    ``jacquet rebuild`` re-derives games recorded under "every die is used" (docs/archive.md).
    """
    if "opponent_steps" not in db.table("turns").columns_dict:
        db.execute("ALTER TABLE turns ADD COLUMN opponent_steps TEXT")


def _migrate_2_to_3(db: sqlite_utils.Database) -> None:
    """Version 3 adds the games list's narrow copy of ``games`` (the browser's games list)."""
    if "game_list" not in db.table_names():
        create_game_list(db)


def _migrate_3_to_4(db: sqlite_utils.Database) -> None:
    """Version 4 keeps matches: ``turns.cube`` (a cube action as the .jqt writes it) and the
    ``matches`` table, with the ``player_matches`` view.

    The cube column is filled from the turns as written (a .mat file's ``Doubles => 2``,
    ``Takes``, ``Drops``, ``Beavers``, a .jqt's ``double 2``, ...) and the matches derived from
    the games' tags; the games' own cube and points checks need ``jacquet rebuild``.
    """
    if "cube" not in db.table("turns").columns_dict:
        db.execute("ALTER TABLE turns ADD COLUMN cube TEXT")
    db.execute(
        """UPDATE turns SET cube = CASE
             WHEN lower(written) LIKE 'double%' THEN 'double ' || trim(substr(written,
               instr(written, ' ') + 1), ' =>')
             WHEN lower(written) LIKE 'beaver%' AND instr(written, ' ') > 0 THEN 'beaver ' ||
               trim(substr(written, instr(written, ' ') + 1), ' =>')
             WHEN lower(written) LIKE 'beaver%' THEN 'beaver'
             WHEN lower(written) LIKE 'take%' THEN 'take'
             WHEN lower(written) LIKE 'drop%' THEN 'drop'
           END
           WHERE dice IS NULL"""
    )
    create_matches(db)
    db.execute("DROP VIEW IF EXISTS player_matches")
    db.create_view("player_matches", VIEWS["player_matches"].strip())
    refresh_matches(db.conn)


def _migrate_4_to_5(db: sqlite_utils.Database) -> None:
    """Version 5 marks the games that start from a set position: ``games.start_key``.

    Before it a ``[Position]`` tag was not read (its game was replayed from the start), so the
    column starts empty; ``jacquet rebuild`` re-derives such games (docs/archive.md).
    """
    if "start_key" not in db.table("games").columns_dict:
        db.execute("ALTER TABLE games ADD COLUMN start_key TEXT")
    # opening_rolls leaves out games from a set position (made alone: at version 5,
    # duplicates is still a table, which version 6 makes a view)
    db.execute("DROP VIEW IF EXISTS opening_rolls")
    db.create_view("opening_rolls", VIEWS["opening_rolls"].strip())


def _migrate_5_to_6(db: sqlite_utils.Database) -> None:
    """Version 6 stores a match game's text once and a fingerprint's group once, and says how
    each game ended.

    ``games.gap`` (the lines of the file a match game's ``original`` leaves out after its
    header) starts empty: the texts stored before are padded to their lines, and read the same;
    ``jacquet rebuild`` stores them anew, once. The ``duplicates`` table, a row for every pair
    of games sharing a fingerprint, becomes a view of the same columns over ``games``.
    ``games.ending`` (borne off, a drop, a resignation, unfinished) starts empty too, and every
    ending is now scored (a drop, a resignation, the cube's points): the reader's revision rose
    with it, so the next import derives every stored game again (docs/archive.md).
    """
    if "gap" not in db.table("games").columns_dict:
        db.execute("ALTER TABLE games ADD COLUMN gap INTEGER")
    if "ending" not in db.table("games").columns_dict:
        db.execute("ALTER TABLE games ADD COLUMN ending TEXT")
    if "duplicates" in db.table_names():
        db.execute("DROP TABLE duplicates")
    db.execute("DROP VIEW IF EXISTS duplicates")
    db.create_view("duplicates", VIEWS["duplicates"].strip())


def _migrate_6_to_7(db: sqlite_utils.Database) -> None:
    """Version 7 keeps the groups of printings of one game (``game_groups``), found for every
    game already stored once every step has run (:func:`migrate`: they read the plays as the
    current version stores them), and indexes the games' last positions (``games.final_key``)."""
    create_groups(db)


def _migrate_7_to_8(db: sqlite_utils.Database) -> None:
    """Version 8 records that several spellings are one player: the ``player_aliases`` table.

    It starts empty (no spelling was merged before), so nothing else changes; ``jacquet players
    --merge`` fills it.
    """
    create_player_aliases(db)


def _migrate_8_to_9(db: sqlite_utils.Database) -> None:
    """Version 9 keeps what an analyser wrote (the ``decisions`` table) and the format each game
    came from, with its analyser (``games.format``, ``analyser``, ``analyser_settings``,
    ``analyser_units``). Games stored before have none: their format is unknown (NULL), and the
    analysis of an ``.xg`` file imported before was never stored (docs/archive.md)."""
    create_decisions(db)


def _migrate_9_to_10(db: sqlite_utils.Database) -> None:
    """Version 10 keeps the named rulesets each game's plays fit (``jacquet infer``):
    ``games.consistent_rules`` and the ``game_rules`` table the games list filters by.

    The column starts empty (inferring every stored game is a rebuild's work, not a
    migration's): ``jacquet archive --rebuild`` fills it, as every import fills it for the games
    it writes (docs/archive.md).
    """
    if "consistent_rules" not in db.table("games").columns_dict:
        db.execute("ALTER TABLE games ADD COLUMN consistent_rules TEXT")
    if "game_rules" not in db.table_names():
        create_game_rules(db)


def _migrate_10_to_11(db: sqlite_utils.Database) -> None:
    """Version 11 stores what it must once: ``turns`` and ``positions`` become views of the same
    columns over ``plies``, ``game_numbers`` and ``shared_positions`` (:mod:`.plays`)."""
    db.execute("DROP VIEW IF EXISTS opening_rolls")  # made again over the new views
    migrate_turns(db)
    create_views(db, replace=True)


def _migrate_11_to_12(db: sqlite_utils.Database) -> None:
    """Version 12 indexes what the position search reads of each play's ``counts``: partial
    expression indexes on ``plies``, no new column (:mod:`.search_index`)."""
    create_search_indexes(db.conn)


def _migrate_12_to_13(db: sqlite_utils.Database) -> None:
    """Version 13 drops ``game_rules``' index on ``game_id``, a second copy of every row, and
    makes its triggers again to clear a game's rows through the table's key
    (:func:`.schema.create_game_rules_triggers`); ``plies`` becomes a rowid table keyed by its
    plays' ``(game << 12) | ply`` (:func:`.plays.rekey_plies`), every row carried over. The
    page size of a new archive (:data:`.schema.PAGE_SIZE`) cannot be given to a WAL file
    already written."""
    for event in ("insert", "update", "delete"):
        db.execute(f"DROP TRIGGER IF EXISTS game_rules_{event}")
    db.execute("DROP INDEX IF EXISTS game_rules_game_id")
    create_game_rules_triggers(db)
    rekey_plies(db)  # then its indexes, and the views that read it
    create_search_indexes(db.conn)
    create_views(db, replace=True)


def _migrate_13_to_14(db: sqlite_utils.Database) -> None:
    """Version 14 indexes ``plies`` by ``(key_after, ply)`` where version 13 had ``key_after``
    alone, so that the groups' lookup of the plays reaching a position at or after a ply
    (:func:`.groups._holding`) is one range of the index. An archive whose key indexes are
    dropped (an import's bulk load, :func:`.store.key_indexes_deferred`) gets it when they are
    built again."""
    conn = db.conn
    if conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = 'idx_plies_key_after'"
    ).fetchone():
        conn.execute("DROP INDEX idx_plies_key_after")
        store.build_key_indexes(conn)  # the one missing, as PLY_KEY_INDEXES defines it now


#: the SQLite the step to 15 needs: ``ALTER TABLE ... DROP COLUMN`` came in 3.35.0 (2021);
#: Debian 12's Python has 3.40.1. A new archive needs no more than the rest of the package.
DROP_COLUMN_SQLITE = (3, 35, 0)


def _migrate_14_to_15(db: sqlite_utils.Database) -> None:
    """Version 15 stores each distinct set of rules options once (``rule_options``), a game's
    ``options`` becoming its id, the column's last, as a new archive's.

    By ALTER TABLE alone, no table rebuilt: ``games`` keeps its rowids (the full-text index's
    keys), its indexes, and the foreign keys other tables declare on it (a rebuilt table
    renamed under foreign_keys = ON would have them rewritten to the old table's name). A
    column is added with its reference, filled from the old, the old dropped (SQLite rewrites
    the rows once) and the new renamed. The triggers on ``games`` are dropped while the column
    is filled and made again from their own SQL: the update changes nothing they copy
    (``game_list``, ``game_rules``, the full-text index), and would otherwise write all three
    again for every game. The sets are numbered as the games first met them, as an import
    numbers them, so that a migrated archive's rows are a new one's. Nothing for an archive
    whose ``games`` an earlier step of the same migration made in version 15's layout.

    The view ``turns`` is made again: a play's text is stored without its roll where it
    begins with it, its moves packed where they are spelled canonically (:mod:`.stored_written`).
    ``plies`` is made again with ``written`` untyped, as a TEXT column would store the packed
    integer as its digits (:func:`_untype_written`: every row carried over by SQL, in key
    order, its indexes built again, as the step to 13 did). The texts stored before are kept
    as they are, which the view reads as it did; ``jacquet archive --rebuild`` stores them anew.
    """
    if sqlite3.sqlite_version_info < DROP_COLUMN_SQLITE:
        # before anything is changed: the whole migration is rolled back, the file kept as it was
        raise store.ArchiveError(
            "the archive is of version 14, and its step to version 15 needs SQLite "
            f"{'.'.join(map(str, DROP_COLUMN_SQLITE))} or newer; this Python's sqlite3 is "
            f"{sqlite3.sqlite_version} (the archive is unchanged; docs/archive.md, Version 15)"
        )
    conn = db.conn
    create_rule_options(db)
    if _untype_written(db):
        store.build_key_indexes(conn)
    create_views(db, replace=True)  # turns spells a play's roll back (stored_written.py)
    if any(row[3] == "options" for row in conn.execute("PRAGMA foreign_key_list(games)")):
        return
    conn.execute(
        "INSERT OR IGNORE INTO rule_options (options) SELECT options FROM games "
        "WHERE options IS NOT NULL GROUP BY options ORDER BY min(rowid)"
    )
    triggers = conn.execute(
        "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name = 'games' "
        "ORDER BY rowid"
    ).fetchall()
    for name, _ in triggers:
        conn.execute(f"DROP TRIGGER [{name}]")
    conn.execute("ALTER TABLE games ADD COLUMN _options INTEGER REFERENCES rule_options(id)")
    conn.execute(
        "UPDATE games SET _options = (SELECT r.id FROM rule_options r WHERE r.options = "
        "games.options) WHERE options IS NOT NULL"
    )
    conn.execute("ALTER TABLE games DROP COLUMN options")
    conn.execute("ALTER TABLE games RENAME COLUMN _options TO options")
    for _, sql in triggers:
        conn.execute(sql)


def _untype_written(db: sqlite_utils.Database) -> bool:
    """Version 14's ``plies``, whose ``written`` is TEXT, made again with the column untyped
    (:data:`.plays.UNTYPED`), every row as it was, in key order; False (nothing done) for a table
    made so already (a new archive's, or one an earlier step of the same migration made).
    Its indexes are made again by the caller."""
    conn = db.conn
    types = {row[1]: row[2] for row in conn.execute("PRAGMA table_info(plies)")}
    if not types.get("written"):
        return False
    conn.execute("PRAGMA legacy_alter_table = ON")  # the views keep reading ``plies``
    conn.execute("ALTER TABLE plies RENAME TO _v14_plies")
    conn.execute("PRAGMA legacy_alter_table = OFF")
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '_v14_plies' "
        "AND sql IS NOT NULL"
    ).fetchall():
        conn.execute(f"DROP INDEX {name}")
    create_plies_table(db)
    stored = ", ".join(PLY_COLUMNS[2:])  # the cells beside the key
    conn.execute(
        f"INSERT INTO plies (id, {stored}) SELECT id, {stored} FROM _v14_plies ORDER BY id"
    )
    conn.execute("DROP TABLE _v14_plies")
    return True


def _migrate_0_to_1(db: sqlite_utils.Database) -> None:
    """Version 0 (before versioning): games(id, white, black, date, result, status, text, file),
    imports(id, path, sha256, games). Every game is re-derived from its text; imports are kept.
    """
    conn = db.conn
    conn.execute("ALTER TABLE games RENAME TO _v0_games")
    has_imports = "imports" in db.table_names()
    if has_imports:
        conn.execute("ALTER TABLE imports RENAME TO _v0_imports")
    create_schema(db)
    by_path: dict[str | None, int] = {}
    if has_imports:
        for old_id, path, sha, games in conn.execute(
            "SELECT id, path, sha256, games FROM _v0_imports ORDER BY id"
        ):
            conn.execute(
                "INSERT INTO imports (id, path, sha256, games, status) "
                "VALUES (?, ?, ?, ?, 'complete')",
                (old_id, path, sha, games),
            )
            by_path.setdefault(path, old_id)
    target = Store(db.conn)
    counts: dict[int, int] = {}
    pending: list[DerivedGame] = []
    for text, file in conn.execute("SELECT text, file FROM _v0_games ORDER BY rowid").fetchall():
        import_id = by_path.get(file)
        if import_id is None:
            import_id = import_rows.new_import(db.conn, file, None, status="complete")
            by_path[file] = import_id
        counts[import_id] = counts.get(import_id, 0) + 1
        record = reread(text or "", file, counts[import_id], 1)
        pending.append(derive(record, None, import_id))
        if len(pending) >= store.BATCH:
            target.write_sightings(pending)
            pending = []
    if pending:
        target.write_sightings(pending)
    store.share_positions(db.conn, 0)
    import_rows.recount_imports(db)
    refresh_matches(db.conn)
    conn.execute("DROP TABLE _v0_games")
    if has_imports:
        conn.execute("DROP TABLE _v0_imports")


def _migrate_15_to_16(db: sqlite_utils.Database) -> None:
    """Version 16 reads a player's games through indexes of their own (the player page's sums,
    its newest games, its analysed ones: ``schema.PLAYER_INDEXES``), which take the place of
    the two sides' indexes of one column; ``game_list``'s indexes of a player hold what the
    page's spellings count (``game_list.GAME_LIST_INDEXES``). No row changes."""
    create_player_indexes(db)
    for side in ("white", "black"):
        db.execute(f"DROP INDEX IF EXISTS idx_game_list_{side}_id")
    for indexed in GAME_LIST_INDEXES:
        db.table("game_list").create_index(list(indexed), if_not_exists=True)


def _migrate_16_to_17(db: sqlite_utils.Database) -> None:
    """Version 17's ``game_list`` holds each game's winner and points, so that the opening tree
    sums a position's plays through the narrow list, not the wide ``games`` rows
    (:func:`.game_list.add_winner_and_points`)."""
    add_winner_and_points(db)


#: the steps from version 1 on, in order: step N (from 2) takes an archive of version N - 1 to
#: version N (a new step is added at the end, with SCHEMA_VERSION one more)
_STEPS: tuple[Callable[[sqlite_utils.Database], None], ...] = (
    _migrate_1_to_2,
    _migrate_2_to_3,
    _migrate_3_to_4,
    _migrate_4_to_5,
    _migrate_5_to_6,
    _migrate_6_to_7,
    _migrate_7_to_8,
    _migrate_8_to_9,
    _migrate_9_to_10,
    _migrate_10_to_11,
    _migrate_11_to_12,
    _migrate_12_to_13,
    _migrate_13_to_14,
    _migrate_14_to_15,
    _migrate_15_to_16,
    _migrate_16_to_17,
)
assert len(_STEPS) + 1 == SCHEMA_VERSION, "a schema step without its migration"
