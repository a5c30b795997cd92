"""The walk's common case asks the engine's quick path straight, with the moves as the reader
read them (no pairs built): every play it settles must be the play the engine's door,
``validate_play``, makes of the same moves as pairs, and every play it refuses one the door
refuses. Checked over the bundled corpus, the shared match files where present, and seeded
self-play under every named ruleset (each game written and read back, so that the moves are
the reader's, ``13/7(2)`` and all)."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from jacquet_notation.engine import accept_quickly, validate_play
from jacquet_notation.errors import AmbiguousPlayError, IllegalPlayError, JacquetError
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, read_games, write_game
from jacquet_notation.position import Position
from jacquet_notation.record import GameRecord, Move
from jacquet_notation.replay import ReplayedPly, replay, walk
from jacquet_notation.replay.marks import by_marks
from jacquet_notation.rules import RULESET_NAMES, Rules

ROOT = Path(__file__).resolve().parents[2]
SHARED = ROOT.parent / "shared" / "data" / "backgammon-mat"


def _corpus() -> Iterator[GameRecord]:
    for folder in (ROOT / "corpus" / "valid", ROOT / "corpus" / "broken", SHARED):
        if folder.is_dir():
            for path in sorted(folder.rglob("*")):
                if path.suffix in (".jqt", ".mat", ".txt") and path.name != "README.md":
                    try:
                        yield from read_games(path)
                    except (JacquetError, OSError, UnicodeError):
                        continue  # a broken file of the corpus: no game


def _plies(plies: list[ReplayedPly]) -> Iterator[ReplayedPly]:
    for ply in plies:
        yield ply
        for branch in ply.variations:
            yield from _plies(branch)


def _check(record: GameRecord, rules: Rules | None = None) -> int:
    """Each play of ``record``'s replay with its dice and moves, against validate_play."""
    game = replay(record, rules)
    checked = 0
    for ply in _plies(game.plies):
        written, dice = ply.written, ply.written.dice
        if dice is None or not written.moves or written.action is not None:
            continue
        if ply.play is None and ply.error is None:
            continue  # not walked: after the line stopped
        pairs = written.moves_as_pairs()
        shared = written.opponent_moves_as_pairs()
        try:
            expected = validate_play(ply.before, dice, pairs, game.rules, shared)
        except AmbiguousPlayError:
            # settled by the hit marks where they single out one way, else refused
            if ply.error is None:
                assert ply.play == by_marks(written, ply.before, game.rules)
            continue
        except IllegalPlayError:
            assert ply.error is not None, (record.file, record.index, written.text)
            continue
        if ply.error is None and ply.note is None and ply.play is not None:
            assert ply.play == expected, (record.file, record.index, written.text)
        checked += 1
    return checked


def test_the_walk_agrees_with_validate_play_over_the_corpus() -> None:
    assert sum(_check(record) for record in _corpus()) > 1000


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_the_walk_agrees_with_validate_play_in_self_play(name: str) -> None:
    rules = Rules.named(name)
    checked = 0
    for record in generate_records(25, 7, rules):
        checked += _check(parse_game(write_game(record)), rules)
    assert checked > 500


def test_moves_as_read_and_as_pairs_are_judged_alike() -> None:
    """accept_quickly reads a record's Move by its start and end, as it reads a pair."""
    rules = Rules.named("jacquet")
    for record in generate_records(10, 3, rules):
        game = replay(parse_game(write_game(record)), rules)
        for ply in game.plies:
            moves, dice = ply.written.moves, ply.written.dice
            if dice is None or not moves or any(move.count != 1 for move in moves):
                continue
            as_read = accept_quickly(ply.before, dice, moves, rules)
            as_pairs = accept_quickly(ply.before, dice, ply.written.moves_as_pairs(), rules)
            assert as_read == as_pairs


def test_a_move_written_twice_is_unrolled_before_the_quick_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``13/7(2)`` with 6-6 is two moves: read as one, the play would be short of two dice (and
    accepted wherever no longer play is legal), so the walk hands the quick path no Move written
    more than once."""
    given: list[Sequence[object]] = []

    def asked(position: Position, dice: tuple[int, int], moves: Any, rules: Rules) -> Any:
        given.extend(moves)
        return accept_quickly(position, dice, moves, rules)

    monkeypatch.setattr(walk, "accept_quickly", asked)
    record = parse_game('[Rules "backgammon"]\n\n1. 3-1: 8/5 6/5 6-6: 24/18(2) 13/7(2) *\n')
    game = replay(record)
    assert game.errors == []
    assert len(game.plies[1].play.steps) == 4  # type: ignore[union-attr]
    assert Move(24, 18, 2) in record.plays[1].moves
    assert given and all(len(move) == 2 or move[2] == 1 for move in given)


def test_the_walks_plies_are_whole_replayed_plies() -> None:
    """The walk stores each ply's fields itself (no __init__): every field set, and the ply
    equal to the one the dataclass's constructor builds of them."""
    names = [field.name for field in dataclasses.fields(ReplayedPly)]
    for record in generate_records(3, 5, Rules.named("jacquet")):
        for ply in replay(record).plies:
            values = [getattr(ply, name) for name in names]  # an unset slot raises here
            assert type(ply) is ReplayedPly
            assert ply == ReplayedPly(*values)
