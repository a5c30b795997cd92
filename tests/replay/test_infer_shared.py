"""The archive's inference (``words=False``, its own replay shared) fits the same rulesets, and
excludes the others at the same plies, as ``infer`` alone (docs/infer.md, "Where else")."""

from __future__ import annotations

import pytest

from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, write_game
from jacquet_notation.replay import infer, replay
from jacquet_notation.rules import Rules

pytestmark = pytest.mark.unit


@pytest.mark.parametrize("name", ["jacquet", "murray", "backgammon", "versailles"])
def test_shared_replay_and_no_slips_give_the_same_verdicts(name: str) -> None:
    for record in generate_records(4, 7, Rules.named(name)):
        record = parse_game(write_game(record))
        alone = infer(record)
        shared = infer(record, words=False, replayed=replay(record))
        assert shared.consistent == alone.consistent and name in alone.consistent
        assert [(e.rules, e.ply, e.line, e.column, e.kind) for e in shared.excluded] == [
            (e.rules, e.ply, e.line, e.column, e.kind) for e in alone.excluded
        ]
        # the reasons differ at most by the slip named after them
        for mine, theirs in zip(shared.excluded, alone.excluded, strict=True):
            assert theirs.reason.startswith(mine.reason)
