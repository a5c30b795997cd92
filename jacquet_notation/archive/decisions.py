"""An analysed game's decisions as rows, and the games' columns saying who analysed them.

What an analyser wrote (``analysis.py``: gnubg's SGF, an ``.xg`` file) is stored as it wrote it:
a ``decisions`` row per analysed decision, its options weighed in one JSON cell (a row per
option would multiply the table by the options' count, and no query reads one option alone).
Nothing here evaluates anything. The stored canonical text holds no analysis, so a rebuild,
which reads that text again, keeps these rows and columns (``rebuilding.py``): a rebuild keeps a
game's id, and where it changes one, the rows follow the game.
"""

from __future__ import annotations

import json
from typing import Any

import sqlite_utils

from ..record import GameRecord

#: a decision's row, in the order of :data:`DECISION_COLUMNS`
DecisionRow = tuple[Any, ...]

#: the columns of ``decisions`` (schema version 9)
DECISION_COLUMNS: dict[str, type] = {
    "game_id": str,
    "ply": int,  # the ply's number in the game (``turns.ply``), from 1
    "number": int,  # the decision's place in its ply: a cube decision comes before the play
    "side": str,  # who decided: the ply's side (the taker, for an answer to a double)
    "kind": str,  # ``move`` or ``cube``
    "options": str,  # JSON: [[text, equity], ...], best first, as the analyser ranked them
    "chosen": int,  # index into options; NULL where the play made is not among them
    "loss": float,  # equity given up against the best option, never negative
    "luck": float,  # the luck of the roll the decision followed, where the analyser gives it
    "level": str,  # how deep the analyser looked (``4-ply``, ``XG Roller+``, ``book``)
}

#: the games' columns (version 9) a rebuild leaves as the import wrote them: the text stored
#: says nothing of the file's format or of an analysis
KEPT_COLUMNS: tuple[str, ...] = ("format", "analyser", "analyser_settings", "analyser_units")

#: a chunk's syntax (``GameChunk.syntax``) as ``games.format`` names it
FORMATS = {"jqt": "jacquet", "mat": "mat", "sgf": "sgf", "xg": "xg", "xml": "xml"}


def format_of(syntax: str) -> str:
    """The format a game came from, by its chunk's syntax (an unknown one named as it is)."""
    return FORMATS.get(syntax, syntax)


def analyser_columns(record: GameRecord) -> dict[str, Any]:
    """The game row's analyser columns: the program, its settings and units, or NULLs."""
    analyser = record.analyser
    if analyser is None:
        return {"analyser": None, "analyser_settings": None, "analyser_units": None}
    return {
        "analyser": analyser.name,
        "analyser_settings": analyser.settings or None,
        "analyser_units": analyser.units,
    }


def decision_rows(record: GameRecord, game_id: str) -> list[DecisionRow]:
    """A row per decision the record's plies carry (none for a game nobody analysed)."""
    rows: list[DecisionRow] = []
    if record.analyser is None and not any(play.analysis for play in record.plays):
        return rows
    for ply, play in enumerate(record.plays, 1):
        if play.analysis is None:
            continue
        for number, decision in enumerate(play.analysis.decisions):
            options = [[option.text, option.equity] for option in decision.options]
            rows.append(
                (
                    game_id,
                    ply,
                    number,
                    play.side,
                    decision.kind,
                    json.dumps(options, ensure_ascii=False),
                    decision.chosen,
                    decision.loss,
                    decision.luck,
                    decision.level or None,
                )
            )
    return rows


INSERT = (
    f"INSERT OR IGNORE INTO decisions ({', '.join(DECISION_COLUMNS)}) "
    f"VALUES ({', '.join('?' for _ in DECISION_COLUMNS)})"
)


def create_decisions(db: sqlite_utils.Database) -> None:
    """The ``decisions`` table, keyed by game and ply, with the games' analysis columns (a new
    archive's, and version 9's migration: existing games get NULLs, their format unknown)."""
    db.table("decisions").create(
        DECISION_COLUMNS,
        pk=("game_id", "ply", "number"),
        foreign_keys=[("game_id", "games", "id")],
        if_not_exists=True,
    )
    have = db.table("games").columns_dict
    for column in KEPT_COLUMNS:
        if column not in have:
            db.execute(f"ALTER TABLE games ADD COLUMN {column} TEXT")


def follow_id(conn: Any, old_id: str, new_id: str) -> None:
    """A rebuild gave a game another id: its decisions go with it (where the game it now reads
    as already has decisions of its own, those are kept and the old ones dropped)."""
    conn.execute("UPDATE OR IGNORE decisions SET game_id = ? WHERE game_id = ?", (new_id, old_id))
    conn.execute("DELETE FROM decisions WHERE game_id = ?", (old_id,))
