"""Positions: counts, courier phase, numbering, keys and the JSON form."""

from __future__ import annotations

import random

import pytest

from jacquet_notation.errors import PositionError
from jacquet_notation.position import Position, opposite_point, other
from jacquet_notation.rules import Rules


def spread(seed: int) -> Position:
    """A random position with 15 men a side, never both sides on one point."""
    rng = random.Random(seed)
    white = [0] * 26
    black = [0] * 26
    for _ in range(15):
        white[rng.choice([0, *range(1, 25), 25])] += 1
    for _ in range(15):
        while True:
            location = rng.choice([0, *range(1, 25), 25])
            if location in (0, 25) or not white[opposite_point(location)]:
                black[location] += 1
                break
    return Position.from_counts(white, black, rng.choice(["white", "black"]))


def test_start() -> None:
    start = Position.start()
    assert start.turn == "white"
    for side in ("white", "black"):
        assert start.men(side) == {24: 15}
        assert start.off(side) == 0
        assert start.bar(side) == 0
        assert start.pips(side) == 360
        assert start.in_courier_phase(side)


def test_other_and_numbering() -> None:
    assert other("white") == "black" and other("black") == "white"
    # docs/rules.md: one player's p is the other's p + 12 (p <= 12) or p - 12; W24 is B12.
    assert opposite_point(24) == 12 and opposite_point(12) == 24 and opposite_point(1) == 13
    assert Position.to_absolute("black", 24) == 12
    assert Position.to_absolute("white", 24) == 24
    assert Position.from_absolute("black", 13) == 1
    assert Position.convert(0, "white", "black") == 0
    assert Position.convert(25, "white", "black") == 25
    assert Position.convert(7, "white", "black") == 19
    assert all(opposite_point(opposite_point(p)) == p for p in range(1, 25))


def test_courier_phase_is_derived() -> None:
    def with_white(points: dict[str, int]) -> Position:
        return Position.from_json({"white": points, "black": {"24": 15}, "turn": "white"})

    assert with_white({"24": 14, "9": 1}).in_courier_phase("white")
    assert not with_white({"24": 14, "6": 1}).in_courier_phase("white")
    assert not with_white({"24": 13, "9": 1, "6": 1}).in_courier_phase("white")
    on_bar = Position.from_json(
        {"white": {"24": 14}, "white_bar": 1, "black": {"24": 15}, "turn": "white"}
    )
    assert on_bar.in_courier_phase("white")  # the bar counts as not home


def test_key_round_trip_and_shape() -> None:
    for seed in range(300):
        position = spread(seed)
        key = position.key()
        assert len(key) <= 24
        assert all(c.isalnum() or c in "-_" for c in key)
        assert Position.from_key(key) == position
    assert Position.start().key() != Position.start().with_turn("black").key()


def test_keys_distinguish_positions() -> None:
    keys = {spread(seed).key(): spread(seed) for seed in range(300)}
    assert len(set(keys.values())) == len(keys)


@pytest.mark.parametrize("key", ["", "short", "!" * 14, "A" * 14, "_" * 14])
def test_bad_keys(key: str) -> None:
    with pytest.raises(PositionError):
        Position.from_key(key)


def test_json_round_trip() -> None:
    for seed in range(100):
        position = spread(seed)
        assert Position.from_json(position.to_json()) == position
    assert Position.start().to_json() == {
        "white": {"24": 15},
        "black": {"24": 15},
        "white_off": 0,
        "black_off": 0,
        "white_bar": 0,
        "black_bar": 0,
        "turn": "white",
    }


@pytest.mark.parametrize(
    ("obj", "words"),
    [
        ({"white": {"24": 16}, "black": {"24": 15}}, "men"),
        ({"white": {"24": 14}, "black": {"24": 15}}, "14 men"),
        ({"white": {"24": 15}, "black": {"24": 14, "12": 1}}, "both sides"),
        ({"white": {"25": 15}, "black": {"24": 15}}, "point"),
        ({"white": {"24": "x"}, "black": {"24": 15}}, "number"),
        ({"white": {"24": 15}, "black": {"24": 15}, "turn": "red"}, "turn"),
        ({"white": {"24": 15}, "black": {"24": 15}, "colour": 1}, "unknown key"),
        ([1, 2], "object"),
    ],
)
def test_impossible_json(obj: object, words: str) -> None:
    with pytest.raises(PositionError, match=words):
        Position.from_json(obj)


def test_rules_dependent_checks() -> None:
    bar = {"white": {"24": 14}, "white_bar": 1, "black": {"24": 15}}
    Position.from_json(bar, Rules.named("murray"))
    with pytest.raises(PositionError, match="bar"):
        Position.from_json(bar, Rules.named("jacquet"))
    off = {"white": {"24": 1, "3": 10}, "white_off": 4, "black": {"24": 15}}
    Position.from_json(off)  # no rules: counts only
    with pytest.raises(PositionError, match="borne off"):
        Position.from_json(off, Rules.named("jacquet"))


def test_repr_pastes_back() -> None:
    position = spread(7)
    assert eval(repr(position), {"Position": Position}) == position


def test_pips_are_each_man_s_distance_however_often_counted() -> None:
    """A side's pips (by table, and looked up again by its packing) are each man's location,
    the bar 25 and off 0, summed: counted here from the counts, for many random positions and
    the extremes (every man on the bar: 375; every man off: 0)."""
    for seed in range(300):
        position = spread(seed)
        for _ in range(2):  # the second time, looked up
            for side in ("white", "black"):
                counts = position.counts(side)
                assert position.pips(side) == sum(where * men for where, men in enumerate(counts))
    barred = Position.from_counts([0] * 25 + [15], [15] + [0] * 25, "white")
    assert (barred.pips("white"), barred.pips("black")) == (375, 0)
