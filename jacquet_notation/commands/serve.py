"""``jacquet serve``: browse records or an archive in Datasette, with boards and game pages."""

from __future__ import annotations

import gc
import json
import os
import sqlite3
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import click

from ._common import CleanError, domain_errors, echo

#: where record files are archived when no --archive is given (the current folder)
DEFAULT_ARCHIVE = "jacquet-archive.db"
#: Datasette's default port
DEFAULT_PORT = 8001
#: the longest any SQL may run, canned or typed in (Datasette's own default)
DEFAULT_TIME_LIMIT_MS = 1000
_SQLITE_MAGIC = b"SQLite format 3\x00"


def is_sqlite_file(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a file starting with SQLite's header (an archive, or another DB)."""
    if not os.path.isfile(path):  # a FIFO is never opened: that would wait for a writer
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(len(_SQLITE_MAGIC)) == _SQLITE_MAGIC
    except (IsADirectoryError, FileNotFoundError, PermissionError):
        return False


def build_datasette(
    db: str | os.PathLike[str],
    *,
    time_limit_ms: int = DEFAULT_TIME_LIMIT_MS,
    settings: dict[str, Any] | None = None,
    counts: dict[str, int] | None = None,
    immutable: bool = True,
) -> Any:
    """A Datasette serving ``db`` read-only, with the archive's metadata.

    The plugin itself comes through the ``datasette`` entry point; this adds what plain
    ``datasette DB`` lacks: the metadata (titles, facets, canned queries) and the time limit.
    ``immutable``: for a file nothing writes while it is served (SQLite then takes no locks and
    Datasette keeps what it measured); ``jacquet serve`` passes False, since an import may write
    to any archive at any time, and a file read as immutable while it changes reads as damaged.
    Mutable, the file is opened read-only (``mode=ro``) as a reader of its write-ahead log.
    ``counts`` (from :func:`table_counts`) spare every unfiltered table page of an immutable
    file its count.
    """
    from datasette.app import Datasette

    from ..browse.metadata import archive_metadata, database_name

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
    )
    _serve_as(datasette, name)
    return datasette


def _serve_as(datasette: Any, name: str) -> None:
    """Serve Datasette's one file database under ``name`` rather than the file's stem.

    Datasette names a file's database after its stem, which may hold markup (written raw into
    foreign-key links by Datasette 0.65) or a dot (which sends every plugin link astray); see
    :func:`..browse.metadata.database_name`. The database itself stays as Datasette opened it.
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
    immutable, so that counting while an import writes sees the last file committed.
    """
    from datasette.utils import escape_sqlite  # a table name quoted as Datasette quotes it

    connection = sqlite3.connect(f"{Path(db).resolve().as_uri()}?mode=ro", uri=True)
    try:
        names = [
            row[0]
            for row in connection.execute("select name from sqlite_master where type = 'table'")
        ]
        return {
            name: connection.execute(f"select count(*) from {escape_sqlite(name)}").fetchone()[0]
            for name in names
        }
    finally:
        connection.close()


