"""The engine against docs/rules.md: seed 000's opening examples and one test per rule.

Each test builds a small position where the rule decides and asserts what the rule says; every
test fails if its rule is dropped from the engine (each asserts a result that differs without it).
Results are written as the mover's men after the play, e.g. "24:14 19:1 off:0".
"""

from __future__ import annotations

from typing import Any

import pytest

from jacquet_notation.engine import (
    Play,
    Step,
    apply_play,
    holds_prime,
    legal_plays,
    score,
    winner,
)
from jacquet_notation.position import Position, Side, other
from jacquet_notation.rules import Rules


def pos(white: dict[str, int], black: dict[str, int], **extra: Any) -> Position:
    return Position.from_json({"white": white, "black": black, **extra})


def men(position: Position, side: Side) -> str:
    parts = [f"{p}:{n}" for p, n in position.men(side).items()]
    if position.bar(side):
        parts.append(f"bar:{position.bar(side)}")
    parts.append(f"off:{position.off(side)}")
    return " ".join(parts)


def results(
    position: Position, dice: tuple[int, int], rules: str = "jacquet", **options: str
) -> set[str]:
    """The mover's men after each legal play."""
    chosen = Rules.named(rules).with_options(options)
    mover = position.turn
    return {men(play.position, mover) for play in legal_plays(position, dice, chosen)}


def points(result: str) -> set[int]:
    """Points holding the mover's men in a result of :func:`results`."""
    return {int(part.split(":")[0]) for part in result.split() if part.split(":")[0].isdigit()}


def notations(position: Position, dice: tuple[int, int], rules: str = "jacquet") -> set[str]:
    return {play.notation() for play in legal_plays(position, dice, Rules.named(rules))}


START = Position.start()


# -- Board, numbering, start --------------------------------------------------------------------


def test_seed_000_opening_examples() -> None:
    assert notations(START, (5, 5)) == {"24/19 19/14 14/9 9/4"}
    assert notations(START, (6, 6)) == {"24/18"}
    assert notations(START, (3, 3)) == {"24/21 21/18 18/15"}


def test_black_moves_in_its_own_numbering() -> None:
    # Black's start is White's 12: after White's 24/18, Black's 6-6 is also stopped on its 12
    # (White's 24), and the result is read in Black's numbering.
    after = legal_plays(START, (6, 6))[0].position
    assert after.turn == "black"
    assert results(after, (6, 6)) == {"24:14 18:1 off:0"}
    white_on_18 = pos({"24": 14, "18": 1}, {"24": 15}, turn="black")
    # Black's 6 lands on its 18 = White's 6 (empty): open; White's man on W18 is Black's 6.
    assert results(white_on_18, (6, 1)) == {"24:14 17:1 off:0"}


# -- A turn ---------------------------------------------------------------------------------------


def test_a_double_gives_four_steps() -> None:
    assert results(START, (1, 1)) == {"24:14 20:1 off:0"}


def test_squared_doubles_give_n_steps_of_n() -> None:
    assert results(START, (5, 5), "versailles") == {"24:13 19:1 4:1 off:0"}
    assert results(START, (5, 5), "jacquet", doubles="squared") == {"24:13 19:1 4:1 off:0"}
    assert results(START, (2, 2), "versailles") == {"24:14 20:1 off:0"}


def test_landing_on_an_opposing_point_is_not_allowed() -> None:
    # Courier on 9; one black man on White's 1 closes it (no hitting): 9/4/1 and 9/6/1 are out.
    position = pos({"24": 14, "9": 1}, {"24": 14, "13": 1})
    assert results(position, (5, 3)) == {"24:13 19:1 6:1 off:0", "24:13 21:1 4:1 off:0"}


