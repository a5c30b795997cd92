"""``keys_agree``, read from two rulesets' options, against ``Agreement.key`` asked of every roll
in positions of self-play (near the start, in the middle, in the bear-off): what it promises
of every roll holds of each, and its "some" is said only where the keys do part."""

from __future__ import annotations

import itertools

import pytest

from jacquet_notation.engine import ROLLS, Agreement, keys_agree
from jacquet_notation.generate import generate_records
from jacquet_notation.position import Position
from jacquet_notation.replay import NAMED_RULESETS, replay
from jacquet_notation.rules import Rules

pytestmark = pytest.mark.unit


def _positions() -> list[Position]:
    """Positions of two self-play games of Jacquet and two of backgammon, every eighth ply."""
    found: list[Position] = []
    for name in ("jacquet", "backgammon"):
        for record in generate_records(2, 4, Rules.named(name)):
            found.extend(ply.before for ply in replay(record).plies[::8])
    return found


def test_keys_agree_on_every_roll_on_none_or_on_some_as_the_keys_do() -> None:
    positions = _positions()
    assert len(positions) > 20
    told = set()
    for one, another in itertools.combinations(NAMED_RULESETS, 2):
        said = keys_agree(one, another)
        told.add(said)
        alike = {
            Agreement(position, roll).key(one) == Agreement(position, roll).key(another)
            for position in positions
            for roll in ROLLS
        }
        if said is None:
            assert alike == {True, False}, (one.name, another.name)  # "some": both are met
        else:
            assert alike == {said}, (one.name, another.name)
    assert told == {True, False, None}
