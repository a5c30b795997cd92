"""Tags to rules, and the result: the ruleset a record asks for, a written result read, and the
result checked against the final position (outside backgammon scoring, where the cube decides:
``match/``)."""

from __future__ import annotations

import functools

from ..board_terms import side_name
from ..numerals import ascii_int
from ..record import GameRecord, Span
from ..rules import Rules
from .game import Context, ReplayedGame

#: the tag naming the ruleset (every other tag matching an option name is an override)
RULES_TAG = "Rules"


def rules_for(record: GameRecord, forced: Rules | None = None) -> Rules:
    """The ruleset a record asks for: its ``Rules`` tag, then every tag naming an option."""
    if forced is not None:
        return forced
    name = record.tags.get(RULES_TAG, "jacquet").strip() or "jacquet"
    rules = Rules.named(name)
    overrides = {}
    for tag, value in record.tags.items():
        key = _option_of(tag)
        if key is not None and tag != RULES_TAG:
            overrides[key] = value
    return rules.with_options(overrides) if overrides else rules


@functools.cache
def _option_tags() -> dict[str, str]:
    """Option names by their tag spelling, lower case without ``-`` or ``_`` (read once)."""
    # Every ruleset has the same options; only their values differ.
    return {key.lower().replace("-", "").replace("_", ""): key for key in Rules().options()}


@functools.lru_cache(maxsize=1024)
def _option_of(tag: str) -> str | None:
    """The option a tag names, if any: a record has a dozen tags, nearly all the same names
    game after game (``White``, ``Date``, ...), so each name's answer is kept."""
    return _option_tags().get(tag.lower().replace("-", "").replace("_", ""))


def parse_result(text: str | None) -> tuple[int, int] | None:
    """Points to White and to Black from a result such as ``2-0``; None for ``*`` or nothing."""
    if not text or text.strip() == "*":
        return None
    left, sep, right = text.strip().partition("-")
    white, black = ascii_int(left), ascii_int(right)
    if not sep or white is None or black is None:
        return None
    return white, black


def check_result(game: ReplayedGame, context: Context) -> None:
    """The written result against the game's end by the rules: an error on ``game`` if the
    game is not over or another result is due; a game whose line stopped is not judged."""
    if game.rules.scoring == "backgammon":
        # The points of a backgammon game are the cube's times the game's, or a dropped
        # double's, or a resignation's (a result on a game not over): checked with the cube
        # (match/), so nothing is asked here.
        return
    record = game.record
    written = parse_result(record.result)
    if written is None or not game.complete:
        return
    # The result is the last thing a record writes: point at the end of the game's text.
    end = record.span
    column = max(end.end_column - len(record.result or "") + 1, 1)
    span = Span(end.end_line, column, end.end_line, end.end_column) if end.line else None
    if game.winner is None:
        game.errors.append(
            context.error(
                "ends-early",
                f"the record claims the result {record.result}, but the game is not over "
                f"(White has {game.final.off('white')} men off, Black {game.final.off('black')})",
                span,
            )
        )
        return
    if game.computed_result != f"{written[0]}-{written[1]}":
        game.errors.append(
            context.error(
                "wrong-result",
                f"the result {record.result} disagrees with the final position: "
                f"{side_name(game.winner)} wins {game.points} "
                f"({game.computed_result}) under {game.rules.name}",
                span,
            )
        )