def test_hitting_sends_a_lone_man_to_the_bar() -> None:
    # Black blots on White's 5 and 3.
    position = pos({"24": 13, "9": 1, "6": 1}, {"24": 13, "15": 1, "17": 1})
    plays = legal_plays(position, (4, 1), Rules.named("murray"))
    hits = [play for play in plays if any(step.hit for step in play.steps)]
    assert {play.notation() for play in hits} == {
        "24/20 6/5*",
        "6/5* 5/1",
        "9/5* 24/23",
        "9/5* 5/4",
        "9/5* 6/5",
    }
    assert all(play.position.bar("black") == 1 for play in hits)
    # without hitting a lone man closes its point: no play ends on 5 or 3
    assert not any({5, 3} & points(r) for r in results(position, (4, 1)))


def test_two_men_hold_a_point_against_hitting() -> None:
    position = pos({"24": 13, "9": 1, "6": 1}, {"24": 13, "17": 2})  # two on W5
    assert not any(5 in points(r) for r in results(position, (4, 1), "murray"))
    assert results(position, (4, 1), "murray") == results(position, (4, 1), "jacquet")


def test_every_intermediate_landing_must_be_open() -> None:
    # Courier from 24 with 6-5: 24/18/13 and 24/19/13 both need an open 18 or 19.
    closed = pos({"24": 15}, {"24": 13, "6": 1, "7": 1})  # Black on W18 and W19
    assert results(closed, (6, 5)) == {"24:15 off:0"}  # nothing can move: a pass
    half = pos({"24": 15}, {"24": 14, "6": 1})  # only W18 closed: via 19
    assert results(half, (6, 5)) == {"24:14 13:1 off:0"}


def test_structure_is_judged_on_the_final_position_only() -> None:
    # White holds 11..8 and 6; 9/7 then 7/6 passes through a block 11..6 (7 held) but ends
    # without one: legal. 9/7 with 10/9 ends in the block: illegal (no return men).
    position = pos(
        {"11": 3, "10": 3, "9": 3, "8": 3, "6": 3},
        {"24": 10, "17": 1, "16": 1, "15": 1, "14": 1, "13": 1},
    )
    found = results(position, (2, 1))
    assert "11:3 10:3 9:2 8:3 6:4 off:0" in found  # 9/7/6
    assert "11:3 10:2 9:3 8:3 7:1 6:3 off:0" not in found  # 10/9 9/7


def test_most_dice_must_be_played() -> None:
    # Courier on 13; 6-1: 13/7 then 7/6 uses both dice; 13/12 is closed (Black's start).
    position = pos({"24": 14, "13": 1}, {"24": 15})
    assert results(position, (6, 1)) == {"24:14 6:1 off:0"}
    # Only one die playable in total: 6-6 from the start gives one step.
    assert results(START, (6, 6)) == {"24:14 18:1 off:0"}


def test_the_higher_die_when_only_one_can_be_played() -> None:
    # Courier on 18, 5-4: 18/13 or 18/14 alone, but 9 (Black) closes both ways on: keep the 5.
    position = pos({"24": 14, "18": 1}, {"24": 14, "21": 1})
    assert results(position, (5, 4)) == {"24:14 13:1 off:0"}
    # when only the lower die can be played, it is played: 18/12 is closed, 18/17/11 too
    position = pos({"24": 14, "18": 1}, {"24": 14, "23": 1})
    assert results(position, (6, 1)) == {"24:14 17:1 off:0"}


def test_a_roll_with_no_legal_step_is_a_pass() -> None:
    position = pos({"24": 14, "15": 1}, {"24": 12, "21": 1, "22": 1, "16": 1})  # W9, W10, W4
    plays = legal_plays(position, (6, 5))
    assert len(plays) == 1 and plays[0].steps == () and plays[0].notation() == ""
    assert plays[0].position.turn == "black"


def test_plays_reaching_the_same_position_are_one_play() -> None:
    # 24/18/13 and 24/19/13: one play
    assert len(legal_plays(START, (6, 5))) == 1


# -- The courier ----------------------------------------------------------------------------------


def test_only_one_man_leaves_the_24_point() -> None:
    assert "24:13 19:1 18:1 off:0" not in results(START, (6, 5))
    assert "24:13 19:1 18:1 off:0" in results(START, (6, 5), courier="no")


