"""Messages about illegal plays that a transcriber can act on (issue 14, part C).

What is really wrong, where (the move that breaks the rule, or the dice when they are the
issue), and legal plays close to it in canonical notation, never the refused play itself.
"""

from __future__ import annotations

import pytest

from jacquet_notation.engine import legal_plays, validate_play
from jacquet_notation.errors import IllegalPlayError
from jacquet_notation.notation import parse_game
from jacquet_notation.position import Position
from jacquet_notation.record import Move, WrittenPlay
from jacquet_notation.replay import ReplayError, closest_plays, replay
from jacquet_notation.validation import report_record

HEADER = '[White "Ann"]\n[Black "Bob"]\n\n'
#: White's courier is on 13 after its first play: one man there, not two
ONE_ON_13 = "1. 6-5: 24/18 18/13 5-3: 24/19 19/16\n2. 4-4: 13/9(2) 24/20 24/20 *\n"


def pos(white: dict[str, int], black: dict[str, int]) -> Position:
    return Position.from_json({"white": white, "black": black})


def refused(position: Position, dice: tuple[int, int], moves: list[tuple[int, int]]) -> str:
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(position, dice, moves)
    return caught.value.message


def only_error(text: str) -> ReplayError:
    game = replay(parse_game(HEADER + text, file="t.jqt"))
    (error,) = game.errors
    assert isinstance(error, ReplayError)
    return error


# -- what is really wrong --------------------------------------------------------------------


@pytest.mark.parametrize("dice", [(2, 2), (2, 1), (1, 1)])
def test_one_man_moved_twice_is_named_as_such(dice: tuple[int, int]) -> None:
    position = pos({"3": 1, "24": 10, "20": 4}, {"24": 15})
    message = refused(position, dice, [(3, 1), (3, 1)])
    assert message == "3/1: White has only one man on point 3 to move twice"


def test_men_moved_already_are_not_denied() -> None:
    position = pos({"3": 2, "24": 9, "20": 4}, {"24": 15})
    message = refused(position, (2, 2), [(3, 1), (3, 1), (3, 1)])
    assert message == "3/1: White has only 2 men on point 3 to move three times"


def test_a_point_never_held_is_still_empty() -> None:
    message = refused(Position.start(), (6, 5), [(13, 2)])
    assert message == "13/2: White has no man on point 13"


def test_the_record_says_one_man_and_points_at_the_repeated_move() -> None:
    error = only_error(ONE_ON_13)
    assert error.message == "13/9: White has only one man on point 13 to move twice"
    assert "no man" not in error.message
    assert (error.line, error.column) == (5, 9)  # 13/9(2), not the dice at column 4


# -- where -----------------------------------------------------------------------------------


def test_the_column_is_the_step_that_breaks_the_rule() -> None:
    #        1234567890123456789012
    text = "1. 6-5: 24/18 24/19 *\n"
    error = only_error(text)
    assert "courier" in error.message
    assert (error.line, error.column) == (4, 15)


def test_the_column_is_the_step_that_cannot_be_played() -> None:
    error = only_error("1. 6-5: 24/13 6-1: 24/17\n2. 6-2: 13/7 7/5 *\n")
    assert error.message == "7/5: point 5 is Black's"
    assert (error.line, error.column) == (5, 14)


def test_a_move_beyond_the_dice_is_pointed_at() -> None:
    error = only_error("1. 6-5: 24/18 18/13 13/12 *\n")
    assert "3 moves with only 2 dice" in error.message
    assert (error.line, error.column) == (4, 21)


def test_a_rule_about_the_dice_points_at_the_dice() -> None:
    error = only_error("1. 6-5: 24/18 *\n")
    assert "plays one die where both can be played" in error.message
    assert (error.line, error.column) == (4, 4)


def test_a_rule_about_the_final_position_points_at_the_first_move() -> None:
    position = pos(
        {"11": 3, "10": 3, "9": 3, "8": 3, "6": 3},
        {"24": 10, "17": 1, "16": 1, "15": 1, "14": 1, "13": 1},
    )
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(position, (2, 1), [(11, 9), (8, 7)])
    assert "block of six" in caught.value.message
    assert caught.value.move == 0


def test_the_engine_names_the_move_among_those_given() -> None:
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(Position.start(), (6, 5), [(24, 18), (24, 19)])
    assert caught.value.move == 1
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(Position.start(), (6, 5), [(24, 18), (13, 30)])
    assert caught.value.move == 1


def test_validate_prints_the_column_of_the_step() -> None:
    record = parse_game(HEADER + ONE_ON_13, file="t.jqt")
    report = report_record(record)
    assert report.errors[0].startswith("t.jqt:5:9: ")
    assert report.details[0]["column"] == 9


# -- suggestions -----------------------------------------------------------------------------


def test_suggestions_are_canonical() -> None:
    error = only_error(ONE_ON_13)
    assert error.suggestions[0] == "13/9 9/5 24/20(2)"
    assert all("24/20 24/20" not in suggestion for suggestion in error.suggestions)


def test_validate_lists_canonical_suggestions() -> None:
    report = report_record(parse_game(HEADER + ONE_ON_13, file="t.jqt"))
    assert report.errors[0].endswith(
        "; legal here: 13/9 9/5 24/20(2), 13/9 9/5 24/20 20/16, 13/9 9/5 5/1 24/20"
    )


def test_a_suggestion_is_never_the_refused_play() -> None:
    start = Position.start()
    legal = legal_plays(start, (6, 5))
    (only,) = legal
    written = WrittenPlay("white", 1, (6, 5), (Move(24, 18), Move(18, 13)))
    assert closest_plays(written, legal) == []
    other = WrittenPlay("white", 1, (6, 5), (Move(24, 13),))
    assert closest_plays(other, legal) == ["24/18 18/13"] == [only.notation()]
