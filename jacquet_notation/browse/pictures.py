"""The pages' charts, from what the pages already read: a game's race, a player's years, an
archive's games by year and by ruleset (drawn by charts.py)."""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from ..position import Position
from .charts import Chart, Series, bar_chart, line_chart
from .shared import query_rows


def race_chart(states: list[dict[str, Any]], turns: list[dict[str, Any]]) -> Markup:
    """Both sides' pip counts after each ply (0 is the start), the cube's actions marked.

    The pips are counted from each state's key, so that the chart shows exactly the boards the
    page steps through (a ply not replayed leaves the board, and so the count, where it was).
    """
    white: list[tuple[int, int]] = []
    black: list[tuple[int, int]] = []
    for state in states:
        try:
            position = Position.from_key(state["key"])
        except (ValueError, TypeError):  # a damaged key: the page says so elsewhere
            continue
        white.append((state["ply"], position.pips("white")))
        black.append((state["ply"], position.pips("black")))
    if len(white) < 2:
        return Markup("")
    marks = [
        (ply["ply"], f"ply {ply['ply']}: {ply['side'].capitalize()} {ply['cube']}")
        for ply in turns
        if ply.get("cube") and str(ply["cube"]).startswith(("double", "beaver"))
    ]
    chart = Chart("The race: pips still to travel", "ply", "pips", marks=marks)
    return Markup(
        line_chart(
            chart,
            [
                Series("White", white, "jacquet-chart-white"),
                Series("Black", black, "jacquet-chart-black"),
            ],
        )
    )


async def player_years_chart(db: Any, player_id: int) -> Markup:
    """The player's games won and lost in each year their games are dated (two indexed halves,
    as White and as Black, as the page's record reads them)."""
    rows = await query_rows(
        db,
        "select year, sum(won) as won, sum(lost) as lost from ("
        "select year, winner = 'white' as won, winner = 'black' as lost from games "
        "where white_id = :id and year is not null union all "
        "select year, winner = 'black', winner = 'white' from games "
        "where black_id = :id and year is not null) group by year order by year",
        {"id": player_id},
    )
    if not rows:
        return Markup("")
    chart = Chart("Games won and lost, by year", "year", "games")
    return Markup(
        line_chart(
            chart,
            [
                Series("won", [(row["year"], row["won"] or 0) for row in rows], "jacquet-won"),
                Series("lost", [(row["year"], row["lost"] or 0) for row in rows], "jacquet-lost"),
            ],
        )
    )


def home_charts(years: list[dict[str, Any]], rulesets: list[dict[str, Any]]) -> dict[str, Markup]:
    """The archive's games per year and per ruleset, as bars, from the home page's counts."""
    by_year = bar_chart(
        Chart("Games by year", "year", "games"), [(str(row["year"]), row["n"]) for row in years]
    )
    by_rules = bar_chart(
        Chart("Games by ruleset", "ruleset", "games", width=420, height=260, bottom=90),
        [(row["value"] or "unknown", row["n"]) for row in rulesets],
    )
    return {"years": Markup(by_year), "rulesets": Markup(by_rules)}
