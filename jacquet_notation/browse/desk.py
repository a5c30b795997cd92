"""The transcriber's desk: a page where a record is typed and checked as it is typed.

``/-/transcribe`` is the page; ``/-/transcribe/check`` the JSON endpoint its script posts the
text to. The endpoint reads the text with the project's reader, replays it, and answers with every
error, the position after each ply, and the legal plays of the roll at the cursor; it also turns a
position set on a board into a ``[Position "KEY"]`` tag. Nothing is stored: the archive is not
read at all, so the page works on any served archive (docs/browse.md, *The transcriber's desk*).

What a request may cost is bounded three ways: the body (:data:`MAX_BODY`, refused with 413 from
its ``Content-Length`` before any of it is read, or as soon as a chunked body passes it), the
time (:data:`TIME_LIMIT`: the work runs in a thread under a :mod:`...budget` deadline that the
reading, the replay and the rolls tried check between games, plies and rolls, so a late check
ends itself and is answered 503; at most :data:`CHECKS_AT_ONCE` run in a process, and one more
waits for a place, answered 503 when none comes), and the legal plays listed
(:data:`LEGAL_SHOWN`). Whatever else goes wrong with a request is a one-line 400, never a 500.
Datasette's CSRF protection (asgi-csrf) guards every POST that carries cookies; the endpoint also
demands the token itself, so that a request without cookies (which asgi-csrf lets through) is
refused too.
"""

from __future__ import annotations

import asyncio
import json
import logging
import secrets
import threading
import time
from dataclasses import dataclass
from typing import Any

from datasette.utils.asgi import Response

from ..budget import OutOfTime, check_time, time_budget
from ..engine import legal_plays
from ..errors import JacquetError
from ..notation import parse_games
from ..numerals import ascii_int
from ..position import Position
from ..record import GameRecord, Span
from ..replay import ReplayedGame, ReplayedPly, infer, replay
from ..reporting import error_detail
from ..rules import RULESET_NAMES
from .board_setup import Refused, setup_position
from .urls import board_prefix, home_url, static_url

#: checks one server process runs at once (they share one interpreter's lock); one more waits
#: for a place a while
CHECKS_AT_ONCE = 2
#: the largest body the endpoint reads (a record of several hundred turns is under 20 KB)
MAX_BODY = 256 * 1024
#: seconds the endpoint gives one check before answering 503: the check's own deadline
TIME_LIMIT = 2.0
#: seconds past the deadline the endpoint waits for the check to notice it (one step of the work,
#: a roll's validation, is milliseconds) before answering 503 all the same
GRACE = 1.0
#: the legal plays listed at most (a backgammon double may have hundreds)
LEGAL_SHOWN = 60
#: the header the page sends its CSRF token in (asgi-csrf's, as Datasette configures it)
CSRF_HEADER = "x-csrftoken"

DESK_PATH = "/-/transcribe"
CHECK_PATH = "/-/transcribe/check"


_LOG = logging.getLogger(__name__)

#: what a late check answers: the work gave up at its deadline
_LATE = f"checking took longer than {TIME_LIMIT:g} s: check a shorter part"


# -- the page ------------------------------------------------------------------------------------


async def desk_view(datasette: Any, request: Any) -> Response:
    """``/-/transcribe``: the editor, the board, the legal plays, the position setter."""
    context = {
        "check_url": str(datasette.urls.path(CHECK_PATH)),
        "board_prefix": board_prefix(datasette),
        "script_url": static_url(datasette, "transcribe.js"),
        "css_url": static_url(datasette, "transcribe.css"),
        "home_url": home_url(datasette),
        "rulesets": RULESET_NAMES,
        "max_body": MAX_BODY,
    }
    return Response.html(
        await datasette.render_template("jacquet/transcribe.html", context, request=request),
        headers={"cache-control": "no-store"},
    )


# -- the endpoint --------------------------------------------------------------------------------


