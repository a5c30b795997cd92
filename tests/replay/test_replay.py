"""Replay: positions, resolved plays, and every named error with its transcription help."""

from __future__ import annotations

import pytest

from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, write_game
from jacquet_notation.replay import ReplayError, replay
from jacquet_notation.rules import RULESET_NAMES, Rules

HEADER = '[Event "test"]\n[White "Ann"]\n[Black "Bob"]\n'


def kinds(text: str) -> list[str]:
    game = replay(parse_game(HEADER + text, file="t.jqt"))
    return [getattr(e, "kind", "syntax") for e in game.errors]


def first_error(text: str) -> ReplayError:
    game = replay(parse_game(HEADER + text, file="t.jqt"))
    assert game.errors, "expected an error"
    error = game.errors[0]
    assert isinstance(error, ReplayError)
    return error


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_generated_games_replay_cleanly(name: str) -> None:
    for record in generate_records(3, 11, Rules.named(name), "greedy"):
        text = write_game(record)
        game = replay(parse_game(text, file="gen.jqt"))
        assert game.errors == [], (name, [str(e) for e in game.errors])
        assert game.winner is not None
        assert game.computed_result == record.result
        assert game.rules.name == name
        assert all(ply.after is not None for ply in game.plies)


def test_combined_move_is_resolved() -> None:
    game = replay(parse_game(HEADER + "1. 6-5: 24/13 *"))
    assert game.errors == []
    assert game.plies[0].play is not None
    assert game.plies[0].play.notation() in ("24/18 18/13", "24/19 19/13")


def test_illegal_play_stops_the_line_and_keeps_the_game() -> None:
    game = replay(
        parse_game(HEADER + "1. 6-5: 24/18 24/19 4-3: 24/17\n2. 6-1: 13/7 13/12 *", file="t.jqt")
    )
    assert len(game.errors) == 1
    error = game.errors[0]
    assert isinstance(error, ReplayError)
    assert error.kind == "illegal-play"
    assert (error.line, error.column) == (4, 15)  # the step that breaks the rule: 24/19
    assert "courier" in error.message
    assert error.suggestions and "24/18 18/13" in error.suggestions
    assert game.plies[0].after is None
    assert all(ply.after is None for ply in game.plies[1:])
    assert len(game.plies) == 3


def test_wrong_side() -> None:
    assert kinds("1. 6-5: 24/13\n2. 6-5: 13/2 *") == ["wrong-side"]


def test_double_as_first_roll_under_ordinary_opening() -> None:
    assert kinds("1. 5-5: 24/19/14/9/4 *") == ["double-opening"]
    reroll = '[Opening "reroll"]\n1. 5-5: 24/19/14/9/4 *'
    assert kinds(reroll) == []


def test_result_without_the_game_ending() -> None:
    assert kinds("1. 6-5: 24/13 2-0") == ["ends-early"]


def test_slip_opponent_numbering() -> None:
    # White's 6-5 from 24 written in Black's numbering (12/1 instead of 24/13)
    error = first_error("1. 6-5: 12/1 *")
    assert error.slip is not None and "opponent's numbering" in error.slip


def test_slip_other_direction() -> None:
    error = first_error("1. 6-5: 13/24 *")
    assert error.slip is not None and "other direction" in error.slip


def test_slip_dice_swapped_between_plays() -> None:
    error = first_error("1. 4-3: 24/18 18/13 6-5: 24/17\n2. 6-1: 13/7 13/12 *")
    assert error.slip is not None and "swapped" in error.slip


def test_slip_wrong_player() -> None:
    # White's courier is home, Black's is out: 24/17 is White's play, written under Black.
    error = first_error("1. 6-5: 24/13 4-3: 24/17\n2. 5-4: 13/4 6-1: 24/17 *")
    assert error.slip is not None and "recorded under Black" in error.slip


def test_variation_replayed_from_its_branch_point() -> None:
    game = replay(
        parse_game(HEADER + "1. 6-5: 24/13 (1. 6-5: 24/18 18/13) (1. 6-5: 24/19/13) 4-3: 24/17 *")
    )
    assert game.errors == []
    main = game.plies[0]
    assert len(main.variations) == 2
    assert main.variations[0][0].before == main.before
    assert main.variations[0][0].after == main.after


def test_illegal_variation_is_reported() -> None:
    game = replay(parse_game(HEADER + "1. 6-5: 24/13 (1. 6-5: 24/18 24/19) 4-3: 24/17 *"))
    assert [getattr(e, "kind", "") for e in game.errors] == ["illegal-play"]
    assert game.plies[1].after is not None  # the main line goes on


def _finished() -> str:
    record = next(iter(generate_records(1, 5, Rules.named("jacquet"), "greedy")))
    return write_game(record)


def test_wrong_result() -> None:
    text = _finished()
    result = replay(parse_game(text)).computed_result
    assert result is not None
    wrong = "0-1" if result.startswith("0") else "1-0"
    if result in ("0-1", "1-0"):
        wrong = "0-2" if result == "0-1" else "2-0"
    body = text.rstrip().rsplit(None, 1)[0] + f" {wrong}\n"
    body = body.replace(f'[Result "{result}"]', f'[Result "{wrong}"]')
    game = replay(parse_game(body))
    assert [getattr(e, "kind", "") for e in game.errors] == ["wrong-result"]


def test_play_after_the_end() -> None:
    text = _finished().rstrip()
    body, result = text.rsplit(None, 1)
    last = replay(parse_game(text)).plies[-1].written
    nxt = f"{last.turn + 1}. 2-1: 6/4 5/4" if last.side == "black" else "2-1: 6/4 5/4"
    game = replay(parse_game(f"{body}\n{nxt} {result}"))
    assert [getattr(e, "kind", "") for e in game.errors] == ["play-after-end"]


def test_pass_without_dice_is_refused_where_a_roll_can_be_played() -> None:
    error = first_error("1. 6-5: 24/13 pass *")
    assert error.kind == "no-dice"
    assert "e.g. 6-6" in error.message


def test_pass_with_dice_must_be_forced() -> None:
    error = first_error("1. 6-5: 24/13 4-3: pass *")
    assert error.kind == "illegal-play"
