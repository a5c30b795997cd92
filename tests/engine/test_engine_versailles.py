"""Versailles' "every die is used" in the engine: whole turns, the share, its validation.

docs/rules.md, "Jacquet de Versailles": the mover plays the roll as usual; every die it did not
use is played at once by the opponent on its own men (in its own numbering); a die neither can
use is lost.
"""

from __future__ import annotations

import json
import random

import pytest
from helpers import run

from jacquet_notation.engine import Step, apply_play, legal_plays, validate_play
from jacquet_notation.errors import IllegalPlayError
from jacquet_notation.position import Position
from jacquet_notation.rules import Rules
from jacquet_notation.selfplay import play_game

VERSAILLES = Rules.named("versailles")


def position(white: dict[int, int], black: dict[int, int], turn: str = "white") -> Position:
    """A position from men per point, each side in its own numbering."""
    obj = {
        "white": {str(p): n for p, n in white.items()},
        "black": {str(p): n for p, n in black.items()},
        "turn": turn,
    }
    return Position.from_json(obj)


# White's courier (on 13, not home) plays the 6 to 7, but no 1: 13/12 and 7/6 land on Black's
# 24 and 18, and no other man may move; Black can play the 1 from its 24 to its 23
SIX_ONLY = position({24: 14, 13: 1}, {24: 13, 18: 1, 17: 1})
# White's courier (on 20, not home) is blocked from both landings of 6-1: 14 and 19 are Black's
# (Black's 2 and 7)
COURIER_BLOCKED = position({24: 14, 20: 1}, {24: 13, 2: 1, 7: 1})


def test_the_mover_plays_what_it_can_and_the_opponent_the_rest() -> None:
    plays = legal_plays(SIX_ONLY, (6, 1), VERSAILLES)
    assert {play.notation() for play in plays} >= {"13/7 + 24/23"}
    for play in plays:
        assert [step.die for step in play.steps] == [6]
        assert [step.die for step in play.opponent_steps] == [1]
        assert play.position.turn == "black"
    share = next(play for play in plays if play.notation() == "13/7 + 24/23")
    assert share.opponent_steps == (Step(24, 23, 1),)  # Black's own numbering
    assert share.position.men("black")[23] == 1
    assert share.position.men("white")[7] == 1


def test_a_courier_blocked_from_both_landings_gives_the_opponent_both_dice() -> None:
    plays = legal_plays(COURIER_BLOCKED, (6, 1), VERSAILLES)
    assert plays
    assert all(not play.steps for play in plays)
    assert all(len(play.opponent_steps) == 2 for play in plays)
    # Black's 24/17 (either die first: one play) and 24/18 24/23 are among them
    after = [play.position.men("black") for play in plays]
    assert {17: 1, 24: 12, 2: 1, 7: 1} in after
    assert {18: 1, 23: 1, 24: 11, 2: 1, 7: 1} in after
    # distinct by the position after the whole turn, the opponent to move
    assert len({play.position for play in plays}) == len(plays)
    assert {play.position.turn for play in plays} == {"black"}


def test_without_the_rule_the_same_roll_is_a_pass() -> None:
    plays = legal_plays(COURIER_BLOCKED, (6, 1), Rules.named("jacquet"))
    assert [(play.notation(), play.opponent_steps) for play in plays] == [("", ())]


def test_squared_six_six_from_the_start_shares_five_sixes_and_loses_four() -> None:
    (play,) = legal_plays(Position.start(), (6, 6), VERSAILLES)
    # White's courier: 24/18, then 18/12 is Black's start; Black's courier likewise
    assert play.notation() == "24/18 + 24/18"
    assert play.position.turn == "black"


def test_a_roll_the_mover_uses_whole_has_no_share() -> None:
    for play in legal_plays(Position.start(), (5, 3), VERSAILLES):
        assert play.opponent_steps == ()
        assert " + " not in play.notation()


@pytest.mark.parametrize("name", ["jacquet", "bouchon"])
def test_the_every_die_option_works_with_other_rulesets(name: str) -> None:
    rules = Rules.named(name).with_options({"every-die": "yes"})
    plays = legal_plays(COURIER_BLOCKED, (6, 1), rules)
    assert {play.notation() for play in plays} >= {"+ 24/18 18/17"}
    validate_play(COURIER_BLOCKED, (6, 1), [], rules, [(24, 18), (18, 17)])
    with pytest.raises(IllegalPlayError, match="no shared dice"):
        validate_play(COURIER_BLOCKED, (6, 1), [], Rules.named(name), [(24, 18), (18, 17)])


# -- validation ---------------------------------------------------------------------------------


def test_a_whole_turn_validates_and_equals_the_legal_play() -> None:
    play = validate_play(SIX_ONLY, (6, 1), [(13, 7)], VERSAILLES, [(24, 23)])
    legal = {p.position: p for p in legal_plays(SIX_ONLY, (6, 1), VERSAILLES)}
    assert play.position in legal
    assert play.notation() == "13/7 + 24/23"
    both = validate_play(COURIER_BLOCKED, (6, 1), [], VERSAILLES, [(24, 17)])
    assert both.notation() == "+ 24/18 18/17"  # one move spanning both dice, one die a step


def test_a_missing_share_is_named() -> None:
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(SIX_ONLY, (6, 1), [(13, 7)], VERSAILLES)
    assert "Black could have played the 1" in caught.value.message
    assert "the share is missing" in caught.value.message


def test_a_die_the_mover_could_play_may_not_go_to_the_opponent() -> None:
    start = Position.start()
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(start, (6, 1), [(24, 23)], VERSAILLES, [(24, 18)])
    assert caught.value.message.startswith("the 6 was playable by White (24/18")
    assert "so Black may not play it" in caught.value.message