def serve_settings(time_limit_ms: int = DEFAULT_TIME_LIMIT_MS) -> dict[str, Any]:
    """The Datasette settings ``jacquet serve`` runs with (also ``--setting`` pairs by hand)."""
    return {
        "sql_time_limit_ms": time_limit_ms,
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


def archive_records(db: str, paths: Sequence[str], encoding: str) -> None:
    """Import record files and folders into the archive ``db`` (updated, never rebuilt)."""
    from ..archive import import_paths

    click.echo(f"jacquet: importing {', '.join(paths)} into {db}", err=True)
    with domain_errors():
        summary = import_paths(db, list(paths), encoding=encoding)
    click.echo(
        f"jacquet: {summary.games} games from {summary.files} files: {summary.valid} valid, "
        f"{summary.invalid} invalid, {summary.unreadable} unreadable"
        + (f", {summary.skipped_files} files unchanged" if summary.skipped_files else ""),
        err=True,
    )
    for line in summary.errors[:20]:
        echo(line, err=True)
    if len(summary.errors) > 20:
        click.echo(f"jacquet: … and {len(summary.errors) - 20} more errors", err=True)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--port",
    "-p",
    type=click.IntRange(1, 65535),
    default=DEFAULT_PORT,
    show_default=True,
    help="Port to listen on.",
)
@click.option(
    "--host",
    default="127.0.0.1",
    show_default=True,
    help="Address to listen on; 0.0.0.0 to be reachable from other machines.",
)
@click.option(
    "--archive",
    "archive_path",
    default=DEFAULT_ARCHIVE,
    show_default=True,
    help="The archive record files are imported into.",
)
@click.option(
    "--time-limit",
    "time_limit_ms",
    type=click.IntRange(min=1),
    default=DEFAULT_TIME_LIMIT_MS,
    show_default=True,
    help="Milliseconds any SQL query may run.",
)
@click.option(
    "--workers",
    type=click.IntRange(min=1),
    default=None,
    help="Server processes, each answering requests on its own core [default: the cores, at "
    "most 4].",
)
@click.option("--encoding", default="utf-8", show_default=True, help="Of the record files.")
@click.option(
    "--metadata-json", is_flag=True, help="Print the Datasette metadata for this archive and exit."
)
def serve(
    paths: tuple[str, ...],
    port: int,
    host: str,
    archive_path: str,
    time_limit_ms: int,
    workers: int | None,
    encoding: str,
    metadata_json: bool,
) -> None:
    """Browse games in Datasette: boards, game, position and player pages.

    PATHS are record files or folders, imported first into the archive (--archive, by default
    ./jacquet-archive.db, updated on the next run rather than rebuilt); or one archive .db file,
    served as it is. The archive is served read-only, with a time limit on every query.

    \b
    Example:
      jacquet serve corpus/
      jacquet serve games.db --port 8080 --workers 2
    """
    archives = [path for path in paths if is_sqlite_file(path)]
    if archives and len(paths) > 1:
        raise CleanError("serve one archive, or record files and folders, not both")
    for path in paths:
        if not os.path.exists(path):
            raise CleanError(f"{path}: no such file or folder")
    if archives:
        db = archives[0]
    else:
        if metadata_json:
            db = archive_path
        else:
            archive_records(archive_path, paths, encoding)
            db = archive_path
    if metadata_json:
        from ..browse.metadata import archive_metadata, database_name

        click.echo(json.dumps(archive_metadata(database_name(db)), indent=2, ensure_ascii=False))
        return
    with domain_errors():
        try:
            table_counts(db)  # reads every table once: a truncated or damaged file fails here
        except sqlite3.DatabaseError as error:
            raise CleanError(f"{db}: {error}") from error
    if workers is None:
        workers = min(os.cpu_count() or 1, 4)
    _run(db, time_limit_ms, host, port, workers)


#: how the parent process tells each server process what to serve (uvicorn imports the app)
_WORKER_CONFIG = "JACQUET_SERVE_CONFIG"


def worker_app() -> Any:
    """The ASGI app of one server process, built from what :func:`_run` put in the environment."""
    config = json.loads(os.environ[_WORKER_CONFIG])
    datasette = build_datasette(
        config["db"], time_limit_ms=config["time_limit_ms"], immutable=False
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


def _run(db: str, time_limit_ms: int, host: str, port: int, workers: int) -> None:
    """Start Datasette the way its own ``serve`` does: startup hooks, checks, then uvicorn.

    Datasette renders pages in Python on one thread, so one process uses one core; with more
    workers, uvicorn starts that many processes sharing the port, each a read-only reader of
    the archive's write-ahead log (an import may write meanwhile).
    """
    import uvicorn
    from datasette.cli import check_databases, run_sync

    from ._uvicorn import LOOP, PROTOCOL

    datasette = build_datasette(db, time_limit_ms=time_limit_ms, immutable=False)
    run_sync(datasette.invoke_startup)
    try:
        run_sync(lambda: check_databases(datasette))
    except click.UsageError as error:
        raise CleanError(error.format_message()) from error
    click.echo(
        f"jacquet: serving on http://{host}:{port}/"
        + (f" ({workers} processes)" if workers > 1 else ""),
        err=True,
    )
    sys.stderr.flush()
    server: dict[str, Any] = {
        "host": host,
        "port": port,
        "http": PROTOCOL,
        "log_level": "warning",
        "lifespan": "on",
    }
    if workers == 1:
        uvicorn.run(FrozenAfterFirstRequest(datasette.app()), **server)
        return
    os.environ[_WORKER_CONFIG] = json.dumps(
        {"db": os.path.abspath(db), "time_limit_ms": time_limit_ms}
    )
    uvicorn.run(f"{__name__}:worker_app", factory=True, workers=workers, loop=LOOP, **server)