def test_no_other_man_moves_while_the_courier_is_out() -> None:
    position = pos({"24": 14, "10": 1}, {"24": 15})
    assert results(position, (3, 1)) == {"24:14 6:1 off:0"}
    assert len(results(position, (3, 1), courier="no")) > 1


def test_the_courier_phase_is_read_from_the_position() -> None:
    # 14 on 24 and the other man home: no courier phase, any man moves
    position = pos({"24": 14, "6": 1}, {"24": 15})
    assert "24:13 21:1 5:1 off:0" in results(position, (3, 1))


def test_the_courier_is_released_the_moment_it_enters_home() -> None:
    position = pos({"24": 14, "8": 1}, {"24": 15})
    assert results(position, (3, 1)) == {"24:14 4:1 off:0", "24:13 23:1 5:1 off:0"}


def test_a_hit_courier_stays_the_courier() -> None:
    position = Position.from_json(
        {"white": {"24": 14}, "white_bar": 1, "black": {"24": 15}, "turn": "white"},
        Rules.named("murray"),
    )
    # bar/20 then the courier again: 20/17; a man from 24 may not move
    assert results(position, (5, 3), "murray") == {"24:14 17:1 off:0"}


# -- Blocks ----------------------------------------------------------------------------------------

P1 = pos(
    {"11": 3, "10": 3, "9": 3, "8": 3, "6": 3},
    {"24": 10, "17": 1, "16": 1, "15": 1, "14": 1, "13": 1},
)
P1_BLOCK = "11:2 10:3 9:4 8:2 7:1 6:3 off:0"  # 11/9 8/7 closes 11..6


def test_unrestricted_allows_any_block() -> None:
    assert P1_BLOCK in results(P1, (2, 1), "jacquet-unrestricted")


def test_return_men_two_forbid_a_block_without_the_1_and_2_points() -> None:
    assert P1_BLOCK not in results(P1, (2, 1), "jacquet")


def test_return_men_k_one_needs_only_the_1_point() -> None:
    with_one = pos(
        {"11": 3, "10": 3, "9": 3, "8": 3, "6": 2, "1": 1},
        {"24": 11, "17": 1, "16": 1, "15": 1, "14": 1},
    )
    block = "11:2 10:3 9:4 8:2 7:1 6:2 1:1 off:0"
    assert block in results(with_one, (2, 1), "jacquet", blocks="return-men-1")
    assert block not in results(with_one, (2, 1), "jacquet", blocks="return-men-2")


def test_a_block_needs_an_opponent_man_still_to_pass_it() -> None:
    # Same men, but every black man is past 11..6 (on White's 5..1 and Black's home): allowed.
    past = pos(
        {"11": 3, "10": 3, "9": 3, "8": 3, "6": 3},
        {"17": 3, "16": 3, "15": 3, "14": 3, "13": 3},
    )
    assert "11:2 10:3 9:4 8:2 7:1 6:3 off:0" in results(past, (2, 1), "jacquet")


P2 = pos(
    {"24": 3, "23": 3, "22": 3, "21": 3, "20": 1, "2": 1, "1": 1},
    {"24": 10, "6": 1, "5": 1, "4": 1, "3": 1, "2": 1},
)
P2_CLOSED = "24:2 23:4 22:3 21:2 20:1 19:1 2:1 1:1 off:0"  # 21/19 24/23: 19..24 all held


def test_a_block_may_straddle_the_1_and_24_points() -> None:
    # 2/1 leaves 1,24,23,22,21,20 held: a block across the corner with one return man only.
    straddle = "24:2 23:3 22:4 21:3 20:1 1:2 off:0"  # 24/22 2/1
    assert straddle not in results(P2, (2, 1), "jacquet")
    assert straddle in results(P2, (2, 1), "jacquet", blocks="return-men-1")


def test_variable_never_closes_the_starting_table() -> None:
    assert P2_CLOSED in results(P2, (2, 1), "jacquet")  # return men 1 and 2 held
    assert P2_CLOSED not in results(P2, (2, 1), "jacquet-variable")
    assert P2_CLOSED not in results(P2, (2, 1), "jacquet", blocks="variable-1")


