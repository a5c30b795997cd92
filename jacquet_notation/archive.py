"""The SQLite archive: every game ever imported, valid or not, with where it came from.

The archive is an exporter (it reads replayed games); the schema is the contract with the
Datasette browser and is documented in ``docs/archive.md``. sqlite-utils creates the tables,
indexes, search and views. An import writes through a writer process with its own connection,
which owns one transaction per file and commits it only when told the file is done, so that a
file's games all land or none do and ``kill -9`` at any moment leaves a consistent archive.
"""

from __future__ import annotations

import base64
import contextlib
import gc
import hashlib
import io
import itertools
import json
import multiprocessing
import os
import pickle
import re
import signal
import sqlite3
import sys
import time
import unicodedata
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import apsw
import sqlite_utils

from ._gc import fewer_collections
from .errors import JacquetError, NotationError
from .notation import GameChunk, parse_chunk, parse_game, read_games, split_games, write_game
from .position import Position, opposite_point
from .record import MOVE_TEXTS, GameRecord
from .replay import ReplayedGame, ReplayError, replay
from .rules import Rules
from .validation import describe_error, record_files

#: the layout version stored in ``PRAGMA user_version``; see "Migrations" in docs/archive.md
SCHEMA_VERSION = 1

#: games handled per batch: the unit the importing process sends to the writer process. Small
#: enough that a batch of rows (about 14 KiB pickled a game) fits in the pipe with room to spare,
#: so that the importer seldom waits for the writer to read (measured at 10,000 games: 1 s of
#: waiting with 32, 6.6 s with 128)
BATCH = 32

_SQLITE_HEADER = b"SQLite format 3\x00"

#: how long an import (or a rebuild) waits for another process writing to the same archive: a
#: process writes one file at a time, and a file of 100,000 games takes about three minutes
WAIT_SECONDS: float = 600.0

#: a connection rows are written through: Python's own (sqlite-utils' connection, for a rebuild
#: or a migration), or APSW's (the writer process of an import, see :func:`_connect_writer`).
#: Only what both offer is used: ``execute``, ``executemany``, ``fetchone``/``fetchall``,
#: ``in_transaction``; new ids come back by ``RETURNING``, never by ``lastrowid``
_Connection = sqlite3.Connection | apsw.Connection


class ArchiveError(JacquetError):
    """An archive file that cannot be used: not SQLite, truncated, newer, or not an archive."""


@dataclass(slots=True)
class ImportSummary:
    """What an import (or a rebuild) did, counted like ``validate`` counts.

    ``unreadable`` counts unreadable games and files that could not be read at all, as
    ``validate`` does; ``errors`` holds one line per error, in input order. A skipped file (its
    sha256 already imported) counts its stored games again, so a re-run reports the same.
    """

    files: int = 0
    games: int = 0
    valid: int = 0
    invalid: int = 0
    unreadable: int = 0
    skipped_files: int = 0
    unreadable_files: int = 0
    new_games: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every game read is valid and every file could be read."""
        return not (self.invalid or self.unreadable)

    def line(self) -> str:
        """The one-line summary the command prints."""
        files = f"{self.files} file{'s' if self.files != 1 else ''}"
        extra = []
        if self.skipped_files:
            extra.append(f"{self.skipped_files} already imported")
        if self.unreadable_files:
            extra.append(f"{self.unreadable_files} unreadable")
        if extra:
            files += f" ({', '.join(extra)})"
        return (
            f"{files}: {self.games} games: {self.valid} valid, {self.invalid} invalid, "
            f"{self.unreadable} unreadable; {self.new_games} new in the archive"
        )


# --------------------------------------------------------------------------------------------
# Normalised names and dates


_SPACES = re.compile(r"\s+")


def normalise_name(name: str) -> str:
    """The lookup key of a name: accents removed, case folded, whitespace collapsed.

    ``"  Jean  DUPRÉ "`` and ``"jean dupre"`` are one player; the display name is kept apart.
    """
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return _SPACES.sub(" ", bare.casefold()).strip()


_DATE = re.compile(r"\s*(\d{4}|\?{4})(?:[.\-/](\d{2}|\?{2})(?:[.\-/](\d{2}|\?{2}))?)?\s*\Z")


def iso_date(text: str | None) -> tuple[str | None, int | None]:
    """``(ISO date with unknown parts kept, year)``: ``1818.??.??`` -> ``("1818-??-??", 1818)``.

    A wholly unknown date or a text that is not a date gives ``(None, None)``; the tag as written
    stays in ``games.date_written``.
    """
    if not text:
        return None, None
    match = _DATE.match(text)
    if match is None:
        return None, None
    year, month, day = match.group(1), match.group(2) or "??", match.group(3) or "??"
    if year == "????":
        return None, None
    if month != "??" and not 1 <= int(month) <= 12:
        return None, int(year)
    if day != "??" and not 1 <= int(day) <= 31:
        return None, int(year)
    return f"{year}-{month}-{day}", int(year)


# --------------------------------------------------------------------------------------------
# Position keys, fast: the same value as Position.key(), spelled from each side's packed int by a
# string translation, because an import computes one per ply.


#: each hex digit of a packed side (one location's count) as that count in unary, then a zero
_UNARY = str.maketrans({f"{count:x}": "1" * count + "0" for count in range(16)})


def side_bits(packed: int) -> int:
    """One side's part of a position key: each location's count in unary, then a zero (41 bits).

    The packing holds location 25 in its highest hex digit, so its hex text read backwards is
    the counts from location 0 up; a translation spells them in unary, at C speed.
    """
    return int(f"{packed:026x}"[::-1].translate(_UNARY), 2)


def _key(turn: str, white_bits: int, black_bits: int) -> str:
    # The turn bit and 2 x 41 bits, padded like Position.key() to 84 bits (14 characters of 6),
    # then to 96 bits for base64.
    value = ((1 if turn == "black" else 0) << 82 | white_bits << 41 | black_bits) << 13
    return _BASE64(value.to_bytes(12, "big"))[:14].decode("ascii")


_BASE64 = base64.urlsafe_b64encode


def position_key(position: Position) -> str:
    """``position.key()``, from the unary bits of each side (tested equal to it)."""
    return _key(position.turn, side_bits(position.packed_white), side_bits(position.packed_black))


# --------------------------------------------------------------------------------------------
# The schema

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
)
_TURN_INTS = {"ply", "turn", "pips"}

_VIEWS = {
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
WHERE t.ply = 1 AND g.status = 'valid'
GROUP BY t.dice, t.steps""",
    "invalid_games": """
SELECT id, white, black, date, file, error, status
FROM games WHERE status != 'valid'""",
}


