"""The comparison page (``/DB/-/compare/ID?with=OTHER``): two games of the archive collated
(docs/collate.md) side by side, the plies where they differ marked, each differing reading on a
board with the points it moved outlined; and the game page's "also in" list (``game_groups``).

The collation replays the games' texts (``games.original``, read again), so it runs in a
worker thread under a time budget (:data:`TIME_LIMIT`), as the transcriber's desk does: two
games that differ everywhere say so rather than hold the server.
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from datasette.utils.asgi import Response
from markupsafe import Markup

from ..archive.rows import reread
from ..board_terms import side_name
from ..budget import OutOfTime, time_budget
from ..errors import JacquetError
from ..replay.collate import Collation, Transcription, collate
from .drawing import diagram
from .names import game_label
from .shared import checked_archive, footer_metadata, one_row, query_rows, record_text
from .urls import compare_url, game_url

#: seconds a comparison may take before the page gives it up
TIME_LIMIT = 3.0
#: the width of a reading's board
READING_WIDTH = 260
#: the most games of a group the game page lists
ALSO_LISTED = 50

_GAME = (
    "select id, white, black, date, event, round, result, status, original, file, game_index, "
    "line, gap from games where id = ?"
)


async def compare_view(datasette: Any, request: Any) -> Response:
    """One game and, with ``?with=``, another, collated side by side."""
    db, name = await checked_archive(datasette, request, ("games",))
    game = await one_row(db, _GAME, request.url_vars["game_id"], "game", name)
    context: dict[str, Any] = {
        "metadata": footer_metadata(datasette, name),
        "database": name,
        "game": _linked(datasette, name, game),
        "form_url": compare_url(datasette, name, game["id"]),
        "also": await also_in(datasette, db, name, game["id"]),
        "other": None,
        "problem": None,
    }
    other_id = request.args.get("with")
    if other_id:
        other = await one_row(db, _GAME, other_id, "game", name)
        context["other"] = _linked(datasette, name, other)
        try:
            collation = await asyncio.to_thread(_collated, game, other)
        except (OutOfTime, TimeoutError):
            context["problem"] = f"these games differ too much to collate within {TIME_LIMIT:g} s"
        except _Unreadable as unreadable:
            context["problem"] = str(unreadable)
        else:
            context.update(_shown(collation))
    return Response.html(
        await datasette.render_template("jacquet/compare.html", context, request=request)
    )


class _Unreadable(Exception):
    """A game whose text cannot be collated: why, for the page."""


def _collated(game: dict[str, Any], other: dict[str, Any]) -> Collation:
    """The two games collated, in this worker thread, under the page's time budget."""
    transcriptions = []
    for row, label in ((game, "this game"), (other, "the other")):
        text = record_text(row.get("original"))
        if not text or row.get("status") == "unreadable":
            raise _Unreadable(f"{game_label(row)} could not be read: there is no record to compare")
        # the text as read, at its lines in its file (version 11 keeps no canonical text)
        record = reread(
            text, row["file"], row["game_index"] or 1, row["line"] or 1, row["gap"] or 0
        )
        if record.errors:
            raise _Unreadable(f"{game_label(row)} could not be read: {record.errors[0].message}")
        transcriptions.append(Transcription(label, record))
    try:
        with time_budget(time.monotonic() + TIME_LIMIT):
            return collate(transcriptions)
    except JacquetError as error:
        raise _Unreadable(str(error).splitlines()[0]) from error


def _linked(datasette: Any, name: str, row: dict[str, Any]) -> dict[str, Any]:
    return {**row, "label": game_label(row), "url": game_url(datasette, name, row["id"])}


def _shown(collation: Collation) -> dict[str, Any]:
    """What the template draws: the aligned plies side by side, and each difference's boards."""
    differing = {d.ply for d in collation.differences}
    rows = [
        {"number": number, "cells": cells, "differs": len(set(cells)) > 1}
        for number, cells in enumerate(collation.columns, 1)
    ]
    differences = []
    for difference in collation.differences:
        readings = []
        for reading in difference.readings:
            shown = reading.after if reading.legal and reading.play is not None else None
            board = None
            if shown is not None and reading.before is not None:
                board = diagram(shown.key(), READING_WIDTH, reading.before.key())
            elif reading.before is not None:
                board = diagram(reading.before.key(), READING_WIDTH)
            readings.append(
                {
                    "text": reading.text if reading.text is not None else "(no play)",
                    "sources": ", ".join(reading.sources),
                    "legal": reading.legal,
                    "slip": reading.slip,
                    "chosen": reading is difference.chosen,
                    "board": Markup(board or ""),
                }
            )
        differences.append(
            {
                "ply": difference.ply,
                "turn": difference.turn,
                "side": side_name(difference.side),
                "readings": readings,
            }
        )
    return {"rows": rows, "differences": differences, "differing": sorted(differing)}


async def also_in(datasette: Any, db: Any, name: str, game_id: str) -> list[dict[str, Any]]:
    """The other games of this game's group (``game_groups``: other printings of it), each with
    its link and the link that collates it with this one; empty for a game alone."""
    if not await db.table_exists("game_groups"):
        return []  # an archive older than version 7, served as it is
    found = await query_rows(
        db,
        "select g.id, g.white, g.black, g.result, g.date, g.event, g.round from game_groups o "
        "join game_groups mine on mine.group_id = o.group_id join games g on g.id = o.game_id "
        "where mine.game_id = ? and o.game_id != ? order by g.rowid limit ?",
        [game_id, game_id, ALSO_LISTED],
    )
    for row in found:
        row["label"] = game_label(row)
        row["url"] = game_url(datasette, name, row["id"])
        row["compare_url"] = compare_url(datasette, name, game_id, row["id"])
    return found
