"""Syntax errors: the message and place, friendly wording for common slips, resynchronising."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from jacquet_notation.notation import grammar_file, parse_game, parse_games, read_games, slips

DATA = Path(__file__).parents[1] / "data" / "notation"

SLIPS = json.loads(grammar_file("syntax_errors.json").read_text("utf-8"))["slips"]
EXAMPLES = [(slip["name"], example) for slip in SLIPS for example in slip["examples"]]


def test_every_slip_has_examples_and_a_known_way_to_be_matched() -> None:
    assert {slip["name"] for slip in SLIPS} >= {
        "missing-colon",
        "unclosed-comment",
        "unclosed-tag",
        "dice-range",
        "point-range",
    }
    for slip in SLIPS:
        assert slip["examples"], slip["name"]
        assert slip["match"] in ("state", "found", "lexer", "reader"), slip["name"]
    assert list(slips()) == [slip["name"] for slip in SLIPS]


@pytest.mark.parametrize(("name", "example"), EXAMPLES)
def test_each_example_gets_its_friendly_message(name: str, example: str) -> None:
    errors = [error for game in parse_games(example, "slip.jqt") for error in game.errors]
    assert errors, example
    first = errors[0]
    assert first.message.startswith(f"expected {slips()[name].expected}, found "), first.message
    assert first.file == "slip.jqt" and first.game == 1
    assert first.line is not None and first.column is not None


def test_the_message_shows_the_line_and_a_caret() -> None:
    game = parse_game('[Event "x"]\n\n1. 6-5: 24/18\t24/27 2-0', "g.jqt")
    (error,) = game.errors
    assert str(error) == (
        "g.jqt:3:18: expected a point from 1 to 24, or bar (25) or off (0), found 27\n"
        "    1. 6-5: 24/18\t24/27 2-0\n"
        "    " + " " * 13 + "\t   ^"
    )
    assert (error.file, error.game, error.line, error.column) == ("g.jqt", 1, 3, 18)


def test_an_unexpected_word_gets_expected_and_found() -> None:
    (error,) = parse_game("1. 6-5: 24/18 24/19 @@").errors
    first = error.message.splitlines()[0]
    assert first.startswith("expected ")
    assert "a play such as 6-5: 24/18 24/19" in first
    assert first.endswith(", found @@")
    assert (error.line, error.column) == (1, 21)


def test_the_end_of_the_game_is_named() -> None:
    (error,) = parse_game("1. 6-5: 24/18 (1. 6-5: 24/13").errors
    assert error.message.splitlines()[0].endswith("found the end of the game")
    assert "a ) to close the variation" in error.message


def test_a_tag_after_the_moves() -> None:
    (error,) = parse_game('1. 6-5: 24/13 [Event "late"]').errors
    assert error.message.startswith("expected ")
    assert 'found [Event "late"]' in error.message


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1. 6-5: 24/13 !", None),
        ("1. !", "expected a play before the annotation, found !"),
        ("1. $4", "expected a play before the glyph, found $4"),
        ("1. 6-5: 24/13 $300", "expected a glyph from $0 to $255, found $300"),
        ("1. 6-5: 24/13(0)", "expected a repeat count from 1 to 15, found (0)"),
        ("1. 6-5: 24*/13", "expected the hit mark * after the point landed on, found 24*/13"),
        ('[White "a"] [White "b"]', "expected one [White] tag per game, found a second [White]"),
        ("( 6-5: 24/13 )", "expected a play before the variation, found ("),
        ("1. 6-5: 24/13 (1. )", "expected a play in the variation, found )"),
        ("1. 6-5: 24/13 5-3: 24/16 1... 4-1: 13/9", "expected turn 2. or 2..., found 1..."),
    ],
)
def test_the_reader_checks(text: str, expected: str | None) -> None:
    errors = parse_game(text).errors
    if expected is None:
        assert errors == []
    else:
        assert [e.message.splitlines()[0] for e in errors] == [expected]


def test_every_error_of_a_game_is_reported() -> None:
    game = parse_game("1. 4-7: 24/20 24/17 9-3: 24/27 24/30")
    assert [(e.line, e.column) for e in game.errors] == [(1, 4), (1, 21), (1, 29), (1, 35)]


def test_an_error_in_one_game_does_not_lose_the_next() -> None:
    games = list(read_games(DATA / "broken.jqt"))
    assert [g.tags.get("Event", "").split(":")[0] for g in games] == [
        "Game one",
        "Game two",
        "Game three",
        "Game four",
        "",  # its only tag is the unclosed one
        "Game six",
    ]
    assert [bool(g.errors) for g in games] == [False, True, True, True, True, False]
    assert [len(g.errors) for g in games] == [0, 2, 1, 1, 1, 0]
    assert [e.line for g in games for e in g.errors] == [12, 12, 17, 22, 25]
    assert games[5].plays[0].moves[0].start == 24
    assert games[3].text.endswith("5-3: 24/21 24/19")  # the unclosed comment stops at the tags


def test_strict_reading_stops_at_the_first_bad_game() -> None:
    seen = []
    with pytest.raises(ValueError, match="expected dice from 1 to 6") as error:
        for game in read_games(DATA / "broken.jqt", strict=True):
            seen.append(game.index)
    assert seen == [1]
    assert getattr(error.value, "line", None) == 12
