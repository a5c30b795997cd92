"""The server behind ``jacquet serve``: Datasette assembled for an archive, run under uvicorn.

:func:`build_datasette` gives what plain ``datasette DB`` lacks (the metadata, the settings, a
safe database name); :func:`prepare` and :func:`run` start it the way Datasette's own ``serve``
does, in one process or several (each built again by :func:`worker_app` and serving its own
socket on the port, :func:`bind`).
"""

from __future__ import annotations

import contextlib
import gc
import json
import os
import secrets
import socket
from typing import Any

from .metadata import archive_metadata, database_name


def build_datasette(
    db: str | os.PathLike[str],
    *,
    time_limit_ms: int | None = None,
    settings: dict[str, Any] | None = None,
    counts: dict[str, int] | None = None,
    immutable: bool = True,
    secret: str | None = None,
) -> Any:
    """A Datasette serving ``db`` read-only, with the archive's metadata.

    The plugin itself comes through the ``datasette`` entry point; this adds what plain
    ``datasette DB`` lacks: the metadata (titles, facets, canned queries) and the time limit.
    ``immutable``: for a file nothing writes while it is served (SQLite then takes no locks and
    Datasette keeps what it measured); ``jacquet serve`` passes False, since an import may write
    to any archive at any time, and a file read as immutable while it changes reads as damaged.
    Mutable, the file is opened read-only (``mode=ro``) as a reader of its write-ahead log.
    ``counts`` (from :func:`table_counts`) spare every unfiltered table page of an immutable
    file its count. ``secret`` signs Datasette's cookies (the CSRF token): one for all the
    server processes of one ``jacquet serve``, so that a token one process gave a page is good
    in another (None: Datasette makes its own).
    """
    from datasette.app import Datasette

    name = database_name(db)
    inspected = None
    if counts is not None and immutable:
        # Datasette's own form for what ``datasette inspect`` measured; no hash: one would
        # read the whole file, and nothing jacquet serves uses it
        inspected = {
            name: {
                "hash": None,
                "size": os.path.getsize(db),
                "file": os.fspath(db),
                "tables": {table: {"count": count} for table, count in counts.items()},
            }
        }
    datasette = Datasette(
        [] if immutable else [os.fspath(db)],
        immutables=[os.fspath(db)] if immutable else [],
        metadata=archive_metadata(name),
        settings={**serve_settings(time_limit_ms), **(settings or {})},
        cors=False,
        inspect_data=inspected,
        secret=secret,
    )
    _serve_as(datasette, name)
    return datasette


def _serve_as(datasette: Any, name: str) -> None:
    """Serve Datasette's one file database under ``name`` rather than the file's stem.

    Datasette names a file's database after its stem, which may hold markup (written raw into
    foreign-key links by Datasette 0.65) or a dot (which sends every plugin link astray); see
    :func:`.metadata.database_name`. The database itself stays as Datasette opened it.
    """
    (current,) = [key for key, db in datasette.databases.items() if db.path is not None]
    if current != name:
        database = datasette.databases[current]
        datasette.remove_database(current)
        datasette.add_database(database, name=name)


def table_counts(db: str | os.PathLike[str]) -> dict[str, int]:
    """The rows of every table of ``db``, as a reader sees them now (reading every table once).

    A file served immutable never changes, yet Datasette counts a table again on every visit
    to its page: a third of a second for the turns of 100,000 games. Read-only and not
    immutable, so that counting while an import writes sees the last file committed (but on
    read-only media, where nothing writes and a log reader cannot open the file).
    """
    from datasette.utils import escape_sqlite  # a table name quoted as Datasette quotes it

    from ..archive.opening import open_reader

    connection = open_reader(db)  # immutable on read-only media, where no reader's -shm is made
    try:
        names = [
            row[0]
            for row in connection.execute("select name from sqlite_master where type = 'table'")
        ]
        counts = {
            name: connection.execute(f"select count(*) from {escape_sqlite(name)}").fetchone()[0]
            for name in names
        }
        # the views that read as tables (version 7): a turn a stored ply, a position counted
        # through the key index
        if "plies" in counts:
            counts["turns"] = counts["plies"]
            counts["positions"] = connection.execute("select count(*) from positions").fetchone()[0]
        return counts
    finally:
        connection.close()