def _create_schema(db: sqlite_utils.Database) -> None:
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
    db.table("turns").create(
        {column: int if column in _TURN_INTS else str for column in TURN_COLUMNS},
        pk=("game_id", "ply"),
        foreign_keys=[("game_id", "games", "id")],
    )
    db.table("turns").create_index(["key_before"])
    db.table("turns").create_index(["key_after"])
    db.table("positions").create(
        {
            "key": str,
            "turn": str,
            "white_pips": int,
            "black_pips": int,
            "white_off": int,
            "black_off": int,
            "games": int,
        },
        pk="key",
    )
    db.table("occurrences").create(
        {"import_id": int, "game_index": int, "game_id": str, "line": int},
        pk=("import_id", "game_index"),
        foreign_keys=[("import_id", "imports", "id"), ("game_id", "games", "id")],
    )
    db.table("occurrences").create_index(["game_id"])
    db.table("duplicates").create(
        {"game_id": str, "other_id": str, "reason": str},
        pk=("game_id", "other_id"),
        foreign_keys=[("game_id", "games", "id"), ("other_id", "games", "id")],
    )
    db.table("duplicates").create_index(["other_id"])
    db.table("imports").create_index(["sha256"])
    db.table("games").enable_fts(
        ["white", "black", "event", "site", "source", "comments"], create_triggers=True
    )
    for table in ("players", "events", "sources"):
        db.table(table).enable_fts(["name"], create_triggers=True)
    for name, sql in _VIEWS.items():
        db.create_view(name, sql.strip())
    db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")


# --------------------------------------------------------------------------------------------
# Opening and migrating


def _check_file(path: str) -> None:
    """Refuse a file that is not SQLite, or is cut short, before SQLite reads it."""
    if os.path.isdir(path):
        raise ArchiveError(f"{path}: is a folder, not an archive file")
    if not os.path.exists(path) or os.path.getsize(path) == 0:
        return
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        header = handle.read(100)
    if not (header + _SQLITE_HEADER[len(header) :]).startswith(_SQLITE_HEADER):
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


def busy_error(path: str) -> ArchiveError:
    """What an import says when another process kept the archive's write lock too long."""
    return ArchiveError(
        f"{path}: another process is writing to this archive; gave up after waiting "
        f"{WAIT_SECONDS:g} s for it (run the import again when it is done)"
    )


def _is_busy(error: sqlite3.Error) -> bool:
    return isinstance(error, sqlite3.OperationalError) and "locked" in str(error)


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


def open_archive(db: str | os.PathLike[str]) -> sqlite_utils.Database:
    """Open (creating or migrating if needed) the archive at ``db``, in WAL mode.

    Raises :class:`ArchiveError` for a file that is not SQLite, truncated, written by a newer
    version, an SQLite file holding something else, or one another process kept locked for
    longer than :data:`WAIT_SECONDS`.
    """
    path = os.fspath(db)
    _check_file(path)
    try:
        conn = sqlite3.connect(path, timeout=WAIT_SECONDS, check_same_thread=False)
    except sqlite3.Error as error:
        raise ArchiveError(f"{path}: cannot open the archive: {error}") from None
    database = sqlite_utils.Database(conn, execute_plugins=False)
    try:
        conn.execute("PRAGMA foreign_keys = ON")
        _check_layout(path, database)  # before WAL mode is set on a file that is no archive
        if database.journal_mode != "wal":
            database.enable_wal()
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA cache_size = -65536")
        # Read again under the write lock: two imports opening a new file at once must not
        # both create (or migrate) it; the second waits, then finds the schema made.
        conn.execute("BEGIN IMMEDIATE")
        version, tables = _check_layout(path, database)
        if version == 0 and not tables:
            _create_schema(database)
        elif version < SCHEMA_VERSION:
            _migrate(database, version)
        else:
            # Added within version 1 (before any release): archives made earlier get it here.
            database.table("games").create_index(["result"], if_not_exists=True)
        conn.execute("COMMIT")
    except sqlite3.DatabaseError as error:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()
        if _is_busy(error):
            raise busy_error(path) from None
        raise ArchiveError(f"{path}: not a usable archive: {error}") from None
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        conn.close()
        raise
    return database


def _migrate(db: sqlite_utils.Database, version: int) -> None:
    """Bring an archive from ``version`` up to :data:`SCHEMA_VERSION`, in one transaction."""
    with db.atomic():
        if version == 0:
            _migrate_0_to_1(db)


def _migrate_0_to_1(db: sqlite_utils.Database) -> None:
    """Version 0 (before versioning): games(id, white, black, date, result, status, text, file),
    imports(id, path, sha256, games). Every game is re-derived from its text; imports are kept.
    """
    conn = db.conn
    conn.execute("ALTER TABLE games RENAME TO _v0_games")
    has_imports = "imports" in db.table_names()
    if has_imports:
        conn.execute("ALTER TABLE imports RENAME TO _v0_imports")
    _create_schema(db)
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
    writer = _Writer(db.conn, None)
    counts: dict[int, int] = {}
    pending: list[_Rows] = []
    for text, file in conn.execute("SELECT text, file FROM _v0_games ORDER BY rowid").fetchall():
        import_id = by_path.get(file)
        if import_id is None:
            import_id = _new_import(db.conn, file, None, status="complete")
            by_path[file] = import_id
        counts[import_id] = counts.get(import_id, 0) + 1
        record = _reparse(text or "", file, counts[import_id], 1)
        pending.append(writer.derive(record, import_id))
        if len(pending) >= BATCH:
            _write_occurrences(writer, pending)
            pending = []
    if pending:
        _write_occurrences(writer, pending)
    _recount_imports(db)
    conn.execute("DROP TABLE _v0_games")
    if has_imports:
        conn.execute("DROP TABLE _v0_imports")


def _write_occurrences(writer: _Writer, batch: Sequence[_Rows]) -> int:
    """Write a batch of games read and their sightings; the number of new games."""
    added = writer.write(batch)
    writer.conn.executemany(
        "INSERT INTO occurrences (import_id, game_index, game_id, line) VALUES (?, ?, ?, ?)",
        [(rows.game["import_id"], rows.index, rows.id, rows.line) for rows in batch],
    )
    return len(added)


# --------------------------------------------------------------------------------------------
# From a replayed game to rows


#: a position a game reaches, as ``positions`` takes it: key, turn, white and black pips, white
#: and black men off, and the game's 1 to add to the games reaching it
_PositionRow = tuple[str, str, int, int, int, int, int]


