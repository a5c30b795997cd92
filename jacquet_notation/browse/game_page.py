"""The game page (``/DB/-/game/ID?ply=N``): tags, score sheet, a board stepping through the game,
its match state, its ending and the games sharing its fingerprint.

It reads the archive through Datasette's own database (its permission checks and time limit)
and renders ``templates/jacquet/game.html``. Every text that comes from a record reaches the page
through Jinja's autoescaping.
"""

from __future__ import annotations

import json
from typing import Any
from urllib.parse import quote

from datasette.utils.asgi import Response
from markupsafe import Markup

from ..board_terms import Side
from ..match import cube_after_each
from ..numerals import INT_TEXT_LIMIT, ascii_int
from ..position import Position
from .analysis import game_analysis
from .compare import also_in
from .drawing import BOARD_WIDTH, diagram, dice_text
from .match_ids import add_match_ids
from .matches import game_ending, game_in_match
from .names import spell_players
from .pictures import race_chart
from .plies import ply_caption, sheet_text, sound_turns, stop_note
from .shared import checked_archive, footer_metadata, one_row, query_rows, record_text
from .urls import (
    board_url,
    compare_url,
    event_url,
    game_url,
    optional_url,
    player_url,
    position_url,
    source_url,
    static_url,
)


async def game_view(datasette: Any, request: Any) -> Response:
    """A game: its tags, score sheet and board at `?ply=`, its match state and its ending."""
    db, name = await checked_archive(datasette, request, ("games", "turns"))
    game_id = request.url_vars["game_id"]
    game = await one_row(
        db,
        "select games.*, events.name as event_name, sources.name as source_name, "
        "rule_options.options as options_json from games "
        "left join events on events.id = games.event_id "
        "left join sources on sources.id = games.source_id "
        "left join rule_options on rule_options.id = games.options where games.id = ?",
        game_id,
        "game",
        name,
    )
    await spell_players(db, [game])
    game["original"] = record_text(game.get("original"))
    turns = await query_rows(
        db,
        "select ply, turn, side, dice, written, steps, pips, key_before, key_after, "
        "annotation, nags, comment, error, opponent_steps, cube from turns where game_id = ? "
        "order by ply",
        [game_id],
    )
    turns, damage = sound_turns(turns)
    # A backgammon game shows its cube at every ply (match.py says what each action does to it)
    cubes = _cubes(game, turns)
    states = _board_states(datasette, name, game_id, game, turns, cubes)
    current = ascii_int(request.args.get("ply", "0"), most_digits=INT_TEXT_LIMIT) or 0
    current = max(0, min(current, len(states) - 1))
    state = states[current]
    # The score sheet: a row per turn, White's and Black's plays (a list, in case a record
    # gives one side two plays in a turn: that is an error the sheet must still show).
    sheet: dict[int, dict[str, list[dict[str, Any]]]] = {}
    for ply in turns:
        ply["sheet_text"] = sheet_text(ply)
        sheet.setdefault(ply["turn"] or 0, {}).setdefault(ply["side"], []).append(ply)
    tags = _tags(game)
    errors = _errors(game, damage)
    in_match = await game_in_match(datasette, db, name, game_id)
    shares = await _sharing(datasette, db, name, game)
    shared = {other["id"] for other in shares["games"]}
    also = await also_in(datasette, db, name, game_id)
    context = {
        "metadata": footer_metadata(datasette, name),
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
        "in_match": in_match,
        "match_ids": add_match_ids(states, game, turns, in_match),
        "copy_script_url": static_url(datasette, "copy.js"),
        "ending_text": game_ending(game, cubes[-1][0] if cubes else 1),
        "event_url": optional_url(event_url, datasette, name, game.get("event_id")),
        "source_url": optional_url(source_url, datasette, name, game.get("source_id")),
        "white_url": optional_url(player_url, datasette, name, game.get("white_id")),
        "black_url": optional_url(player_url, datasette, name, game.get("black_id")),
        "row_url": f"{datasette.urls.table(name, 'games')}/{quote(game_id, safe='')}",
        "script_url": static_url(datasette, "jacquet.js"),
        "options": _options(game.get("options_json")),
        "courier": _has_courier(game),
        "shares": shares,
        "race_chart": race_chart(states, turns),
        # a printing with the same plays is listed once, under the shares, not again here
        "also": [row for row in also if row["id"] not in shared],
        "compare_url": compare_url(datasette, name, game_id),
        "analysis": await game_analysis(db, game, turns),
    }
    return Response.html(
        await datasette.render_template("jacquet/game.html", context, request=request)
    )


def _board_states(
    datasette: Any,
    name: str,
    game_id: str,
    game: dict[str, Any],
    turns: list[dict[str, Any]],
    cubes: list[tuple[int, Side | None]] | None,
) -> list[dict[str, Any]]:
    """The board's states, each with its caption, diagram and links: 0 is the start, n the
    position after the n-th ply (the page's script steps through them)."""
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
            "caption": ply_caption(None),
            "dice": "",
            "stopped": "",
        }
    ]
    stopped = ""
    for ply in turns:
        if not stopped and ply["error"]:
            stopped = stop_note(ply)
        states.append(
            {
                "ply": ply["ply"],
                "key": ply["key_after"] or ply["key_before"] or states[-1]["key"],
                # the men this play moved are marked only when it was replayed
                "before": ply["key_before"] if ply["key_after"] else None,
                "caption": ply_caption(ply),
                "dice": dice_text(ply["dice"]),
                "error": bool(ply["error"]),
                "stopped": stopped,
            }
        )
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

    return states


def _errors(game: dict[str, Any], damage: str | None) -> list[dict[str, Any]]:
    """The game's errors as the archive stored them (its ``errors`` JSON, else its one
    ``error``), and what was damaged in its rows."""
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
    return errors


#: the most games sharing a game's fingerprint its page lists (the count says how many there are)
SHARES_LISTED = 50


async def _sharing(datasette: Any, db: Any, name: str, game: dict[str, Any]) -> dict[str, Any]:
    """The other games with this game's fingerprint (its group: same players, dice and moves),
    the first few with links, and how many there are; read through the fingerprint's index."""
    fingerprint = game.get("fingerprint")
    if not fingerprint:
        return {"count": 0, "games": []}
    others = await query_rows(
        db,
        "select id, white, black, date, round, event, file, game_index from games "
        "where fingerprint = ? and id != ? order by rowid limit ?",
        [fingerprint, game["id"], SHARES_LISTED],
    )
    count = len(others)
    if count == SHARES_LISTED:
        counted = await query_rows(
            db,
            "select count(*) as n from games where fingerprint = ? and id != ?",
            [fingerprint, game["id"]],
        )
        count = counted[0]["n"]
    for other in others:
        other["url"] = game_url(datasette, name, other["id"])
        other["compare_url"] = compare_url(datasette, name, game["id"], other["id"])
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
    options = dict(_options(game.get("options_json")))
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