def test_bouchon_needs_the_1_point_to_close_the_starting_table() -> None:
    without_one = pos(
        {"24": 3, "23": 3, "22": 3, "21": 3, "20": 1, "2": 2},
        {"24": 10, "6": 1, "5": 1, "4": 1, "3": 1, "13": 1},
    )
    closed = "24:2 23:4 22:3 21:2 20:1 19:1 2:2 off:0"
    assert closed not in results(without_one, (2, 1), "bouchon")
    assert closed in results(without_one, (2, 1), "jacquet-unrestricted")
    assert P2_CLOSED in results(P2, (2, 1), "bouchon")


def test_bouchon_never_blocks_the_opponent_courier() -> None:
    p3 = pos({"24": 1, "7": 3, "6": 3, "5": 3, "4": 3, "3": 2}, {"24": 14, "20": 1})
    block = "23:1 7:3 6:3 5:3 4:2 3:2 2:1 off:0"  # 24/23 4/2 closes 7..2 before the courier
    assert block in results(p3, (2, 1), "jacquet-unrestricted")
    assert block not in results(p3, (2, 1), "bouchon")
    # once the courier is home, the same block is allowed by bouchon
    home = pos({"24": 1, "7": 3, "6": 3, "5": 3, "4": 3, "3": 2}, {"24": 14, "2": 1})
    assert block in results(home, (2, 1), "bouchon")


def test_five_max_forbids_six_consecutive_points_whatever_the_opponent() -> None:
    past = pos(
        {"11": 3, "10": 3, "9": 3, "8": 3, "6": 3},
        {"17": 3, "16": 3, "15": 3, "14": 3, "13": 3},
    )
    six = "11:2 10:3 9:4 8:2 7:1 6:3 off:0"
    assert six not in results(past, (2, 1), "five-max")
    assert six in results(past, (2, 1), "jacquet")


def test_held_means_two_men_with_hitting() -> None:
    # With hitting, single men on 11..6 are no block; with two on each they are.
    singles = pos(
        {"11": 1, "10": 1, "9": 1, "8": 3, "6": 1, "24": 8},
        {"24": 10, "17": 1, "16": 1, "15": 1, "14": 1, "13": 1},
    )
    found = results(singles, (2, 1), "jacquet", hitting="yes")
    assert "24:8 11:1 10:1 9:1 8:1 7:1 6:2 off:0" in found  # 8/6 8/7: single men, no block
    assert "24:8 11:1 10:1 9:1 8:1 7:1 6:2 off:0" not in results(singles, (2, 1), "jacquet")


# -- Murray's limits ---------------------------------------------------------------------------


def test_murray_holds_at_most_two_points_of_the_starting_table() -> None:
    position = pos({"24": 11, "22": 2, "20": 1, "6": 1}, {"24": 15})
    three = "24:10 22:2 20:2 4:1 off:0"  # 24/20 6/4: 24, 22 and 20 held
    assert three not in results(position, (4, 2), "murray")
    assert three in results(position, (4, 2), "murray", **{"start-table-points": "any"})


def test_murray_puts_at_most_two_men_on_the_13_point() -> None:
    position = pos({"24": 11, "13": 2, "17": 1, "6": 1}, {"24": 15})
    assert all(" 13:3" not in r for r in results(position, (4, 1), "murray"))
    assert any(" 13:3" in r for r in results(position, (4, 1), "murray", **{"midpoint-men": "any"}))


def test_murray_bar_men_enter_first() -> None:
    position = Position.from_json(
        {"white": {"24": 10, "6": 4}, "white_bar": 1, "black": {"24": 15}}, Rules.named("murray")
    )
    for play in legal_plays(position, (5, 3), Rules.named("murray")):
        assert play.steps[0].start == 25
        assert play.steps[0].end in (20, 22)


# -- Bearing off ----------------------------------------------------------------------------------


