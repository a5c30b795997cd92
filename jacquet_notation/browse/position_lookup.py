"""A position found by any SPEC (a key, a gnubg Position ID, an XGID): ``/DB/-/position?id=``
and the home page's search box, which paste the ID a player shares.

The SPEC becomes our key (``position_specs``), and the key is looked up on the positions
table's key index: one indexed row, whatever the archive's size; the archive's schema knows
only keys.
"""

from __future__ import annotations

from typing import Any

from datasette.utils.asgi import BadRequest, NotFound, Response

from ..errors import PositionError
from ..position_specs import MAX_SPEC_CHARS, read_spec
from .shared import checked_archive, query_rows
from .urls import position_url


def spec_key(text: str) -> str | None:
    """Our key of the position ``text`` gives in any SPEC form, or None when it gives none."""
    if not text.strip() or len(text) > MAX_SPEC_CHARS:
        return None
    try:
        return read_spec(text).position.key()
    except PositionError:
        return None


async def stored_key(db: Any, key: str) -> bool:
    """Whether a game of the archive reached ``key`` (the positions table's primary key)."""
    return bool(await query_rows(db, "select 1 from positions where key = ? limit 1", [key]))


async def position_lookup_view(datasette: Any, request: Any) -> Response:
    """``/DB/-/position?id=SPEC``: the position page of the SPEC's position, if a game of the
    archive reached it; a 400 for a SPEC that is no position, a 404 for one never reached."""
    db, name = await checked_archive(datasette, request, ("positions",))
    spec = request.args.get("id", "")
    key = spec_key(spec)
    if key is None:
        raise BadRequest("id: a position key, a gnubg Position ID or an XGID expected")
    if not await stored_key(db, key):
        raise NotFound(f"no game of this archive reaches the position {key}")
    return Response.redirect(position_url(datasette, name, key))
