"""``consistent_rulesets``, the archive's inference (no words, a refused play not replayed),
fits exactly the rulesets ``infer`` says the game is consistent with (docs/infer.md, "Where
else"): on self-play games of several rulesets, untouched and with one play swapped for another
of the game, so that most rulesets break, at the play or later."""

from __future__ import annotations

import dataclasses

import pytest

from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, write_game
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import consistent_rulesets, infer, replay
from jacquet_notation.rules import Rules

pytestmark = pytest.mark.unit


def _swapped(record: GameRecord, index: int) -> GameRecord:
    """``record`` with play ``index`` replaced by the moves of a later play of the same side."""
    plays = list(record.plays)
    later = plays[index + 2]
    plays[index] = dataclasses.replace(plays[index], moves=later.moves)
    return parse_game(write_game(dataclasses.replace(record, plays=plays)))


@pytest.mark.parametrize("name", ["jacquet", "murray", "backgammon", "versailles", "bouchon"])
def test_the_archive_fits_what_infer_finds_consistent(name: str) -> None:
    tried = broken = 0
    for record in generate_records(3, 11, Rules.named(name)):
        record = parse_game(write_game(record))
        for variant in [record, *(_swapped(record, i) for i in (0, 3, 8, 15))]:
            expected = infer(variant).consistent
            assert consistent_rulesets(variant) == expected
            assert consistent_rulesets(variant, replayed=replay(variant)) == expected
            tried += 1
            broken += len(expected) < 9
    assert broken > tried // 2  # the swaps exclude rulesets: the test asks something


def test_an_unread_record_fits_nothing() -> None:
    record = parse_game('[Rules "jacquet"]\n\n1. 6-5: 24/13 xx\n')
    assert record.errors
    assert consistent_rulesets(record) == ()
