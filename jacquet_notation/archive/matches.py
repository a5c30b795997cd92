"""The ``matches`` table, derived from the games of each file: a match is a run of games of
one file under one match, checked from game to game by ``match.check_next`` (apart from the
store, which writes games, because a match is read back from games already written)."""

from __future__ import annotations

import json
from typing import Any

from ..match import check_sequence, summary_of
from .schema import MATCH_COLUMNS
from .store import Connection


def refresh_matches(conn: Connection, import_id: int | None = None) -> None:
    """Derive the ``matches`` rows of one import's games (every import's when None) again.

    A match is a run of consecutive games of one file with a ``Match`` tag and the same match
    id (or, without one, the same players and length); its final score is the last game's score
    plus its points; its errors are those of ``match.check_next`` between its games (the cube's
    and a game's own points are on the games' rows). Called as an import's file ends, after a
    rebuild and by the migration to version 4.
    """
    where = "" if import_id is None else "WHERE o.import_id = ?"
    args: tuple[Any, ...] = () if import_id is None else (import_id,)
    conn.execute(f"DELETE FROM matches {'' if import_id is None else 'WHERE import_id = ?'}", args)
    rows = list(
        conn.execute(
            "SELECT o.import_id, i.path, o.game_index, g.id, g.tags, g.result, g.status, "
            "g.white_id, g.black_id, g.white, g.black, g.site "
            f"FROM occurrences o JOIN games g ON g.id = o.game_id JOIN imports i "
            f"ON i.id = o.import_id {where} ORDER BY o.import_id, o.game_index",
            args,
        )
    )
    current: list[tuple[Any, ...]] = []
    key: tuple[Any, ...] | None = None
    for row in rows:
        tags = json.loads(row[4] or "{}")
        if summary_of(None, 0, tags, None) is None:
            continue
        this = (row[0], tags.get("Match_ID") or (row[9], row[10], tags["Match"]))
        if key is not None and this != key:
            _write_match(conn, current)
            current = []
        key = this
        current.append((*row, tags))
    if current:
        _write_match(conn, current)


def _write_match(conn: Connection, games: list[tuple[Any, ...]]) -> None:
    """One ``matches`` row from its games' rows (in order), checked by ``match.check_next``."""
    summaries = []
    for _, path, index, _, _, result, _, _, _, _, _, _, tags in games:
        summary = summary_of(path, index, tags, result)
        assert summary is not None  # refresh_matches keeps only games with a Match tag
        summaries.append(summary)
    errors = [
        {"game": game.index, "kind": error.kind, "message": error.message}
        for game, found in check_sequence(summaries)
        for error in found
    ]
    last = summaries[-1]
    final = last.score
    if final is not None and last.points is not None:
        final = (final[0] + last.points[0], final[1] + last.points[1])
    length = last.length
    winner = None
    if final is not None and length:
        winner = "white" if final[0] >= length else "black" if final[1] >= length else None
    first = games[0]
    statuses = {game[6] for game in games}
    conn.execute(
        f"INSERT INTO matches ({', '.join(MATCH_COLUMNS)}) "
        f"VALUES ({', '.join('?' for _ in MATCH_COLUMNS)})",
        (
            None,
            first[0],
            first[1],
            first[12].get("Match_ID"),
            first[11],
            first[7],
            first[8],
            first[9],
            first[10],
            length,
            int(summaries[0].crawford),
            json.dumps([game[3] for game in games]),
            len(games),
            final[0] if final else None,
            final[1] if final else None,
            winner,
            "valid" if statuses == {"valid"} and not errors else "invalid",
            json.dumps(errors, ensure_ascii=False) if errors else None,
        ),
    )