def test_no_bearing_off_until_every_man_is_home() -> None:
    # 8/7 leaves a man outside: 6/off is never allowed with 6-1
    position = pos({"8": 1, "6": 1}, {"24": 15}, white_off=13)
    assert results(position, (6, 1)) == {"5:1 2:1 off:13", "6:1 1:1 off:13"}
    # a man that comes home mid-turn allows the next die to bear off: 7/6 6/off
    position = pos({"7": 1, "6": 1}, {"24": 15}, white_off=13)
    assert "6:1 off:14" in results(position, (6, 1))


def test_standard_bear_off() -> None:
    position = pos({"5": 1, "3": 1}, {"24": 15}, white_off=13)
    assert results(position, (6, 2)) == {"1:1 off:14", "3:1 off:14"}
    # a die with its point empty and a man higher must move that man: the 4 cannot take 3 off
    assert "5:1 off:14" not in results(position, (4, 1))


def test_exact_bear_off() -> None:
    position = pos({"5": 1, "3": 1}, {"24": 15}, white_off=13)
    assert results(position, (6, 2), "jacquet", **{"bear-off": "exact"}) == {
        "5:1 1:1 off:13",
        "3:2 off:13",
    }


def test_rearmost_bear_off_takes_the_rearmost_and_the_most_men() -> None:
    position = pos({"3": 1, "1": 1}, {"24": 15}, white_off=13)
    assert results(position, (5, 2), "murray") == {"off:15"}
    # only the rearmost man may leave: with men on 5 and 2, the 2 does not bear off from 2
    position = pos({"5": 1, "2": 1}, {"24": 15}, white_off=13)
    assert "4:1 off:14" not in results(position, (2, 1), "murray")
    assert "4:1 off:14" in results(position, (2, 1), "jacquet")


# -- Applying, game end, scoring ------------------------------------------------------------------


def test_apply_play_replays_steps() -> None:
    for play in legal_plays(P2, (2, 1)):
        assert apply_play(P2, play) == play.position
    assert apply_play(START, [Step(24, 18, 6)]).men("white") == {24: 14, 18: 1}


def test_game_end_and_scores() -> None:
    won = pos({}, {"24": 15}, white_off=15)
    assert winner(won) == "white" and winner(START) is None
    assert legal_plays(won.with_turn("black"), (6, 5)) == []
    gammon = pos({}, {"3": 15}, white_off=15)
    single = pos({}, {"3": 14}, white_off=15, black_off=1)
    assert score(single, "white", Rules.named("jacquet")) == 1
    assert score(gammon, "white", Rules.named("jacquet")) == 2
    assert score(gammon, "white", Rules.named("murray"), prime_seen=False) == 3
    assert score(gammon, "white", Rules.named("murray"), prime_seen=True) == 2
    assert score(single, "white", Rules.named("murray")) == 1
    spread = pos({}, {"24": 2, "20": 1, "15": 3, "12": 4, "2": 5}, white_off=15)
    assert score(spread, "white", Rules.named("spanish")) == 3 * 3 + 2 * 3 + 1 * 9


def test_holds_prime() -> None:
    assert not holds_prime(START, "white")
    prime = pos({"9": 2, "8": 2, "7": 2, "6": 2, "5": 2, "4": 5}, {"24": 15})
    assert holds_prime(prime, "white") and not holds_prime(prime, "black")
    thin = pos({"9": 2, "8": 2, "7": 2, "6": 2, "5": 2, "4": 1, "24": 4}, {"24": 15})
    assert not holds_prime(thin, "white")
    corner = pos({"2": 2, "1": 2, "24": 5, "23": 2, "22": 2, "21": 2}, {"20": 15})
    assert holds_prime(corner, "white")


def test_play_notation() -> None:
    play = Play((Step(25, 22, 3, True), Step(6, 0, 6)), START)
    assert play.notation() == "bar/22* 6/off"
    assert other(START.turn) == "black"


@pytest.mark.parametrize("dice", [(0, 1), (7, 1), (1,), (1, 2, 3)])
def test_bad_dice(dice: tuple[int, ...]) -> None:
    from jacquet_notation.errors import JacquetError

    with pytest.raises(JacquetError):
        legal_plays(START, dice)
