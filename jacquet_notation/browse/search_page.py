"""The search page (``/DB/-/search?q=QUERY``): positions found by what they look like, in the
query language of ``jacquet search`` (``archive/search.py``; docs/browse.md, "Searching
positions"), a page at a time, each linked to its position page and the games through it.

The query is read before any SQL runs, so that a mistake is one line with its column and a
400; the search walks ``plies``' indexes within its own row budget (``archive/search.py``).
"""

from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import urlencode

from datasette.utils.asgi import Response

from ..archive.search import QueryError, read_query, search
from ..board_terms import side_name
from .shared import PAGE_ROWS, checked_archive, footer_metadata, page_number
from .urls import board_url, position_url, search_url


def _page_url(here: str, text: str, page: int) -> str:
    """This search's page ``page``: the query kept, so that paging never loses it."""
    return f"{here}?{urlencode({'q': text, 'page': page} if page else {'q': text})}"


async def search_view(datasette: Any, request: Any) -> Response:
    """The form, and the positions meeting its query when one is given."""
    db, name = await checked_archive(datasette, request, ("plies", "shared_positions"))
    text = request.args.get("q", "").strip()
    page = page_number(request)
    here = search_url(datasette, name)
    context: dict[str, Any] = {
        "metadata": footer_metadata(datasette, name),
        "database": name,
        "query": text,
        "search_url": here,
        "error": None,
        "results": None,
    }
    status = 200
    if text:
        try:
            query = read_query(text)
        except QueryError as error:
            context["error"] = str(error)
            context["error_column"] = error.column
            status = 400
        else:

            def run(connection: sqlite3.Connection) -> Any:
                return search(connection, query, limit=PAGE_ROWS, offset=page * PAGE_ROWS)

            found = await db.execute_fn(run)
            for row in found.rows:
                row["url"] = position_url(datasette, name, row["key"])
                row["board_url"] = board_url(datasette, row["key"]) + "?width=160"
                row["turn_name"] = side_name(row["turn"])
            first = page * PAGE_ROWS + 1
            context.update(
                results=found.rows,
                total=found.total,
                exact=found.exact,
                more=found.more,
                shown=f"{first}–{first + len(found.rows) - 1}" if found.rows else None,
                more_url=_page_url(here, text, page + 1) if found.more else None,
                less_url=_page_url(here, text, page - 1) if page else None,
            )
    html = await datasette.render_template("jacquet/search.html", context, request=request)
    return Response.html(html, status=status)