def serve_settings(time_limit_ms: int | None = None) -> dict[str, Any]:
    """The Datasette settings ``jacquet serve`` runs with (also ``--setting`` pairs by hand).

    ``time_limit_ms``: the longest any SQL may run, canned or typed in; None keeps Datasette's
    own limit (the command's ``--time-limit`` default is the same second).
    """
    settings: dict[str, Any] = {} if time_limit_ms is None else {"sql_time_limit_ms": time_limit_ms}
    return settings | {
        # An import may add games to the archive while it is served: pages are kept for
        # seconds only (Datasette's default), so that new games and counts show soon.
        "default_cache_ttl": 5,
        # Suggesting facets tries a query per column on every table page: on a large
        # archive that is most of the page's time, for suggestions the metadata makes.
        "suggest_facets": False,
        # Record texts are long: the table pages show their start, the game page all.
        "truncate_cells_html": 160,
        # Each facet value is a link built in Python: ten per facet, with "…" for the rest,
        # halves the time of a games page with its seven facets.
        "default_facet_size": 10,
    }


#: how the parent process tells each server process what to serve (uvicorn imports the app)
_WORKER_CONFIG = "JACQUET_SERVE_CONFIG"


def worker_app() -> Any:
    """The ASGI app of one server process, built from what :func:`run` put in the environment."""
    config = json.loads(os.environ[_WORKER_CONFIG])
    datasette = build_datasette(
        config["db"],
        time_limit_ms=config["time_limit_ms"],
        counts=config["counts"],
        immutable=config["counts"] is not None,
        secret=config["secret"],
    )
    return FrozenAfterFirstRequest(datasette.app())


class FrozenAfterFirstRequest:
    """ASGI wrapper: once the first request is answered, exempt what exists from collection.

    A server process holds tens of thousands of long-lived objects (Datasette, its plugins,
    compiled templates, schema caches), and every full collection of Python's cyclic collector
    walks them all: about 50 ms on a 100,000-game archive, a pause that lands on one request
    in twenty and so on the 95th percentile. Frozen (``gc.freeze``) after a first request has
    loaded what pages load lazily, they are never walked again; pages' own garbage is still
    collected as before.
    """

    def __init__(self, app: Any) -> None:
        self.app = app
        self.frozen = False

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        await self.app(scope, receive, send)
        if not self.frozen and scope["type"] == "http":
            self.frozen = True
            gc.collect()  # the garbage of start-up and of the first page, not kept frozen
            gc.freeze()


def prepare(db: str, time_limit_ms: int | None = None) -> Any:
    """The Datasette of ``jacquet serve`` for ``db``, started: its startup hooks run, its
    databases checked (Datasette's own ``click.UsageError`` if one cannot be served).

    Mutable: an import may write to the archive while it is served (see :func:`build_datasette`);
    but immutable on read-only media, where nothing can write and a reader of the log cannot
    open the file (:func:`.opening.on_read_only_media`), with its tables counted once.
    """
    from datasette.cli import check_databases, run_sync

    counts = serving_counts(db)
    datasette = build_datasette(
        db, time_limit_ms=time_limit_ms, counts=counts, immutable=counts is not None
    )
    run_sync(datasette.invoke_startup)
    run_sync(lambda: check_databases(datasette))
    return datasette


