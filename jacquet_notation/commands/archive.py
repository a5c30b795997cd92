"""``jacquet archive``: import record files into a SQLite archive, or rebuild it."""

from __future__ import annotations

import os
import sqlite3
import sys
from collections.abc import Callable, Iterator

import click

from ..rules import RULESET_NAMES, Rules
from ._common import EXIT_INVALID, EXIT_OK, EXIT_USAGE, CleanError, domain_errors


def _show_progress() -> bool:
    """A progress bar only for a person at a terminal: never in a pipe or a CI log."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def _unknown_length() -> Iterator[int]:
    yield from ()


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
    Exit 0 when every game is valid, 1 when any is invalid or unreadable, 2 for a usage error or
    an unusable archive.

    \b
    Example:
      jacquet archive games.db corpus/
      jacquet archive games.db --rebuild
    """
    from ..archive import import_paths
    from ..archive import rebuild as rebuild_archive

    if rebuild and paths:
        raise CleanError("--rebuild takes no PATH: import first, then rebuild", EXIT_USAGE)
    if not rebuild and not paths:
        raise CleanError("give the record files to import (or --rebuild)", EXIT_USAGE)
    with domain_errors():
        rules = Rules.named(ruleset) if ruleset else None
    bar = None
    progress: Callable[[int], None] | None = None
    if _show_progress() and not rebuild:
        # The number of games is not known before they are read: a moving bar and a count.
        bar = click.progressbar(
            _unknown_length(),
            label="archiving",
            file=sys.stderr,
            item_show_func=lambda games: f"{games} games" if games is not None else None,
        )
        done = 0

        def progress(games: int) -> None:
            nonlocal done
            done += games
            bar.update(games, done)

    try:
        with domain_errors():
            if rebuild:
                summary = rebuild_archive(db, rules=rules)
            else:
                summary = import_paths(
                    db, list(paths), rules=rules, encoding=encoding, progress=progress
                )
    except sqlite3.Error as error:
        # A damaged file or a locked archive: one line, never a traceback.
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CleanError(f"{db}: {message}", EXIT_USAGE) from error
    finally:
        if bar is not None:
            bar.render_finish()
    for line in summary.errors:
        click.echo(line)
    if rebuild:
        click.echo(
            f"rebuilt {summary.games} games: {summary.valid} valid, {summary.invalid} invalid, "
            f"{summary.unreadable} unreadable"
        )
    else:
        click.echo(summary.line())
    sys.exit(EXIT_OK if summary.ok else EXIT_INVALID)
