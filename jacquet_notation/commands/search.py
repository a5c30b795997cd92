"""``jacquet search``: an archive's positions found by what they look like."""

from __future__ import annotations

import os
import sqlite3

import click

from ..wording import plural
from .common import CleanError, domain_errors, echo, json_line

#: the exit code when the query is read but no position meets it (as grep says "none")
EXIT_NONE = 1


@click.command()
@click.argument("db")
@click.argument("query", nargs=-1)
@click.option(
    "--limit", default=50, show_default=True, type=click.IntRange(1, 500), help="Positions shown."
)
@click.option("--offset", default=0, type=click.IntRange(min=0), help="Positions skipped first.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object a position, then a total.")
def search(db: str, query: tuple[str, ...], limit: int, offset: int, as_json: bool) -> None:
    """List the positions of the archive DB that meet QUERY, a page at a time.

    QUERY is criteria separated by spaces, all of which a position meets (docs/browse.md,
    "Searching positions"): turn:white, rules:backgammon, pips-white:<60, diff:>20 (the mover's
    pips minus the other's), race or contact, off-black:>=5, bar-white:1, point:6-white>=3,
    table:home-black>=10, courier:white, and ranges such as pips-black:60..80. Each line is a
    position's key, side to move, pips, men off and the games through it; the last says how
    many more there are ("at least" where the search stopped at its budget). Exit 0 when
    positions are found, 1 when none is, 2 for a query that cannot be read (its column said)
    or an archive that cannot be used.

    \b
    Example:
      jacquet search games.db turn:white race diff:">20"
      jacquet search games.db "rules:backgammon bar-black:>=2 point:6-white>=2"
    """
    from ..archive import open_archive
    from ..archive.search import read_query
    from ..archive.search import search as run_search

    if not os.path.exists(db):
        raise CleanError(f"{db}: no such archive")
    try:
        with domain_errors():
            parsed = read_query(" ".join(query))
            database = open_archive(db)
            try:
                found = run_search(database.conn, parsed, limit=limit, offset=offset)
            finally:
                database.close()
    except sqlite3.Error as error:
        message = str(error).splitlines()[0] if str(error) else type(error).__name__
        raise CleanError(f"{db}: {message}") from error
    for row in found.rows:
        if as_json:
            echo(json_line(row))
        else:
            echo(
                f"{row['key']}  {row['turn']} to move  pips {row['white_pips']}-"
                f"{row['black_pips']}  off {row['white_off']}-{row['black_off']}  "
                f"{'contact' if row['contact'] else 'race'}  {plural(row['games'], 'game')}  "
                f"{row['rules']}"
            )
    floor = "" if found.exact else "at least "
    summary = f"{floor}{plural(found.total, 'position')}, {floor}{found.more} more after these"
    figures = {"total": found.total, "more": found.more, "exact": found.exact}
    echo(json_line(figures) if as_json else summary)
    if not found.total:
        raise SystemExit(EXIT_NONE)