async def check_view(datasette: Any, request: Any) -> Response:
    """``POST /-/transcribe/check``: ``{"text", "line", "column"}`` checked, or ``{"setup"}``
    turned into a position key (see :func:`check_text` and :func:`setup_position`)."""
    try:
        if request.method != "POST":
            raise Refused(405, "POST a JSON object to this address")
        _check_token(request)
        content_type = request.headers.get("content-type", "").split(";", 1)[0].strip()
        if content_type != "application/json":
            raise Refused(415, "the body must be JSON (content-type: application/json)")
        payload = _payload(await _read_body(request))
        if "setup" in payload:
            answer = setup_position(payload["setup"])
        else:
            text, line, column = _text_and_cursor(payload)
            limit, deadline = TIME_LIMIT, time.monotonic() + TIME_LIMIT
            try:
                checked = await asyncio.wait_for(
                    asyncio.to_thread(_check_if_free, text, line, column, deadline),
                    limit + GRACE,
                )
            except TimeoutError:
                # the thread ends at its next check of the deadline, and gives its place back
                raise Refused(503, _LATE) from None
            if checked is None:
                raise Refused(503, "the desk is busy with other checks: try again in a moment")
            answer = checked
            prefix = board_prefix(datasette)
            for ply in answer["plies"]:
                ply["board"] = f"{prefix}{ply['key']}.svg?before={ply['before']}"
            answer["start_board"] = f"{prefix}{answer['start']}.svg"
    except Refused as refused:
        return _refusal(refused.status, refused.message)
    except JacquetError as error:
        # a text the reader refuses whole (a NUL: not a text file), with its line and column
        return _refusal(400, str(error).splitlines()[0])
    except Exception as error:
        # The boundary: whatever else a request makes go wrong is that request's fault as far
        # as the page can tell; one line to the page, the traceback to the server's log.
        _LOG.warning("the desk could not check a request", exc_info=True)
        first = (str(error).splitlines() or [""])[0][:200]
        return _refusal(400, f"the desk could not check this: {type(error).__name__}: {first}")
    return Response.json(answer, headers={"cache-control": "no-store"})


def _refusal(status: int, message: str) -> Response:
    return Response.json({"error": message}, status=status, headers={"cache-control": "no-store"})


#: the places of the checks that may run at once: a check's thread holds one until it ends
CHECK_PLACES = threading.BoundedSemaphore(CHECKS_AT_ONCE)


def _check_if_free(text: str, line: int, column: int, deadline: float) -> dict[str, Any] | None:
    """:func:`check_text` in its worker thread once a place is free (None when none is soon),
    under the request's ``deadline`` (``time.monotonic()``): past it the check gives up
    (:class:`..budget.OutOfTime`), so a late check frees its place within one step of its time.

    The place is taken in the thread, not before it: a check cancelled before its thread
    starts (late already) then holds none. Checks that merely overlap wait their turn (one
    takes milliseconds); places held by costly checks for half the time limit make it busy.
    """
    if not CHECK_PLACES.acquire(timeout=max(0.0, min(TIME_LIMIT / 2, deadline - time.monotonic()))):
        return None
    try:
        with time_budget(deadline):
            return check_text(text, line, column)
    except OutOfTime:
        raise Refused(503, _LATE) from None
    finally:
        CHECK_PLACES.release()


def _check_token(request: Any) -> None:
    """The page's CSRF token must come in its header, matching the cookie Datasette set."""
    sent = request.headers.get(CSRF_HEADER, "")
    expected = request.cookies.get("ds_csrftoken", "")
    if not sent or not expected or not secrets.compare_digest(sent, expected):
        raise Refused(403, "the page's CSRF token is missing or stale: reload the page")


async def _read_body(request: Any) -> bytes:
    """The body, refused with 413 once it passes :data:`MAX_BODY`: from the declared length
    before reading any of it, else as the chunks arrive."""
    declared = request.headers.get("content-length")
    too_large = Refused(413, f"the body is over {MAX_BODY // 1024} KB: check a shorter part")
    if declared is not None:
        length = ascii_int(declared)
        if length is None:
            raise Refused(400, "the content-length is not a number")
        if length > MAX_BODY:
            raise too_large
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await request.receive()
        if message["type"] == "http.disconnect":
            raise Refused(400, "the request ended before its body")
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            raise too_large
        chunks.append(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks)


def _payload(body: bytes) -> dict[str, Any]:
    try:
        payload = json.loads(body)
    except (UnicodeDecodeError, ValueError):
        raise Refused(400, "the body is not JSON") from None
    except RecursionError:
        raise Refused(400, "the body is JSON nested too deep") from None
    if not isinstance(payload, dict):
        raise Refused(400, "the body must be a JSON object")
    return payload


def _text_and_cursor(payload: dict[str, Any]) -> tuple[str, int, int]:
    text, line, column = payload.get("text"), payload.get("line", 1), payload.get("column", 1)
    if not isinstance(text, str):
        raise Refused(400, 'the object needs "text", the record as a string')
    if not isinstance(line, int) or not isinstance(column, int):
        raise Refused(400, '"line" and "column" are whole numbers (1-based)')
    return text, line, column


# -- checking a record ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Cursor:
    line: int
    column: int

    def after(self, span: Span) -> bool:
        """The cursor stands at or after the start of ``span``."""
        return (span.line, span.column) <= (self.line, self.column)


