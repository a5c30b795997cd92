"""The writer process of an import: SQLite's work on a second core.

The importing process parses, replays and derives rows; a writer process, with its own
connection, owns each file's transaction and runs every statement. Messages cross two pipes
pickled (one small frozen dataclass per kind, below): no GIL is shared, no JSON is built. The
writer commits a file only when told to (:class:`Finish`); on the end of its pipe (the importer
died, even by kill -9) it rolls back and exits, so the archive keeps only whole files and no
process is left behind.
"""

from __future__ import annotations

import gc
import pickle
import signal
import sqlite3
import time
from multiprocessing.connection import Connection as Pipe

import apsw

from ..match import GameSummary
from ..notation import GameChunk
from ..rules import Rules
from . import import_rows, settling, store
from .answers import Answers
from .groups import refresh_groups
from .matches import refresh_matches
from .messages import (
    Abort,
    Aborted,
    BatchDone,
    Began,
    Begin,
    Failed,
    Finish,
    Finished,
    Quit,
    ReadBatch,
    Reply,
    Request,
    WriteBatch,
)
from .rows import DerivedGame, derive_batch
from .store import Store

#: the size asked for the pipe that carries batches to the writer (Linux allows 1 MiB to anyone)
PIPE_BYTES = 1 << 20


# --------------------------------------------------------------------------------------------
# The writer's side

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


def picklable_error(error: BaseException) -> BaseException:
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


class _Session:
    """The writer's state across one file's messages, on its own connection."""

    def __init__(self, path: str, rules: Rules | None) -> None:
        self.path = path
        self.rules = rules
        self.conn = store.connect_writer(path)
        self.games = Store(self.conn)
        self.import_id = 0
        #: the number of the file's first game: its plies are those from it on
        self.first = 1
        self.deferred = False
        #: the file is one of a bulk import's (settling.py): no key indexes, nothing counted
        self.bulk = False
        #: a file's transaction is open: its batches are written (not after a Begin that found
        #: the file imported, or failed: the importer learns it later, its batches already sent)
        self.open = False
        self.added = 0
        #: the file's change counter as of the name caches (it moves when another process
        #: commits)
        self.seen = _data_version(self.conn)
        self.failure: BaseException | None = None
        #: the file's name, the archive's size when it began and the most it may grow by; the
        #: line that refuses it once it has grown past that
        self.name = ""
        self.sha: str | None = None
        self.start_bytes = 0
        self.limit = 0
        self.refused: str | None = None
        # the games this process read itself: counts, and the error lines of each of its batches
        self.counts = {"valid": 0, "invalid": 0, "unreadable": 0}
        self.messages: list[tuple[int, list[str]]] = []

    def begin(self, name: str, sha: str | None, deferred: bool, bulk: bool, limit: int) -> Reply:
        self.deferred, self.bulk = deferred, bulk
        self.added, self.failure, self.refused = 0, None, None
        self.name, self.sha, self.limit = name, sha, limit
        self.counts = dict.fromkeys(self.counts, 0)
        self.messages = []
        conn = self.conn
        try:
            # The write lock first, then the question whether the file is new: another import
            # may have committed it while this one waited for the lock.
            store.temporary_in_memory(conn, True)
            conn.execute("BEGIN IMMEDIATE")
            earlier = import_rows.imported(conn, sha)
            if earlier is not None:
                conn.execute("ROLLBACK")
                return Began(earlier, True)
            self.open = True
            changes = _data_version(conn)
            if changes != self.seen:
                # another process wrote: the names it added are not in the caches
                self.games.forget()
                self.seen = changes
            self.start_bytes = store.archive_bytes(conn)
            self.import_id = import_rows.new_import(conn, name, sha)
            self.first = self.games.next_number()
            if bulk:
                store.drop_key_indexes(conn)  # built when the import settles (settling.py)
            else:
                # a bulk import's files killed before it settled: settled before this one
                settling.settle(conn)
                store.temporary_in_memory(conn, True)
                if deferred:
                    store.drop_key_indexes(conn)
            return Began(self.import_id, False)
        except apsw.BusyError:
            self.rollback()
            return Failed(store.busy_error(self.path))
        except Exception as error:
            self.rollback()
            return Failed(picklable_error(error))

    def write(self, batch: list[DerivedGame]) -> None:
        if self.open and self.failure is None and self.refused is None:
            try:
                for derived in batch:  # derived before the importer knew the file's import id
                    derived.game["import_id"] = self.import_id
                self.added += self.games.write_sightings(batch)
                self.check_growth()
            except BaseException as error:  # reported when the file ends
                self.failure = error

    def read(self, number: int, chunks: list[GameChunk], previous: GameSummary | None) -> None:
        if self.open and self.failure is None and self.refused is None:
            try:
                batch, lines, _ = derive_batch(
                    chunks, self.rules, self.import_id, self.counts, previous
                )
                self.messages.append((number, lines))
                self.added += self.games.write_sightings(batch)
                self.check_growth()
            except BaseException as error:  # reported when the file ends
                self.failure = error

    def check_growth(self) -> None:
        """Refuse the file once it has grown the archive past its cap (docs/archive.md)."""
        grown = store.archive_bytes(self.conn) - self.start_bytes
        if grown > self.limit and self.refused is None:
            self.refused = (
                f"{self.name}: not imported: it would grow the archive by more than"
                f" {self.limit:,} bytes ({store.GROWTH_FACTOR} x its size +"
                f" {store.GROWTH_ALLOWANCE // (1024 * 1024)} MiB; docs/archive.md, Growth)"
            )

    def refuse(self) -> Reply:
        """Roll the refused file back, keep its ``imports`` row (unreadable, the line that says
        why: importing it again skips it) and commit that alone."""
        assert self.refused is not None
        self.rollback()
        self.conn.execute("BEGIN IMMEDIATE")
        import_id = import_rows.new_import(
            self.conn, self.name, self.sha, status="unreadable", error=self.refused
        )
        self.conn.execute("UPDATE imports SET finished = ? WHERE id = ?", (store.now(), import_id))
        self.conn.execute("COMMIT")
        return Finished(0, dict.fromkeys(self.counts, 0), [], self.refused)

    def finish(self, games: int, theirs: dict[str, int], problem: str | None) -> Reply:
        if not self.open and self.failure is None:  # found imported, or its Begin failed
            return Finished(0, dict.fromkeys(self.counts, 0), [])
        self.open = False
        try:
            if self.failure is not None:
                raise self.failure
            total = {status: theirs[status] + self.counts[status] for status in self.counts}
            store.temporary_in_memory(self.conn, False)
            if self.deferred and not self.bulk and self.refused is None:
                store.build_key_indexes(self.conn)
            if self.refused is None and not self.bulk:
                store.share_positions(self.conn, self.first)
            self.check_growth()
            if self.refused is not None:
                return self.refuse()
            import_rows.finish_import(
                self.conn,
                self.import_id,
                games,
                total,
                self.added,
                problem,
                pending=self.bulk,
            )
            refresh_matches(self.conn, self.import_id)
            if not self.bulk:  # found when the import settles
                refresh_groups(self.conn, self.import_id)
            self.conn.execute("COMMIT")
            return Finished(self.added, self.counts, self.messages)
        except Exception as error:
            self.rollback()
            return Failed(picklable_error(error))
        finally:
            self.failure = None

    def rollback(self) -> None:
        """Drop the file in progress, if any, and the names cached inside it."""
        self.open = False
        if self.conn.in_transaction:
            self.conn.execute("ROLLBACK")
            self.games.forget()


