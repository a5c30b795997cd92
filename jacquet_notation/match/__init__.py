"""A match checked: the cube within a game, a game's points, and the games of a match in order.

Between the replay and the exporters (docs/rules.md, "Matches"): ``game`` holds one replayed
game's cube, end and points (:func:`check_game`, :func:`outcome`), ``sequence`` the checks from
game to game on plain summaries (:func:`check_sequence`). Callers import the names below from
the package.
"""

from .game import ENDINGS, Outcome, check_game, cube_after_each, ending_text, outcome
from .sequence import (
    GameSummary,
    check_next,
    check_sequence,
    is_crawford_game,
    match_errors,
    match_summary,
    same_match,
    summarise,
    summary_of,
    unread_summary,
)

__all__ = [
    "ENDINGS",
    "GameSummary",
    "Outcome",
    "check_game",
    "check_next",
    "check_sequence",
    "cube_after_each",
    "ending_text",
    "is_crawford_game",
    "match_errors",
    "match_summary",
    "outcome",
    "same_match",
    "summarise",
    "summary_of",
    "unread_summary",
]