def check_text(text: str, line: int = 1, column: int = 1) -> dict[str, Any]:
    """A text checked as the desk shows it (pure: no I/O, no archive).

    ``errors``: every error of every game (``error_detail``: kind, line, column, message,
    suggestions), in order. ``plies``: the main line of the game at the cursor, each with its
    span, side, turn, dice, the key before it and the key the board shows after it (the one
    before, when it could not be played). ``cursor``: the ply at the cursor (the last one that
    starts at or before it), its roll and the legal plays of that roll. ``start``: the key of
    the game's first position. A game whose text does not parse is replayed up to the line
    before its first syntax error, so that the board and the legal plays follow a line being
    typed.
    """
    records = []
    for record in parse_games(text):
        check_time()  # under the desk's deadline: give up between games
        records.append(record)
    errors: list[dict[str, Any]] = []
    replayed: list[ReplayedGame] = []
    for record in records:
        check_time()
        game = replay(record)
        replayed.append(game)
        for error in game.errors:
            detail = error_detail(error)
            detail["game"] = record.index
            errors.append(detail)
    errors.sort(key=lambda detail: (detail["line"] or 0, detail["column"] or 0))
    cursor = _Cursor(line, column)
    chosen = _game_at(replayed, cursor)
    if chosen is not None and chosen.record.errors:
        chosen = _salvage(text, chosen.record) or chosen
    if chosen is None:
        start = Position.start()
        return {
            "errors": errors,
            "plies": [],
            "start": start.key(),
            "cursor": _no_cursor(),
            "rules": None,
        }
    plies = [_ply(ply) for ply in chosen.plies]
    start_position = chosen.plies[0].before if chosen.plies else chosen.final
    at, stopped, stopped_before = None, False, False
    for ply in chosen.plies:
        if ply.written.span.line and cursor.after(ply.written.span):
            at, stopped = ply, stopped_before
        stopped_before = stopped_before or ply.after is None
    return {
        "errors": errors,
        "plies": plies,
        "start": start_position.key(),
        "cursor": _cursor_answer(at, chosen, stopped) if at is not None else _no_cursor(),
        "rules": _rules_answer(chosen.record),
    }


def _rules_answer(record: GameRecord) -> dict[str, Any]:
    """Which named rulesets the game at the cursor fits so far (``jacquet infer``), under the
    check's deadline like the rest: the JSON of ``infer --json`` and its one-line sentence."""
    inference = infer(record)
    answer = inference.to_json()
    answer["scoring_only"] = [list(twins) for twins in inference.scoring_only]
    answer["sentence"] = inference.sentence()
    return answer


def _game_at(games: list[ReplayedGame], cursor: _Cursor) -> ReplayedGame | None:
    """The game whose text holds the cursor: the first whose own lines begin at or before it
    and end at or after it, else (the cursor between games) the last one beginning before it.

    The games of a match file all hold its header, from its first line, so where each game's
    own lines begin (``own_line``) tells them apart.
    """
    chosen = games[0] if games else None
    for game in games:
        span = game.record.span
        if span.line and game.record.own_line <= cursor.line:
            chosen = game
            if span.end_line >= cursor.line:
                break
    return chosen


def _salvage(text: str, record: GameRecord) -> ReplayedGame | None:
    """The game replayed from its text up to the line before its first syntax error."""
    lines = [error.line for error in record.errors if error.line]
    if not lines:
        return None
    head = "\n".join(text.splitlines()[: min(lines) - 1])
    for part in parse_games(head):
        if part.index == record.index and not part.errors and part.plays:
            return replay(part)
    return None


def _ply(ply: ReplayedPly) -> dict[str, Any]:
    written, span = ply.written, ply.written.span
    shown = ply.after if ply.after is not None else ply.before
    return {
        "index": ply.index,
        "line": span.line,
        "column": span.column,
        "end_line": span.end_line,
        "end_column": span.end_column,
        "side": written.side,
        "turn": written.turn,
        "dice": f"{written.dice[0]}-{written.dice[1]}" if written.dice else None,
        "text": written.text,
        "before": ply.before.key(),
        "key": shown.key(),
        "played": ply.after is not None,
        "error": error_detail(ply.error)["message"] if ply.error is not None else None,
    }


def _no_cursor() -> dict[str, Any]:
    return {"ply": None, "dice": None, "legal": [], "legal_count": 0, "stopped": False}


def _cursor_answer(ply: ReplayedPly, game: ReplayedGame, stopped: bool) -> dict[str, Any]:
    """The ply at the cursor and the legal plays of its roll from the position before it;
    none after a play that could not be made (the position before it is not known)."""
    written = ply.written
    answer = _no_cursor()
    answer["ply"] = ply.index
    answer["stopped"] = stopped
    if written.dice is None or written.is_cube_action or stopped:
        return answer
    answer["dice"] = f"{written.dice[0]}-{written.dice[1]}"
    try:
        legal = legal_plays(ply.before, written.dice, game.rules)
    except JacquetError:
        return answer
    notations = sorted({play.notation() or "pass" for play in legal})
    answer["legal"] = notations[:LEGAL_SHOWN]
    answer["legal_count"] = len(notations)
    return answer