def bind(host: str, port: int, workers: int = 1) -> list[socket.socket]:
    """The listening sockets of ``jacquet serve``, one per server process, bound and listening
    before anything is imported, migrated or announced: a port already taken is then an
    ``OSError`` here, while nothing has been claimed or written (uvicorn binding it itself
    would log the error after "serving on" was printed, and exit 3).

    Made with TCP's protocol number, so that asyncio turns Nagle's algorithm off on every
    connection it accepts (it does only for such sockets; a page written in several pieces
    otherwise waited for the client's delayed acknowledgement, about 40 ms a page). For several
    processes each has its own socket on the one port (``SO_REUSEPORT``): the kernel shares
    the new connections out among them, where processes waiting on one socket left it to
    whichever woke first.
    """
    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    sockets: list[socket.socket] = []
    try:
        for _ in range(workers):
            sock = socket.socket(family, socket.SOCK_STREAM, socket.IPPROTO_TCP)
            sockets.append(sock)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            if workers > 1:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
            # the first may be given port 0 (any free port): the others take the one it got
            sock.bind((host, sockets[0].getsockname()[1] if len(sockets) > 1 else port))
            sock.listen(2048)  # uvicorn's default backlog; asyncio listens again, harmlessly
    except OSError:
        for sock in sockets:
            sock.close()
        raise
    return sockets


def serving_counts(db: str | os.PathLike[str]) -> dict[str, int] | None:
    """The table counts of an archive served immutable, on read-only media where nothing can
    change it (:func:`table_counts`); None for one an import may change (served mutable, its
    tables counted by Datasette as it goes)."""
    from ..archive.opening import on_read_only_media

    return table_counts(db) if on_read_only_media(db) else None


def run(
    datasette: Any,
    db: str,
    *,
    time_limit_ms: int | None,
    sockets: list[socket.socket],
) -> None:
    """Serve ``datasette`` (from :func:`prepare`) under uvicorn until stopped.

    Datasette renders pages in Python on one thread, so one process uses one core; with more
    sockets (:func:`bind`, one per worker), that many server processes each serve one, each a
    read-only reader of the archive's write-ahead log (an import may write meanwhile), each
    building its own Datasette for ``db`` (:func:`worker_app`).
    """
    import uvicorn

    if len(sockets) == 1:
        config = uvicorn.Config(FrozenAfterFirstRequest(datasette.app()), **_SERVER)
        with contextlib.suppress(KeyboardInterrupt):  # as uvicorn.run: Ctrl-C ends quietly
            uvicorn.Server(config).run(sockets=sockets)
        return
    # one signing secret for every process: a CSRF token is then good whichever process
    # answers the page and whichever the POST (the transcriber's desk, browse/desk.py)
    os.environ[_WORKER_CONFIG] = json.dumps(
        {
            "db": os.path.abspath(db),
            "time_limit_ms": time_limit_ms,
            "counts": serving_counts(db),
            "secret": secrets.token_hex(32),
        }
    )
    supervise(sockets)


#: how uvicorn serves in every process of ``jacquet serve``
_SERVER: dict[str, Any] = {"log_level": "warning", "lifespan": "on"}


def serve_worker(sock: socket.socket) -> None:
    """One server process: uvicorn serving :func:`worker_app` on its own socket."""
    import uvicorn

    config = uvicorn.Config(f"{__name__}:worker_app", factory=True, **_SERVER)
    with contextlib.suppress(KeyboardInterrupt):
        uvicorn.Server(config).run(sockets=[sock])


def supervise(sockets: list[socket.socket]) -> None:
    """A server process for each socket, started afresh (spawned, as uvicorn starts its own)
    when one ends, until this process is asked to stop (SIGINT, SIGTERM): then each is asked
    to stop, and waited for."""
    import multiprocessing
    import multiprocessing.connection
    import signal
    import threading

    spawn = multiprocessing.get_context("spawn")
    stopping = threading.Event()
    for signum in (signal.SIGINT, signal.SIGTERM):
        signal.signal(signum, lambda *_: stopping.set())
    processes = [spawn.Process(target=serve_worker, args=(sock,)) for sock in sockets]
    for process in processes:
        process.start()
    while not stopping.is_set():
        multiprocessing.connection.wait([p.sentinel for p in processes], timeout=0.5)
        for index, process in enumerate(processes):
            if not stopping.is_set() and process.exitcode is not None:
                processes[index] = spawn.Process(target=serve_worker, args=(sockets[index],))
                processes[index].start()
    for process in processes:
        process.terminate()
    for process in processes:
        process.join()
