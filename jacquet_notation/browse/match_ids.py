"""The game page's exchange IDs at each ply of a backgammon game whose match the archive knows:
gnubg's ``POSITIONID:MATCHID`` and the XGID with the cube and score, as ``replay --ids`` prints
them. Computed from what the archive stores (the game's ``tags``, its turns' ``side`` and
``cube`` cells, the board keys, the match page's Crawford game): no column of its own."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ..board_terms import Side
from ..errors import PositionError
from ..match.states import start_state, states_from
from ..numerals import ascii_int
from ..position import Position
from ..position_ids import gnubg_id, match_id, xgid


def add_match_ids(
    states: list[dict[str, Any]],
    game: dict[str, Any],
    turns: list[dict[str, Any]],
    in_match: dict[str, Any] | None,
) -> bool:
    """Set each board state's ``gnubg_id`` and ``xgid`` (the board's ``key``, the match state
    after that ply); whether it did: not for a game of no match nor one not backgammon's."""
    try:
        tags = json.loads(game.get("tags") or "{}")
    except (TypeError, ValueError):
        return False
    if game.get("rules") != "backgammon" or not isinstance(tags, dict):
        return False
    first: Side = "black" if turns and turns[0].get("side") == "black" else "white"
    start = start_state({str(k): str(v) for k, v in tags.items()}, first)
    if start is None:
        return False
    if in_match is not None:  # the Crawford game is told from the game before it
        start = replace(start, crawford=bool(in_match["crawford"]))
    plies: list[tuple[Side, str | None, int | None]] = []
    for ply in turns:
        action, _, value = (ply.get("cube") or "").partition(" ")
        side: Side = "black" if ply.get("side") == "black" else "white"
        plies.append((side, action or None, ascii_int(value)))
    for board, state in zip(states, states_from(start, plies), strict=False):
        try:
            position = Position.from_key(board["key"])
            board["gnubg_id"] = f"{gnubg_id(position)}:{match_id(state)}"
            board["xgid"] = xgid(position, state)
        except PositionError:
            continue
    return True
