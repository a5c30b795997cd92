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
from .stored_metadata import STORED_COLUMNS, STORED_TABLES

SOURCE_URL = "https://github.com/jacquet-notation/jacquet-notation"

#: every column of every table and view of the archive, described (docs/archive.md has more)
COLUMNS: dict[str, dict[str, str]] = {
    "games": {
        "id": "The game's identity: the first 16 hex digits of the SHA-256 of its canonical text "
        "(importing the same game twice adds nothing)",
        "event_id": "The event (tournament, match, book chapter) it was played in",
        "site": "Where it was played, as written",
        "event": "The event as written",
        "date": "ISO date; unknown parts kept as ?? (1818-??-??); empty when wholly unknown",
        "date_written": "The Date tag as written",
        "year": "The year alone, for faceting; empty when unknown",
        "round": "Round, as written",
        "white_id": "The White player",
        "black_id": "The Black player",
        "white": "White's name as written",
        "black": "Black's name as written",
        "rules": "The ruleset the game was replayed under",
        "options": "Every rules option, as JSON",
        "source_id": "The book, manuscript or collection the record comes from",
        "source": "The source as written",
        "tags": "Every tag of the record, as JSON, in the record's order",
        "transcriber": "Who transcribed the record",
        "annotator": "Who annotated it",
        "result": "The result as written (2-0, 0-1, * for unfinished)",
        "computed_result": "The result by the rules, from the final position (empty if unfinished)",
        "status": "valid, invalid (an illegal play or a wrong result) or unreadable (syntax)",
        "error": "The first error, one line",
        "errors": "Every error, as JSON: kind, line, column, message, suggestions",
        "turns": "Number of turns (a White and a Black play)",
        "plies": "Number of plays in the main line",
        "winner": "white, black, or empty while unfinished",
        "points": "Points the winner scored",
        "final_key": "The position after the last legal play (a diagram)",
        "comments": "Every comment of the game, one per line",
        "fingerprint": "Hash of the players and the plays, shared by near-duplicate transcriptions",
        "canonical": "The record in canonical notation",
        "original": "The record exactly as it was read (a match game: the header, then its lines)",
        "gap": "Lines of the file a match game's original leaves out after the header",
        "file": "The file it was imported from",
        "game_index": "Its place in that file (1 = first)",
        "line": "The line of that file where it starts",
        "import_id": "The import that brought it in",
        "start_key": "The position a [Position] tag set the game to start from; empty: the start",
        "ending": "How it ended: borne-off, drop, resignation or unfinished",
    },
    "turns": {
        "game_id": "The game",
        "ply": "1-based index of the play in the main line",
        "turn": "Turn number as the score sheet counts it",
        "side": "white or black",
        "dice": "The roll, high die first (6-5)",
        "written": "The play as written in the record",
        "steps": "The play resolved into single steps (24/18 18/13); empty if illegal",
        "pips": "Pips moved",
        "key_before": "The position the play was made from (a diagram)",
        "key_after": "The position it reached (a diagram); empty if the play was illegal",
        "annotation": "An annotation such as ! or ?",
        "nags": "Numeric annotation glyphs",
        "comment": "The annotator's comment",
        "error": "Why the play is illegal, if it is",
        "opponent_steps": (
            "Every die is used (Versailles): the dice the mover could not use, played by the "
            "opponent in its own numbering (24/23); empty when none"
        ),
        "cube": "A cube action (backgammon): double 2, take, drop, beaver 4; empty for a roll",
    },
    "matches": {
        "id": "Match number",
        "import_id": "The import of the file that holds it",
        "file": "That file",
        "match_id": "The match's id as its file gives it (a server's)",
        "site": "Where it was played",
        "white_id": "Player 1 (White)",
        "black_id": "Player 2 (Black)",
        "white": "Player 1's name",
        "black": "Player 2's name",
        "length": "Points to win the match",
        "crawford": "1 when the Crawford rule is on",
        "games": "Its games' ids, in order",
        "game_count": "How many games the file gives",
        "score_white": "Player 1's score after the last game",
        "score_black": "Player 2's score after the last game",
        "winner": "The side that reached the length; empty if unfinished",
        "status": "valid, or invalid when a game is or the games disagree with one another",
        "errors": "The match's errors across games (score, Crawford, after the end)",
    },
    "player_matches": {
        "player_id": "The player",
        "name": "The player's name",
        "matches": "Matches played",
        "won": "Matches won",
        "lost": "Matches lost",
        "unfinished": "Matches unfinished in their files",
    },
    "positions": {
        "key": "The position's key, drawn as a diagram",
        "turn": "The side to move",
        "white_pips": "Pips White still has to travel",
        "black_pips": "Pips Black still has to travel",
        "white_off": "Men White has borne off",
        "black_off": "Men Black has borne off",
        "games": "How many distinct games reach this position",
    },
    **STORED_COLUMNS,
    "players": {
        "id": "Player number",
        "name": "The name as first written",
        "normalised": "The name normalised for matching (case, spacing)",
    },
    "events": {
        "id": "Event number",
        "name": "The event's name as first written",
        "normalised": "The name normalised for matching",
    },
    "sources": {
        "id": "Source number",
        "name": "The source as first written",
        "normalised": "The name normalised for matching",
    },
    "imports": {
        "id": "Import number",
        "path": "The file imported",
        "sha256": "SHA-256 of the file's bytes (an unchanged file is skipped)",
        "started": "When the import started (UTC)",
        "finished": "When it finished; empty if it was interrupted",
        "games": "Games read",
        "valid": "Valid games",
        "invalid": "Games with an illegal play or a wrong result",
        "unreadable": "Games that could not be read",
        "status": "How the import ended: complete, or unreadable",
        "error": "Why the file could not be read, if it could not",
        "new_games": "Games this import added to the archive",
        "reader": "The reader that read the file (another reader's games are read again)",
    },
    "occurrences": {
        "import_id": "The import",
        "game_index": "The game's place in the imported file",
        "game_id": "The game (the same game may occur in several files)",
        "line": "The line of the file where it starts",
    },
    "duplicates": {
        "game_id": "The later of two near-duplicate transcriptions",
        "other_id": "The earlier one",
        "reason": "What differs between them",
    },
    "player_records": {
        "player_id": "The player",
        "name": "The player's name",
        "games": "Games played",
        "wins": "Games won",
        "losses": "Games lost",
        "points_won": "Points won",
        "points_lost": "Points lost",
    },
    "head_to_head": {
        "player_id": "The player",
        "opponent_id": "The opponent",
        "player": "The player's name",
        "opponent": "The opponent's name",
        "games": "Games between them",
        "wins": "Games the player won",
        "points": "Points the player won",
    },
    "opening_rolls": {
        "dice": "The first roll of the game",
        "first_play": "The play made with it",
        "games": "Games opening so",
        "white_wins": "Of those, games White won",
        "black_wins": "Of those, games Black won",
        "unfinished": "Of those, games left unfinished",
    },
    "game_list": {
        "id": "The game",
        "date": "ISO date; unknown parts kept as ??",
        "year": "The year alone; empty when unknown",
        "event_id": "The event",
        "event": "The event as written",
        "source_id": "The source",
        "white_id": "The White player",
        "white": "White's name as written",
        "black_id": "The Black player",
        "black": "Black's name as written",
        "result": "The result as written",
        "rules": "The ruleset the game was replayed under",
        "plies": "Number of plays in the main line",
        "status": "valid, invalid or unreadable",
        "final_key": "The position after the last legal play (a diagram)",
        "import_id": "The import that brought it in",
    },
    "invalid_games": {
        "id": "The game",
        "white": "White's name",
        "black": "Black's name",
        "date": "The date",
        "file": "The file it came from",
        "error": "The first error",
        "status": "invalid or unreadable",
    },
}

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
    "occurrences": {
        "title": "Occurrences",
        "description": "Every game of every imported file, even one already in the archive.",
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
