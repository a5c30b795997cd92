"""The plugin's pages: a game, a position, a player, and one board diagram as SVG.

Each page reads the archive through Datasette's own database (its permission checks and time
limit) and renders a template of ``templates/jacquet/``. Every text that comes from a record
reaches the page through Jinja's autoescaping or :func:`markupsafe.escape`.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections import OrderedDict
from typing import Any
from urllib.parse import quote

from datasette.database import QueryInterrupted
from datasette.utils import sqlite_timelimit
from datasette.utils.asgi import BadRequest, NotFound, Response
from markupsafe import Markup

from ..board_terms import Side, side_name
from ..match import cube_after_each
from ..numerals import INT_TEXT_LIMIT, ascii_int
from ..position import SIDES, Position
from .drawing import BOARD_WIDTH, diagram, dice_text, is_key, rings_a_courier
from .matches import game_ending, game_in_match
from .names import game_label, spell_players
from .urls import (
    board_url,
    event_url,
    game_url,
    games_list_url,
    match_url,
    optional_url,
    player_url,
    position_url,
    source_url,
    static_url,
)

#: rows listed on a page before a "more" link to Datasette's own table or query
PAGE_ROWS = 50
#: the largest integer SQLite stores: a larger id is no row of the archive
SQLITE_MAX_INT = 2**63 - 1
#: the highest ``?page=`` of the plugin's pages: its offset, doubled, stays within SQLite's int
MAX_PAGE = SQLITE_MAX_INT // (PAGE_ROWS * 4)


def _page(request: Any, param: str = "page") -> int:
    """The ``?page=`` (or ``param``) of a plugin page: 0 unless a whole number; past
    :data:`MAX_PAGE`, 400."""
    page = ascii_int(request.args.get(param, "0"), most_digits=INT_TEXT_LIMIT)
    if page is None:
        return 0
    if page > MAX_PAGE:
        raise BadRequest(f"page must be at most {MAX_PAGE}")
    return page


def _row_id(digits: str, database: str, what: str) -> int:
    """The id a URL names (its route takes digits only); past SQLite's largest integer (or
    Python's longest int text) no row can be found: 404."""
    row_id = ascii_int(digits)
    if row_id is None or row_id > SQLITE_MAX_INT:
        raise NotFound(f"No {what} {digits[:40]} in {database}")
    return row_id