@dataclass(slots=True)
class _Rows:
    """The rows of one game read, before player, event and source ids are known."""

    game: dict[str, Any]
    turns: list[tuple[Any, ...]]
    positions: dict[str, _PositionRow]
    index: int
    line: int
    status: str
    messages: list[str]

    @property
    def id(self) -> str:
        return str(self.game["id"])

    def __reduce__(self) -> tuple[type[_Rows], tuple[Any, ...]]:
        # Batches cross to the writer process pickled: rebuilt by a call, not by the slots
        # state protocol (measured: a quarter less time to unpickle, a fifth less to pickle).
        return _Rows, (
            self.game,
            self.turns,
            self.positions,
            self.index,
            self.line,
            self.status,
            self.messages,
        )


#: ``_DICE[high][low]``: ``6-5``
_DICE = [[f"{high}-{low}" for low in range(7)] for high in range(7)]


def _hash(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _error_detail(error: JacquetError, text: str) -> dict[str, Any]:
    kind = getattr(error, "kind", "syntax" if isinstance(error, NotationError) else "error")
    return {
        "kind": kind,
        "line": error.line,
        "column": error.column,
        "message": error.message.splitlines()[0],
        "suggestions": list(error.suggestions) if isinstance(error, ReplayError) else [],
        "text": text,
    }


def _fingerprint(record: GameRecord) -> str | None:
    """Same players (normalised) and the same dice and moves: a near-duplicate's mark."""
    if record.errors or not record.plays:
        return None
    numbers: list[int] = []
    for play in record.plays:
        numbers.append(255 if play.side == "white" else 254)
        numbers.extend(play.dice or (0, 0))
        for move in play.moves:
            numbers.extend((move.start, move.end, move.count & 255, 1 if move.hit else 0))
    digest = hashlib.blake2b(digest_size=8)
    digest.update(normalise_name(record.tags.get("White", "")).encode())
    digest.update(b"\x00")
    digest.update(normalise_name(record.tags.get("Black", "")).encode())
    digest.update(b"\x00")
    digest.update(bytes(numbers))
    return digest.hexdigest()


class _Writer:
    """Derives rows from records and writes them in batches; caches live for one connection.

    The name caches hold ids written inside the current transaction; :meth:`forget` drops them
    when a transaction rolls back.
    """

    def __init__(self, conn: _Connection, rules: Rules | None) -> None:
        self.conn = conn
        self.rules = rules
        self.names: dict[str, dict[str, int]] = {}
        self.options: dict[Rules, str] = {}
        self.forget()
        columns = ", ".join(GAME_COLUMNS)
        marks = ", ".join("?" for _ in GAME_COLUMNS)
        self.insert_game = f"INSERT INTO games ({columns}) VALUES ({marks})"
        self.insert_turns = (
            f"INSERT INTO turns ({', '.join(TURN_COLUMNS)}) "
            f"VALUES ({', '.join('?' for _ in TURN_COLUMNS)})"
        )

    def forget(self) -> None:
        """Reload the name caches from the archive (after a rollback, or at the start)."""
        self.names = {
            table: {
                str(name): int(id_)
                for name, id_ in self.conn.execute(f"SELECT normalised, id FROM {table}")
            }
            for table in ("players", "events", "sources")
        }

    # -- deriving ----------------------------------------------------------------------------

    @staticmethod
    def _position(position: Position) -> _PositionRow:
        """Key, turn, pips and men off of a position (one not reached by a play), and a 1."""
        return (
            position_key(position),
            position.turn,
            position.pips("white"),
            position.pips("black"),
            position.off("white"),
            position.off("black"),
            1,
        )

    def _options(self, rules: Rules) -> str:
        text = self.options.get(rules)
        if text is None:
            text = self.options[rules] = json.dumps(rules.options())
        return text

    def derive(self, record: GameRecord, import_id: int | None) -> _Rows:
        """Replay ``record`` and turn it into rows (the ids of names are resolved later)."""
        game = replay(record, self.rules)
        return self.rows(record, game, import_id)

    def read(
        self, chunks: Sequence[GameChunk], import_id: int, counts: dict[str, int]
    ) -> tuple[list[_Rows], list[str]]:
        """Parse, replay and derive a batch of games as cut from a file (by either process of an
        import); ``counts`` gains their statuses. The rows, and the batch's error lines."""
        batch = [self.derive(parse_chunk(chunk), import_id) for chunk in chunks]
        for rows in batch:
            counts[rows.status] += 1
        return batch, [line for rows in batch for line in rows.messages]

    def rows(self, record: GameRecord, game: ReplayedGame, import_id: int | None) -> _Rows:
        """The rows of a replayed record; the engine is not run again."""
        tags = record.tags
        messages: list[str] = []
        details: list[dict[str, Any]] = []
        for error in game.errors:
            text = describe_error(game if not record.errors else None, record, error)
            messages.append(text)
            details.append(_error_detail(error, text))
        if record.errors:
            status = "unreadable"
            canonical = None
            game_id = _hash("unreadable:" + record.text.replace("\r\n", "\n"))
        else:
            status = "invalid" if game.errors else "valid"
            canonical = write_game(record)
            game_id = _hash(canonical)
        comments = list(record.comments)
        turns: list[tuple[Any, ...]] = []
        append = turns.append
        reached: dict[str, _PositionRow] = {}
        final_key: str | None = None
        stopped = False
        last_turn = 0
        last_position: Position | None = None
        last_info: _PositionRow = ("", "white", 0, 0, 0, 0, 1)
        # Each side's packed men, key bits and pips, carried from play to play: a play changes
        # the mover's men (the other side's only by a hit), and its steps say by how many pips.
        white = black = -1
        white_bits = black_bits = white_pips = black_pips = 0
        hitting = game.rules.hitting
        dice_text, step_text, unary = _DICE, MOVE_TEXTS, side_bits
        # The hot loop of an import (one pass a play): tables and locals, no generic accessors.
        for number, ply in enumerate(game.plies, 1):
            written = ply.written
            turn = written.turn
            if turn > last_turn:
                last_turn = turn
            written_dice = written.dice
            dice = dice_text[written_dice[0]][written_dice[1]] if written_dice else None
            key_before = key_after = steps = moved = None
            if not stopped:
                before = ply.before
                if before is not last_position:
                    white, black = before.packed_white, before.packed_black
                    white_bits, black_bits = unary(white), unary(black)
                    white_pips, black_pips = before.pips("white"), before.pips("black")
                    last_info = (
                        _key(before.turn, white_bits, black_bits),
                        before.turn,
                        white_pips,
                        black_pips,
                        white & 15,
                        black & 15,
                        1,
                    )
                    reached[last_info[0]] = last_info
                key_before = last_info[0]
                play = ply.play
                if play is not None:
                    position = last_position = play.position
                    played = play.steps
                    steps = " ".join([step_text[s.hit][s.start][s.end] for s in played])
                    moved = sum([s.start - s.end for s in played])
                    # a man hit on the mover's point e stood on the other side's point
                    # opposite_point(e): it goes to the bar (25), that much further from home
                    hit = (
                        sum([25 - opposite_point(s.end) for s in played if s.hit]) if hitting else 0
                    )
                    if written.side == "white":
                        white_pips -= moved
                        black_pips += hit
                    else:
                        black_pips -= moved
                        white_pips += hit
                    if position.packed_white != white:
                        white = position.packed_white
                        white_bits = unary(white)
                    if position.packed_black != black:
                        black = position.packed_black
                        black_bits = unary(black)
                    key_after = final_key = _key(position.turn, white_bits, black_bits)
                    last_info = (
                        key_after,
                        position.turn,
                        white_pips,
                        black_pips,
                        white & 15,
                        black & 15,
                        1,
                    )
                    reached[key_after] = last_info
                else:
                    stopped = True
            note = None
            if written.comments or written.comments_before:
                notes = written.comments_before + written.comments
                comments.extend(notes)
                note = "\n".join(notes)
            text = written.text
            if not text:
                moves = " ".join(move.notation() for move in written.moves) or "pass"
                text = f"{dice}: {moves}" if dice else "pass"
            append(
                (
                    game_id,
                    number,
                    turn,
                    written.side,
                    dice,
                    text,
                    steps,
                    moved,
                    key_before,
                    key_after,
                    written.annotation,
                    " ".join([f"${nag}" for nag in written.nags]) if written.nags else None,
                    note,
                    describe_error(game, record, ply.error) if ply.error else None,
                )
            )
        if not game.plies and not record.errors:
            start = self._position(game.final)
            reached[start[0]] = start
            final_key = start[0]
        date, year = iso_date(tags.get("Date"))
        row = {
            "id": game_id,
            "event": tags.get("Event"),
            "site": tags.get("Site"),
            "date": date,
            "date_written": tags.get("Date"),
            "year": year,
            "round": tags.get("Round"),
            "white": tags.get("White"),
            "black": tags.get("Black"),
            "rules": game.rules.name,
            "options": self._options(game.rules),
            "tags": json.dumps(tags, ensure_ascii=False),
            "source": tags.get("Source"),
            "transcriber": tags.get("Transcriber"),
            "annotator": tags.get("Annotator"),
            "result": record.result,
            "computed_result": game.computed_result,
            "status": status,
            "error": messages[0] if messages else None,
            "errors": json.dumps(details, ensure_ascii=False) if details else None,
            "turns": last_turn,
            "plies": len(record.plays),
            "winner": game.winner,
            "points": game.points if game.winner else None,
            "final_key": final_key,
            "comments": "\n".join(comments) or None,
            "fingerprint": _fingerprint(record),
            "canonical": canonical,
            "original": record.text,
            "file": record.file,
            "game_index": record.index,
            "line": record.span.line or 1,
            "import_id": import_id,
        }
        return _Rows(row, turns, reached, record.index, record.span.line or 1, status, messages)

    # -- writing -----------------------------------------------------------------------------

    def name_id(self, table: str, name: str | None) -> int | None:
        """The id of a player, event or source, inserting it the first time it is seen."""
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
            found = cache[key] = _returned_id(inserted)
        return found

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

    def write(self, batch: Sequence[_Rows], *, count_positions: bool = True) -> list[_Rows]:
        """Insert the new games of ``batch`` with their turns; return the new ones."""
        present = self.existing(rows.id for rows in batch)
        new: list[_Rows] = []
        for rows in batch:
            if rows.id in present:
                continue
            present.add(rows.id)
            new.append(rows)
        if not new:
            return new
        game_rows = []
        for rows in new:
            game = rows.game
            game["white_id"] = self.name_id("players", game["white"])
            game["black_id"] = self.name_id("players", game["black"])
            game["event_id"] = self.name_id("events", game["event"])
            game["source_id"] = self.name_id("sources", game["source"])
            game_rows.append(tuple(game[column] for column in GAME_COLUMNS))
        self.conn.executemany(self.insert_game, game_rows)
        self.insert_turn_rows([turn for rows in new for turn in rows.turns])
        if count_positions:
            self.count_positions(new)
        self.link_duplicates([rows.id for rows in new if rows.game["fingerprint"]])
        return new

    def count_positions(self, new: Sequence[_Rows]) -> None:
        """Add the batch's games to the positions they reach.

        Each game's positions are distinct (a dict by key), each with a 1 to add. A key reached
        by several games of the batch is not merged here: its later rows take the upsert's
        conflict path, which costs SQLite less than merging costs Python (measured at 20,000
        games: 5.7 s against 7.7 s of the writer's time).
        """
        self.conn.executemany(
            "INSERT INTO positions (key, turn, white_pips, black_pips, white_off, black_off, "
            "games) VALUES (?, ?, ?, ?, ?, ?, ?) "
            "ON CONFLICT (key) DO UPDATE SET games = games + excluded.games",
            itertools.chain.from_iterable(rows.positions.values() for rows in new),
        )

    def insert_turn_rows(self, turns: list[tuple[Any, ...]]) -> None:
        """Insert turn rows (by executemany: in the writer process or a rebuild, no other thread
        waits for the GIL)."""
        self.conn.executemany(self.insert_turns, turns)

    def link_duplicates(self, ids: Sequence[str]) -> None:
        """Link each of the new games ``ids`` to the earlier games with its fingerprint."""
        if not ids:
            return
        marks = ", ".join("?" for _ in ids)
        rows: list[Any] = self.conn.execute(
            "SELECT rowid, id, fingerprint, tags, comments, canonical FROM games "
            "WHERE fingerprint IN "
            f"(SELECT fingerprint FROM games WHERE id IN ({marks})) "
            "ORDER BY fingerprint, rowid",
            list(ids),
        ).fetchall()
        wanted = set(ids)
        links = []
        groups: dict[str, list[Any]] = {}
        for row in rows:
            groups.setdefault(row[2], []).append(row)
        for group in groups.values():
            for later_at, later in enumerate(group):
                if later[1] not in wanted:
                    continue
                for earlier in group[:later_at]:
                    links.append((later[1], earlier[1], _difference(later, earlier)))
        self.conn.executemany(
            "INSERT OR IGNORE INTO duplicates (game_id, other_id, reason) VALUES (?, ?, ?)", links
        )


def _difference(one: Sequence[Any], other: Sequence[Any]) -> str:
    """What tells two transcriptions of one game apart, in a few words."""
    tags_one, tags_other = json.loads(one[3]), json.loads(other[3])
    reasons = []
    differing = sorted(
        name
        for name in set(tags_one) | set(tags_other)
        if tags_one.get(name) != tags_other.get(name)
    )
    if differing:
        reasons.append("tags differ: " + ", ".join(differing))
    if one[4] != other[4]:
        reasons.append("comments differ")
    if not reasons:
        reasons.append("annotations or variations differ")
    return "; ".join(reasons)


# --------------------------------------------------------------------------------------------
# Importing


def _returned_id(row: Any) -> int:
    """The id an ``INSERT ... RETURNING id`` gave back."""
    if row is None:
        raise sqlite3.DatabaseError("an insert returned no id")
    return int(row[0])


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def _sha256(path: str) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def _imported(conn: _Connection, sha: str | None) -> int | None:
    """The import that already brought the file of this sha256, if any."""
    found = conn.execute(
        "SELECT id FROM imports WHERE sha256 = ? AND status IN ('complete', 'unreadable') "
        "ORDER BY id LIMIT 1",
        (sha,),
    ).fetchone()
    return None if found is None else int(found[0])


def _new_import(
    conn: _Connection,
    path: str | None,
    sha: str | None,
    *,
    status: str = "running",
    error: str | None = None,
) -> int:
    inserted = conn.execute(
        "INSERT INTO imports (path, sha256, started, games, valid, invalid, unreadable, "
        "new_games, status, error) VALUES (?, ?, ?, 0, 0, 0, 0, 0, ?, ?) RETURNING id",
        (path, sha, _now(), status, error),
    ).fetchone()
    return _returned_id(inserted)


def _recount_imports(db: sqlite_utils.Database) -> None:
    """Recount each import's games by status from its occurrences (after a rebuild)."""
    db.conn.execute(
        """UPDATE imports SET
          games = (SELECT count(*) FROM occurrences o WHERE o.import_id = imports.id),
          valid = (SELECT count(*) FROM occurrences o JOIN games g ON g.id = o.game_id
                   WHERE o.import_id = imports.id AND g.status = 'valid'),
          invalid = (SELECT count(*) FROM occurrences o JOIN games g ON g.id = o.game_id
                     WHERE o.import_id = imports.id AND g.status = 'invalid'),
          unreadable = (SELECT count(*) FROM occurrences o JOIN games g ON g.id = o.game_id
                        WHERE o.import_id = imports.id AND g.status = 'unreadable')"""
    )


def _reparse(text: str, file: str | None, index: int, line: int) -> GameRecord:
    """Read a stored original text again, with its line numbers in its file kept."""
    records = list(read_games(io.StringIO("\n" * max(line - 1, 0) + text), file))
    record = records[0] if len(records) == 1 else parse_game(text, file, index=index)
    record.index = index
    for error in record.errors:
        error.game = index
    return record


#: the turns indexes a bulk import drops, then builds again once its rows are in
_KEY_INDEXES = (("idx_turns_key_before", "key_before"), ("idx_turns_key_after", "key_after"))
#: bytes of record text per play, about (a canonical play is ``6-5: 24/18 18/13`` and its
#: turn number): enough to tell a file that will add more turns than the archive holds
BYTES_PER_PLAY = 20


def _key_indexes_deferred(conn: sqlite3.Connection, new_bytes: int) -> bool:
    """Whether a file of ``new_bytes`` of records is written without the turns key indexes.

    Inserting a row into an index at a random key costs far more than building the index once
    by sorting (measured: a quarter of the writing at 10,000 games); so a file that at least
    doubles the turns table is written without them (:func:`_drop_key_indexes`), and
    :func:`_build_key_indexes` makes them again before the file's transaction commits (a failure
    rolls the drop back with the rest). Only reads: the importing process decides, the writer
    process drops.
    """
    turns = conn.execute("SELECT coalesce(max(rowid), 0) FROM turns").fetchone()[0]
    return bool(new_bytes // BYTES_PER_PLAY >= turns)


def _drop_key_indexes(conn: _Connection) -> None:
    for name, _ in _KEY_INDEXES:
        conn.execute(f"DROP INDEX IF EXISTS {name}")


def _build_key_indexes(conn: _Connection) -> None:
    for name, column in _KEY_INDEXES:
        conn.execute(f"CREATE INDEX IF NOT EXISTS {name} ON turns ({column})")


# --------------------------------------------------------------------------------------------
# The writer process: SQLite's work on a second core
#
# The importing process parses, replays and builds rows; a writer process, with its own
# connection, owns each file's transaction and runs every statement. Batches cross a pipe
# pickled: no GIL is shared, no JSON is built. The writer commits a file only when told to
# ("finish"); on the end of its pipe (the importer died, even by kill -9) it rolls back and
# exits, so the archive keeps only whole files and no process is left behind.

#: size of the writer's page cache during an import (KiB, as ``PRAGMA cache_size`` takes it)
WRITER_CACHE_KIB = 262_144
#: the size asked for the pipe that carries batches to the writer (Linux allows 1 MiB to anyone)
PIPE_BYTES = 1 << 20
#: which batches the writer process parses, replays and derives itself (the importing process
#: is the busier of the two, see "Speed" in docs/archive.md). None: each batch that finds the
#: writer caught up (done with every batch but the last one sent), so that the two share the
#: work whatever their speeds; an integer k: one batch in k, fixed (0: none), for measurements
#: and tests
WRITER_SHARE: int | None = None


def _connect_writer(path: str) -> apsw.Connection:
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


#: APSW's errors as the importer raises them: the ``sqlite3`` error of the same kind, so that
#: callers (and ``jacquet archive``) catch one family whichever connection failed
_SQLITE3_ERRORS: tuple[tuple[type[apsw.Error], type[sqlite3.Error]], ...] = (
    (apsw.ConstraintError, sqlite3.IntegrityError),
    (apsw.CorruptError, sqlite3.DatabaseError),
    (apsw.NotADBError, sqlite3.DatabaseError),
    (apsw.SQLError, sqlite3.OperationalError),
    (apsw.BusyError, sqlite3.OperationalError),
    (apsw.LockedError, sqlite3.OperationalError),
    (apsw.FullError, sqlite3.OperationalError),
    (apsw.IOError, sqlite3.OperationalError),
    (apsw.CantOpenError, sqlite3.OperationalError),
    (apsw.ReadOnlyError, sqlite3.OperationalError),
)


def _data_version(conn: apsw.Connection) -> int:
    """A number that changes whenever another connection commits to the file."""
    return int(next(iter(conn.execute("PRAGMA data_version")))[0])


def _picklable(error: BaseException) -> BaseException:
    """``error`` as the importer raises it: an APSW error as ``sqlite3``'s of the same kind, and
    a plain error saying the same when it cannot cross the pipe."""
    if isinstance(error, apsw.Error):
        kind = next(
            (ours for theirs, ours in _SQLITE3_ERRORS if isinstance(error, theirs)),
            sqlite3.DatabaseError,
        )
        return kind(str(error))
    try:
        pickle.dumps(error)
    except Exception:
        return RuntimeError(f"{type(error).__name__}: {error}")
    return error


def _serve(
    path: str,
    rules: Rules | None,
    requests: Any,
    requests_end: Any,
    replies_end: Any,
    replies: Any,
) -> None:
    """The writer process: run the importer's requests on its own connection until the end."""
    # Nothing inherited is ever collected here: a forked child holds the importer's objects,
    # among them perhaps a connection to this very file that is garbage but not yet collected.
    # Closing its descriptor would release the locks this process's own SQLite (APSW's, another
    # library) holds on the file (POSIX locks belong to the process, per file).
    gc.freeze()
    # The importer's ends of the two pipes are closed here, so that the importer's death is an
    # end of file (a forked child holds copies of them).
    requests_end.close()
    replies_end.close()
    # Ctrl-C reaches the whole process group: the importer decides, and tells this process.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        conn = _connect_writer(path)
        writer = _Writer(conn, rules)
    except Exception as error:  # the answer to the importer's first request
        replies.send(("error", _picklable(error)))
        return
    import_id = 0
    deferred = False
    added = 0
    #: the file's change counter as of the name caches (it moves when another process commits)
    seen = _data_version(conn)
    failure: BaseException | None = None
    # the games this process read itself: counts, and the error lines of each of its batches
    counts = {"valid": 0, "invalid": 0, "unreadable": 0}
    messages: list[tuple[int, list[str]]] = []
    try:
        while True:
            try:
                request = requests.recv()
            except (EOFError, OSError):
                return  # the importer is gone: what is not committed is rolled back below
            kind = request[0]
            if kind in ("rows", "chunks"):
                if failure is None:
                    try:
                        if kind == "rows":
                            batch = request[1]
                        else:  # a batch this process reads itself
                            batch, lines = writer.read(request[2], import_id, counts)
                            messages.append((request[1], lines))
                        added += _write_occurrences(writer, batch)
                    except BaseException as error:  # reported when the file ends
                        failure = error
                # a batch done (even after a failure), and this process's processor time so far:
                # the importer shares the reading out by it
                replies.send(("done", time.process_time()))
            elif kind == "begin":
                _, name, sha, deferred = request
                added, failure = 0, None
                counts = dict.fromkeys(counts, 0)
                messages = []
                try:
                    # The write lock first, then the question whether the file is new: another
                    # import may have committed it while this one waited for the lock.
                    conn.execute("BEGIN IMMEDIATE")
                    earlier = _imported(conn, sha)
                    if earlier is not None:
                        conn.execute("ROLLBACK")
                        replies.send(("ok", (earlier, True)))
                        continue
                    changes = _data_version(conn)
                    if changes != seen:
                        # another process wrote: the names it added are not in the caches
                        writer.forget()
                        seen = changes
                    import_id = _new_import(conn, name, sha)
                    if deferred:
                        _drop_key_indexes(conn)
                    replies.send(("ok", (import_id, False)))
                except apsw.BusyError:
                    _rollback(conn, writer)
                    replies.send(("error", busy_error(path)))
                except Exception as error:
                    _rollback(conn, writer)
                    replies.send(("error", _picklable(error)))
            elif kind == "finish":
                _, games, theirs, problem = request
                try:
                    if failure is not None:
                        raise failure
                    total = {status: theirs[status] + counts[status] for status in counts}
                    if deferred:
                        _build_key_indexes(conn)
                    conn.execute(
                        "UPDATE imports SET finished = ?, games = ?, valid = ?, invalid = ?, "
                        "unreadable = ?, new_games = ?, status = ?, error = ? WHERE id = ?",
                        (
                            _now(),
                            games,
                            total["valid"],
                            total["invalid"],
                            total["unreadable"],
                            added,
                            "unreadable" if problem else "complete",
                            problem,
                            import_id,
                        ),
                    )
                    conn.execute("COMMIT")
                    replies.send(("ok", (added, counts, messages)))
                except Exception as error:
                    _rollback(conn, writer)
                    replies.send(("error", _picklable(error)))
                failure = None
            elif kind == "abort":
                _rollback(conn, writer)
                failure = None
                replies.send(("ok", 0))
            else:  # "quit"
                return
    except OSError:
        # An answer to an importer that is gone (killed): the pipe is broken. Nothing to say,
        # the file in progress is rolled back below.
        return
    finally:
        _rollback(conn, writer)
        conn.close()


def _rollback(conn: _Connection, writer: _Writer) -> None:
    """Drop the file in progress, if any, and the names cached inside it."""
    if conn.in_transaction:
        conn.execute("ROLLBACK")
        writer.forget()


class _WriterProcess:
    """The importer's handle on the writer process (see :func:`_serve`)."""

    def __init__(self, path: str, rules: Rules | None) -> None:
        methods = multiprocessing.get_all_start_methods()
        # fork starts at once (nothing to import again). The child never touches the
        # importer's connection it inherits, and leaves by os._exit: no finaliser closes it.
        context: Any = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        requests_end, self.requests = context.Pipe(duplex=False)
        self.replies, replies_end = context.Pipe(duplex=False)
        self.path = path
        #: batches sent and not yet done; the processor time of each process since the start
        #: (the writer's as it last said)
        self.pending = 0
        self.writer_cpu = 0.0
        self.started = time.process_time()
        self.process = context.Process(
            target=_serve,
            args=(path, rules, requests_end, self.requests, self.replies, replies_end),
            name="jacquet-archive-writer",
            daemon=True,
        )
        # Connections that are garbage are closed here, by the library that opened them, rather
        # than inherited by the child (see _serve).
        gc.collect()
        self.process.start()
        requests_end.close()
        replies_end.close()
        # A pipe holds 64 KiB: a batch of rows (about 450 KiB pickled) would wait for the writer
        # to read most of it. A larger pipe lets the importer go on to its next batch.
        with contextlib.suppress(ImportError, OSError, AttributeError):
            import fcntl  # POSIX; F_SETPIPE_SZ is Linux's

            fcntl.fcntl(self.requests.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)

    def _gone(self) -> ArchiveError:
        self.process.join(timeout=5)
        return ArchiveError(
            f"{self.path}: the archive's writer process stopped "
            f"(exit code {self.process.exitcode}); nothing of the file in progress was kept"
        )

    def send(self, request: tuple[Any, ...]) -> None:
        try:
            self.requests.send(request)
        except OSError:
            raise self._gone() from None

    def reply(self) -> Any:
        """The writer's answer to the last request; raises what the writer raised."""
        while True:
            try:
                status, value = self.replies.recv()
            except (EOFError, OSError):
                raise self._gone() from None
            if status == "done":
                self.writer_cpu = value
                self.pending -= 1
                continue
            if status == "error":
                raise value
            return value

    def caught_up(self) -> bool:
        """Whether to give the writer the next batch to read: it has kept up, and used less
        processor time so far than the importer (so the two come out about even).

        The importer asks just after sending a batch, which the writer has then only begun: one
        batch pending is the writer keeping up.
        """
        try:
            while self.pending and self.replies.poll():
                # only "done" can come between two requests of a file
                self.writer_cpu = self.replies.recv()[1]
                self.pending -= 1
        except (EOFError, OSError):
            raise self._gone() from None
        return self.pending <= 1 and self.writer_cpu < time.process_time() - self.started

    def begin(self, name: str, sha: str | None, deferred: bool) -> tuple[int, bool]:
        """Open the file's transaction in the writer: the file's import id, and False; or, when
        another import committed the same file meanwhile, that import's id, and True (nothing
        is begun)."""
        self.send(("begin", name, sha, deferred))
        import_id, already = self.reply()
        return int(import_id), bool(already)

    def rows(self, batch: list[_Rows]) -> None:
        self.send(("rows", batch))
        self.pending += 1

    def chunks(self, number: int, chunks: list[GameChunk]) -> None:
        """Have the writer read batch ``number`` itself (see :data:`WRITER_SHARE`)."""
        self.send(("chunks", number, chunks))
        self.pending += 1

    def finish(
        self, games: int, counts: dict[str, int], problem: str | None
    ) -> tuple[int, dict[str, int], list[tuple[int, list[str]]]]:
        """Record the file's counts and commit it.

        Returns the number of new games, then the counts of the games the writer read and
        the error lines of each batch it read.
        """
        self.send(("finish", games, counts, problem))
        added, counts, messages = self.reply()
        return int(added), counts, messages

    def abort(self) -> None:
        """Roll the file in progress back, and wait until it is."""
        with contextlib.suppress(ArchiveError):
            self.send(("abort",))
            self.reply()

    def close(self) -> None:
        """Let the writer end, and wait for it (it is never left running)."""
        with contextlib.suppress(OSError):
            self.requests.send(("quit",))
        self.requests.close()
        self.process.join(timeout=60)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.replies.close()


@contextlib.contextmanager
def _write_lock(conn: sqlite3.Connection, path: str) -> Iterator[None]:
    """A transaction that holds the write lock from its start (BEGIN IMMEDIATE), so that what
    it reads is still true when it writes, whatever another import does; committed at the end.
    """
    try:
        conn.execute("BEGIN IMMEDIATE")
    except sqlite3.OperationalError as error:
        if _is_busy(error):
            raise busy_error(path) from None
        raise
    try:
        yield
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


class _Importer:
    """Imports files one transaction each, and counts what it did."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        path: str,
        rules: Rules | None,
        encoding: str,
        progress: Callable[[int], None] | None,
    ) -> None:
        self.db = db
        self.conn = db.conn
        self.path = path
        self.encoding = encoding
        self.progress = progress
        # rows are derived here, written by the writer process
        self.rows = _Writer(db.conn, rules)
        self.writer_process: _WriterProcess | None = None
        self.summary = ImportSummary()

    def unreadable_file(self, path: str, message: str, sha: str | None = None) -> None:
        """Record a file that could not be read at all (once: re-running adds nothing)."""
        self.summary.unreadable += 1
        self.summary.unreadable_files += 1
        self.summary.errors.append(message)
        with _write_lock(self.conn, self.path):
            seen = self.conn.execute(
                "SELECT 1 FROM imports WHERE path IS ? AND sha256 IS ? AND error IS ?",
                (path, sha, message),
            ).fetchone()
            if seen is None:
                import_id = _new_import(self.conn, path, sha, status="unreadable", error=message)
                self.conn.execute(
                    "UPDATE imports SET finished = ? WHERE id = ?", (_now(), import_id)
                )

    def skip(self, import_id: int) -> None:
        """Report a file already imported from what the archive holds, without reading it."""
        summary = self.summary
        games, valid, invalid, unreadable, status, error = self.conn.execute(
            "SELECT games, valid, invalid, unreadable, status, error FROM imports WHERE id = ?",
            (import_id,),
        ).fetchone()
        summary.skipped_files += 1
        summary.games += games
        summary.valid += valid
        summary.invalid += invalid
        summary.unreadable += unreadable
        for (errors,) in self.conn.execute(
            "SELECT g.errors FROM occurrences o JOIN games g ON g.id = o.game_id "
            "WHERE o.import_id = ? AND g.errors IS NOT NULL ORDER BY o.game_index",
            (import_id,),
        ):
            summary.errors.extend(detail["text"] for detail in json.loads(errors))
        if status == "unreadable" and error:
            summary.unreadable += 1
            summary.unreadable_files += 1
            summary.errors.append(error)

    def file(self, path: str) -> None:
        """Import one file (or ``-``, standard input) in one transaction."""
        self.summary.files += 1
        data: bytes | None = None
        try:
            if path == "-":
                data = sys.stdin.buffer.read()
                sha = hashlib.sha256(data).hexdigest()
            else:
                sha = _sha256(path)
        except OSError as error:
            self.unreadable_file(path, f"{path}: {error.strerror or error}")
            return
        # asked here first, to skip the file without starting the writer; asked again by the
        # writer under the write lock, which decides (see _WriterProcess.begin)
        done = _imported(self.conn, sha)
        if done is not None:
            self.skip(done)
            return
        name = "<stdin>" if path == "-" else path
        self._read(name, sha, io.BytesIO(data) if data is not None else None)

    def _writer(self) -> _WriterProcess:
        """The writer process, started for the first file that is read."""
        if self.writer_process is None:
            self.writer_process = _WriterProcess(self.path, self.rows.rules)
        return self.writer_process

    def close(self) -> None:
        if self.writer_process is not None:
            self.writer_process.close()
            self.writer_process = None

    def _read(self, name: str, sha: str, stream: io.BytesIO | None) -> None:
        summary = self.summary
        try:
            size = len(stream.getbuffer()) if stream is not None else os.path.getsize(name)
        except OSError:
            size = 0  # the reading below meets the same problem and reports it
        writer = self._writer()
        import_id, already = writer.begin(name, sha, _key_indexes_deferred(self.conn, size))
        if already:
            self.skip(import_id)
            return
        counts = {"valid": 0, "invalid": 0, "unreadable": 0}
        games = 0
        problem: str | None = None
        chunks: list[GameChunk] = []
        # the error lines of each batch, in order; None for a batch the writer reads
        errors: list[list[str] | None] = []

        def send() -> None:
            nonlocal games
            number = len(errors)
            if (
                writer.caught_up()
                if WRITER_SHARE is None
                else WRITER_SHARE and number % WRITER_SHARE == WRITER_SHARE - 1
            ):
                writer.chunks(number, chunks)
                errors.append(None)
            else:
                batch, lines = self.rows.read(chunks, import_id, counts)
                errors.append(lines)
                writer.rows(batch)
            games += len(chunks)
            if self.progress is not None:
                self.progress(len(chunks))

        committed = False
        try:
            try:
                with contextlib.ExitStack() as stack:
                    source = stream if stream is not None else stack.enter_context(open(name, "rb"))
                    for chunk in split_games(source, name, encoding=self.encoding):
                        chunks.append(chunk)
                        if len(chunks) >= BATCH:
                            send()
                            chunks = []
            except OSError as error:
                problem = f"{name}: {error.strerror or error}"
            except JacquetError as error:
                error.file = error.file or name
                problem = str(error).splitlines()[0]
            if chunks:
                send()
            if games == 0 and problem is None:
                problem = f"{name}: no game records in this file"
            new_games, theirs, their_errors = writer.finish(games, counts, problem)
            committed = True
        finally:
            if not committed:
                # an error on this side: the writer drops the file before it is raised
                writer.abort()
        for number, lines in their_errors:
            errors[number] = lines
        for batch_errors in errors:
            summary.errors.extend(batch_errors or ())
        if problem is not None:
            summary.errors.append(problem)
            summary.unreadable += 1
            summary.unreadable_files += 1
        summary.games += games
        for status in counts:
            counts[status] += theirs[status]
        summary.valid += counts["valid"]
        summary.invalid += counts["invalid"]
        summary.unreadable += counts["unreadable"]
        summary.new_games += new_games


def import_paths(
    db: str | os.PathLike[str],
    paths: Sequence[str],
    *,
    rules: Rules | None = None,
    encoding: str = "utf-8",
    progress: Callable[[int], None] | None = None,
) -> ImportSummary:
    """Import the record files ``paths`` (files, folders, ``-``) into the archive ``db``.

    One transaction per file; a file whose sha256 is already in ``imports`` is skipped without
    being parsed. ``progress`` is called with the number of games just handled.
    """
    database = open_archive(db)
    try:
        importer = _Importer(database, os.fspath(db), rules, encoding, progress)
        try:
            with fewer_collections():
                for entry in record_files(paths):
                    if isinstance(entry, str):
                        importer.file(entry)
                    else:
                        importer.summary.files += 1
                        importer.unreadable_file(entry.path, entry.message())
        finally:
            importer.close()
        return importer.summary
    finally:
        database.close()


# --------------------------------------------------------------------------------------------
# Rebuilding


def rebuild(db: str | os.PathLike[str], *, rules: Rules | None = None) -> ImportSummary:
    """Re-derive every table from the stored original texts, in one transaction.

    After a fix to the rules or the reader: ids, statuses, turns, positions, names, duplicates and
    search are derived again; no game is lost (a game whose id changes keeps its occurrences).
    """
    database = open_archive(db)
    try:
        with fewer_collections(), _write_lock(database.conn, os.fspath(db)):
            return _rebuild(database, rules)
    finally:
        database.close()


_REBUILT = tuple(column for column in GAME_COLUMNS if column not in ("file", "import_id"))


def _rebuild(db: sqlite_utils.Database, rules: Rules | None) -> ImportSummary:
    conn = db.conn
    summary = ImportSummary()
    for table in ("duplicates", "turns", "positions"):
        conn.execute(f"DELETE FROM {table}")
    # every turn is written again: the key indexes are built once, at the end
    if _key_indexes_deferred(conn, 0):
        _drop_key_indexes(conn)
    writer = _Writer(conn, rules)
    last = conn.execute("SELECT coalesce(max(rowid), 0) FROM games").fetchone()[0]
    after = 0
    update = f"UPDATE games SET {', '.join(f'{column} = ?' for column in _REBUILT)} WHERE rowid = ?"
    while True:
        stored = conn.execute(
            "SELECT rowid, id, original, file, game_index, line, import_id FROM games "
            "WHERE rowid > ? AND rowid <= ? ORDER BY rowid LIMIT ?",
            (after, last, BATCH),
        ).fetchall()
        if not stored:
            break
        after = stored[-1][0]
        updates, turns, counted = [], [], []
        for rowid, old_id, original, file, index, line, import_id in stored:
            record = _reparse(original or "", file, index or 1, line or 1)
            rows = writer.derive(record, import_id)
            summary.games += 1
            setattr(summary, rows.status, getattr(summary, rows.status) + 1)
            summary.errors.extend(rows.messages)
            game = rows.game
            if rows.id != old_id and writer.existing([rows.id]):
                # The game now reads as one already in the archive: keep its sightings there.
                conn.execute(
                    "UPDATE occurrences SET game_id = ? WHERE game_id = ?", (rows.id, old_id)
                )
                conn.execute("DELETE FROM games WHERE rowid = ?", (rowid,))
                continue
            game["white_id"] = writer.name_id("players", game["white"])
            game["black_id"] = writer.name_id("players", game["black"])
            game["event_id"] = writer.name_id("events", game["event"])
            game["source_id"] = writer.name_id("sources", game["source"])
            if rows.id != old_id:
                conn.execute("PRAGMA defer_foreign_keys = ON")
                conn.execute(
                    "UPDATE occurrences SET game_id = ? WHERE game_id = ?", (rows.id, old_id)
                )
            updates.append((*(game[column] for column in _REBUILT), rowid))
            turns.extend(rows.turns)
            counted.append(rows)
        conn.executemany(update, updates)
        writer.insert_turn_rows(turns)
        writer.count_positions(counted)
    duplicated = [
        row[0]
        for row in conn.execute(
            "SELECT id FROM games WHERE fingerprint IN (SELECT fingerprint FROM games "
            "WHERE fingerprint IS NOT NULL GROUP BY fingerprint HAVING count(*) > 1)"
        )
    ]
    for start in range(0, len(duplicated), 500):
        writer.link_duplicates(duplicated[start : start + 500])
    for table, columns in (
        ("players", ("white_id", "black_id")),
        ("events", ("event_id",)),
        ("sources", ("source_id",)),
    ):
        used = " UNION ".join(
            f"SELECT {column} FROM games WHERE {column} IS NOT NULL" for column in columns
        )
        conn.execute(f"DELETE FROM {table} WHERE id NOT IN ({used})")
    _build_key_indexes(conn)
    _recount_imports(db)
    for table in ("games", "players", "events", "sources"):
        conn.execute(f"INSERT INTO {table}_fts ({table}_fts) VALUES ('rebuild')")
    summary.files = conn.execute("SELECT count(*) FROM imports").fetchone()[0]
    return summary