def test_a_share_in_the_movers_numbering_is_named_as_the_slip() -> None:
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(SIX_ONLY, (6, 1), [(13, 7)], VERSAILLES, [(12, 11)])
    message = caught.value.message
    assert "written in White's numbering" in message
    assert "in Black's it is 24/23" in message
    assert caught.value.move == 1  # the share's first move, after the mover's one


def test_a_share_after_a_roll_used_whole_is_refused() -> None:
    with pytest.raises(IllegalPlayError, match="used every die, so Black has no share"):
        validate_play(Position.start(), (5, 3), [(24, 16)], VERSAILLES, [(24, 23)])


def test_a_wrong_share_says_what_is_wrong_with_it() -> None:
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(SIX_ONLY, (6, 1), [(13, 7)], VERSAILLES, [(23, 22)])
    assert caught.value.message.startswith("Black's share: ")
    assert caught.value.move == 1


def test_a_share_left_out_to_keep_a_point_covered_names_the_seeds_clause() -> None:
    # White's courier (on 20) plays the 6 to 14 and no 1 (19, then 13, are Black's); each of
    # Black's men stands alone, so every 1 Black can play empties a point
    black = {p: 1 for p in (1, 3, 4, 5, 7, 9, 10, 11, 13, 14, 16, 17, 19, 20, 22)}
    before = position({24: 14, 20: 1}, black)
    plays = legal_plays(before, (6, 1), VERSAILLES)
    assert all(play.notation().startswith("20/14 + ") for play in plays)
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(before, (6, 1), [(20, 14)], VERSAILLES)
    assert "the share is missing" in caught.value.message
    assert "without uncovering a point" in caught.value.message
    # where a 1 keeps every point covered (Black's 24/23), the clause is not named
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(SIX_ONLY, (6, 1), [(13, 7)], VERSAILLES)
    assert "uncovering" not in caught.value.message


# -- self-play ----------------------------------------------------------------------------------


def test_selfplay_plays_whole_turns_and_the_tied_lead() -> None:
    games = [play_game(VERSAILLES, random.Random(seed), "greedy") for seed in range(40)]
    tied = [game for game in games if game.tied_leads]
    assert tied, "no tied lead in 40 games"
    assert any(play_turn.play.opponent_steps for game in games for play_turn in game.turns)
    for game in tied:
        opening = game.turns[: 2 * len(game.tied_leads)]
        assert [t.side for t in opening] == ["white", "black"] * len(game.tied_leads)
        assert [t.dice for t in opening] == [(d, d) for d in game.tied_leads for _ in "wb"]
        lead_turn = game.turns[len(opening)]
        assert lead_turn.side == game.first
        assert lead_turn.dice == (max(game.lead), min(game.lead))
        assert game.start.turn == "white"
    for game in games:
        before = game.start
        for turn in game.turns:
            before = before.with_turn(turn.side)
            legal = {play.position for play in legal_plays(before, turn.dice, VERSAILLES)}
            assert turn.play.position in legal
            before = turn.play.position
        assert game.winner is not None


def test_other_rulesets_throw_a_tied_lead_again_without_playing_it() -> None:
    for seed in range(40):
        game = play_game(Rules.named("jacquet"), random.Random(seed))
        assert game.tied_leads == []
        assert game.turns[0].side == game.first
        assert game.turns[0].dice[0] != game.turns[0].dice[1]


# -- jacquet plays ------------------------------------------------------------------------------


def test_the_plays_command_gives_the_share_apart_in_json() -> None:
    result = run("plays", "--dice", "6-1", "--rules", "versailles", "--json", "--position",
                 json.dumps(SIX_ONLY.to_json()))  # fmt: skip
    assert result.returncode == 0, result.stderr
    listing = json.loads(result.stdout)
    assert len(listing) == 3
    row = next(row for row in listing if row["opponent_steps"] == ["24/23"])
    assert row["steps"] == "13/7"
    after = Position.from_json(row["position"])
    assert after.turn == "black"  # the opponent's own turn follows its share
    assert after.men("black")[23] == 1 and after.men("white")[7] == 1
    assert after.key() == row["key"]
    # a roll the mover uses whole: the share is an empty list
    whole = json.loads(run("plays", "--dice", "5-3", "--rules", "versailles", "--json").stdout)
    assert [row["opponent_steps"] for row in whole] == [[]]


def test_the_plays_command_shows_the_share_in_text_with_any_ruleset() -> None:
    position = json.dumps(COURIER_BLOCKED.to_json())
    result = run("plays", "--dice", "6-1", "--set", "every-die=yes", "--position", position)
    assert result.returncode == 0, result.stderr
    assert "6 distinct legal plays" in result.stdout
    assert "  + 24/18 18/17 " in result.stdout
    plain = run("plays", "--dice", "6-1", "--position", position)
    assert "1 distinct legal play " in plain.stdout and "+" not in plain.stdout


def test_apply_play_applies_the_share_too() -> None:
    for play in legal_plays(COURIER_BLOCKED, (6, 1), VERSAILLES):
        assert apply_play(COURIER_BLOCKED, play) == play.position
    (play,) = [
        p for p in legal_plays(SIX_ONLY, (6, 1), VERSAILLES) if p.opponent_steps[0].start == 24
    ]
    assert apply_play(SIX_ONLY, play.steps) != play.position  # the mover's part alone


def test_moves_given_as_iterators_are_read_once() -> None:
    none: list[tuple[int, int]] = []
    play = validate_play(Position.start(), (5, 3), iter([(24, 16)]), Rules(), iter(none))
    assert play.notation() == "24/19 19/16"
    shared = validate_play(SIX_ONLY, (6, 1), iter([(13, 7)]), VERSAILLES, iter([(24, 23)]))
    assert shared.notation() == "13/7 + 24/23"
