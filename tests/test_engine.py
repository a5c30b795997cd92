"""The engine against RULES.md: seed 000's opening examples and one test per rule.

Each test builds the smallest position where the rule decides, and asserts what the rule says; a
test named after a row of RULES.md fails if that row's rule is dropped from the engine.
"""

from __future__ import annotations

from jacquet_notation.engine import legal_plays
from jacquet_notation.position import Position


def notations(position: Position, dice: tuple[int, int], rules_name: str = "jacquet") -> set[str]:
    from jacquet_notation.rules import Rules

    return {play.notation() for play in legal_plays(position, dice, Rules.named(rules_name))}


def test_seed_000_opening_examples() -> None:
    start = Position.start()
    assert notations(start, (5, 5)) == {"24/19 19/14 14/9 9/4"}
    assert notations(start, (6, 6)) == {"24/18"}
    assert notations(start, (3, 3)) == {"24/21 21/18 18/15"}
