"""The .jqt words of a backgammon record's other plies: cube actions and an unknown play."""

from __future__ import annotations

from jacquet_notation.notation import parse_game, write_game
from jacquet_notation.record import WrittenPlay

GAME = """[Rules "backgammon"]

1. 5-3: 8/3 6/3 6-2: 24/18 13/11
2. double 2 take
3. 6-4: 24/18 18/14 double 4
4. drop
2-0
"""


def test_cube_actions_are_plies_without_dice() -> None:
    record = parse_game(GAME)
    assert record.errors == []
    cube = [(p.side, p.turn, p.action, p.cube, p.dice) for p in record.plays if p.action]
    assert cube == [
        ("white", 2, "double", 2, None),
        ("black", 2, "take", None, None),
        ("black", 3, "double", 4, None),
        ("white", 4, "drop", None, None),
    ]
    assert all(not p.is_pass for p in record.plays)
    assert [p.is_cube_action for p in record.plays] == [False, False, True, True, False, True, True]
    assert record.result == "2-0"


def test_cube_actions_are_written_back_to_a_fixed_point() -> None:
    record = parse_game(GAME)
    assert write_game(record) == GAME
    assert parse_game(write_game(record)) == record


def test_an_unknown_play_keeps_its_dice() -> None:
    record = parse_game("1. 6-3: unknown 4-2: pass\n")
    assert record.errors == []
    first, second = record.plays
    assert (first.dice, first.moves, first.action) == ((6, 3), (), "unknown")
    assert not first.is_pass and second.is_pass and second.action is None
    assert write_game(record) == "1. 6-3: unknown 4-2: pass\n"


def test_a_double_without_its_value_and_a_beaver() -> None:
    record = parse_game("1. 6-5: 24/13 double\n2. beaver 4 3-1: 8/5 6/5\n")
    assert record.errors == []
    assert [(p.side, p.action, p.cube) for p in record.plays[1:]] == [
        ("black", "double", None),
        ("white", "beaver", 4),
        ("black", None, None),
    ]
    assert parse_game(write_game(record)) == record


def test_a_cube_word_run_into_a_step_is_a_located_error() -> None:
    record = parse_game("1. 6-5: 24/13 doubles\n")
    assert record.errors
    error = record.errors[0]
    assert (error.line, error.column) == (1, 15)


def test_a_cube_action_equals_the_same_action_built_in_code() -> None:
    record = parse_game("1. double 2\n")
    assert record.plays == [WrittenPlay("white", 1, None, action="double", cube=2)]


def test_a_take_then_dice_on_the_same_line() -> None:
    # "take 5" is not a take of value 5: the dice 5-3: follow
    record = parse_game("1. 6-5: 24/13 double 2\n2. take 5-3: 8/3 6/3\n")
    assert record.errors == []
    assert [(p.action, p.cube, p.dice) for p in record.plays[1:]] == [
        ("double", 2, None),
        ("take", None, None),
        (None, None, (5, 3)),
    ]
