"""The rolls a play written without dice is tried with: only those its steps' distances allow
(``engine.rolls.candidate_rolls``), with the same answer as trying all 21 (issue "Round two from
the world", item 2): the same rolls, the same plays, on generated plays of every ruleset, and on
the same plays bent into illegal ones."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest

from jacquet_notation.engine import ROLLS, Play, rolls_for_play, validate_play
from jacquet_notation.engine.rolls import candidate_rolls
from jacquet_notation.errors import IllegalPlayError
from jacquet_notation.generate import generate_records
from jacquet_notation.position import Position
from jacquet_notation.replay import replay
from jacquet_notation.rules import RULESET_NAMES, Rules

Pairs = list[tuple[int, int]]


def every_roll_tried(
    position: Position, moves: Sequence[tuple[int, int]], rules: Rules, share: Pairs
) -> list[tuple[tuple[int, int], Play]]:
    """The old way: each of the 21 rolls asked of the engine."""
    fits = []
    for roll in ROLLS:
        try:
            fits.append((roll, validate_play(position, roll, moves, rules, share)))
        except IllegalPlayError:
            continue
    return fits


def bent(moves: Pairs) -> Iterator[Pairs]:
    """The play as written, and plays near it (most of them illegal): one move left out, an end
    or a start a point off, a move repeated, a step backwards."""
    yield moves
    if len(moves) > 1:
        yield moves[:1]
        yield moves[1:]
    for shift in (-1, 1, 2):
        yield [(start, max(0, end + shift)) for start, end in moves]
        yield [(min(25, start + shift), end) for start, end in moves]
    yield moves + moves[:1]
    yield [(end, start) for start, end in moves]


def generated_plays(name: str, plies: int) -> Iterator[tuple[Position, Pairs, Pairs]]:
    """Plays of the first ``plies`` plies of generated games, and plays bent from them."""
    rules = Rules.named(name)
    for record in generate_records(2, 23, rules):
        for ply in replay(record).plies[:plies]:
            if ply.play is None or not ply.written.moves:
                continue
            share = ply.written.opponent_moves_as_pairs()
            for moves in bent(ply.written.moves_as_pairs()):
                yield ply.before, moves, share
            if share:
                yield ply.before, ply.written.moves_as_pairs(), share[:-1]


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_the_candidate_rolls_give_what_every_roll_gives(name: str) -> None:
    rules = Rules.named(name)
    tried = fitted = 0
    for position, moves, share in generated_plays(name, 60):
        old = every_roll_tried(position, moves, rules, share)
        new = rolls_for_play(position, moves, rules, share)
        assert [roll for roll, _ in new] == [roll for roll, _ in old], (position.key(), moves)
        assert [(p.position, p.steps, p.opponent_steps) for _, p in new] == [
            (p.position, p.steps, p.opponent_steps) for _, p in old
        ]
        tried += 1
        fitted += bool(old)
    # the comparison saw both plays that fit and plays that fit no roll
    assert tried > 100 and 0 < fitted < tried


def test_the_candidates_are_few() -> None:
    jacquet = Rules.named("jacquet")
    assert candidate_rolls([(24, 18), (18, 13)], (), jacquet) == ((6, 5),)
    # one step of 1: the rolls with a 1 (and 1-1)
    assert candidate_rolls([(13, 12)], (), jacquet) == (
        (6, 1), (5, 1), (4, 1), (3, 1), (2, 1), (1, 1),
    )  # fmt: skip
    # a bear-off from the 2-point: any die of 2 or more, or 1-1 twice
    assert (1, 1) in candidate_rolls([(2, 0)], (), jacquet)
    assert (3, 1) in candidate_rolls([(2, 0)], (), jacquet)
    # a distance no die makes, and a step backwards: none
    assert candidate_rolls([(24, 24)], (), jacquet) == ()
    assert candidate_rolls([(18, 24)], (), jacquet) == ()
    # four equal steps come only from the double
    assert candidate_rolls([(24, 20)] * 4, (), Rules.named("backgammon")) == ((4, 4),)
    assert candidate_rolls([(24, 22)] * 4, (), Rules.named("backgammon")) == ((2, 2),)
