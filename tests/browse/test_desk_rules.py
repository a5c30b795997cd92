"""The desk's answer says which named rulesets the game at the cursor fits (``jacquet
infer``), under the check's own time budget."""

from __future__ import annotations

import time

import pytest

from jacquet_notation.browse.desk import check_text
from jacquet_notation.budget import OutOfTime, time_budget
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, write_game
from jacquet_notation.replay import infer
from jacquet_notation.rules import Rules

TWO = (
    '[White "Ann"]\n[Black "Bob"]\n\n1. 6-5: 24/13 5-4: 24/15\n\n'
    '[White "Cy"]\n[Black "Di"]\n[Rules "jacquet"]\n\n1. 6-5: 24/13 5-4: 24/15\n'
    "2. 6-3: 13/7 24/21\n"
)


def test_the_answer_names_the_rulesets_of_the_game_at_the_cursor() -> None:
    first, second = TWO.split("\n\n[White")
    second = "[White" + second
    answer = check_text(TWO, 4, 1)["rules"]
    expected = infer(parse_game(first))
    assert answer["consistent"] == list(expected.consistent)
    assert answer["declared"] is None
    assert answer["scoring_only"] == [["jacquet", "spanish"]]
    assert answer["sentence"] == expected.sentence()
    later = check_text(TWO, 11, 3)["rules"]
    assert later["declared"] == "jacquet"
    assert later["consistent"] == ["backgammon"]
    jacquet = later["excluded"][0]
    # the second game's own lines: its error on line 11 of the text, at 24/21
    assert (jacquet["rules"], jacquet["ply"], jacquet["line"], jacquet["column"]) == (
        "jacquet",
        3,
        11,
        14,
    )
    assert later["sentence"].startswith("consistent with backgammon; jacquet excluded at ply 3")


def test_an_empty_text_has_no_rules_line() -> None:
    assert check_text("", 1, 1)["rules"] is None


def test_the_inference_gives_up_at_the_checks_deadline() -> None:
    record = next(iter(generate_records(1, 3, Rules.named("jacquet"))))
    del record.tags["Rules"]
    game = parse_game(write_game(record))
    with time_budget(time.monotonic() - 1), pytest.raises(OutOfTime):
        infer(game)
