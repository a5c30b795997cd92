"""Perft-like cases of tests/data/perft.txt: hand-counted numbers of distinct legal plays."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from reference import reference_plays

from jacquet_notation.engine import legal_plays
from jacquet_notation.position import Position
from jacquet_notation.rules import Rules

DATA = Path(__file__).parents[1] / "data" / "perft.txt"


def cases() -> list[tuple[str, str, int, str]]:
    found = []
    for line in DATA.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            rules, dice, count, position = line.split(None, 3)
            found.append((rules, dice, int(count), position))
    return found


def load(rules_text: str, position_text: str) -> tuple[Rules, Position]:
    name, *overrides = rules_text.split("+")
    rules = Rules.named(name).with_options(dict(o.split("=", 1) for o in overrides))
    if position_text == "start":
        return rules, Position.start(rules)
    return rules, Position.from_json(json.loads(position_text), rules)


def test_the_file_covers_what_the_issue_asks() -> None:
    all_cases = cases()
    opening = {
        dice for rules, dice, _, position in all_cases if (rules, position) == ("jacquet", "start")
    }
    assert len(opening) == 21
    text = " ".join(rules for rules, *_ in all_cases)
    for needle in (
        "unrestricted",
        "return-men",
        "variable",
        "bouchon",
        "five-max",
        "exact",
        "rearmost",
        "murray",
        "versailles",
        "every-die=yes",
    ):
        assert needle in text, needle


@pytest.mark.parametrize(("rules_text", "dice", "count", "position_text"), cases())
def test_perft(rules_text: str, dice: str, count: int, position_text: str) -> None:
    rules, position = load(rules_text, position_text)
    roll = (int(dice[0]), int(dice[2]))
    plays = legal_plays(position, roll, rules)
    assert len(plays) == count
    assert len({play.position for play in plays}) == count  # distinct by resulting position
    assert {play.position for play in plays} == reference_plays(position, roll, rules)
