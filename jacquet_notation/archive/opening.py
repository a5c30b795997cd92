"""Opening an archive file: checked, then created, or migrated to the current schema.

The migrations themselves are in migrations.py; see "Migrations" in docs/archive.md.
"""

from __future__ import annotations

import os
import sqlite3
from functools import cache
from pathlib import Path

import sqlite_utils

from . import store
from .migrations import add_reader_column, migrate
from .schema import (
    PAGE_SIZE,
    SCHEMA_VERSION,
    create_schema,
)
from .store import ArchiveError

#: the first bytes of every SQLite file
SQLITE_HEADER = b"SQLite format 3\x00"


def _check_file(path: str) -> None:
    """Refuse a file that is not SQLite, or is cut short, before SQLite reads it."""
    if os.path.isdir(path):
        raise ArchiveError(f"{path}: is a folder, not an archive file")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        header = handle.read(100)
    if not (header + SQLITE_HEADER[len(header) :]).startswith(SQLITE_HEADER):
        raise ArchiveError(f"{path}: not an SQLite file (not a jacquet archive)")
    if len(header) < 100:
        raise ArchiveError(f"{path}: the SQLite file is truncated ({size} bytes)")
    page_size = int.from_bytes(header[16:18], "big")
    page_size = 65536 if page_size == 1 else page_size
    pages = int.from_bytes(header[28:32], "big")
    # The page count in the header is trusted only when its "valid-for" number matches the change
    # counter (SQLite's own rule), and only without a write-ahead log: after a crash the log holds
    # pages the file does not have yet, which SQLite recovers.
    wal = path + "-wal"
    logged = os.path.exists(wal) and os.path.getsize(wal) > 0
    if not logged and header[92:96] == header[24:28] and pages and size < pages * page_size:
        raise ArchiveError(
            f"{path}: the archive is truncated ({size} bytes, {pages * page_size} expected)"
        )


def _check_layout(path: str, database: sqlite_utils.Database) -> tuple[int, set[str]]:
    """The schema version and tables of ``database``; raises for one that is not an archive."""
    version = int(database.conn.execute("PRAGMA user_version").fetchone()[0])
    tables = set(database.table_names())
    if version > SCHEMA_VERSION:
        raise ArchiveError(
            f"{path}: archive schema version {version} is newer than this jacquet "
            f"({SCHEMA_VERSION}); upgrade jacquet-notation"
        )
    if version == 0 and tables and "games" not in tables:
        raise ArchiveError(f"{path}: an SQLite file, but not a jacquet archive")
    return version, tables


@cache
def expected_layout() -> dict[str, tuple[str, tuple[str, ...]]]:
    """Every table and view a new archive holds, with its kind and columns: what a file of
    :data:`SCHEMA_VERSION` must hold, read off the schema itself (made once, in memory) rather
    than listed a second time. A full-text index's own shadow tables are SQLite's business."""
    conn = sqlite3.connect(":memory:")
    try:
        create_schema(sqlite_utils.Database(conn, execute_plugins=False))
        found = conn.execute(
            "SELECT type, name, sql FROM sqlite_master WHERE type IN ('table', 'view') "
            "AND name NOT LIKE 'sqlite%' ORDER BY rowid"
        ).fetchall()
        virtual = [name for _, name, sql in found if sql.upper().startswith("CREATE VIRTUAL")]
        return {
            name: (kind, tuple(row[1] for row in conn.execute(f"PRAGMA table_info([{name}])")))
            for kind, name, _ in found
            if not any(name.startswith(f"{table}_") for table in virtual)
        }
    finally:
        conn.close()


def check_columns(path: str, conn: sqlite3.Connection) -> None:
    """Refuse a file of the current version that lacks a table, a view or a column the pages and
    an import read (a ``games`` made by another program, a view dropped): one line naming the
    first thing missing, rather than pages answering 500 "no such column". Cheap: one ``PRAGMA
    table_info`` a table or view (which compiles a view, so a view naming a missing column is
    caught too), no row read."""
    wrong = f"{path}: not a jacquet archive of version {SCHEMA_VERSION}"
    for name, (kind, columns) in expected_layout().items():
        try:
            have = {row[1] for row in conn.execute(f"PRAGMA table_info([{name}])")}
        except sqlite3.DatabaseError as error:
            raise ArchiveError(f"{wrong}: {kind} {name} cannot be read ({error})") from None
        if not have:
            raise ArchiveError(f"{wrong}: {kind} {name} is missing")
        missing = [column for column in columns if column not in have]
        if missing:
            more = f" (and {len(missing) - 1} more)" if len(missing) > 1 else ""
            raise ArchiveError(f"{wrong}: {kind} {name} lacks column {missing[0]}{more}")


def _reader_uri(path: str, immutable: bool) -> str:
    """The URI of a read-only connection: a reader of the write-ahead log, or ``immutable``."""
    return f"{Path(path).resolve().as_uri()}?{'immutable=1' if immutable else 'mode=ro'}"


def _cannot_open(error: sqlite3.Error) -> bool:
    """SQLite could not open a file it needs (a WAL reader's ``-shm`` where none can be made)."""
    return getattr(error, "sqlite_errorcode", None) == sqlite3.SQLITE_CANTOPEN


def _readable(path: str, immutable: bool) -> sqlite3.Error | None:
    """Why a read-only connection to ``path`` cannot read its catalogue; None when it can, or
    when what is wrong is not a file SQLite could not open (the caller's opening reports it)."""
    try:
        reader = sqlite3.connect(_reader_uri(path, immutable), uri=True)
    except sqlite3.Error as error:
        return error if _cannot_open(error) else None
    try:
        reader.execute("SELECT count(*) FROM sqlite_master").fetchone()
    except sqlite3.Error as error:
        return error if _cannot_open(error) else None
    finally:
        reader.close()
    return None


