"""What an analyser wrote, as the pages show it: each side's error rate and luck (a game, a
match, a player), a game's worst plays beside the better play drawn on the board, and a
player's error rate over their analysed games.

Nothing is evaluated here: the figures are sums of the ``decisions`` rows the archive keeps
(docs/archive.md), divided as the analyser defines its rates (docs/browse.md, "Analysis"):
gnubg's error rate per move and per decision (equity lost per decision counted, in
millipoints), eXtreme Gammon's PR (500 times the same mean). A forced play (one option) is no
decision counted; every cube decision is, as the file does not say which XG called obvious.
The better play's board is the option's text replayed from the position before the ply, by the
notation's reader and the replay (the same door as any record).
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

from markupsafe import Markup

from ..notation import parse_game
from ..position import Position
from ..replay import replay
from .charts import Chart, Series, line_chart
from .drawing import diagram
from .shared import query_rows

#: the worst plays a game's page draws (each with two boards)
WORST_SHOWN = 3
#: the width of a worst play's two boards
WORST_WIDTH = 300
#: the most analysed games a player's chart draws (the latest ones)
CHART_GAMES = 500

#: a side's sums over some decisions: what every rate is computed from
_SUMS = (
    "count(*) AS decisions, sum(d.kind = 'move') AS moves, "
    "sum(d.kind = 'move' AND json_array_length(d.options) > 1) AS unforced, "
    "sum(d.kind = 'cube') AS cubes, coalesce(sum(d.loss), 0) AS loss, "
    "coalesce(sum(CASE WHEN d.kind = 'move' THEN d.loss END), 0) AS move_loss, "
    "coalesce(sum(d.luck), 0) AS luck, count(d.luck) AS rolls"
)


def rates(sums: dict[str, Any]) -> dict[str, Any]:
    """A side's figures from its sums: ``per_move`` and ``per_decision`` (gnubg's error rates,
    millipoints of equity per unforced move, per decision counted), ``pr`` (XG's: 500 times the
    mean loss per decision counted), ``luck`` (the rolls' luck added up, equity); None where
    nothing was counted."""
    unforced = int(sums.get("unforced") or 0)
    counted = unforced + int(sums.get("cubes") or 0)
    loss = float(sums.get("loss") or 0.0)
    move_loss = float(sums.get("move_loss") or 0.0)
    return {
        **sums,
        "counted": counted,
        "per_move": 1000 * move_loss / unforced if unforced else None,
        "per_decision": 1000 * loss / counted if counted else None,
        "pr": 500 * loss / counted if counted else None,
        "luck": float(sums.get("luck") or 0.0),
    }


def measure(analyser: str | None) -> str:
    """Which rate the analyser itself reports: ``pr`` for eXtreme Gammon, else gnubg's."""
    return "pr" if analyser and "extreme gammon" in analyser.lower() else "gnubg"


async def _sides(db: Any, where: str, params: Any) -> dict[str, dict[str, Any]]:
    """Each side's figures over the decisions ``where`` selects (``d`` the decisions)."""
    try:
        found = await query_rows(
            db,
            f"SELECT d.side AS side, {_SUMS} FROM decisions d WHERE {where} GROUP BY d.side",
            params,
        )
    except sqlite3.Error:  # an archive before version 9 has no decisions
        return {}
    return {str(row["side"]): rates(row) for row in found}


def option_key(before_key: str | None, dice: str | None, text: str, rules: str) -> str | None:
    """The key of the position an option's play reaches from ``before_key`` with ``dice``: the
    play read as a one-ply record from that position and replayed; None where it is no legal
    play there (or the position none)."""
    if not before_key or not dice or not text:
        return None
    try:
        mover = Position.from_key(before_key).turn
    except (ValueError, IndexError):
        return None
    number = "1." if mover == "white" else "1..."
    record = parse_game(
        f'[Rules "{rules}"]\n[Position "{before_key}"]\n\n{number} {dice}: {text}\n'
    )
    if record.errors:
        return None
    game = replay(record)
    if game.errors or len(game.plies) != 1 or game.plies[0].play is None:
        return None
    return game.plies[0].play.position.key()


def _worst(
    decisions: list[dict[str, Any]], turns: list[dict[str, Any]], rules: str
) -> list[dict[str, Any]]:
    """The few plays that lost most, each with the play made and the best option, and the
    boards after each (from the ply's position before)."""
    by_ply = {turn["ply"]: turn for turn in turns}
    worst = []
    moves = [d for d in decisions if d["kind"] == "move" and (d["loss"] or 0) > 0]
    for decision in sorted(moves, key=lambda d: (-d["loss"], d["ply"]))[:WORST_SHOWN]:
        turn = by_ply.get(decision["ply"])
        options = decision["options"]
        if turn is None or not options:
            continue
        best = str(options[0][0])
        before = turn.get("key_before")
        played_key = turn.get("key_after")
        better_key = option_key(before, turn.get("dice"), best, rules)
        worst.append(
            {
                "ply": decision["ply"],
                "side": decision["side"],
                "dice": turn.get("dice"),
                "played": turn.get("steps") or turn.get("written"),
                "better": best,
                "loss": decision["loss"],
                "played_key": played_key,
                "better_key": better_key,
                "played_svg": Markup(diagram(played_key or "", WORST_WIDTH, before) or ""),
                "better_svg": Markup(diagram(better_key or "", WORST_WIDTH, before) or ""),
            }
        )
    return worst


async def game_analysis(
    db: Any, game: dict[str, Any], turns: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The game page's analysis section: who analysed it, each side's figures, the worst
    plays; None for a game with no decisions stored."""
    try:
        found = await query_rows(
            db,
            "SELECT ply, number, side, kind, options, chosen, loss, luck, level FROM decisions "
            "WHERE game_id = ? ORDER BY ply, number",
            [game["id"]],
        )
    except sqlite3.Error:
        return None
    if not found:
        return None
    decisions = []
    for row in found:
        try:
            options = json_list(row["options"])
        except ValueError:
            options = []
        decisions.append({**row, "options": options})
    return {
        "analyser": game.get("analyser") or "an analyser",
        "settings": game.get("analyser_settings"),
        "measure": measure(game.get("analyser")),
        "sides": await _sides(db, "d.game_id = ?", [game["id"]]),
        "worst": _worst(decisions, turns, str(game.get("rules") or "backgammon")),
    }


def json_list(text: Any) -> list[Any]:
    """A JSON list cell (a damaged one reads as empty)."""
    value = json.loads(text or "[]")
    return value if isinstance(value, list) else []


async def match_analysis(db: Any, game_ids: list[str]) -> dict[str, Any] | None:
    """A match's figures by side (its games' decisions), and its analysers; None if none."""
    if not game_ids:
        return None
    ids = json.dumps(game_ids)
    sides = await _sides(db, "d.game_id IN (SELECT value FROM json_each(?))", [ids])
    if not sides:
        return None
    analysers = await query_rows(
        db,
        "SELECT DISTINCT analyser, analyser_settings FROM games WHERE id IN "
        "(SELECT value FROM json_each(?)) AND analyser IS NOT NULL ORDER BY 1, 2",
        [ids],
    )
    name = analysers[0]["analyser"] if analysers else None
    return {"sides": sides, "analysers": analysers, "measure": measure(name)}


#: a player's decisions: each game's, on the player's side (two indexed halves)
_PLAYER_GAMES = (
    "SELECT id, 'white' AS side, analyser, date FROM games WHERE white_id = :id "
    "AND analyser IS NOT NULL UNION ALL SELECT id, 'black', analyser, date FROM games "
    "WHERE black_id = :id AND analyser IS NOT NULL"
)


async def player_analysis(db: Any, player_id: int) -> dict[str, Any] | None:
    """A player's figures over their analysed games, by analyser, and the chart of their error
    rate game by game (in the games' order: date, then the order they were stored)."""
    try:
        totals = await query_rows(
            db,
            f"SELECT g.analyser AS analyser, count(DISTINCT d.game_id) AS games, {_SUMS} "
            f"FROM decisions d JOIN ({_PLAYER_GAMES}) g ON g.id = d.game_id AND g.side = d.side "
            "GROUP BY g.analyser ORDER BY g.analyser",
            {"id": player_id},
        )
        per_game = await query_rows(
            db,
            f"SELECT d.game_id AS game_id, {_SUMS} FROM decisions d JOIN ({_PLAYER_GAMES}) g "
            "ON g.id = d.game_id AND g.side = d.side JOIN games x ON x.id = d.game_id "
            "GROUP BY d.game_id ORDER BY x.date IS NULL, x.date, x.rowid",
            {"id": player_id},
        )
    except sqlite3.Error:
        return None
    if not totals:
        return None
    figures = [{**rates(row), "measure": measure(row["analyser"])} for row in totals]
    return {"by_analyser": figures, "chart": error_chart(per_game[-CHART_GAMES:])}


def error_chart(per_game: list[dict[str, Any]]) -> Markup:
    """The error rate per decision (millipoints) of each analysed game, in order (x the
    game's place, 1 the first), and its luck (millipoints per roll)."""
    errors: list[tuple[int, int]] = []
    luck: list[tuple[int, int]] = []
    for order, row in enumerate(per_game, 1):
        figures = rates(row)
        if figures["per_decision"] is not None:
            errors.append((order, round(figures["per_decision"])))
        if row.get("rolls"):
            luck.append((order, round(1000 * figures["luck"] / row["rolls"])))
    if not errors:
        return Markup("")
    chart = Chart("Error rate per decision, game by game (analysed games)", "game", "millipoints")
    series = [Series("error rate", errors, "jacquet-chart-error")]
    if luck:
        series.append(Series("luck per roll", luck, "jacquet-chart-luck"))
    return Markup(line_chart(chart, series))
