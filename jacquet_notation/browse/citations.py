"""Sources cited as a bibliography (docs/browse.md, "Sources"): a source's author, title and
year, read from the bibliographic tags its games carry, and the order of its pages.

The archive keeps a game's tags as written (``games.tags``); a source's citation is that of the
first of its first :data:`CITATION_GAMES` games to carry one, so that citing the ten sources of
the home page reads at most that many games of each, however large a source is.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from ..bibliography import SOURCE_AUTHOR, SOURCE_PAGE, SOURCE_TITLE, SOURCE_YEAR, citation
from .shared import query_rows

#: the games of a source read for its citation, at most
CITATION_GAMES = 200

_TAG = "json_extract(tags, '$.\"{}\"')"
_PAGE = f"json_extract(games.tags, '$.\"{SOURCE_PAGE}\"')"
#: the source page's order: numbered pages and plates by number (the ``jacquet_page_order``
#: function the plugin gives its connections: ``bibliography.page_order``), then the others,
#: then as imported
PAGE_ORDER = (
    f"jacquet_page_order({_PAGE}) is null, jacquet_page_order({_PAGE}), {_PAGE}, "
    "games.import_id, games.game_index, games.id"
)
#: the page of each listed game, for the source page's column
PAGE_FIELD = f"{_PAGE} as source_page"


#: how rows are read: :func:`.shared.query_rows`, or the home page's ``kept_rows`` (kept until
#: the file changes)
Reader = Callable[[Any, str, dict[str, Any]], Awaitable[list[dict[str, Any]]]]


async def source_citation(db: Any, source_id: int, read: Reader = query_rows) -> dict[str, Any]:
    """A source's ``author``, ``title`` and ``year`` (each None where no game says) and the
    ``citation`` they make (None without any)."""
    found = await read(
        db,
        f"select {_TAG.format(SOURCE_AUTHOR)} as author, {_TAG.format(SOURCE_TITLE)} as title, "
        f"{_TAG.format(SOURCE_YEAR)} as year from ("
        "select tags from games where source_id = :id order by rowid limit :most) "
        "where author is not null or title is not null or year is not null limit 1",
        {"id": source_id, "most": CITATION_GAMES},
    )
    row = found[0] if found else {"author": None, "title": None, "year": None}
    fields = {
        key: None if row[key] is None else str(row[key]) for key in ("author", "title", "year")
    }
    return {**fields, "citation": citation(fields["author"], fields["title"], fields["year"])}


async def cite_sources(
    db: Any, sources: list[dict[str, Any]], read: Reader = query_rows
) -> list[dict[str, Any]]:
    """Each source row (``id``, ...) with its ``author``, ``title``, ``year`` and
    ``citation``: new rows, the rows given being perhaps kept answers."""
    return [{**source, **await source_citation(db, source["id"], read)} for source in sources]
