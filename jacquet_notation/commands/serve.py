"""``jacquet serve``: browse records or an archive in Datasette, with boards and game pages."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
from collections.abc import Sequence

import click

from ..wording import plural
from .common import CleanError, domain_errors, echo

#: where record files are archived when no --archive is given (the current folder)
DEFAULT_ARCHIVE = "jacquet-archive.db"
#: Datasette's default port
DEFAULT_PORT = 8001
#: the endings of a path ``serve`` takes for an archive: such a file that is not SQLite is
#: refused, not imported as records into ./jacquet-archive.db
ARCHIVE_SUFFIXES = (".db", ".sqlite", ".sqlite3")
#: the longest any SQL may run, canned or typed in (Datasette's own default)
DEFAULT_TIME_LIMIT_MS = 1000


def is_sqlite_file(path: str | os.PathLike[str]) -> bool:
    """True when ``path`` is a file starting with SQLite's header (an archive, or another DB)."""
    from ..archive.opening import SQLITE_HEADER

    if not os.path.isfile(path):  # a FIFO is never opened: that would wait for a writer
        return False
    try:
        with open(path, "rb") as handle:
            return handle.read(len(SQLITE_HEADER)) == SQLITE_HEADER
    except (IsADirectoryError, FileNotFoundError, PermissionError):
        return False


def upgrade_archive(db: str) -> None:
    """Migrate an archive an older jacquet wrote before serving it, and say so."""
    from ..archive import SCHEMA_VERSION, ArchiveError, upgrade_before_serving

    try:
        old = upgrade_before_serving(db)
    except ArchiveError as error:
        raise CleanError(str(error)) from None
    if old is not None:
        click.echo(f"{db}: migrated from schema version {old} to {SCHEMA_VERSION}", err=True)


def archive_records(db: str, paths: Sequence[str], encoding: str) -> None:
    """Import record files and folders into the archive ``db`` (updated, never rebuilt)."""
    from ..archive import import_paths

    click.echo(f"jacquet: importing {', '.join(paths)} into {db}", err=True)
    with domain_errors():
        summary = import_paths(db, list(paths), encoding=encoding)
    click.echo(
        f"jacquet: {plural(summary.games, 'game')} from {plural(summary.files, 'file')}: "
        f"{summary.valid} valid, "
        f"{summary.invalid} invalid, {summary.unreadable} unreadable"
        + (f", {plural(summary.skipped_files, 'file')} unchanged" if summary.skipped_files else ""),
        err=True,
    )
    for line in summary.errors[:20]:
        echo(line, err=True)
    if len(summary.errors) > 20:
        more = plural(len(summary.errors) - 20, "more error")
        click.echo(f"jacquet: … and {more}", err=True)


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
        if path not in archives and path.lower().endswith(ARCHIVE_SUFFIXES):
            raise CleanError(f"{path}: not a SQLite file, so not an archive to serve")
    from ..browse import server

    if workers is None:
        workers = min(os.cpu_count() or 1, 4)
    sockets = None
    if not metadata_json:
        try:
            sockets = server.bind(host, port, workers)
        except OSError as error:
            raise CleanError(f"{host}:{port}: {error.strerror or error}") from error
    if archives:
        db = archives[0]
        if not metadata_json:
            upgrade_archive(db)
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
    assert sockets is not None
    with domain_errors():
        try:
            server.table_counts(
                db
            )  # reads every table once: a truncated or damaged file fails here
        except sqlite3.DatabaseError as error:
            raise CleanError(f"{db}: {error}") from error
    try:
        datasette = server.prepare(db, time_limit_ms)
    except click.UsageError as error:
        raise CleanError(error.format_message()) from error
    click.echo(
        f"jacquet: serving on http://{host}:{port}/"
        + (f" ({workers} processes)" if workers > 1 else ""),
        err=True,
    )
    sys.stderr.flush()
    server.run(datasette, db, time_limit_ms=time_limit_ms, sockets=sockets)
