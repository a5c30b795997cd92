"""The player page (``/DB/-/player/ID``): record and points by side, head-to-head, matches and
games, each list paged on its own with its total.

It reads the archive through Datasette's own database and renders
``templates/jacquet/player.html``.
"""

from __future__ import annotations

import sqlite3
from typing import Any

from datasette.utils.asgi import Response

from ..board_terms import Side, side_name
from .analysis import player_analysis
from .names import game_label, spell_players
from .pictures import player_years_chart
from .shared import (
    PAGE_ROWS,
    checked_archive,
    footer_metadata,
    one_row,
    page_links,
    page_number,
    query_rows,
    url_row_id,
)
from .spellings import player_spellings
from .urls import event_url, game_url, games_list_url, match_url, optional_url, player_url


async def player_view(datasette: Any, request: Any) -> Response:
    """A player: record by side, opponents, matches and games, each list paged on its own."""
    db, name = await checked_archive(datasette, request, ("games", "players"))
    player_id = url_row_id(request.url_vars["player_id"], name, "player")
    player = await one_row(db, "select * from players where id = ?", player_id, "player", name)
    # each list of the page goes by its own page number: none of them is cut silently
    opponents_page, matches_page = (
        page_number(request, "opponents"),
        page_number(request, "matches"),
    )
    sides, record = await _side_record(db, player_id)
    opponents, more_opponents = await _opponents(datasette, db, name, player_id, opponents_page)
    page = page_number(request)
    games, more = await _player_games(datasette, db, name, player_id, page)
    matches = await _player_matches(datasette, db, name, player_id, matches_page)
    more_matches = len(matches) > PAGE_ROWS
    matches = matches[:PAGE_ROWS]
    match_record = await _match_record(db, player_id)
    here = player_url(datasette, name, player_id)
    context = {
        "metadata": footer_metadata(datasette, name),
        "database": name,
        "player": player,
        "record": record,
        "sides": sides,
        "opponents": opponents,
        "matches": matches,
        "match_record": match_record,
        "match_links": page_links(
            here, matches_page, more_matches, param="matches", total=match_record["matches"]
        ),
        "opponent_links": page_links(
            here,
            opponents_page,
            more_opponents,
            param="opponents",
            total=opponents[0]["total"] if opponents else None,
        ),
        "spellings": await player_spellings(datasette, db, name, player_id),
        "games": games,
        "page": page,
        **page_links(here, page, more, total=record["games"]),
        "list_url": games_list_url(datasette, name, {"player": player_id}),
        "years_chart": await player_years_chart(db, player_id),
        "analysis": await player_analysis(db, player_id),
    }
    return Response.html(
        await datasette.render_template("jacquet/player.html", context, request=request)
    )


async def _side_record(db: Any, player_id: int) -> tuple[list[dict[str, Any]], dict[str, int]]:
    """The player's games, wins, losses and points as White and as Black, and their sum.

    Read here rather than from the ``player_records`` view: that view joins players to every
    game's two sides, and SQLite (3.40) filtered by one player scans all games twice, where
    these two halves each read a side's index (docs/architecture.md).
    """
    # Two indexed halves (as White, as Black) rather than one OR over the whole table.
    sides = await query_rows(
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
    return sides, record


async def _opponents(
    datasette: Any, db: Any, name: str, player_id: int, page: int
) -> tuple[list[dict[str, Any]], bool]:
    """A page of the player's opponents with their head-to-head totals, and whether more
    follow; the ``head_to_head`` view's sums, read through each side's index as
    :func:`_side_record` says."""
    # each side's sums by opponent read idx_games_{side}_sums alone (version 16), in the
    # opponent's order, then added; a name is the players table's (spell_players says it), or
    # for games whose opponent has none ("?", no tag) the name as written, read from those alone
    opponents = await query_rows(
        db,
        "select opponent_id, coalesce(p.name, (select max(name) from ("
        "  select black as name from games where white_id = :id and black_id is null union all"
        "  select white from games where black_id = :id and white_id is null))) as opponent,"
        " games, wins, losses, points_won, points_lost, count(*) over () as total from ("
        " select opponent_id, sum(games) as games, sum(wins) as wins, sum(losses) as losses,"
        " sum(points_won) as points_won, sum(points_lost) as points_lost from ("
        "  select black_id as opponent_id, count(*) as games, sum(winner = 'white') as wins,"
        "  sum(winner = 'black') as losses,"
        "  sum(case when winner = 'white' then points else 0 end) as points_won,"
        "  sum(case when winner = 'black' then points else 0 end) as points_lost"
        "  from games where white_id = :id group by black_id"
        "  union all select white_id, count(*), sum(winner = 'black'), sum(winner = 'white'),"
        "  sum(case when winner = 'black' then points else 0 end),"
        "  sum(case when winner = 'white' then points else 0 end)"
        "  from games where black_id = :id group by white_id"
        " ) group by opponent_id"
        ") left join players p on p.id = opponent_id "
        "order by games desc, opponent limit :limit offset :offset",
        {"id": player_id, "limit": PAGE_ROWS + 1, "offset": page * PAGE_ROWS},
    )
    more_opponents = len(opponents) > PAGE_ROWS
    opponents = opponents[:PAGE_ROWS]
    await spell_players(db, opponents, [("opponent", "opponent_id")])
    for opponent in opponents:
        opponent["url"] = optional_url(player_url, datasette, name, opponent["opponent_id"])
    return opponents, more_opponents


async def _player_games(
    datasette: Any, db: Any, name: str, player_id: int, page: int
) -> tuple[list[dict[str, Any]], bool]:
    """A page of the player's games, newest first, each seen from the player's side, and
    whether more follow."""
    # each side's first games in the list's order, walked along idx_games_{side}_newest
    # (version 16) and cut at the page's end: the page is among them
    columns = (
        "id, date, white, black, white_id, black_id, result, winner, points, plies, rules, "
        "status, event_id"
    )
    games = await query_rows(
        db,
        f"select * from (select * from (select {columns} from games where white_id = :id "
        "order by date desc, id limit :end) union "
        f"select * from (select {columns} from games where black_id = :id "
        "order by date desc, id limit :end)) "
        "order by date desc, id limit :limit offset :offset",
        {
            "id": player_id,
            "limit": PAGE_ROWS + 1,
            "offset": page * PAGE_ROWS,
            "end": (page + 1) * PAGE_ROWS + 1,
        },
    )
    more = len(games) > PAGE_ROWS
    games = games[:PAGE_ROWS]
    await spell_players(db, games)
    event_ids = sorted({game["event_id"] for game in games if game["event_id"] is not None})
    event_names = (
        {
            row["id"]: row["name"]
            for row in await query_rows(
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
    return games, more


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
        found = await query_rows(
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
        matches = await query_rows(
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