def _page_links(
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


async def board_view(request: Any) -> Response:
    """One diagram as an SVG document; a key always draws the same board, so it is cached."""
    key = request.url_vars["key"]
    width = ascii_int(request.args.get("width", str(BOARD_WIDTH)), most_digits=INT_TEXT_LIMIT)
    width = BOARD_WIDTH if width is None else width
    before = request.args.get("before") or None
    cube_text = request.args.get("cube", "")
    cube = ascii_int(cube_text, most_digits=10) if cube_text else None
    if cube_text and cube is None:
        raise BadRequest(f"cube must be a number in ASCII digits, not {cube_text[:20]!r}")
    owner_text = request.args.get("owner")
    owner: Side | None = owner_text if owner_text in ("white", "black") else None
    svg = diagram(key, max(60, min(width, 1600)), before, cube, owner)
    if svg is None:
        raise NotFound(f"not a position key: {key}")
    return Response(
        svg,
        content_type="image/svg+xml; charset=utf-8",
        headers={"cache-control": "max-age=31536000, public, immutable"},
    )


async def _archive(datasette: Any, request: Any, tables: tuple[str, ...]) -> tuple[Any, str]:
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


def _footer(datasette: Any, database: str) -> dict[str, Any]:
    """The license and source lines of Datasette's footer, from the metadata."""
    merged = datasette.metadata(database=database) or {}  # one lookup: each one copies it all
    return {
        key: merged.get(key)
        for key in ("license", "license_url", "source", "source_url", "about", "about_url")
    }


async def _rows(db: Any, sql: str, params: Any = None) -> list[dict[str, Any]]:
    result = await db.execute(sql, params or [])
    return [dict(row) for row in result.rows]


async def _one_row(db: Any, sql: str, row_id: Any, what: str, database: str) -> dict[str, Any]:
    """The row ``sql`` finds for ``row_id`` (its one parameter), the ``what`` a page shows; 404
    when there is none."""
    found = await _rows(db, sql, [row_id])
    if not found:
        raise NotFound(f"No {what} {row_id} in {database}")
    return found[0]


def _without_dice(written: str | None, dice: str | None) -> str:
    """A play as written, without the roll it begins with (``6-6: 24/18`` -> ``24/18``, a match
    file's ``66: 24/18`` too): the caption and the score sheet say the roll once."""
    text = (written or "").strip()
    if not dice:
        return text
    if text.startswith(dice):
        return text[len(dice) :].lstrip().removeprefix(":").lstrip()
    compact = dice.replace("-", "")
    # only with its colon: a bare ``24`` may be a point (2-4 and ``24/18``)
    if text.startswith(f"{compact}:"):
        return text[len(compact) + 1 :].lstrip()
    return text


#: a match file's ``63: ????``: a roll whose play the record does not give (docs/notation.md)
UNKNOWN_PLAY = "????"
#: how the pages say such a play
UNKNOWN_PLAY_TEXT = "an unknown play (the record gives the roll, not its play)"


def _play_text(written: str | None, dice: str | None) -> str:
    """A play as written without its roll, ``????`` said in words."""
    text = _without_dice(written, dice)
    return UNKNOWN_PLAY_TEXT if text == UNKNOWN_PLAY else text


def _sheet_text(ply: dict[str, Any]) -> str:
    """A ply on the score sheet: ``6-3: 24/18 13/10``, the roll once however it was written."""
    if not ply["dice"]:
        return str(ply["written"] or "—")
    return f"{ply['dice']}: {_play_text(ply['written'], ply['dice']) or '—'}"


def _ply_caption(ply: dict[str, Any] | None) -> str:
    """What the board shows: ``12. White 6-5: 24/18 18/13``, the roll said once."""
    if ply is None:
        return "Start of the game"
    side = side_name(ply["side"])
    dots = "." if ply["side"] == "white" else "..."
    play = ply["steps"] or _play_text(ply["written"], ply["dice"]) or "(no move)"
    if ply["steps"] is not None and ply.get("opponent_steps"):
        # Versailles: the opponent's share of the dice, in its numbering (docs/notation.md)
        play = f"{ply['steps']} + {ply['opponent_steps']}".lstrip()
    roll = f" {ply['dice']}:" if ply["dice"] else ":"
    caption = f"{ply['turn']}{dots} {side}{roll} {play}"
    if ply["error"]:
        caption += f" — {ply['error']}"
    return caption


def _stop_note(ply: dict[str, Any]) -> str:
    """Said at an illegal ply and every later one: the board no longer follows the captions."""
    side = side_name(ply["side"])
    dots = "." if ply["side"] == "white" else "..."
    play = ply["written"] or f"{ply['dice'] or ''}: (no move)"
    return (
        f"The line stopped at {ply['turn']}{dots} {side} {play}: the board stays at the position "
        f"before it, and later plays are shown as written, not replayed. Why: {ply['error']}"
    )


async def game_view(datasette: Any, request: Any) -> Response:
    db, name = await _archive(datasette, request, ("games", "turns"))
    game_id = request.url_vars["game_id"]
    game = await _one_row(
        db,
        "select games.*, events.name as event_name, sources.name as source_name from games "
        "left join events on events.id = games.event_id "
        "left join sources on sources.id = games.source_id where games.id = ?",
        game_id,
        "game",
        name,
    )
    await spell_players(db, [game])
    turns = await _rows(
        db,
        "select ply, turn, side, dice, written, steps, pips, key_before, key_after, "
        "annotation, nags, comment, error, opponent_steps, cube from turns where game_id = ? "
        "order by ply",
        [game_id],
    )
    turns, damage = _sound_turns(turns)
    # A backgammon game shows its cube at every ply (match.py says what each action does to it)
    cubes = _cubes(game, turns)
    # The board's states: 0 is the start, n the position after the n-th ply. After an illegal
    # ply the line stops, so its state shows the position it was written against.
    # A play that was not replayed (after an illegal one) has no keys: the board stays put, and
    # its state says so (``stopped``), so that no caption seems to be what the board shows.
    start_key = (turns[0]["key_before"] if turns else None) or _start_key(game)
    states: list[dict[str, Any]] = [
        {
            "ply": 0,
            "key": start_key,
            "before": None,
            "caption": _ply_caption(None),
            "dice": "",
            "stopped": "",
        }
    ]
    stopped = ""
    for ply in turns:
        if not stopped and ply["error"]:
            stopped = _stop_note(ply)
        states.append(
            {
                "ply": ply["ply"],
                "key": ply["key_after"] or ply["key_before"] or states[-1]["key"],
                # the men this play moved are marked only when it was replayed
                "before": ply["key_before"] if ply["key_after"] else None,
                "caption": _ply_caption(ply),
                "dice": dice_text(ply["dice"]),
                "error": bool(ply["error"]),
                "stopped": stopped,
            }
        )
    current = ascii_int(request.args.get("ply", "0"), most_digits=INT_TEXT_LIMIT) or 0
    current = max(0, min(current, len(states) - 1))
    state = states[current]
    for index, item in enumerate(states):
        item["url"] = game_url(datasette, name, game_id, index)
        item["board"] = board_url(datasette, item["key"])
        query = []
        if item["before"]:
            query.append(f"before={quote(item['before'], safe='')}")
        item["cube"], item["owner"] = cubes[index] if cubes else (None, None)
        if item["cube"] is not None:
            query.append(f"cube={item['cube']}")
            if item["owner"]:
                query.append(f"owner={item['owner']}")
        if query:
            item["board"] += "?" + "&".join(query)
        item["position_url"] = position_url(datasette, name, item["key"])

    # The score sheet: a row per turn, White's and Black's plays (a list, in case a record
    # gives one side two plays in a turn: that is an error the sheet must still show).
    sheet: dict[int, dict[str, list[dict[str, Any]]]] = {}
    for ply in turns:
        ply["sheet_text"] = _sheet_text(ply)
        sheet.setdefault(ply["turn"] or 0, {}).setdefault(ply["side"], []).append(ply)
    tags = _tags(game)
    errors: list[dict[str, Any]] = []
    if game.get("errors"):
        try:
            errors = [e for e in json.loads(game["errors"]) if isinstance(e, dict)]
        except (TypeError, ValueError):
            errors = []
    if not errors and isinstance(game.get("error"), str):
        errors = [{"message": game["error"]}]
    if damage:
        errors.append({"message": damage})
    context = {
        "metadata": _footer(datasette, name),
        "database": name,
        "game": game,
        "tags": tags,
        "errors": errors,
        "sheet": sorted(sheet.items()),
        "states": states,
        "current": current,
        "state": state,
        "board_svg": Markup(
            diagram(state["key"], BOARD_WIDTH, state["before"], state["cube"], state["owner"]) or ""
        ),
        "in_match": await game_in_match(datasette, db, name, game_id),
        "ending_text": game_ending(game, cubes[-1][0] if cubes else 1),
        "event_url": optional_url(event_url, datasette, name, game.get("event_id")),
        "source_url": optional_url(source_url, datasette, name, game.get("source_id")),
        "white_url": optional_url(player_url, datasette, name, game.get("white_id")),
        "black_url": optional_url(player_url, datasette, name, game.get("black_id")),
        "row_url": f"{datasette.urls.table(name, 'games')}/{quote(game_id, safe='')}",
        "script_url": static_url(datasette, "jacquet.js"),
        "options": _options(game.get("options")),
        "courier": _has_courier(game),
        "shares": await _sharing(datasette, db, name, game),
    }
    return Response.html(
        await datasette.render_template("jacquet/game.html", context, request=request)
    )


#: the text columns of a turn the game page reads (each a string or NULL in a sound archive)
_TURN_TEXTS = (
    "dice",
    "written",
    "steps",
    "annotation",
    "nags",
    "comment",
    "error",
    "opponent_steps",
    "cube",
)


def _sound_turns(turns: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """A game's turns as the page can show them, and what was damaged (None: nothing).

    The archive's writer gives every cell its type, but a file another program wrote (or a disk
    damaged) may hold anything: a row whose ply or side is not one is left out, a cell of the
    wrong type (or a key that is no position) is shown empty (:func:`_sound_turn`), and the page
    says so rather than answering 500. The plies kept are numbered again from 1, as the board's
    states are.
    """
    kept: list[dict[str, Any]] = []
    left_out = 0
    emptied: set[str] = set()
    for row in turns:
        clean = _sound_turn(row, emptied)
        if clean is None:
            left_out += 1
        else:
            kept.append(dict(clean, ply=len(kept) + 1))
    if not left_out and not emptied:
        return kept, None
    said = []
    if left_out:
        said.append(f"{left_out} of its turns left out (their ply or side is not one)")
    if emptied:
        said.append(f"values of the wrong kind not shown ({', '.join(sorted(emptied))})")
    return kept, f"This game's rows in the archive are damaged: {'; '.join(said)}."


def _sound_turn(row: dict[str, Any], emptied: set[str]) -> dict[str, Any] | None:
    """``row`` of ``turns`` with every cell of the wrong kind emptied (its column added to
    ``emptied``); None when its ply or side is not one, so that nothing can place it."""
    if type(row.get("ply")) is not int or row.get("side") not in SIDES:
        return None
    clean = dict(row)
    for column, value in row.items():
        if value is None:
            continue
        if column in ("turn", "pips"):
            wrong = type(value) is not int
        elif column in ("key_before", "key_after"):
            wrong = not (isinstance(value, str) and is_key(value))
        else:
            wrong = column in _TURN_TEXTS and not isinstance(value, str)
        if wrong:
            clean[column] = None
            emptied.add(column)
    return clean


#: the most games sharing a game's fingerprint its page lists (the count says how many there are)
SHARES_LISTED = 50


async def _sharing(datasette: Any, db: Any, name: str, game: dict[str, Any]) -> dict[str, Any]:
    """The other games with this game's fingerprint (its group: same players, dice and moves),
    the first few with links, and how many there are; read through the fingerprint's index."""
    fingerprint = game.get("fingerprint")
    if not fingerprint:
        return {"count": 0, "games": []}
    others = await _rows(
        db,
        "select id, white, black, date, round, event, file, game_index from games "
        "where fingerprint = ? and id != ? order by rowid limit ?",
        [fingerprint, game["id"], SHARES_LISTED],
    )
    count = len(others)
    if count == SHARES_LISTED:
        counted = await _rows(
            db,
            "select count(*) as n from games where fingerprint = ? and id != ?",
            [fingerprint, game["id"]],
        )
        count = counted[0]["n"]
    for other in others:
        other["url"] = game_url(datasette, name, other["id"])
    return {"count": count, "games": others}


def _cubes(
    game: dict[str, Any], turns: list[dict[str, Any]]
) -> list[tuple[int, Side | None]] | None:
    """The cube at the start and after each ply of a backgammon game; None for other games."""
    if game.get("rules") != "backgammon":
        return None
    plies = []
    for ply in turns:
        action, _, value = (ply.get("cube") or "").partition(" ")
        plies.append((ply["side"], action or None, ascii_int(value)))
    return [(1, None), *cube_after_each(plies)]


def _start_key(game: dict[str, Any]) -> str:
    """The board of a game without a replayed play: its final key (the start, as stored)."""
    return str(game.get("final_key") or Position.start().key())


def _tags(game: dict[str, Any]) -> list[tuple[str, str]]:
    """The record's tags in its own order (the ``tags`` JSON), else those kept as columns;
    then what the archive worked out (the result by the rules, the status, the file)."""
    tags: list[tuple[str, str]] = []
    try:
        stored = json.loads(game.get("tags") or "null")
    except ValueError:
        stored = None
    if isinstance(stored, dict):
        tags = [(str(name), str(value)) for name, value in stored.items()]
    else:
        for label, column in (
            ("Event", "event"),
            ("Site", "site"),
            ("Date", "date"),
            ("Round", "round"),
            ("White", "white"),
            ("Black", "black"),
            ("Result", "result"),
            ("Rules", "rules"),
            ("Source", "source"),
            ("Transcriber", "transcriber"),
            ("Annotator", "annotator"),
        ):
            value = game.get(column)
            if value is None and column in ("event", "source"):
                value = game.get(f"{column}_name")
            if value not in (None, ""):
                tags.append((label, str(value)))
    for label, column in (
        ("Result by the rules", "computed_result"),
        ("Status", "status"),
        ("File", "file"),
        ("Game in file", "game_index"),
    ):
        if game.get(column) not in (None, ""):
            tags.append((label, str(game[column])))
    return tags


def _has_courier(game: dict[str, Any]) -> bool:
    """Whether the game's rules have a courier, so that its legend explains the courier's ring
    only there: the ``courier`` option the archive keeps (yes or no), else the ruleset's name
    (an archive without options: backgammon is the one named ruleset without it)."""
    options = dict(_options(game.get("options")))
    if "courier" in options:
        return options["courier"] != "no"
    return game.get("rules") != "backgammon"


def _options(text: str | None) -> list[tuple[str, str]]:
    if not text:
        return []
    try:
        options = json.loads(text)
    except ValueError:
        return []
    return sorted((str(k), str(v)) for k, v in options.items()) if isinstance(options, dict) else []


async def position_view(datasette: Any, request: Any) -> Response:
    db, name = await _archive(datasette, request, ("games", "turns"))
    key = request.url_vars["key"]
    svg = diagram(key, BOARD_WIDTH)
    if svg is None:
        raise NotFound(f"{key} is not a position key")
    position = Position.from_key(key)
    stored = await _rows(db, "select * from positions where key = ?", [key])
    # the first play that reached it, for a title a reader knows it by (indexed: one row)
    reached = [
        sound
        for row in await _rows(
            db,
            "select game_id, ply, turn, side, dice, written, steps, error from turns "
            "where key_after = ? order by rowid limit 1",
            [key],
        )
        if (sound := _sound_turn(row, set())) is not None
    ]
    try:
        plays: list[dict[str, Any]] | None = [
            dict(play)
            for play in await _plays_from(db, key, datasette.setting("sql_time_limit_ms"))
        ]
    except QueryInterrupted:
        plays = None  # too many games through here to sum up within the time limit
    for play in plays or []:
        play["url"] = position_url(datasette, name, play["key_after"])
        play["dice_text"] = dice_text(play["dice"]) if isinstance(play["dice"], str) else ""
        play["net"] = (play["points_won"] or 0) - (play["points_lost"] or 0)
    page = _page(request)
    games = await _games_reaching(db, key, page * PAGE_ROWS, PAGE_ROWS + 1)
    more = len(games) > PAGE_ROWS
    games = games[:PAGE_ROWS]
    await spell_players(db, games)
    for game in games:
        game["url"] = game_url(datasette, name, game["id"], game["ply"])
        game["label"] = game_label(game)
        for side in ("white", "black"):
            game[f"{side}_url"] = optional_url(player_url, datasette, name, game[f"{side}_id"])
    context = {
        "metadata": _footer(datasette, name),
        "database": name,
        "key": key,
        "position": position,
        "turn": side_name(position.turn),
        "heading": _position_heading(position, reached[0] if reached else None),
        "reached_url": game_url(datasette, name, reached[0]["game_id"], reached[0]["ply"])
        if reached
        else None,
        "stored": stored[0] if stored else None,
        "board_svg": Markup(svg),
        "plays": plays,
        "time_limit_ms": datasette.setting("sql_time_limit_ms"),
        "games": games,
        "page": page,
        **_page_links(position_url(datasette, name, key), page, more),
        "pips": {side: position.pips(side) for side in SIDES},
        "off": {side: position.off(side) for side in SIDES},
        "turns_url": f"{datasette.urls.table(name, 'turns')}?key_before={quote(key)}",
        "courier": rings_a_courier(position),
    }
    return Response.html(
        await datasette.render_template("jacquet/position.html", context, request=request)
    )


def _position_heading(position: Position, reached: dict[str, Any] | None) -> str:
    """``White to move, 354–338 pips, after 3. Black 6-5: 24/13``: whose turn, the pip counts
    (White's first), and the first play of the archive that reached the position."""
    pips = f"{position.pips('white')}–{position.pips('black')}"
    text = f"{side_name(position.turn)} to move, {pips} pips"
    if position == Position.start():
        return f"{text}, the start"
    if reached is not None:
        return f"{text}, after {_ply_caption(reached)}"
    return text


#: plays from a position, per (database file, key, the file's generation if it may change)
_PLAYS_CACHE: OrderedDict[tuple[str, str, tuple[int, ...]], list[dict[str, Any]]] = OrderedDict()
_PLAYS_CACHE_SIZE = 4096
#: how many times the SQL time limit the sum of plays from a position may take when it is kept
KEPT_QUERY_FACTOR = 10
_PLAYS_SQL = (
    "select t.dice, min(t.steps) as steps, t.key_after, count(*) as games, "
    "sum(g.winner = t.side) as wins, sum(g.winner is not null and g.winner != t.side) "
    "as losses, sum(case when g.winner = t.side then g.points else 0 end) as points_won, "
    "sum(case when g.winner != t.side then g.points else 0 end) as points_lost "
    "from turns t join games g on g.id = t.game_id "
    "where t.key_before = ? and t.key_after is not null "
    "group by t.dice, t.key_after order by games desc, t.dice, steps limit 500"
)


def _generation(path: str) -> tuple[int, ...]:
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


async def _plays_from(db: Any, key: str, time_limit_ms: int) -> list[dict[str, Any]]:
    """The plays made from ``key``, grouped by the roll and the position reached (two spellings
    of one play reach one position), with the games, wins and points of the side that made them.

    The start position has a row per game of the archive to sum, so each answer is kept (a few
    thousand of them) and the next visit is immediate: for an immutable archive for good, for
    one that an import may change (``jacquet serve``) until the file changes (its
    :func:`_generation`). Because it is kept, the sum may take ``KEPT_QUERY_FACTOR`` times the
    SQL time limit: under load the start position's sum can pass the limit, and an answer never
    kept would cost the full limit on every visit.
    """
    cache_key = (str(db.path), key, _generation(str(db.path)) if db.is_mutable else ())
    if cache_key in _PLAYS_CACHE:
        _PLAYS_CACHE.move_to_end(cache_key)
        return _PLAYS_CACHE[cache_key]
    limit = time_limit_ms * KEPT_QUERY_FACTOR

    def run(connection: sqlite3.Connection) -> list[dict[str, Any]]:
        with sqlite_timelimit(connection, limit):
            try:
                cursor = connection.execute(_PLAYS_SQL, [key])
                names = [column[0] for column in cursor.description]
                return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
            except sqlite3.OperationalError as error:
                if "interrupted" in str(error):
                    raise QueryInterrupted(error, _PLAYS_SQL, [key]) from None
                raise

    plays: list[dict[str, Any]] = await db.execute_fn(run)
    _PLAYS_CACHE[cache_key] = plays
    while len(_PLAYS_CACHE) > _PLAYS_CACHE_SIZE:
        _PLAYS_CACHE.popitem(last=False)
    return plays


async def _games_reaching(db: Any, key: str, offset: int, limit: int) -> list[dict[str, Any]]:
    """Games whose main line reaches ``key``, with the ply where it first does (0: the start).

    Read in index order (turns' rowid, the order of import) rather than sorted, so that the
    start position, reached by every game, costs a page of rows and not the whole archive.
    """
    wanted = offset + limit
    found = await _rows(
        db,
        "select game_id, ply from turns where key_after = :key order by rowid limit :n",
        {"key": key, "n": wanted * 2},
    )
    if len(found) < wanted * 2:
        # nothing before ply 1 reaches a position: only a start position is reached at ply 0
        found += await _rows(
            db,
            "select game_id, 0 as ply from turns where key_before = :key and ply = 1 "
            "order by rowid limit :n",
            {"key": key, "n": wanted},
        )
    first: dict[str, int] = {}
    for row in found:
        if row["game_id"] not in first or row["ply"] < first[row["game_id"]]:
            first[row["game_id"]] = row["ply"]
    chosen = list(first.items())[offset : offset + limit]
    if not chosen:
        return []
    rows = await _rows(
        db,
        "select id, date, white, black, white_id, black_id, result, winner, points, plies "
        f"from games where id in ({', '.join('?' * len(chosen))})",
        [game_id for game_id, _ in chosen],
    )
    by_id = {row["id"]: row for row in rows}
    games = []
    for game_id, ply in chosen:
        if game_id in by_id:
            games.append({**by_id[game_id], "ply": ply})
    return games


async def player_view(datasette: Any, request: Any) -> Response:
    db, name = await _archive(datasette, request, ("games", "players"))
    player_id = _row_id(request.url_vars["player_id"], name, "player")
    player = await _one_row(db, "select * from players where id = ?", player_id, "player", name)
    # each list of the page goes by its own page number: none of them is cut silently
    opponents_page, matches_page = _page(request, "opponents"), _page(request, "matches")
    # Two indexed halves (as White, as Black) rather than one OR over the whole table.
    sides = await _rows(
        db,
        "select 'white' as side, count(*) as games, sum(winner = 'white') as wins, "
        "sum(winner = 'black') as losses, "
        "sum(case when winner = 'white' then points else 0 end) as points_won, "
        "sum(case when winner = 'black' then points else 0 end) as points_lost "
        "from games where white_id = :id union all "
        "select 'black', count(*), sum(winner = 'black'), sum(winner = 'white'), "
        "sum(case when winner = 'black' then points else 0 end), "
        "sum(case when winner = 'white' then points else 0 end) "
        "from games where black_id = :id",
        {"id": player_id},
    )
    record = {
        field: sum(side[field] or 0 for side in sides)
        for field in ("games", "wins", "losses", "points_won", "points_lost")
    }
    record["unfinished"] = record["games"] - record["wins"] - record["losses"]
    opponents = await _rows(
        db,
        "select opponent_id, max(opponent) as opponent, count(*) as games, "
        "sum(won) as wins, sum(lost) as losses, sum(won_points) as points_won, "
        "sum(lost_points) as points_lost, count(*) over () as total from ("
        " select black_id as opponent_id, black as opponent, winner = 'white' as won,"
        "  winner = 'black' as lost,"
        "  case when winner = 'white' then points else 0 end as won_points,"
        "  case when winner = 'black' then points else 0 end as lost_points"
        "  from games where white_id = :id"
        " union all select white_id, white, winner = 'black', winner = 'white',"
        "  case when winner = 'black' then points else 0 end,"
        "  case when winner = 'white' then points else 0 end"
        "  from games where black_id = :id"
        ") group by opponent_id order by games desc, opponent limit :limit offset :offset",
        {"id": player_id, "limit": PAGE_ROWS + 1, "offset": opponents_page * PAGE_ROWS},
    )
    more_opponents = len(opponents) > PAGE_ROWS
    opponents = opponents[:PAGE_ROWS]
    await spell_players(db, opponents, [("opponent", "opponent_id")])
    for opponent in opponents:
        opponent["url"] = optional_url(player_url, datasette, name, opponent["opponent_id"])
    page = _page(request)
    games = await _rows(
        db,
        "select * from (select id, date, white, black, white_id, black_id, result, winner, "
        "points, plies, rules, status, event_id from games where white_id = :id union "
        "select id, date, white, black, white_id, black_id, result, winner, points, plies, "
        "rules, status, event_id from games where black_id = :id) "
        "order by date desc, id limit :limit offset :offset",
        {"id": player_id, "limit": PAGE_ROWS + 1, "offset": page * PAGE_ROWS},
    )
    more = len(games) > PAGE_ROWS
    games = games[:PAGE_ROWS]
    await spell_players(db, games)
    event_ids = sorted({game["event_id"] for game in games if game["event_id"] is not None})
    event_names = (
        {
            row["id"]: row["name"]
            for row in await _rows(
                db,
                f"select id, name from events where id in ({', '.join('?' * len(event_ids))})",
                event_ids,
            )
        }
        if event_ids
        else {}
    )
    for game in games:
        game["url"] = game_url(datasette, name, game["id"])
        game["label"] = game_label(game)
        game["event_name"] = event_names.get(game["event_id"])
        game["colour"] = side_name(_as_seen_by(game, player_id, datasette, name))
        game["invalid"] = game["status"] != "valid"
        game["event_url"] = optional_url(event_url, datasette, name, game["event_id"])
    matches = await _player_matches(datasette, db, name, player_id, matches_page)
    more_matches = len(matches) > PAGE_ROWS
    matches = matches[:PAGE_ROWS]
    match_record = await _match_record(db, player_id)
    here = player_url(datasette, name, player_id)
    context = {
        "metadata": _footer(datasette, name),
        "database": name,
        "player": player,
        "record": record,
        "sides": sides,
        "opponents": opponents,
        "matches": matches,
        "match_record": match_record,
        "match_links": _page_links(
            here, matches_page, more_matches, param="matches", total=match_record["matches"]
        ),
        "opponent_links": _page_links(
            here,
            opponents_page,
            more_opponents,
            param="opponents",
            total=opponents[0]["total"] if opponents else None,
        ),
        "games": games,
        "page": page,
        **_page_links(here, page, more, total=record["games"]),
        "list_url": games_list_url(datasette, name, {"player": player_id}),
    }
    return Response.html(
        await datasette.render_template("jacquet/player.html", context, request=request)
    )


def _as_seen_by(row: dict[str, Any], player_id: int, datasette: Any, name: str) -> Side:
    """A game or a match of the player ``player_id``, from the player's side: sets its
    ``opponent``, ``opponent_url`` and ``outcome`` (won, lost, unfinished); the player's side."""
    mine: Side = "white" if row["white_id"] == player_id else "black"
    theirs = "black" if mine == "white" else "white"
    row["opponent"] = row[theirs]
    row["opponent_url"] = optional_url(player_url, datasette, name, row[f"{theirs}_id"])
    row["outcome"] = "won" if row["winner"] == mine else "lost" if row["winner"] else "unfinished"
    return mine


async def _match_record(db: Any, player_id: int) -> dict[str, int]:
    """A player's matches counted, won, lost and unfinished, over all of them (the
    ``player_matches`` view), not over the page listed; zeros before version 4."""
    try:
        found = await _rows(
            db,
            "select matches, won, lost, unfinished from player_matches where player_id = ?",
            [player_id],
        )
    except sqlite3.Error:
        found = []
    row = found[0] if found else {}
    return {key: int(row.get(key) or 0) for key in ("matches", "won", "lost", "unfinished")}


async def _player_matches(
    datasette: Any, db: Any, name: str, player_id: int, page: int = 0
) -> list[dict[str, Any]]:
    """A page of a player's matches (the archive's ``matches`` rows, one more than
    :data:`PAGE_ROWS` to tell whether more follow), each won, lost or unfinished, with the final
    score the player's first; none in an archive from before version 4."""
    try:
        matches = await _rows(
            db,
            "select * from (select id, white, black, white_id, black_id, length, score_white, "
            "score_black, winner, status, game_count, site from matches where white_id = :id "
            "union select id, white, black, white_id, black_id, length, score_white, "
            "score_black, winner, status, game_count, site from matches where black_id = :id) "
            "order by id limit :limit offset :offset",
            {"id": player_id, "limit": PAGE_ROWS + 1, "offset": page * PAGE_ROWS},
        )
    except sqlite3.Error:
        return []
    await spell_players(db, matches)
    for match in matches:
        mine = _as_seen_by(match, player_id, datasette, name)
        own, theirs = (
            (match["score_white"], match["score_black"])
            if mine == "white"
            else (match["score_black"], match["score_white"])
        )
        match["score"] = f"{own}-{theirs}" if own is not None and theirs is not None else ""
        match["url"] = match_url(datasette, name, match["id"])
    return matches
