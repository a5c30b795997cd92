"""The ``backgammon`` ruleset in the engine: options, the start, the 25 - p mapping, hits, the bar,
bear-off, scoring, keys, and the brute-force reference agreeing on thousands of positions."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from reference import reference_plays

from jacquet_notation.archive import import_paths
from jacquet_notation.cli import main
from jacquet_notation.engine import Play, apply_play, legal_plays, score, validate_play, winner
from jacquet_notation.engine.quick import accept_quickly
from jacquet_notation.engine.validate import validate_steps
from jacquet_notation.errors import IllegalPlayError, PositionError, RulesError
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import read_games, write_games
from jacquet_notation.position import Position, Side, other
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules
from jacquet_notation.selfplay import play_game

BG = Rules.named("backgammon")
START = Position.start(BG)
ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def pos(white: dict[str, int], black: dict[str, int], **extra: Any) -> Position:
    """A backgammon position from the JSON form (the rules give its direction)."""
    return Position.from_json({"white": white, "black": black, **extra}, BG)


def notations(position: Position, dice: tuple[int, int]) -> set[str]:
    return {play.notation() for play in legal_plays(position, dice, BG)}


# -- the ruleset ---------------------------------------------------------------------------------


def test_the_ruleset_and_its_options() -> None:
    options = BG.options()
    assert options["direction"] == "opposite" and options["start"] == "backgammon"
    assert options["scoring"] == "backgammon" and options["hitting"] == "yes"
    assert options["courier"] == "no" and options["blocks"] == "unrestricted"
    assert options["bear-off"] == "standard" and options["opening"] == "ordinary"
    assert Rules().with_options(options) == BG
    # the Jacquet family keeps its mapping and its start
    assert Rules().options()["direction"] == "same" and Rules().options()["start"] == "stack"
    # each option settable alone, as tags or --set give them
    house = Rules.named("jacquet-unrestricted").with_options({"Direction": "opposite"})
    assert house.direction == "opposite" and house.name == "jacquet-unrestricted"
    assert Rules.named("murray").with_options({"start": "backgammon"}).start == "backgammon"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"direction": "sideways"}, "direction: 'sideways' is not one of same, opposite"),
        ({"start": "anywhere"}, "start: 'anywhere' is not one of stack, backgammon"),
        ({"scoring": "cube"}, "scoring: 'cube' is not one of"),
    ],
)
def test_bad_options_are_named(options: dict[str, str], message: str) -> None:
    with pytest.raises(RulesError, match=message):
        BG.with_options(options)


def test_the_jacquet_block_conventions_need_the_jacquet_route() -> None:
    with pytest.raises(RulesError, match="'return-men' needs direction=same"):
        Rules().with_options({"direction": "opposite"})


# -- the start and the mapping -------------------------------------------------------------------


def test_the_start_position() -> None:
    for side in ("white", "black"):
        assert START.men(side) == {24: 2, 13: 5, 8: 3, 6: 5}
        assert START.off(side) == 0 and START.bar(side) == 0
    assert START.turn == "white" and START.direction == "opposite"
    START.check(BG)
    # the Jacquet start is untouched
    assert Position.start() == Position.start(Rules())
    assert Position.start().men("white") == {24: 15}


def test_a_sides_point_is_the_opponents_25_minus_p() -> None:
    # White's 24-point is Black's 1-point: the two back men face Black's home
    assert Position.to_absolute("black", 24, "opposite") == 1
    assert Position.from_absolute("black", 19, "opposite") == 6
    assert Position.convert(6, "white", "black", "opposite") == 19
    assert Position.convert(6, "white", "black") == 18  # Jacquet's p + 12 stays the default
    # both sides on one point is caught in the right numbering
    with pytest.raises(PositionError, match="White's point 6 \\(Black's 19\\)"):
        pos({"6": 15}, {"19": 15})
    pos({"6": 15}, {"18": 15})  # Jacquet's clash, not backgammon's


def test_rules_and_position_must_agree_on_the_direction() -> None:
    with pytest.raises(PositionError, match="direction=same"):
        START.check(Rules.named("murray"))


# -- a turn --------------------------------------------------------------------------------------


def test_opening_rolls_counted_by_hand() -> None:
    # 2-1: twos from 24, 13, 8, 6; ones from 24, 8, 6 (13/12 lands on Black's mid-point);
    # 12 pairs and 4 one-man plays (24/21 13/10 8/5 6/3), 8/6 6/5 being 8/5: 15
    assert len(legal_plays(START, (2, 1), BG)) == 15
    # 6-5: sixes from 24, 13, 8; fives from 13, 8 (24/19 and 6/1 land on Black's points);
    # 6 pairs, 24/13 and 13/2, 13/7 8/3 ... 8/2 13/8 being 13/2: 7
    assert notations(START, (6, 5)) >= {"24/18 18/13", "24/18 13/8"}
    assert len(legal_plays(START, (6, 5), BG)) == 7


def test_a_blot_landed_on_goes_to_the_bar() -> None:
    # White's 20-point is Black's 5-point, where Black has a lone man
    before = pos({"24": 1, "6": 14}, {"5": 1, "6": 14})
    play = validate_play(before, (4, 1), [(24, 20), (6, 5)], BG)
    assert play.steps[0].hit and play.notation() == "24/20* 6/5"
    after = play.position
    assert after.bar("black") == 1 and after.men("black") == {6: 14}
    assert after.men("white") == {20: 1, 6: 13, 5: 1}
    assert apply_play(before, play) == after


def test_two_men_close_a_point() -> None:
    before = pos({"24": 1, "6": 14}, {"5": 2, "6": 13})
    assert "24/20" not in " ".join(notations(before, (4, 1)))
    with pytest.raises(IllegalPlayError):
        validate_play(before, (4, 1), [(24, 20), (20, 19)], BG)


def test_bar_men_enter_first_on_25_minus_the_die() -> None:
    # White on the bar; Black holds its 1- to 5-points (White's 24 to 20): only a six enters
    before = pos(
        {"6": 14},
        {"1": 2, "2": 2, "3": 2, "4": 2, "5": 2, "13": 5},
        white_bar=1,
    )
    assert notations(before, (5, 4)) == {""}  # a pass
    plays = notations(before, (6, 5))
    assert plays and all(text.startswith("bar/19") for text in plays)
    # two on the bar and one entering die: the other die cannot move any other man
    before = pos({"6": 13}, {"1": 2, "2": 2, "3": 2, "4": 2, "5": 2, "13": 5}, white_bar=2)
    assert notations(before, (6, 5)) == {"bar/19"}


@pytest.mark.parametrize(
    ("moves", "dice", "message"),
    [
        ([(25, 20), (6, 2)], (5, 4), "bar/20: point 20 is held by Black (two men or more)"),
        ([(6, 1), (6, 2)], (5, 4), "6/1: a man on the bar must enter before any other man moves"),
        ([(25, 19)], (6, 5), "plays one die where both can be played, e.g."),
    ],
)
def test_illegal_plays_say_which_rule(
    moves: list[tuple[int, int]], dice: tuple[int, int], message: str
) -> None:
    before = pos(
        {"6": 14},
        {"1": 2, "2": 2, "3": 2, "4": 2, "5": 2, "13": 5},
        white_bar=1,
    )
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(before, dice, moves, BG)
    assert message in str(caught.value)


def test_moves_whose_steps_interleave_are_read_as_a_whole() -> None:
    # 2-2 with two men on the bar, written bar/21*(2) as records do: both men enter on 23 before
    # either goes on to 21 (hitting Black's blot there, Black's 4-point)
    before = pos({"6": 13}, {"4": 1, "13": 5, "6": 9}, white_bar=2)
    play = validate_play(before, (2, 2), [(25, 21), (25, 21)], BG)
    assert play.position.men("white") == {21: 2, 6: 13} and play.position.bar("black") == 1
    assert sorted(step.start for step in play.steps) == [23, 23, 25, 25]
    # three on the bar: the third must enter too, so bar/21(2) is refused
    three = pos({"6": 12}, {"4": 1, "13": 5, "6": 9}, white_bar=3)
    with pytest.raises(IllegalPlayError, match="must enter"):
        validate_play(three, (2, 2), [(25, 21), (25, 21)], BG)


def test_entering_hits_a_blot() -> None:
    before = pos({"6": 14}, {"3": 1, "6": 14}, white_bar=1)
    play = validate_play(before, (3, 1), [(25, 22), (6, 5)], BG)
    assert play.steps[0].hit and play.position.bar("black") == 1


def test_doubles_play_four_times_and_the_higher_die_rule() -> None:
    assert all(len(play.steps) == 4 for play in legal_plays(START, (3, 3), BG))
    # either die alone fits (13/7, 13/8) but not both (White's 2-point is Black's 23, held):
    # the higher die
    before = pos({"13": 1}, {"23": 2, "6": 13}, white_off=14)
    assert notations(before, (6, 5)) == {"13/7"}


def test_standard_bear_off() -> None:
    before = pos({"5": 2, "3": 1}, {"24": 15}, white_off=12)
    assert "5/off 5/off" in notations(before, (6, 5))
    # a six bears off from the highest point below it, not from a lower one while 4 is held
    # (6-1 from 4 and 2: 4/off 2/1, or 4/3 then the six takes the 3: men left on 1, or on 2)
    plays = legal_plays(pos({"4": 1, "2": 1}, {"13": 15}, white_off=13), (6, 1), BG)
    assert sorted(str(play.position.men("white")) for play in plays) == ["{1: 1}", "{2: 1}"]
    plays = legal_plays(pos({"4": 1, "2": 1}, {"24": 15}, white_off=13), (6, 5), BG)
    assert [play.position.off("white") for play in plays] == [15]


def test_no_courier_rule() -> None:
    # fifteen men on the 24-point (a made-up position): any man may move, several of them
    before = pos({"24": 15}, {"24": 15})
    men = [play.position.men("white") for play in legal_plays(before, (3, 1), BG)]
    assert {24: 13, 23: 1, 21: 1} in men and {24: 14, 20: 1} in men


# -- scoring -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("black", "extra", "points"),
    [
        ({"6": 14}, {"black_off": 1}, 1),  # a single game
        ({"6": 15}, {}, 2),  # a gammon: none borne off
        ({"6": 14}, {"black_bar": 1}, 3),  # a backgammon: a man on the bar
        ({"6": 14, "20": 1}, {}, 3),  # ... or in White's home table (White's 5-point)
        ({"6": 14, "18": 1}, {}, 2),  # White's 7-point is not its home table
    ],
)
def test_win_gammon_backgammon(black: dict[str, int], extra: dict[str, int], points: int) -> None:
    final = pos({}, black, white_off=15, turn="black", **extra)
    assert winner(final) == "white"
    assert score(final, "white", BG) == points


# -- keys and JSON -------------------------------------------------------------------------------


def selfplay_positions(count: int, seed: int) -> list[Position]:
    positions: list[Position] = []
    game = 0
    while len(positions) < count:
        played = play_game(BG, random.Random(seed + game), "greedy" if game % 2 else "random")
        positions.extend(turn.play.position for turn in played.turns)
        game += 1
    return positions[:count]


def test_keys_and_json_round_trip_every_backgammon_position() -> None:
    positions = selfplay_positions(3000, seed=17)
    assert any(p.bar("white") for p in positions) and any(p.bar("black") for p in positions)
    assert any(p.bar("white") and p.bar("black") for p in positions)
    keys = set()
    for position in positions:
        key = position.key()
        assert Position.from_key(key) == position
        assert Position.from_json(position.to_json()) == position
        keys.add(key)
    # the direction is part of the key: a same-looking Jacquet position keys otherwise
    assert START.key() != Position(START.packed_white, START.packed_black).key()
    assert Position.start().key() == "AAAAf_8AAAA__4"  # every Jacquet key as it was
    assert len(keys) == len(set(positions))


# -- the reference -------------------------------------------------------------------------------


def around_the_bar(rng: random.Random) -> Position:
    """A position with men on the bar, blots and points near both homes, or a bear-off race."""
    while True:
        white, black = [0] * 26, [0] * 26
        race = rng.random() < 0.2
        for counts, theirs in ((white, black), (black, white)):
            counts[25] = 0 if race else rng.choice((0, 0, 1, 1, 2, 3))
            counts[0] = rng.choice((0, 3, 8, 12)) if race else rng.choice((0, 0, 0, 2))
            # the points the opponent does not stand on (its 25 - p)
            free = [p for p in range(1, 7 if race else 25) if not theirs[25 - p]]
            homes = [p for p in free if p <= 6]
            while sum(counts) < 15:
                counts[rng.choice(homes if homes and rng.random() < 0.4 else free)] += 1
        if sum(white) != 15 or sum(black) != 15:
            continue
        turn: Side = rng.choice(("white", "black"))
        position = Position.from_counts(white, black, turn, "opposite")
        position.check(BG)
        return position


def agree(position: Position, dice: tuple[int, int]) -> None:
    found = [play.position for play in legal_plays(position, dice, BG)]
    assert len(set(found)) == len(found), (position, dice)
    assert set(found) == reference_plays(position, dice, BG), (position.to_json(), dice)


def test_a_combined_move_is_validated_quickly_as_carefully() -> None:
    """The quick path takes a combined move (24/13 with 6-5) where no lone opposing man stands
    on either intermediate point, and finds the careful path's play, its dice and hits alike;
    where one does, the careful path weighs the two ways (the one legal way, or ambiguous)."""
    rng = random.Random("combined moves")
    positions = selfplay_positions(300, seed=5) + [around_the_bar(rng) for _ in range(300)]
    taken = weighed = 0
    for position in positions:
        own, theirs = position.counts(position.turn), position.counts(other(position.turn))
        for high, low in ((a, b) for a in range(2, 7) for b in range(1, a)):
            for start in (p for p in range(high + low + 1, 26) if own[p]):
                move = [(start, start - high - low)]
                try:
                    careful: Play | None = validate_steps(position, [high, low], move, BG)
                except IllegalPlayError:
                    careful = None
                quick = accept_quickly(position, (high, low), move, BG)
                blot = any(theirs[25 - (start - die)] == 1 for die in (high, low))
                if quick is None:
                    weighed += blot and careful is not None
                    continue
                assert not blot, (position.to_json(), high, low, move)
                assert quick == careful, (position.to_json(), high, low, move)
                taken += 1
    assert taken > 500 and weighed > 50, (taken, weighed)


def test_plays_from_the_bar_are_validated_quickly_as_carefully() -> None:
    """A pass where a man on the bar cannot enter (both entry points held), and one man entered
    where more wait and the other die's point is held, are accepted at once, as the careful path
    finds them; anything else written from the bar is what the careful path says too."""
    rng = random.Random("dance")
    danced = entered = 0
    for _ in range(400):
        position = around_the_bar(rng)
        bar = position.bar(position.turn)
        for roll in ROLLS:
            steps = [roll[0]] * 4 if roll[0] == roll[1] else list(roll)
            for moves in ([], *([(25, 25 - die)] for die in set(roll))):
                try:
                    careful: Play | None = validate_steps(position, steps, moves, BG)
                except IllegalPlayError:
                    careful = None
                quick = accept_quickly(position, roll, moves, BG)
                if quick is None:
                    assert careful is None or moves, (position.to_json(), roll)
                    continue
                assert quick == careful, (position.to_json(), roll, moves)
                danced += bar > 0 and not moves
                entered += bar > 1 and len(quick.steps) == 1 and roll[0] != roll[1]
    assert danced > 100 and entered > 50, (danced, entered)


@pytest.mark.slow
def test_the_reference_agrees_on_selfplay_positions() -> None:
    rng = random.Random("backgammon")
    positions = selfplay_positions(2000, seed=2026)
    for position in positions:
        agree(position, (rng.randint(1, 6), rng.randint(1, 6)))


def test_the_reference_agrees_on_bar_and_bear_off_positions() -> None:
    rng = random.Random("backgammon bar")
    seen = {"bar": 0, "closed": 0, "bear-off": 0, "double": 0, "hit": 0}
    for _ in range(1200):
        position = around_the_bar(rng)
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        agree(position, dice)
        mover = position.turn
        seen["bar"] += bool(position.bar(mover))
        seen["bear-off"] += not any(position.counts(mover)[7:26])
        seen["double"] += dice[0] == dice[1]
        plays = legal_plays(position, dice, BG)
        seen["hit"] += any(step.hit for play in plays for step in play.steps)
        seen["closed"] += bool(position.bar(mover)) and plays[0].steps == ()
    assert all(count >= 30 for count in seen.values()), seen


def test_every_opening_roll_agrees_with_the_reference() -> None:
    for dice in ROLLS:
        agree(START, dice)


# -- from the command line -----------------------------------------------------------------------


def test_jacquet_plays_rules_backgammon() -> None:
    result = CliRunner().invoke(main, ["plays", "--dice", "2-1", "--rules", "backgammon", "--json"])
    assert result.exit_code == 0, result.output
    listing = json.loads(result.stdout)
    assert len(listing) == 15  # counted by hand above
    for row in listing:
        after = Position.from_json(row["position"])
        assert after.direction == "opposite" and after.key() == row["key"]
        assert after.turn == "black" and after.men("black") == {24: 2, 13: 5, 8: 3, 6: 5}
    # a position given: White on the bar, closed out but for Black's 6-point
    position = {
        "white": {"6": 14},
        "black": {"1": 2, "2": 2, "3": 2, "4": 2, "5": 2, "13": 5},
        "white_bar": 1,
    }
    result = CliRunner().invoke(
        main,
        ["plays", "--dice", "5-4", "--rules", "backgammon", "--position", json.dumps(position)],
    )
    assert result.exit_code == 0 and "1 distinct legal play of 5-4" in result.stdout
    assert " pass " in result.stdout


def test_jacquet_generate_rules_backgammon_writes_valid_games(tmp_path: Path) -> None:
    out = tmp_path / "bg.jqt"
    result = CliRunner().invoke(
        main, ["generate", "--games", "4", "--seed", "3", "--rules", "backgammon", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    games = [replay(record) for record in read_games(out)]
    assert len(games) == 4
    for game in games:
        assert game.is_valid and game.rules == BG, [str(e) for e in game.errors]
        assert game.plies[0].before.men("white") == {24: 2, 13: 5, 8: 3, 6: 5}
        assert game.points in (1, 2, 3) and game.winner is not None
    hits = [s for g in games for p in g.plies if p.play for s in p.play.steps if s.hit]
    assert hits, "self-play backgammon hits"
    validated = CliRunner().invoke(main, ["validate", str(out)])
    assert validated.exit_code == 0, validated.output


def test_the_archive_keys_backgammon_positions_by_their_direction(tmp_path: Path) -> None:
    out = tmp_path / "bg.jqt"
    out.write_text(write_games(list(generate_records(2, 5, BG, "greedy"))), encoding="utf-8")
    db = tmp_path / "bg.db"
    import_paths(db, [str(out)], rules=None, encoding="utf-8", progress=None)
    connection = sqlite3.connect(db)
    rows = list(connection.execute("select key, white_pips, black_pips from positions"))
    connection.close()
    assert len(rows) > 50
    for key, white_pips, black_pips in rows:
        position = Position.from_key(key)
        assert position.direction == "opposite"
        # pips carried from play to play, hits included, as the position counts them
        assert (white_pips, black_pips) == (position.pips("white"), position.pips("black"))


def test_the_perft_data_has_every_backgammon_opening_roll() -> None:
    lines = (
        (Path(__file__).parents[1] / "data" / "perft.txt").read_text(encoding="utf-8").splitlines()
    )
    opening = {
        line.split()[1]
        for line in lines
        if line.startswith("backgammon ") and line.endswith(" start")
    }
    assert opening == {f"{a}-{b}" for a, b in ROLLS}
