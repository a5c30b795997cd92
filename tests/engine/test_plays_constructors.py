"""engine/plays.py's fast constructors build the very objects the dataclasses' constructors do:
the real class, equal, hashing alike, still frozen (they build a twin and give it its class)."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from jacquet_notation.bits import OPP_SHIFT
from jacquet_notation.engine import Play, Step, legal_plays
from jacquet_notation.engine.plays import make_play, make_position, play_after, plays_of_states
from jacquet_notation.position import Position
from jacquet_notation.rules import Rules


def _same(made: object, built: object) -> None:
    assert type(made) is type(built)
    assert made == built
    assert hash(made) == hash(built)
    assert repr(made) == repr(built)
    assert pickle.loads(pickle.dumps(made)) == built


def test_make_position_is_the_constructors_position() -> None:
    start = Position.start(Rules.named("backgammon"))
    made = make_position(start.packed_white, start.packed_black, "black", "opposite")
    _same(made, Position(start.packed_white, start.packed_black, "black", "opposite"))
    assert made.key() == Position(start.packed_white, start.packed_black, "black", "opposite").key()
    with pytest.raises(dataclasses.FrozenInstanceError):
        made.turn = "white"  # type: ignore[misc]


def test_make_play_and_play_after_are_the_constructors_plays() -> None:
    start = Position.start(Rules.named("jacquet"))
    steps = (Step(24, 18, 6), Step(24, 19, 5))
    position = Position(start.packed_white, start.packed_black, "black")
    _same(make_play(steps, position), Play(steps, position))
    _same(make_play(steps, position, steps), Play(steps, position, steps))
    after = play_after(steps, start.packed_white, start.packed_black, True, "same")
    _same(after, Play(steps, position))
    assert after.position.turn == "black"
    other = play_after(steps, start.packed_black, start.packed_white, False, "same")
    _same(other, Play(steps, Position(start.packed_white, start.packed_black, "white")))
    with pytest.raises(dataclasses.FrozenInstanceError):
        after.steps = ()  # type: ignore[misc]


@pytest.mark.parametrize("name", ["jacquet", "backgammon"])
def test_plays_of_states_builds_what_the_constructors_build(name: str) -> None:
    rules = Rules.named(name)
    start = Position.start(rules)
    plays = legal_plays(start, (6, 5), rules)
    direction = start.direction
    hitting = rules.hitting
    states = {
        (
            play.position.packed_white | play.position.packed_black << OPP_SHIFT
            if hitting
            else play.position.packed_white
        ): play.steps
        for play in plays
    }
    made = plays_of_states(states, "white", hitting, start.packed_black, direction)
    assert len(made) == len(plays)
    for fast, play in zip(made, plays, strict=True):
        _same(fast, Play(play.steps, _rebuilt(play.position)))


def _rebuilt(position: Position) -> Position:
    """The same position through the dataclass's own constructor."""
    return Position(position.packed_white, position.packed_black, position.turn, position.direction)
