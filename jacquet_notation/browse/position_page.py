"""The position page (``/DB/-/position/KEY``) and one board diagram as SVG
(``/-/jacquet/board/KEY.svg``): the board, the plays made from it, the games reaching it.

The plays from a position are summed once per archive generation (:func:`.shared.kept`), with a
longer time limit than a visitor's query, since the start position sums a row per game.
"""

from __future__ import annotations

import sqlite3
from typing import Any
from urllib.parse import quote

from datasette.database import QueryInterrupted
from datasette.utils import sqlite_timelimit
from datasette.utils.asgi import BadRequest, NotFound, Response
from markupsafe import Markup

from ..archive.plays import PLAYS_FROM, PLAYS_FROM_GAMES, REACHING, STARTING_FROM, dice_sql
from ..archive.stored_steps import steps_sql
from ..board_terms import Side, side_name
from ..numerals import INT_TEXT_LIMIT, ascii_int
from ..position import SIDES, Position
from ..position_ids import gnubg_id, xgid
from ..rules import RULESET_NAMES
from .drawing import BOARD_WIDTH, diagram, dice_text, rings_a_courier
from .names import game_label, spell_players
from .plies import ply_caption, sound_turn
from .shared import (
    PAGE_ROWS,
    checked_archive,
    footer_metadata,
    kept,
    page_links,
    page_number,
    query_rows,
)
from .tree_filter import PARAMETERS, TreeFilter, read_filter
from .urls import game_url, optional_url, player_url, position_url, static_url


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


async def position_view(datasette: Any, request: Any) -> Response:
    db, name = await checked_archive(datasette, request, ("games", "turns"))
    key = request.url_vars["key"]
    svg = diagram(key, BOARD_WIDTH)
    if svg is None:
        raise NotFound(f"{key} is not a position key")
    position = Position.from_key(key)
    narrowed = read_filter(request.args)
    stored = await query_rows(db, "select * from positions where key = ?", [key])
    # the first play that reached it, for a title a reader knows it by (found in plies, then
    # read as the view spells it)
    first = await query_rows(db, REACHING, [key, 1])
    reached = (
        [
            sound
            for row in await query_rows(
                db,
                "select game_id, ply, turn, side, dice, written, steps, error from turns "
                "where game_id = ? and ply = ?",
                [first[0]["game_id"], first[0]["ply"]],
            )
            if (sound := sound_turn(row, set())) is not None
        ]
        if first
        else []
    )
    try:
        plays: list[dict[str, Any]] | None = [
            dict(play)
            for play in await plays_from(db, key, datasette.setting("sql_time_limit_ms"), narrowed)
        ]
    except QueryInterrupted:
        plays = None  # too many games through here to sum up within the time limit
    for play in plays or []:
        play["url"] = position_url(datasette, name, play["key_after"]) + narrowed.query_string()
        play["dice_text"] = dice_text(play["dice"]) if isinstance(play["dice"], str) else ""
        play["net"] = (play["points_won"] or 0) - (play["points_lost"] or 0)
    page = page_number(request)
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
        "metadata": footer_metadata(datasette, name),
        "database": name,
        "key": key,
        "ids": {"gnubg_id": gnubg_id(position), "xgid": xgid(position)}
        if position.direction == "opposite"
        else None,
        "copy_script_url": static_url(datasette, "copy.js"),
        "position": position,
        "turn": side_name(position.turn),
        "heading": _position_heading(position, reached[0] if reached else None),
        "reached_url": game_url(datasette, name, reached[0]["game_id"], reached[0]["ply"])
        if reached
        else None,
        "stored": stored[0] if stored else None,
        "board_svg": Markup(svg),
        "plays": plays,
        "tree_filter": narrowed.params(),
        "tree_filtered": narrowed.active,
        "tree_parameters": PARAMETERS,
        "ruleset_names": RULESET_NAMES,
        "here_url": position_url(datasette, name, key),
        "time_limit_ms": datasette.setting("sql_time_limit_ms"),
        "games": games,
        "page": page,
        **page_links(position_url(datasette, name, key), page, more),
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
        return f"{text}, after {ply_caption(reached)}"
    return text


#: how many times the SQL time limit the sum of plays from a position may take when it is kept
KEPT_QUERY_FACTOR = 10
#: the plays from ``?1`` summed: read from ``plies`` rather than the view ``turns``, which
#: spells every play's steps and notes (a popular position's sum 1.6 times as fast), and their
#: roll and steps spelled once a group; two packings of one spelling meet again in the last sum.
#: Each play's game is read from ``game_list`` (version 17: its winner and points, and every
#: column a filter names), rows a tenth the size of ``games``
_PLAYS_SQL = f"""
WITH {{mine}}t AS ({{source}}),
grouped AS (
  SELECT t.dice, t.steps, t.key_after, count(*) AS games, sum(g.winner = t.side) AS wins,
    sum(g.winner IS NOT NULL AND g.winner != t.side) AS losses,
    sum(CASE WHEN g.winner = t.side THEN g.points ELSE 0 END) AS points_won,
    sum(CASE WHEN g.winner != t.side THEN g.points ELSE 0 END) AS points_lost
  FROM t JOIN game_numbers n ON n.number = t.game JOIN game_list g ON g.id = n.game_id
  WHERE 1{{filter}}
  GROUP BY t.dice, t.steps, t.key_after
),
spelled AS (
  SELECT {dice_sql("dice")} AS dice, {steps_sql("steps")} AS steps, key_after, games, wins,
    losses, points_won, points_lost
  FROM grouped
)
SELECT dice, min(steps) AS steps, key_after, sum(games) AS games, sum(wins) AS wins,
  sum(losses) AS losses, sum(points_won) AS points_won, sum(points_lost) AS points_lost
FROM spelled GROUP BY dice, key_after ORDER BY games DESC, dice, steps LIMIT 500"""
#: the numbers of the games a filter leaves, which :data:`.plays.PLAYS_FROM_GAMES` reads. ``?1``
#: (the position) is named before the filter's own ``?``: SQLite numbers a bare ``?`` one past
#: the greatest number before it in the text, so theirs stay ``?2`` on, as in the other plan
_MINE = (
    "mine AS (SELECT n.number FROM game_list g JOIN game_numbers n ON n.game_id = g.id "
    "WHERE ?1 IS NOT NULL{filter}), "
)
#: the most games of a filter that are read game by game; past it, the plays from the position
GAMES_FIRST_MOST = 10_000
#: looking at a game costs about as much as this many plays from the position, each joined to
#: its game (1.3 measured on the 214,780-game bench archive, docs/browse.md "The opening tree
#: narrowed"; rounded up, so that where the two are close the plays are read, as unfiltered)
GAME_COST_IN_PLAYS = 2


