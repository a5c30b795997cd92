"""The match page (``/DB/-/match/ID``) and a game's place in its match, for the game page.

A match is a ``matches`` row (archive/store.py ``refresh_matches``): its games in order, its
final score, winner and errors. The score before each game is what the game's ``Score`` tag
says (the file's own line), the Crawford game is :func:`..match.is_crawford_game`'s, and how a
game ended is :func:`..match.ending_text` of its row's ``winner``, ``points`` and ``ending``.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from datasette.utils.asgi import Response

from ..board_terms import Side, side_name
from ..match import ENDINGS, Outcome, cube_after_each, ending_text, is_crawford_game
from ..numerals import ascii_int
from .analysis import match_analysis
from .names import spell_players
from .shared import checked_archive, footer_metadata, one_row, url_row_id
from .urls import game_url, match_url, optional_url, player_url, table_url


def _score(tags: dict[str, Any]) -> tuple[int, int] | None:
    """The score before a game as its ``Score`` tag gives it (White-Black), if it does."""
    white, _, black = str(tags.get("Score", "")).partition("-")
    a, b = ascii_int(white), ascii_int(black)
    return (a, b) if a is not None and b is not None else None


def _tags(game: dict[str, Any]) -> dict[str, Any]:
    try:
        tags = json.loads(game.get("tags") or "{}")
    except (TypeError, ValueError):
        return {}
    return tags if isinstance(tags, dict) else {}


def game_ending(game: dict[str, Any], cube: int) -> str:
    """How a game's row says it ended, in words (``0-2 (Black wins 2 points: a double dropped,
    the cube at 2)``): the same sentence ``replay`` prints."""
    winner = game.get("winner")
    points = game.get("points")
    ending = game.get("ending")
    if winner not in ("white", "black") or type(points) is not int or ending not in ENDINGS:
        return "unfinished"
    return ending_text(Outcome(winner, points, str(ending), cube))


def final_cube(turns: list[dict[str, Any]]) -> int:
    """The cube's value at a game's end, from its turns' ``cube`` cells (side, action value)."""
    plies: list[tuple[Side, str | None, int | None]] = []
    for ply in turns:
        action, _, value = (ply.get("cube") or "").partition(" ")
        side: Side = "black" if ply.get("side") == "black" else "white"
        plies.append((side, action or None, ascii_int(value)))
    after = cube_after_each(plies)
    return after[-1][0] if after else 1


async def query_rows(db: Any, sql: str, params: Any = None) -> list[dict[str, Any]]:
    result = await db.execute(sql, params or [])
    return [dict(row) for row in result.rows]


def _game_ids(match: dict[str, Any]) -> list[str]:
    try:
        ids = json.loads(match.get("games") or "[]")
    except (TypeError, ValueError):
        return []
    return [str(i) for i in ids] if isinstance(ids, list) else []


def _errors(match: dict[str, Any]) -> list[dict[str, Any]]:
    try:
        errors = json.loads(match.get("errors") or "[]")
    except (TypeError, ValueError):
        return [{"message": str(match.get("errors"))}]
    return [e for e in errors if isinstance(e, dict)] if isinstance(errors, list) else []


async def match_games(db: Any, match: dict[str, Any]) -> list[dict[str, Any]]:
    """The games of ``match`` in order, each with ``score`` (before it, White-Black), ``crawford``
    and ``ending`` (in words) set, and the match's errors found at it as ``match_errors``."""
    ids = _game_ids(match)
    if not ids:
        return []
    marks = ", ".join("?" * len(ids))
    found = {
        row["id"]: row
        for row in await query_rows(
            db,
            "select id, game_index, tags, result, winner, points, ending, status, error "
            f"from games where id in ({marks})",
            ids,
        )
    }
    cubes: dict[str, list[dict[str, Any]]] = {}
    for row in await query_rows(
        db,
        f"select game_id, side, cube from turns where game_id in ({marks}) and cube is not null "
        "order by game_id, ply",
        ids,
    ):
        cubes.setdefault(row["game_id"], []).append(row)
    errors = _errors(match)
    length: int = match["length"] if type(match.get("length")) is int else 0
    games = []
    previous: tuple[int, int] | None = None
    for number, game_id in enumerate(ids, 1):
        game = dict(found.get(game_id) or {"id": game_id, "missing": True})
        score = _score(_tags(game))
        game["number"] = number
        game["score"] = score
        game["crawford"] = is_crawford_game(bool(match.get("crawford")), length, score, previous)
        game["ending_text"] = game_ending(game, final_cube(cubes.get(game_id, [])))
        game["match_errors"] = [
            e for e in errors if e.get("game") is not None and e["game"] == game.get("game_index")
        ]
        previous = score
        games.append(game)
    return games


def _final(match: dict[str, Any]) -> str:
    """The match's end in words: ``Llabba wins 14-5`` or ``unfinished at 3-2``."""
    white, black = match.get("score_white"), match.get("score_black")
    score = f"{white}-{black}" if white is not None and black is not None else "no score"
    if match.get("winner") in ("white", "black"):
        who = match.get(match["winner"]) or side_name(match["winner"])
        return f"{who} ({side_name(match['winner'])}) wins the match, {score}"
    return f"unfinished, at {score}"


async def match_view(datasette: Any, request: Any) -> Response:
    """A match: its players and length, each game's score before it, the Crawford game, how
    each game ended (linked to its page), the final score and the match's errors at their game."""
    db, name = await checked_archive(datasette, request, ("games", "matches"))
    match_id = url_row_id(request.url_vars["match_id"], name, "match")
    match = await one_row(db, "select * from matches where id = ?", match_id, "match", name)
    await spell_players(db, [match])
    games = await match_games(db, match)
    for game in games:
        game["url"] = game_url(datasette, name, game["id"])
    placed = {e.get("game") for game in games for e in game["match_errors"]}
    context = {
        "metadata": footer_metadata(datasette, name),
        "database": name,
        "match": match,
        "games": games,
        "final": _final(match),
        "other_errors": [e for e in _errors(match) if e.get("game") not in placed],
        "white_url": optional_url(player_url, datasette, name, match.get("white_id")),
        "black_url": optional_url(player_url, datasette, name, match.get("black_id")),
        "row_url": f"{table_url(datasette, name, 'matches')}/{match_id}",
        "analysis": await match_analysis(db, [g["id"] for g in games if not g.get("missing")]),
    }
    return Response.html(
        await datasette.render_template("jacquet/match.html", context, request=request)
    )


async def game_in_match(datasette: Any, db: Any, name: str, game_id: str) -> dict[str, Any] | None:
    """The game page's match state: the match's URL, length, the score before this game and
    whether it is the Crawford game; None for a game of no match (or an archive without one)."""
    try:
        found = await query_rows(
            db,
            "select matches.* from matches, json_each(matches.games) "
            "where json_each.value = ? limit 1",
            [game_id],
        )
    except sqlite3.Error:  # an archive from before version 4 has no matches table
        return None
    if not found:
        return None
    match = found[0]
    here = next((g for g in await match_games(db, match) if g["id"] == game_id), None)
    return {
        "url": match_url(datasette, name, match["id"]),
        "length": match.get("length"),
        "score": here["score"] if here else None,
        "crawford": bool(here and here["crawford"]),
        "number": here["number"] if here else None,
        "games": match.get("game_count"),
    }
