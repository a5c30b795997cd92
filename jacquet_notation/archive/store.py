"""The archive's SQL that an import, a rebuild and a migration share: connections, the key
indexes, and writing derived games (the ``imports`` rows: :mod:`.import_rows`).

It runs on either kind of connection (:data:`Connection`). :class:`Store` writes batches of
:class:`~.rows.DerivedGame` and owns the one lookup of a name's id.
"""

from __future__ import annotations

import contextlib
import sqlite3
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Any

import apsw

from ..errors import JacquetError
from .decisions import INSERT as INSERT_DECISIONS
from .names import normalise_name
from .plays import NOTE_INSERT, PLY_INSERT, PLY_KEY_INDEXES
from .rows import DerivedGame, GameRow
from .schema import GAME_COLUMNS
from .search_index import SEARCH_INDEXES, create_search_indexes
from .shared_positions import share_positions as share_positions

#: games handled per batch: the unit the importing process sends to the writer process. Small
#: enough that a batch of rows (about 14 KiB pickled a game) fits in the pipe with room to spare,
#: so that the importer seldom waits for the writer to read (measured at 10,000 games: 1 s of
#: waiting with 32, 6.6 s with 128)
BATCH = 32

#: how long an import (or a rebuild) waits for another process writing to the same archive: a
#: process writes one file at a time, and a file of 100,000 games takes about three minutes
WAIT_SECONDS: float = 600.0

#: how far one file's import may grow the archive: this many times the file's bytes, plus the
#: allowance below (docs/archive.md, "Growth"). Real collections grow it 5 to 6 times their
#: text; a file that would grow it past the cap is rolled back and refused in one line, so that
#: whoever may drop a file in a folder ``jacquet serve`` imports cannot fill the disk with it.
GROWTH_FACTOR = 40
#: what any file may add besides (a small file's rows still fill whole pages of each table)
GROWTH_ALLOWANCE = 16 * 1024 * 1024


def growth_cap(input_bytes: int) -> int:
    """The most bytes the import of a file of ``input_bytes`` may grow the archive by."""
    return GROWTH_FACTOR * max(input_bytes, 0) + GROWTH_ALLOWANCE


def archive_bytes(conn: Connection | apsw.Connection) -> int:
    """The archive's size as this connection sees it, its transaction's pages included."""
    pages = next(iter(conn.execute("PRAGMA page_count")))[0]
    size = next(iter(conn.execute("PRAGMA page_size")))[0]
    return int(pages) * int(size)


#: a connection rows are written through: Python's own (sqlite-utils' connection, for a rebuild
#: or a migration), or APSW's (the writer process of an import, see :func:`connect_writer`).
#: Only what both offer is used: ``execute``, ``executemany``, ``fetchone``/``fetchall``,
#: ``in_transaction``; new ids come back by ``RETURNING``, never by ``lastrowid``
Connection = sqlite3.Connection | apsw.Connection


class ArchiveError(JacquetError):
    """An archive file that cannot be used: not SQLite, truncated, newer, or not an archive."""


def busy_error(path: str) -> ArchiveError:
    """What an import says when another process kept the archive's write lock too long."""
    return ArchiveError(
        f"{path}: another process is writing to this archive; gave up after waiting "
        f"{WAIT_SECONDS:g} s for it (run the import again when it is done)"
    )


def is_busy(error: sqlite3.Error) -> bool:
    return isinstance(error, sqlite3.OperationalError) and "locked" in str(error)


def connect(path: str) -> sqlite3.Connection:
    """A connection through Python's ``sqlite3`` (sqlite-utils'), waiting for the write lock up
    to :data:`WAIT_SECONDS`."""
    return sqlite3.connect(path, timeout=WAIT_SECONDS, check_same_thread=False)


#: size of the writer's page cache during an import (KiB, as ``PRAGMA cache_size`` takes it)
WRITER_CACHE_KIB = 262_144


def connect_writer(path: str) -> apsw.Connection:
    """The writer's own connection, through APSW: transactions are begun and ended explicitly.

    APSW binds a row's values to a statement in about half the time of Python's ``sqlite3``
    (measured: 470,921 turn rows, 0.9 s against 1.8 s), and binding is most of the writer's
    work. It carries its own SQLite; the archive's file format and WAL are the same for both.
    Two SQLite libraries must not close each other's locks: in one process, closing any
    descriptor of a file releases all the process's locks on it. The writer is a process of its
    own, whose only connection is this one; what it inherits by fork is never closed (it is
    frozen, and garbage is collected before the fork).
    """
    conn = apsw.Connection(path)
    conn.set_busy_timeout(int(WAIT_SECONDS * 1000))
    conn.execute("PRAGMA foreign_keys = ON")
    conn.execute("PRAGMA synchronous = NORMAL")
    conn.execute(f"PRAGMA cache_size = -{WRITER_CACHE_KIB}")
    return conn


