"""``consistent_rulesets``, the archive's inference (no words, a refused play not replayed),
fits exactly the rulesets ``infer`` says the game is consistent with (docs/infer.md, "Where
else"): on self-play games of several rulesets, untouched and with one play swapped for another
of the game, so that most rulesets break, at the play or later."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator
from pathlib import Path

import pytest
from helpers import ROOT, SHARED_MAT

from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_chunk, parse_game, write_game
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import NAMED_RULESETS, consistent_rulesets, infer, replay
from jacquet_notation.replay.alone import Parted
from jacquet_notation.replay.follow import follow, followers
from jacquet_notation.rules import RULESET_NAMES, Rules
from jacquet_notation.sources import game_chunks, record_files

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


def _fits_as_infer(record: GameRecord) -> int:
    """Asserts that the archive's answer for every other ruleset is ``infer``'s whichever
    named ruleset the replay it is handed was made under (those rulesets followed from there,
    :mod:`.follow`); the number of rulesets that followed that replay to the end, over them
    all. (The replay's own ruleset is judged by the replay: a ``[Rules]`` tag it does not know
    is an error there, which ``infer`` alone, walking every ruleset, does not see.)"""
    expected = infer(record).consistent
    followed = 0
    for rules in (None, *NAMED_RULESETS):
        replayed = replay(record, rules)
        others = [name for name in expected if name != replayed.rules.name]
        found = consistent_rulesets(record, replayed=replayed)
        assert [name for name in found if name != replayed.rules.name] == others, record.index
        able, _ = followers(record, replayed, [r for r in NAMED_RULESETS if r != replayed.rules])
        followed += len(follow(record, replayed, able, []))
    return followed


@pytest.mark.slow
@pytest.mark.parametrize("name", RULESET_NAMES)
def test_the_rulesets_following_a_replay_fit_as_infer_finds_on_every_rulesets_games(
    name: str,
) -> None:
    """Self-play of every named ruleset, untouched and with a play swapped, each game's answer
    asked with its replay under every named ruleset; the follow is tried (some rulesets follow
    replays to the end) and excludes (the swaps break most)."""
    followed = broken = 0
    for record in generate_records(3, 5, Rules.named(name)):
        record = parse_game(write_game(record))
        for variant in [record, *(_swapped(record, i) for i in (1, 6, 20))]:
            followed += _fits_as_infer(variant)
            broken += len(infer(variant).consistent) < len(NAMED_RULESETS) - 1
    assert followed > 0 and broken > 0


def _records(*paths: Path) -> Iterator[GameRecord]:
    for path in record_files([str(path) for path in paths]):
        if isinstance(path, str):
            for chunk in game_chunks(path, "utf-8"):
                yield parse_chunk(chunk)


@pytest.mark.slow
def test_the_rulesets_following_a_replay_fit_as_infer_finds_on_the_corpus() -> None:
    records = list(_records(ROOT / "corpus"))
    assert len(records) > 50
    assert sum(_fits_as_infer(record) for record in records) > 0


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_MAT.is_dir(), reason="no shared/data/backgammon-mat")
def test_the_rulesets_following_a_replay_fit_as_infer_finds_on_the_shared_match_files() -> None:
    files = sorted(SHARED_MAT.rglob("*.txt"))[::40]
    records = [record for record in _records(*files) if not record.errors]
    assert len(records) > 50
    for record in records:
        _fits_as_infer(record)


def test_a_replay_of_the_stack_is_followed_by_the_rulesets_that_set_out_from_it() -> None:
    """The rulesets that follow a Jacquet game's replay: all but those with another start
    (backgammon) or a share (Versailles); each that fits it follows it to the end, and the
    others part from it on the way."""
    (record,) = generate_records(1, 3, Rules.named("jacquet"))
    record = parse_game(write_game(record))
    replayed = replay(record)
    others = [rules for rules in NAMED_RULESETS if rules != replayed.rules]
    able, rest = followers(record, replayed, others)
    assert [rules.name for rules in rest] == ["versailles", "backgammon"]
    parted: list[Parted] = []
    arrived = {rules.name for rules, _, _ in follow(record, replayed, able, parted)}
    fits = set(infer(record).consistent) - {"jacquet"}
    assert fits <= arrived and len(arrived) + len(parted) == len(able)
    assert "spanish" in arrived and "murray" not in arrived