def plays_sql(conditions: str, games_first: bool) -> str:
    """The sum of the plays from ``?1`` in the games ``conditions`` leave (:class:`TreeFilter`'s
    SQL, its arguments from ``?2`` on): read from the position's plays, each joined to its game
    and kept if the game is one of the filter's, or (``games_first``) from the filter's games,
    each read whole for its plays from the position. The same rows either way."""
    if games_first:
        return _PLAYS_SQL.format(
            mine=_MINE.format(filter=conditions), source=PLAYS_FROM_GAMES, filter=""
        )
    return _PLAYS_SQL.format(mine="", source=PLAYS_FROM, filter=conditions)


def games_first(
    connection: sqlite3.Connection, key: str, conditions: str, arguments: list[Any]
) -> bool:
    """Whether the games ``conditions`` leave are fewer than the plays from ``key`` (counted
    as far as it takes to tell, through the indexes), so that reading them game by game is the
    cheaper way to the same sum."""
    if not conditions:
        return False
    (games,) = connection.execute(
        f"SELECT count(*) FROM (SELECT 1 FROM game_list g WHERE 1{conditions} LIMIT ?)",
        [*arguments, GAMES_FIRST_MOST],
    ).fetchone()
    if games >= GAMES_FIRST_MOST:
        return False
    enough = games * GAME_COST_IN_PLAYS + 1
    (plays,) = connection.execute(
        "SELECT (SELECT count(*) FROM (SELECT 1 FROM plies WHERE before = ?1 LIMIT ?2)) + "
        "(SELECT count(*) FROM (SELECT 1 FROM plies WHERE key_after = ?1 LIMIT ?2))",
        [key, enough],
    ).fetchone()
    return bool(plays >= enough)


async def plays_from(
    db: Any, key: str, time_limit_ms: int, narrowed: TreeFilter | None = None
) -> list[dict[str, Any]]:
    """The plays made from ``key``, grouped by the roll and the position reached (two spellings
    of one play reach one position), with the games, wins and points of the side that made them.

    The start position has a row per game of the archive to sum, so each answer is kept
    (:func:`.shared.kept`) and the next visit is immediate. Because it is kept, the sum may take
    ``KEPT_QUERY_FACTOR`` times the SQL time limit: under load the start position's sum can pass
    the limit, and an answer never kept would cost the full limit on every visit.
    """
    limit = time_limit_ms * KEPT_QUERY_FACTOR
    conditions, arguments = (narrowed or TreeFilter()).sql()

    def run(connection: sqlite3.Connection) -> list[dict[str, Any]]:
        statement = ""
        with sqlite_timelimit(connection, limit):
            try:
                first = games_first(connection, key, conditions, arguments)
                statement = plays_sql(conditions, first)
                cursor = connection.execute(statement, [key, *arguments])
                names = [column[0] for column in cursor.description]
                return [dict(zip(names, row, strict=True)) for row in cursor.fetchall()]
            except sqlite3.OperationalError as error:
                if "interrupted" in str(error):
                    raise QueryInterrupted(error, statement, [key]) from None
                raise

    async def answer() -> list[dict[str, Any]]:
        plays: list[dict[str, Any]] = await db.execute_fn(run)
        return plays

    return await kept(db, ("plays from", key, conditions, *arguments), answer)


async def _games_reaching(db: Any, key: str, offset: int, limit: int) -> list[dict[str, Any]]:
    """Games whose main line reaches ``key``, with the ply where it first does (0: the start).

    In the archive's order (:data:`.plays.REACHING`: the plays' keys sorted, only a page of
    them joined), the games starting from it after (:data:`.plays.STARTING_FROM`, read in the
    order of an index, so that the start position, reached by every game, costs a page of rows
    and not the whole archive).
    """
    wanted = offset + limit
    found = await query_rows(db, REACHING, [key, wanted * 2])
    if len(found) < wanted * 2:
        # nothing before ply 1 reaches a position: only a start position is reached at ply 0
        found += await query_rows(db, STARTING_FROM, [key, wanted])
    first: dict[str, int] = {}
    for row in found:
        if row["game_id"] not in first or row["ply"] < first[row["game_id"]]:
            first[row["game_id"]] = row["ply"]
    chosen = list(first.items())[offset : offset + limit]
    if not chosen:
        return []
    rows = await query_rows(
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