def serve(
    path: str,
    rules: Rules | None,
    requests: Pipe,
    requests_end: Pipe,
    replies_end: Pipe,
    replies: Pipe,
) -> None:
    """The writer process: answer the importer's requests on its own connection until the end."""
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
        session = _Session(path, rules)
    except Exception as error:  # the answer to the importer's first request
        replies.send(Failed(picklable_error(error)))
        return
    outbox = Answers(replies)  # sent without waiting for the importer: answers.py
    # Once a file has failed, the files the importer sent behind it (several may be on their
    # way, importer.FILES_IN_FLIGHT) are dropped unanswered: the importer raises that failure and
    # ends, and a file committed after it would be in the archive but in no summary.
    failed = False
    try:
        while not outbox.broken:  # broken: an answer to an importer that is gone (killed)
            try:
                request: Request = requests.recv()
            except (EOFError, OSError):
                return  # the importer is gone: what is not committed is rolled back below
            match request:
                case Abort():
                    session.rollback()
                    session.failure = None
                    failed = False
                    outbox.send(Aborted())
                case Quit():
                    return
                case _ if failed:
                    continue
                case WriteBatch(batch):
                    session.write(batch)
                    outbox.send(BatchDone(time.process_time(), session.refused is not None))
                case ReadBatch(number, chunks, previous):
                    session.read(number, chunks, previous)
                    outbox.send(BatchDone(time.process_time(), session.refused is not None))
                case Begin(name, sha, deferred, bulk, limit):
                    reply = session.begin(name, sha, deferred, bulk, limit)
                    failed = isinstance(reply, Failed)
                    outbox.send(reply)
                case Finish(games, counts, problem):
                    reply = session.finish(games, counts, problem)
                    failed = isinstance(reply, Failed)
                    outbox.send(reply)
    finally:
        outbox.close()
        session.rollback()
        session.conn.close()