def temporary_in_memory(conn: Connection, in_memory: bool) -> None:
    """Keep SQLite's temporary files in memory (``in_memory``) or let them spill to disk.

    In memory while a file's games are written: every row written into ``games`` (its indexes,
    its triggers' tables, the full-text index) keeps a statement journal of the pages it
    changes, past 64 KiB a temporary file, and those journals were most of what the writer
    wrote (measured: 8.4 GB of writes for the 24 MB archive of the shared match files, 2.8 GB
    in memory); each is one row's pages, so memory stays bounded. On disk again before the key
    indexes are built and the file's positions counted, whose sorts grow with the file.
    """
    conn.execute(f"PRAGMA temp_store = {'MEMORY' if in_memory else 'DEFAULT'}")


@contextlib.contextmanager
def write_lock(conn: sqlite3.Connection, path: str) -> Iterator[None]:
    """A transaction that holds the write lock from its start (BEGIN IMMEDIATE), so that what
    it reads is still true when it writes, whatever another import does; committed at the end.
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if is_busy(error):
            raise busy_error(path) from None
        raise
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


# --------------------------------------------------------------------------------------------
# The imports table


def returned_id(row: Any) -> int:
    """The id an ``INSERT ... RETURNING id`` gave back."""
    if row is None:
        raise sqlite3.DatabaseError("an insert returned no id")
    return int(row[0])


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


#: the plies' key indexes a bulk import drops, then builds again once its rows are in
KEY_INDEXES = PLY_KEY_INDEXES
#: bytes of record text per play, about (a canonical play is ``6-5: 24/18 18/13`` and its
#: turn number): enough to tell a file that will add more turns than the archive holds
BYTES_PER_PLAY = 20


def key_indexes_deferred(conn: sqlite3.Connection, new_bytes: int) -> bool:
    """Whether a file of ``new_bytes`` of records is written without the turns key indexes.

    Inserting a row into an index at a random key costs far more than building the index once
    by sorting (measured: a quarter of the writing at 10,000 games); so a file that at least
    doubles the turns table is written without them (:func:`drop_key_indexes`), and
    :func:`build_key_indexes` makes them again before the file's transaction commits (a failure
    rolls the drop back with the rest). Only reads: the importing process decides (for a file,
    or a run of new files: :mod:`.settling`), the writer process drops."""
    # the plays held, from the games list's index on plies (a few bytes a game)
    turns = conn.execute(
        "SELECT CASE WHEN EXISTS (SELECT 1 FROM plies) "
        "THEN (SELECT coalesce(sum(plies), 0) FROM game_list) ELSE 0 END"
    ).fetchone()[0]
    return bool(new_bytes // BYTES_PER_PLAY >= turns)


def drop_key_indexes(conn: Connection) -> None:
    for name, _, _ in KEY_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")
    for index in SEARCH_INDEXES:  # the search's, built again likewise
        conn.execute(f"DROP INDEX IF EXISTS {index.name}")


def build_key_indexes(conn: Connection) -> None:
    for name, column, where in KEY_INDEXES:
        conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON plies ({column}){where}")
    create_search_indexes(conn)


# --------------------------------------------------------------------------------------------
# Games


class Store:
    """Writes derived games in batches on one connection, looking up the ids of their names.

    The name caches hold ids written inside the current transaction; :meth:`forget` drops them
    when a transaction rolls back.
    """

    def __init__(self, conn: Connection) -> None:
        self.conn = conn
        self.names: dict[str, dict[str, int]] = {}
        self.forget()
        columns = ", ".join(GAME_COLUMNS)
        marks = ", ".join("?" for _ in GAME_COLUMNS)
        self.insert_game = f"INSERT INTO games ({columns}) VALUES ({marks})"
        self.insert_plies = PLY_INSERT
        self.insert_notes = NOTE_INSERT

    def forget(self) -> None:
        """Reload the name caches from the archive (after a rollback, or at the start)."""
        self.names = {
            table: {
                str(name): int(id_)
                for name, id_ in self.conn.execute(f"SELECT normalised, id FROM {table}")
            }
            for table in ("players", "events", "sources")
        }
        # a merged spelling (docs/archive.md, "One player, many spellings") finds its player
        self.names["players"].update(
            (str(name), int(id_))
            for name, id_ in self.conn.execute("SELECT normalised, player_id FROM player_aliases")
        )
        self.names["rule_options"] = {
            str(options): int(id_)
            for options, id_ in self.conn.execute("SELECT options, id FROM rule_options")
        }

    def name_id(self, table: str, name: str | None) -> int | None:
        """The id of a player, event or source, inserting it the first time it is seen.

        What sqlite-utils' ``table.lookup()`` does, written here because the import's writer
        runs on an APSW connection, which sqlite-utils cannot drive (it reads ``sqlite3``'s
        ``isolation_level`` and ``lastrowid``); one statement serves both connections.
        """
        if name is None or not name.strip() or name.strip() == "?":
            return None
        key = normalise_name(name)
        cache = self.names[table]
        found = cache.get(key)
        if found is None:
            inserted = self.conn.execute(
                f"INSERT INTO {table} (name, normalised) VALUES (?, ?) RETURNING id",
                (name.strip(), key),
            ).fetchone()
            found = cache[key] = returned_id(inserted)
        return found

    def options_id(self, options: str | None) -> int | None:
        """The id of a set of rules options (its JSON, as :mod:`.rows` writes it) in
        ``rule_options`` (version 15), inserting it the first time it is seen: a game's row
        holds the id, the set is stored once."""
        if options is None:
            return None
        cache = self.names["rule_options"]
        found = cache.get(options)
        if found is None:
            inserted = self.conn.execute(
                "INSERT INTO rule_options (options) VALUES (?) RETURNING id", (options,)
            ).fetchone()
            found = cache[options] = returned_id(inserted)
        return found

    def known_id(self, table: str, name: str) -> int | None:
        """The id ``name`` has in ``table`` (a merged spelling: its player's), None if it has
        none: :meth:`name_id`'s lookup, without the insertion."""
        return self.names[table].get(normalise_name(name))

    def resolve_names(self, game: GameRow) -> None:
        """Set the ids of a game row's players, event, source and rules options (inserting new
        ones)."""
        if isinstance(game["options"], str):  # not twice: an id is kept as it is
            game["options"] = self.options_id(game["options"])
        game["white_id"] = self.name_id("players", game["white"])
        game["black_id"] = self.name_id("players", game["black"])
        game["event_id"] = self.name_id("events", game["event"])
        game["source_id"] = self.name_id("sources", game["source"])

    def existing(self, ids: Iterable[str]) -> set[str]:
        """Which of ``ids`` are already games of the archive (one query per 500)."""
        wanted = list(dict.fromkeys(ids))
        found: set[str] = set()
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ", ".join("?" for _ in chunk)
            found.update(
                row[0]
                for row in self.conn.execute(f"SELECT id FROM games WHERE id IN ({marks})", chunk)
            )
        return found

    def write(self, batch: Sequence[DerivedGame]) -> list[DerivedGame]:
        """Insert the new games of ``batch`` with their turns and positions; the new ones."""
        present = self.existing(derived.id for derived in batch)
        new: list[DerivedGame] = []
        for derived in batch:
            if derived.id in present:
                continue
            present.add(derived.id)
            new.append(derived)
        if not new:
            return new
        game_rows = []
        for derived in new:
            game = derived.game
            self.resolve_names(game)
            game_rows.append(tuple(game[column] for column in GAME_COLUMNS))
        self.conn.executemany(self.insert_game, game_rows)
        first = self.next_number()
        numbered = list(enumerate(new, first))
        self.conn.executemany(
            "INSERT INTO game_numbers (number, game_id) VALUES (?, ?)",
            [(number, derived.id) for number, derived in numbered],
        )
        self.insert_plies_of(numbered)
        decisions = [row for derived in new for row in derived.decisions]
        if decisions:
            self.conn.executemany(INSERT_DECISIONS, decisions)
        return new

    def next_number(self) -> int:
        """The number the next game stored will take (``game_numbers``; a file's games are
        numbered on from the last, so that its plies are the range from its first)."""
        found = self.conn.execute("SELECT coalesce(max(number), 0) + 1 FROM game_numbers")
        return returned_id(found.fetchone())

    def write_sightings(self, batch: Sequence[DerivedGame]) -> int:
        """Write a batch of games read (:meth:`write`) and where each was seen (``occurrences``,
        one row a game read, new or not); the number of new games."""
        added = self.write(batch)
        self.conn.executemany(
            "INSERT INTO occurrences (import_id, game_index, game_id, line) VALUES (?, ?, ?, ?)",
            [
                (derived.game["import_id"], derived.index, derived.id, derived.line)
                for derived in batch
            ],
        )
        return len(added)

    def insert_plies_of(self, numbered: Sequence[tuple[int, DerivedGame]]) -> None:
        """Insert the plays of games, each with its number (by executemany: in the writer
        process or a rebuild, no other thread waits for the GIL)."""
        self.conn.executemany(
            self.insert_plies,
            [(number, *turn) for number, derived in numbered for turn in derived.turns],
        )
        self.conn.executemany(
            self.insert_notes,
            [(number, *note) for number, derived in numbered for note in derived.notes],
        )
