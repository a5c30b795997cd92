"""``jacquet players``: the likely aliases of an archive's players, and merging them."""

from __future__ import annotations

import os
import sqlite3

import click

from ..wording import plural
from .common import CleanError, domain_errors, echo


@click.command()
@click.argument("db")
@click.option(
    "--merge",
    nargs=2,
    metavar="NAME OTHER",
    help="Record that OTHER is a spelling of NAME: one player, OTHER's games counted as NAME's.",
)
@click.option("--unmerge", nargs=2, metavar="NAME OTHER", help="Undo --merge NAME OTHER.")
@click.option(
    "--limit", default=50, show_default=True, type=click.IntRange(min=1), help="Pairs listed."
)
def players(
    db: str, merge: tuple[str, str] | None, unmerge: tuple[str, str] | None, limit: int
) -> None:
    """List the players of the archive DB who are likely one player under two spellings.

    Each pair is ranked by a score (0-100) from how alike the names are (accents, case,
    initials, titles such as "Mr", words in another order) and what their games share
    (events, sources, opponents; two who played each other are unlikely to be one), and the
    line says why. --merge NAME OTHER makes them one player in the archive (re-imports and
    rebuilds keep it; --unmerge undoes it). Exit 0 on success, 2 for a usage error, a name
    not in the archive, or an archive that cannot be used.

    \b
    Example:
      jacquet players games.db
      jacquet players games.db --merge "Jean Dupré" "J. Dupré"
    """
    from ..archive import aliases, open_archive
    from ..archive.likely import likely_aliases

    if merge and unmerge:
        raise CleanError("give --merge or --unmerge, not both")
    if not os.path.exists(db):
        raise CleanError(f"{db}: no such archive")
    try:
        with domain_errors():
            names = merge or unmerge
            if names is not None:
                done = (aliases.merge if merge else aliases.unmerge)(db, *names)
                verb = "merged into" if merge else "parted from"
                echo(f"{done.spelling!r} {verb} {done.player!r} ({plural(done.games, 'game')})")
                return
            database = open_archive(db)
            try:
                found = likely_aliases(database.conn, limit)
            finally:
                database.close()
    except sqlite3.Error as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CleanError(f"{db}: {message}") from error
    if not found:
        echo("no likely aliases")
    for pair in found:
        echo(
            f"{pair.score:3d}  {pair.first.name} ({plural(pair.first.games, 'game')}) ~ "
            f"{pair.second.name} ({plural(pair.second.games, 'game')}): {pair.evidence()}"
        )