def on_read_only_media(db: str | os.PathLike[str]) -> bool:
    """True when ``db`` can be read only as an immutable file, not as a reader of its log.

    A reader of a WAL archive needs its ``-shm`` (and SQLite makes it, with the ``-wal``, when
    they are missing): on read-only media, or in a folder nobody may write, it cannot, and a
    ``mode=ro`` connection fails with "unable to open database file". Such a file cannot change
    while it is served, which is what ``immutable=1`` tells SQLite, so it is read that way (as a
    published collection on a CD or a read-only mount must be). Raises :class:`ArchiveError`
    when it has a non-empty ``-wal`` it cannot read (commits an immutable reader would miss).
    """
    path = os.fspath(db)
    if not os.path.isfile(path) or _readable(path, immutable=False) is None:
        return False
    if _readable(path, immutable=True) is not None:
        return False  # not readable at all: the caller's own opening says why
    wal = path + "-wal"
    if os.path.exists(wal) and os.path.getsize(wal) > 0:
        raise ArchiveError(
            f"{path}: on read-only media, with a write-ahead log ({os.path.getsize(wal)} "
            "bytes) that cannot be read there; open it once on writable media (jacquet "
            "archive), which folds the log into the file"
        )
    return True


def open_reader(db: str | os.PathLike[str]) -> sqlite3.Connection:
    """A read-only connection to the archive ``db``: a reader of its write-ahead log, or an
    immutable one on read-only media (:func:`on_read_only_media`)."""
    path = os.fspath(db)
    return sqlite3.connect(_reader_uri(path, on_read_only_media(path)), uri=True)


def upgrade_before_serving(db: str | os.PathLike[str]) -> int | None:
    """Migrate an archive written by an older jacquet before it is served; its old version.

    ``jacquet serve`` reads an archive read-only, and its pages need the current tables (the
    games list, matches): an older archive is migrated first, as an import would, rather than
    served half-broken. None when the file is current. Raises :class:`ArchiveError` for a file
    that is no archive, one from a newer jacquet, one of the current version lacking what its
    pages read (:func:`check_columns`), or an old one that cannot be written. On read-only
    media nothing is written: an old archive there is refused.
    """
    path = os.fspath(db)
    _check_file(path)
    read_only = on_read_only_media(path)
    try:
        reader = sqlite3.connect(_reader_uri(path, read_only), uri=True)
    except sqlite3.Error as error:
        raise ArchiveError(f"{path}: cannot open the archive: {error}") from None
    try:
        version, tables = _check_layout(path, sqlite_utils.Database(reader, execute_plugins=False))
        if version == SCHEMA_VERSION:
            check_columns(path, reader)
    except sqlite3.DatabaseError as error:
        raise ArchiveError(f"{path}: not a usable archive: {error}") from None
    finally:
        reader.close()
    if version == SCHEMA_VERSION or not tables:
        return None  # current, or an empty SQLite file (Datasette serves it as it is)
    if read_only:
        raise ArchiveError(
            f"{path}: archive schema version {version} is older than this jacquet's "
            f"({SCHEMA_VERSION}) and the file is on read-only media; it must be migrated on "
            "writable media first (copy it there and run jacquet serve or jacquet archive on it)"
        )
    if not os.access(path, os.W_OK):
        raise ArchiveError(
            f"{path}: archive schema version {version} is older than this jacquet's "
            f"({SCHEMA_VERSION}) and the file cannot be written to migrate it; copy it somewhere "
            "writable, or serve it with the jacquet that wrote it"
        )
    open_archive(path).conn.close()
    return version


def open_archive(db: str | os.PathLike[str]) -> sqlite_utils.Database:
    """Open (creating or migrating if needed) the archive at ``db``, in WAL mode.

    Raises :class:`ArchiveError` for a file that is not SQLite, truncated, written by a newer
    version, an SQLite file holding something else, or one another process kept locked for
    longer than :data:`.store.WAIT_SECONDS`.
    """
    path = os.fspath(db)
    _check_file(path)
    try:
        conn = store.connect(path)
    except sqlite3.Error as error:
        raise ArchiveError(f"{path}: cannot open the archive: {error}") from None
    database = sqlite_utils.Database(conn, execute_plugins=False)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        _check_layout(path, database)  # before WAL mode is set on a file that is no archive
        if database.journal_mode != "wal":
            # a new file's pages (no effect on one already written)
            conn.execute(f"PRAGMA page_size = {PAGE_SIZE}")
            database.enable_wal()
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA cache_size = -65536")
        # Read again under the write lock: two imports opening a new file at once must not
        # both create (or migrate) it; the second waits, then finds the schema made.
        conn.execute("BEGIN IMMEDIATE")
        version, tables = _check_layout(path, database)
        if version == 0 and not tables:
            create_schema(database)
        elif version < SCHEMA_VERSION:
            migrate(database, version)
        else:
            check_columns(path, conn)  # before anything is written into a file made otherwise
            # Added within version 1 (before any release): archives made earlier get it here.
            database.table("games").create_index(["result"], if_not_exists=True)
        add_reader_column(database)
        conn.execute("COMMIT")
    except sqlite3.DatabaseError as error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()
        if store.is_busy(error):
            raise store.busy_error(path) from None
        raise ArchiveError(f"{path}: not a usable archive: {error}") from None
    except ArchiveError as error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()
        if str(error).startswith(f"{path}:"):
            raise
        raise ArchiveError(f"{path}: {error}") from None  # a migration's, which has no path
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()
        raise
    return database
