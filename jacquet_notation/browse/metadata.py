"""Datasette metadata for an archive: titles, descriptions, column notes, facets, canned queries.

Datasette 0.65 reads all of this from its metadata (1.0 moved part of it to a config file). The
database's name comes from the file's name (:func:`database_name`), so the metadata is built for
a name rather than shipped as a fixed file; ``jacquet serve`` passes it to Datasette, and
``jacquet serve --metadata-json`` (or :func:`archive_metadata` from Python) prints it for anyone
running ``datasette`` by hand.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from .. import __version__
from ..position import Position
from .column_notes import COLUMNS as COLUMNS
from .stored_metadata import STORED_TABLES

SOURCE_URL = "https://github.com/jacquet-notation/jacquet-notation"

_TABLES: dict[str, dict[str, Any]] = {
    "games": {
        "title": "Games",
        "description": "Every game imported, valid or not, one row each. Follow the plies "
        "column to replay a game; players' names lead to their pages.",
        # the id columns are indexed (and labelled through players/events): quick on a
        # large archive, where a facet on a text column would read every row
        "facets": ["rules", "result", "status", "year", "event_id", "white_id", "black_id"],
        # the primary key too: Datasette offers its header as a sort link whatever the list says
        "sortable_columns": [
            "id",
            "date",
            "year",
            "round",
            "white",
            "black",
            "rules",
            "result",
            "status",
            "turns",
            "plies",
            "points",
        ],
        "sort_desc": "date",
        # a row of 37 cells costs Datasette about a millisecond to draw: 20 rows a page
        "size": 20,
    },
    "turns": {
        "title": "Turns",
        "description": "One row per play of every game's main line, with the positions before "
        "and after it. Follow a diagram to its position page.",
        # no default facets here or on positions: a facet counts every row, millions of them
        # in a large archive, and would time out on each visit (a column's menu still adds one)
        "sortable_columns": ["game_id", "ply", "turn", "dice", "pips"],
        "size": 25,
    },
    "positions": {
        "title": "Positions",
        "description": "Every position reached in the archive, with the number of games reaching "
        "it. Follow a diagram to the plays made from it and the games through it.",
        # sortable by games on request; not by default, since that sort reads every position
        "sortable_columns": [
            "key",
            "games",
            "white_pips",
            "black_pips",
            "white_off",
            "black_off",
        ],
        "size": 25,
    },
    "players": {
        "title": "Players",
        "description": "Everyone named as White or Black, names normalised for matching.",
        "label_column": "name",
        "sortable_columns": ["id", "name"],
        "sort": "name",
    },
    "events": {
        "title": "Events",
        "description": "Tournaments, matches and book chapters games were played in.",
        "label_column": "name",
        "sort": "name",
    },
    "sources": {
        "title": "Sources",
        "description": "The books, manuscripts and collections records come from.",
        "label_column": "name",
        "sort": "name",
    },
    "imports": {
        "title": "Imports",
        "description": "Every file imported, with what it held, so that nothing is dropped "
        "silently.",
        "sort_desc": "id",
    },
    "player_aliases": {
        "title": "Player spellings",
        "description": "Spellings merged into another player (jacquet players --merge): "
        "their games count as his.",
    },
    "occurrences": {
        "title": "Occurrences",
        "description": "Every game of every imported file, even one already in the archive.",
    },
    "decisions": {
        "title": "Analysed decisions",
        "description": "What an analyser (eXtreme Gammon, gnubg) wrote of each decision of a "
        "game: the options it weighed, the one chosen, the equity lost, the luck.",
    },
    "game_groups": {
        "title": "One game, many books",
        "description": "Printings of one game: the same plays under other tags, or a fragment "
        "or shorter record contained in a longer one; a row a game in a group.",
    },
    "duplicates": {
        "title": "Near-duplicates",
        "description": "Two transcriptions of the same game (same players and plays) that "
        "differ in tags, comments or annotations: linked, never merged.",
    },
    "player_records": {
        "title": "Player records",
        "description": "Games, wins and points of every player.",
    },
    "head_to_head": {
        "title": "Head to head",
        "description": "Every pair of players who met, from each one's side.",
    },
    "opening_rolls": {
        "title": "Opening rolls",
        "description": "The first roll of each game, the play made with it and how it ended.",
    },
    "game_list": {
        "title": "Games (the list's narrow copy)",
        "description": "What the games list shows of each game, kept equal to the games table "
        "by triggers, so that the list sorts and counts a hundred thousand games quickly.",
        # the games list (/DB/-/games) is its face; the table stays reachable for SQL
        "hidden": True,
        "sort_desc": "date",
    },
    **STORED_TABLES,
    "game_rules": {
        "title": "Games by consistent ruleset",
        "description": "A row for each named ruleset a game's every play fits, kept from the "
        "games table by triggers, so that the games list's 'consistent with' filter reads an "
        "index.",
        # the games list's filter is its face; the table stays reachable for SQL
        "hidden": True,
    },
    "invalid_games": {
        "title": "Invalid games",
        "description": "Games with an illegal play, a wrong result or a syntax error.",
    },
}

#: the name an archive is served under when its file's name leaves nothing of a slug
DEFAULT_DATABASE_NAME = "archive"


def database_name(path: str | os.PathLike[str]) -> str:
    """The name (and URL route) an archive is served under: its file's stem as a slug.

    Letters, digits, ``_`` and ``-`` are kept, every other run becomes one ``-``, and it starts
    and ends with a letter or digit (``games.v2.db`` is ``games-v2``, ``x"><img src=x>.db`` is
    ``x-img-src-x``). Datasette 0.65 writes the name unescaped into foreign-key links, and a dot or
    a space in it made every plugin link miss: a name from the file could run a script or break
    the pages. A stem with nothing to keep is :data:`DEFAULT_DATABASE_NAME`.
    """
    slug = re.sub(r"[^A-Za-z0-9_-]+", "-", Path(path).stem).strip("-_")
    return slug or DEFAULT_DATABASE_NAME


#: the keys of the two start positions (either side may move first)
START_KEYS = (Position.start().key(), Position.start().with_turn("black").key())


def canned_queries() -> dict[str, dict[str, Any]]:
    """The archive's canned queries, each a plain read-only SELECT."""
    white_start, black_start = START_KEYS
    return {
        "games_between": {
            "title": "Games between two players",
            "description": "Every game between two players, either colour; names match "
            "case-insensitively, and % is a wildcard.",
            "sql": "select id as game_id, date, white, black, result, computed_result, plies, "
            "status from games where (white like :player_a and black like :player_b) "
            "or (white like :player_b and black like :player_a) order by date, id",
        },
        "games_reaching": {
            "title": "Games reaching a position",
            "description": "Every game that reaches a position key, with the ply where it first "
            "does (0 = the start).",
            "sql": "select r.game_id, min(r.ply) as ply, g.date, g.white, g.black, g.result, "
            "g.plies from (select game_id, ply from turns where key_after = :key "
            "union all select game_id, ply - 1 from turns where key_before = :key) r "
            "join games g on g.id = r.game_id group by r.game_id order by r.game_id limit 1000",
        },
        "longest_games": {
            "title": "Longest games",
            "description": "The hundred games with the most plays.",
            "sql": "select id as game_id, date, white, black, result, turns, plies, rules "
            "from games order by plies desc, id limit 100",
        },
        "invalid_games_with_errors": {
            "title": "Invalid games with their errors",
            "description": "Games that are not valid, with the first error and the full list.",
            "sql": "select id as game_id, file, game_index, white, black, date, status, error, "
            "errors from games where status != 'valid' order by file, game_index",
        },
        "opening_roll_statistics": {
            "title": "Opening-roll statistics",
            "description": "For each first roll and the play made with it: games, wins for "
            "the side that rolled it, and points.",
            "sql": "select t.dice, t.steps as first_play, count(*) as games, "
            "coalesce(sum(g.winner = t.side), 0) as mover_wins, "
            "coalesce(sum(g.winner is not null and g.winner != t.side), 0) as mover_losses, "
            "coalesce(sum(case when g.winner = t.side then g.points end), 0) as mover_points, "
            "coalesce(sum(case when g.winner != t.side then g.points end), 0) "
            "as opponent_points "
            "from turns t join games g on g.id = t.game_id "
            f"where t.ply = 1 and t.key_before in ('{white_start}', '{black_start}') "
            "group by t.dice, t.steps order by games desc, t.dice",
        },
    }


#: the archive's title when none is given; the home page titles itself by what the archive holds
#: in its place (home.py)
DEFAULT_TITLE = "Jacquet archive"


def archive_metadata(database: str, *, title: str | None = None) -> dict[str, Any]:
    """Datasette metadata for an archive served under the name ``database``."""
    tables: dict[str, dict[str, Any]] = {}
    for table, settings in _TABLES.items():
        tables[table] = {**settings, "columns": dict(COLUMNS.get(table, {}))}
    return {
        "title": title or DEFAULT_TITLE,
        "description": "Games of Jacquet and its historical variants, replayed by the rules: "
        "browse games on a board, every game through a position, each player's record.",
        "license": "Record texts: as their sources; software: MIT",
        "source": f"jacquet-notation {__version__}",
        "source_url": SOURCE_URL,
        "about": "How to browse",
        "about_url": f"{SOURCE_URL}/blob/main/docs/browse.md",
        "databases": {
            database: {
                "title": title or DEFAULT_TITLE,
                "description": "Every imported game, its plays, the positions reached and the "
                "players. For browsing, start from the home page (/) or the games list "
                f"(/{database}/-/games); for SQL, from a table or a canned query below.",
                "tables": tables,
                "queries": canned_queries(),
            }
        },
    }
