"""The metadata of version 11's stored tables (docs/archive.md, "Version 11"): what the views
``turns`` and ``positions`` read. Hidden from the database page, where the views are their face,
and described for a visitor writing SQL against them."""

from __future__ import annotations

from typing import Any

#: each stored table's column notes
STORED_COLUMNS: dict[str, dict[str, str]] = {
    "game_numbers": {
        "number": "The game's number, which its plies keep instead of its id",
        "game_id": "The game",
    },
    "plies": {
        "id": "The play's key: its game's number x 4096 + its ply (version 13)",
        "game": "The game's number (game_numbers), read from id",
        "ply": "Index in the main line, from 1, read from id",
        "turn": "Turn number as written",
        "side": "0: White, 1: Black",
        "dice": "The roll as a number (65: 6-5)",
        "written": "The play as written; empty: dice then steps (65: ...), none: 6-5: steps",
        "steps": "The play resolved one die at a time, packed: 11 bits a step (turns spells it)",
        "pips": "Pips the mover moved",
        "before": "The position before, when it is not the previous play's after",
        "key_after": "The position after",
        "counts": "The position after's turn, pips and men off in one number (the view reads it)",
    },
    "ply_notes": {
        "game": "The game's number (game_numbers)",
        "ply": "Index in the main line, from 1",
        "annotation": "!, ?, !? ...",
        "nags": "Numeric annotation glyphs ($1 ...)",
        "comment": "Comments before and after the play",
        "error": "Why the play is illegal",
        "opponent_steps": "The opponent's share of the dice, in its numbering",
        "cube": "A cube action",
    },
    "shared_positions": {
        "key": "The position's key",
        "turn": "The side to move",
        "white_pips": "Pips White still has to travel",
        "black_pips": "Pips Black still has to travel",
        "white_off": "Men White has borne off",
        "black_off": "Men Black has borne off",
        "games": "How many distinct games reach this position (1: no play reaches it)",
    },
}

#: each stored table's title and description, hidden from the database page
STORED_TABLES: dict[str, dict[str, Any]] = {
    table: {"title": title, "description": description, "hidden": True}
    for table, title, description in (
        ("plies", "Plies (stored)", "The plays as stored; the turns view reads them."),
        ("ply_notes", "Ply notes (stored)", "What few plays carry besides, for turns."),
        ("game_numbers", "Game numbers", "The number each game's plies keep."),
        (
            "shared_positions",
            "Shared positions (stored)",
            "The positions several games reach, or no play; the positions view reads them.",
        ),
    )
}
