"""A served archive's connections opened again when its files are no longer the ones they read.

A reader of a WAL archive keeps its ``-wal`` and ``-shm`` open. Should someone delete them
while the archive is served (a clean-up script, a copy over the file), the server's connections
go on reading the deleted ones, while the next import makes new ones and checkpoints into the
file: the old connections then read a file changed under a log index that no longer describes
it, and answered 500 "database disk image is malformed" on about 40% of requests until the
server was restarted. Before each query a connection runs, the files' identity (device and
inode of the archive, its ``-wal`` and its ``-shm``: three ``stat`` calls) is compared with the
identity they were opened with; when they differ, the connections are closed and others opened in
its place (Datasette keeps one a thread): all of them, since a process's connections to one
file share one mapping of its ``-shm``. A closed connection stays open underneath while a
statement of it lives, so unreachable cursors are collected before the new ones open.
"""

from __future__ import annotations

import gc
import os
import sqlite3
import sys
import threading
from collections.abc import Callable
from typing import Any

#: the identity of an archive's files: (device, inode) of the file, its -wal and its -shm
Identity = tuple[int, ...]
#: what Datasette runs on a connection in one of its threads
Query = Callable[[sqlite3.Connection], Any]


def file_identity(path: str) -> Identity:
    """Device and inode of ``path``, ``path-wal`` and ``path-shm``; (0, 0) for one missing.

    A file deleted and made again has another inode; a file written in place keeps its own,
    so an import's commits (appended to the log) and checkpoints change nothing here."""
    stamp: list[int] = []
    for name in (path, path + "-wal", path + "-shm"):
        try:
            status = os.stat(name)
        except FileNotFoundError:
            stamp += [0, 0]
        else:
            stamp += [status.st_dev, status.st_ino]
    return tuple(stamp)


def reopen_when_replaced(db: Any) -> None:
    """Make Datasette's database ``db`` (a mutable file) check its files before every query and
    open its connections again when they are not the ones they opened (see the module's doc).

    Wraps the instance's ``execute_fn``, through which every query of Datasette and of the
    plugin passes (:class:`Reopener`).
    """
    reopener = Reopener(db)
    run_in_thread = db.execute_fn

    async def execute_fn(fn: Query) -> Any:
        return await run_in_thread(reopener.checked(fn))

    db.execute_fn = execute_fn


class Reopener:
    """The files' identity a database's connections read, and their opening again.

    All the connections of a process to one file share SQLite's one mapping of its ``-shm``
    (SQLite keeps it per inode of the database file), so a connection opened while an old one
    is still open reads the deleted log index too: when the files change, every connection is
    closed first (once the queries running on them are done), then each thread opens its own
    again on its next query. The identity is taken after a query, since a reader's first query
    is what makes a missing ``-wal`` and ``-shm``.
    """

    def __init__(self, db: Any) -> None:
        self.db = db
        self.path = str(db.path)
        self.known: Identity | None = None  # what the open connections read; None: not yet
        self.generation = 0  # bumped each time every connection is closed
        self.opened: dict[int, int] = {}  # id of a connection -> the generation it belongs to
        self.running = 0
        self.turn = threading.Condition()

    def checked(self, fn: Query) -> Query:
        """``fn`` run on a connection that reads the archive's files as they are now."""

        def in_thread(conn: sqlite3.Connection) -> Any:
            conn = self._begin(conn)
            try:
                return fn(conn)
            except sqlite3.DatabaseError as error:
                # replaced between the check and the query: once more, on a fresh connection
                if "malformed" not in str(error) or file_identity(self.path) == self.known:
                    raise
                conn = self._begin(conn, after=conn)
                return fn(conn)
            finally:
                with self.turn:
                    self.running -= 1
                    if self.known is None:
                        self.known = file_identity(self.path)
                    self.turn.notify_all()

        return in_thread

    def _begin(self, conn: sqlite3.Connection, after: sqlite3.Connection | None = None) -> Any:
        """The connection a query runs on (``conn``, or a fresh one), counted as running.
        ``after``: the connection of a query that failed, already counted."""
        with self.turn:
            if after is not None:
                self.running -= 1
            if self.known is not None and file_identity(self.path) != self.known:
                self._close_all()
            if self.opened.setdefault(id(conn), self.generation) != self.generation:
                conn = self._fresh()
            self.running += 1
            return conn

    def _close_all(self) -> None:
        """Every connection to the file closed, once no query runs on one (the lock held)."""
        generation = self.generation
        self.turn.wait_for(lambda: self.running == 0)
        if self.generation != generation:
            return  # another thread saw the change too and closed them while this one waited
        for stale in self.db._all_file_connections:
            stale.close()
        self.db._all_file_connections.clear()
        # A closed connection whose statement is still alive (a cursor left in a reference
        # cycle, as an exception's traceback makes one) stays open underneath until that
        # statement goes, and a fresh connection would share its stale -shm: collect them now.
        gc.collect()
        self.generation += 1
        self.known = None
        print(
            f"jacquet: {self.path}: its files were replaced while it was served (its "
            "write-ahead log deleted, or the file copied over); its connections opened again",
            file=sys.stderr,
            flush=True,
        )

    def _fresh(self) -> sqlite3.Connection:
        """A new connection for this thread, in Datasette's place for it."""
        from datasette import database as datasette_database  # its per-thread connections

        fresh: sqlite3.Connection = self.db.connect()
        self.db.ds._prepare_connection(fresh, self.db.name)
        if self.db.ds.executor is None:
            self.db._read_connection = fresh
        else:
            setattr(datasette_database.connections, self.db.name, fresh)
        self.opened[id(fresh)] = self.generation
        return fresh
