"""What every page of the plugin shares: the archive checked, an id from a URL, ``?page=`` read
and its links, rows read, the footer, and the one cache of answers kept until the file changes.

One module beneath the pages (game, position, player, match, event, home, games list), so that
none of them imports another's helpers and no import runs in a circle.
"""

from __future__ import annotations

import os
from collections import OrderedDict
from collections.abc import Awaitable, Callable, Hashable
from typing import Any

from datasette.utils.asgi import BadRequest, NotFound

from ..numerals import INT_TEXT_LIMIT, ascii_int
from ..stored_text import unpack

#: rows listed on a page before a "more" link to Datasette's own table or query
PAGE_ROWS = 50
#: the largest integer SQLite stores: a larger id is no row of the archive
SQLITE_MAX_INT = 2**63 - 1
#: the highest ``?page=`` of the plugin's pages: its offset, doubled, stays within SQLite's int
MAX_PAGE = SQLITE_MAX_INT // (PAGE_ROWS * 4)


def record_text(stored: Any) -> str | None:
    """A game's record text as read (``games.original``, kept packed since version 11); None
    for a damaged cell."""
    try:
        return unpack(stored) if isinstance(stored, str | bytes) else None
    except ValueError:
        return None


def page_number(request: Any, param: str = "page") -> int:
    """The ``?page=`` (or ``param``) of a plugin page: 0 unless a whole number; past
    :data:`MAX_PAGE`, 400."""
    page = ascii_int(request.args.get(param, "0"), most_digits=INT_TEXT_LIMIT)
    if page is None:
        return 0
    if page > MAX_PAGE:
        raise BadRequest(f"page must be at most {MAX_PAGE}")
    return page


def url_row_id(digits: str, database: str, what: str) -> int:
    """The id a URL names (its route takes digits only); past SQLite's largest integer (or
    Python's longest int text) no row can be found: 404."""
    row_id = ascii_int(digits)
    if row_id is None or row_id > SQLITE_MAX_INT:
        raise NotFound(f"No {what} {digits[:40]} in {database}")
    return row_id


def page_links(
    here: str, page: int, more: bool, *, param: str = "page", total: int | None = None
) -> dict[str, str | None]:
    """A listing's links from its ``page`` to the next (when ``more`` rows follow) and the
    previous one, as ``more_url`` and ``less_url`` (``_page_links.html`` draws them); with the
    listing's ``total``, ``count_text`` says which rows these are of how many, so that a list cut
    at a page never seems whole."""
    first = page * PAGE_ROWS + 1
    shown = (
        f"{first}–{min(first + PAGE_ROWS - 1, total)} of {total}"
        if total is not None and (more or page) and first <= total
        else None
    )
    return {
        "more_url": f"{here}?{param}={page + 1}" if more else None,
        "less_url": f"{here}?{param}={page - 1}" if page else None,
        "count_text": shown,
    }


async def checked_archive(datasette: Any, request: Any, tables: tuple[str, ...]) -> tuple[Any, str]:
    """The database named by the URL, after Datasette's own permission checks."""
    try:
        db = datasette.get_database(route=request.url_vars["database"])
    except KeyError:
        raise NotFound("Database not found") from None
    name = db.name
    await datasette.ensure_permissions(
        request.actor,
        [("view-table", (name, table)) for table in tables]
        + [("view-database", name), "view-instance"],
    )
    if not await db.table_exists("games"):
        raise NotFound(f"{name} is not a Jacquet archive (no games table)")
    return db, name


def footer_metadata(datasette: Any, database: str) -> dict[str, Any]:
    """The license and source lines of Datasette's footer, from the metadata."""
    merged = datasette.metadata(database=database) or {}  # one lookup: each one copies it all
    return {
        key: merged.get(key)
        for key in ("license", "license_url", "source", "source_url", "about", "about_url")
    }


async def query_rows(db: Any, sql: str, params: Any = None) -> list[dict[str, Any]]:
    """The rows ``sql`` reads through Datasette (its time limit), as dicts a template can read."""
    result = await db.execute(sql, params or [])
    return [dict(row) for row in result.rows]


async def one_row(db: Any, sql: str, row_id: Any, what: str, database: str) -> dict[str, Any]:
    """The row ``sql`` finds for ``row_id`` (its one parameter), the ``what`` a page shows; 404
    when there is none."""
    found = await query_rows(db, sql, [row_id])
    if not found:
        raise NotFound(f"No {what} {row_id} in {database}")
    return found[0]


def file_generation(path: str) -> tuple[int, ...]:
    """What changes whenever a commit reaches an archive: the size and modification time of the
    file and of its write-ahead log (a commit appends to the log; a checkpoint writes the file).
    One ``stat`` each, so that a page may keep what it summed until an import changes the file."""
    stamp: list[int] = []
    for name in (path, path + "-wal"):
        try:
            status = os.stat(name)
        except FileNotFoundError:
            stamp += [0, 0]
        else:
            # an empty log (a reader's first connection makes one) holds no commit
            stamp += [status.st_mtime_ns, status.st_size] if status.st_size else [0, 0]
    return tuple(stamp)


#: answers kept, per (database file, what was asked, the file's generation if it may change)
_KEPT: OrderedDict[tuple[Hashable, ...], list[dict[str, Any]]] = OrderedDict()
#: how many answers are kept at most (the least recently asked go first)
KEPT_SIZE = 6144


async def kept(
    db: Any, asked: tuple[Hashable, ...], answer: Callable[[], Awaitable[list[dict[str, Any]]]]
) -> list[dict[str, Any]]:
    """The rows ``answer()`` gives for ``asked`` on ``db``, kept until the file changes.

    Counts over every game and the plays from the start position cost tens of milliseconds on a
    large archive and change only when an import commits: an immutable archive keeps them for
    good, one an import may change (``jacquet serve``) until its :func:`file_generation`
    changes. One cache for every page, so that one bound holds the memory they take.
    """
    path = str(db.path)
    key = (path, *asked, file_generation(path) if db.is_mutable else ())
    if key in _KEPT:
        _KEPT.move_to_end(key)
        return _KEPT[key]
    rows = await answer()  # an answer that fails (its time limit passed) is not kept
    _KEPT[key] = rows
    while len(_KEPT) > KEPT_SIZE:
        _KEPT.popitem(last=False)
    return rows


def forget_kept() -> None:
    """Drop every kept answer (for a test that must see a query run)."""
    _KEPT.clear()


def kept_count() -> int:
    """How many answers are kept now."""
    return len(_KEPT)
