"""The engine agrees with the brute-force reference generator (tests/reference.py).

For every named ruleset: at least 2,000 positions reached by seeded self-play, one seeded roll
each; and positions built around six-point runs, so that every block convention is exercised (self-
play rarely builds blocks). Agreement means the same set of resulting positions, and no two plays
of the engine reaching one position.
"""

from __future__ import annotations

import random

import pytest
from reference import reference_plays

from jacquet_notation.engine import legal_plays
from jacquet_notation.errors import PositionError
from jacquet_notation.position import Position, opposite_point
from jacquet_notation.rules import RULESET_NAMES, Rules
from jacquet_notation.selfplay import play_game

POSITIONS_PER_RULESET = 2000


def selfplay_positions(rules: Rules, count: int, seed: int) -> list[Position]:
    positions: list[Position] = []
    game = 0
    while len(positions) < count:
        played = play_game(rules, random.Random(seed + game), "random")
        positions.extend(turn.play.position for turn in played.turns[:-1][game % 3 :: 3])
        game += 1
    return positions[:count]


def around_blocks(rules: Rules, rng: random.Random) -> Position:
    """A position where the mover holds five or six points in a row somewhere on the route."""
    while True:
        white = [0] * 26
        route = [*range(12, 0, -1), *range(24, 12, -1)]
        first = rng.randrange(len(route) - 6)
        run = route[first : first + rng.choice((5, 6, 7))]
        for point in run:
            white[point] = rng.choice((1, 2, 2, 3))
        extra = [p for p in range(1, 25) if p not in run]
        while sum(white) < 15:
            white[rng.choice([*run, *extra[:6], 1, 2])] += 1
        if sum(white) > 15:
            continue
        black = [0] * 26
        free = [p for p in range(1, 25) if not white[opposite_point(p)]]
        if rng.random() < 0.3:
            black[24 if not white[12] else rng.choice(free)] = 14
            courier = rng.choice([p for p in free if p > 6])
            black[courier] += 1
        while sum(black) < 15:
            black[rng.choice(free)] += 1
        if rules.hitting and rng.random() < 0.2 and white[rng.choice(run)] > 1:
            white[run[0]] -= 1
            white[25] += 1
        try:
            return Position.from_counts(white, black, "white") if _ok(white, black, rules) else None  # type: ignore[return-value]
        except PositionError:
            continue


def _ok(white: list[int], black: list[int], rules: Rules) -> bool:
    Position.from_counts(white, black).check(rules)
    return True


def agree(position: Position, dice: tuple[int, int], rules: Rules) -> None:
    plays = legal_plays(position, dice, rules)
    found = [play.position for play in plays]
    assert len(set(found)) == len(found), (position, dice)
    assert set(found) == reference_plays(position, dice, rules), (position.to_json(), dice)


@pytest.mark.slow
@pytest.mark.parametrize("name", RULESET_NAMES)
def test_agrees_on_selfplay_positions(name: str) -> None:
    rules = Rules.named(name)
    rng = random.Random(name)
    positions = selfplay_positions(rules, POSITIONS_PER_RULESET, seed=len(name) * 1000)
    assert len(positions) >= 2000
    for position in positions:
        agree(position, (rng.randint(1, 6), rng.randint(1, 6)), rules)


OVERRIDES = [
    {},
    {"blocks": "return-men-1"},
    {"blocks": "variable-1"},
    {"blocks": "variable-2"},
    {"blocks": "bouchon"},
    {"blocks": "five-max"},
    {"blocks": "bouchon", "hitting": "yes"},
]


# the block conventions are written along the Jacquet route; backgammon (direction=opposite)
# refuses them and has its own positions in tests/engine/test_engine_backgammon.py
@pytest.mark.parametrize(
    "name", [name for name in RULESET_NAMES if Rules.named(name).direction == "same"]
)
def test_agrees_around_blocks(name: str) -> None:
    rng = random.Random(f"blocks {name}")
    for options in OVERRIDES:
        rules = Rules.named(name).with_options(options)
        for _ in range(60):
            agree(around_blocks(rules, rng), (rng.randint(1, 6), rng.randint(1, 6)), rules)
