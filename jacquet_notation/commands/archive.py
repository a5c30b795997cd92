"""``jacquet archive``: import record files into a SQLite archive, or rebuild it."""

from __future__ import annotations

import sqlite3
import sys

import click

from ..rules import RULESET_NAMES, Rules
from ..wording import plural
from .common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    CleanError,
    domain_errors,
    echo,
    game_progress,
)


@click.command()
@click.argument("db")
@click.argument("paths", nargs=-1)
@click.option(
    "--rebuild", is_flag=True, help="Re-derive every table from the stored original texts."
)
@click.option("--rules", "ruleset", type=click.Choice(RULESET_NAMES), help="Force a ruleset.")
@click.option("--encoding", default="utf-8", show_default=True, help="e.g. latin-1.")
def archive(
    db: str, paths: tuple[str, ...], rebuild: bool, ruleset: str | None, encoding: str
) -> None:
    """Import every game of PATHS (files, folders, or - for stdin) into the archive DB.

    DB is a SQLite file, created if missing. Every game is kept, valid or not; a file already
    imported (same sha256) is skipped. One transaction per file: an interrupted import leaves
    a consistent archive, and running it again completes it. Prints each error, then a summary.
    Exit 0 when every game is valid, 1 when any is invalid or unreadable, 2 for a usage error,
    a path that cannot be read (the other files are still imported) or an unusable archive.

    \b
    Example:
      jacquet archive games.db corpus/
      jacquet archive games.db --rebuild
    """
    from ..archive import import_paths
    from ..archive import rebuild as rebuild_archive

    if rebuild and paths:
        raise CleanError("--rebuild takes no PATH: import first, then rebuild")
    if not rebuild and not paths:
        raise CleanError("give the record files to import (or --rebuild)")
    with domain_errors():
        rules = Rules.named(ruleset) if ruleset else None
    try:
        with domain_errors(), game_progress("archiving") as progress:
            if rebuild:
                summary = rebuild_archive(db, rules=rules)
            else:
                summary = import_paths(
                    db, list(paths), rules=rules, encoding=encoding, progress=progress
                )
    except sqlite3.Error as error:
        # A damaged file or a locked archive: one line, never a traceback.
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CleanError(f"{db}: {message}") from error
    for line in summary.errors:
        echo(line)
    if rebuild:
        echo(
            f"rebuilt {plural(summary.games, 'game')}: {summary.valid} valid, "
            f"{summary.invalid} invalid, "
            f"{summary.unreadable} unreadable"
        )
    else:
        echo(summary.line())
    sys.exit(EXIT_USAGE if summary.io_errors else EXIT_OK if summary.ok else EXIT_INVALID)
