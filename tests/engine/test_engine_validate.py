"""validate_play: accepts exactly the legal plays, however written, and says what is wrong."""

from __future__ import annotations

import random

import pytest

from jacquet_notation.engine import apply_play, dice_steps, legal_plays, validate_play
from jacquet_notation.errors import IllegalPlayError
from jacquet_notation.position import Position
from jacquet_notation.rules import RULESET_NAMES, Rules
from jacquet_notation.selfplay import play_game

START = Position.start()


def pos(white: dict[str, int], black: dict[str, int], **extra: object) -> Position:
    return Position.from_json({"white": white, "black": black, **extra})


def turns(rules: Rules, games: int) -> list[tuple[Position, tuple[int, int]]]:
    found = []
    for seed in range(games):
        played = play_game(rules, random.Random(seed), "random")
        before = played.start
        for turn in played.turns:
            found.append((before, turn.dice))
            before = turn.play.position
    return found[:250]


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_every_legal_play_validates_however_written(name: str) -> None:
    rules = Rules.named(name)
    rng = random.Random(name)
    for position, dice in turns(rules, 6):
        for play in legal_plays(position, dice, rules)[:12]:
            moves = [(step.start, step.end) for step in play.steps]
            share = [(step.start, step.end) for step in play.opponent_steps]
            assert validate_play(position, dice, moves, rules, share).position == play.position
            if rules.hitting or share:
                continue  # a combined move may hit on one way and not the other
            shuffled = moves[:]
            rng.shuffle(shuffled)
            assert validate_play(position, dice, shuffled, rules).position == play.position
            if len(moves) == 2 and moves[0][1] == moves[1][0] and moves[1][1]:
                combined = [(moves[0][0], moves[1][1])]
                assert validate_play(position, dice, combined, rules).position == play.position


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_accepts_exactly_the_legal_plays(name: str) -> None:
    """Random written moves: accepted if and only if they reach a legal play's position."""
    rules = Rules.named(name)
    rng = random.Random(f"random moves {name}")
    accepted = rejected = 0
    for position, dice in turns(rules, 8):
        legal = {play.position for play in legal_plays(position, dice, rules)}
        counts = position.counts(position.turn)
        sources = [p for p in range(1, 26) if counts[p]]
        for _ in range(5):
            moves = []
            for _ in range(rng.randint(0, 4)):
                start = rng.choice(sources)
                moves.append((start, max(0, start - rng.choice((*dice, sum(dice))))))
            try:
                play = validate_play(position, dice, moves, rules)
            except IllegalPlayError:
                rejected += 1
                simple = [(a, b) for a, b in moves]
                # rejected: no legal play moves exactly these men one die each
                for legal_play in legal_plays(position, dice, rules):
                    steps = sorted((s.start, s.end) for s in legal_play.steps)
                    if not rules.hitting and not legal_play.opponent_steps:
                        assert steps != sorted(simple)  # (a Versailles share left unwritten)
                continue
            accepted += 1
            assert play.position in legal
    assert accepted > 20 and rejected > 20


@pytest.mark.parametrize(
    ("position", "dice", "moves", "rules", "message"),
    [
        (
            pos({"9": 2, "6": 3, "3": 10}, {"24": 15}),
            (6, 3),
            [(6, 0), (9, 6)],
            "jacquet",
            "6/off: not all men are home (2 men on 9)",
        ),
        (
            pos({"24": 14, "18": 1}, {"24": 15}),
            (6, 1),
            [(18, 12), (12, 11)],
            "jacquet",
            "18/12: point 12 is Black's",
        ),
        (START, (6, 5), [(24, 18)], "jacquet", "plays one die where both can be played, e.g."),
        (
            pos(
                {"11": 3, "10": 3, "9": 3, "8": 3, "6": 3},
                {"24": 10, "17": 1, "16": 1, "15": 1, "14": 1, "13": 1},
            ),
            (2, 1),
            [(11, 9), (8, 7)],
            "jacquet",
            "makes a block of six (points 11 to 6) in front of Black's men without two return men",
        ),
        (
            START,
            (6, 5),
            [(24, 18), (24, 19)],
            "jacquet",
            "the courier (on 18) must reach the home table before any other man moves",
        ),
        (
            pos({"24": 14, "18": 1}, {"24": 14, "21": 1}),
            (5, 4),
            [(18, 14)],
            "jacquet",
            "plays the lower die (4) where the higher (5) can be played, e.g. 18/13",
        ),
        (START, (5, 5), [], "jacquet", "passes where a play is possible, e.g. 24/19 19/14"),
        (START, (6, 5), [(13, 2)], "jacquet", "White has no man on point 13"),
        (START, (6, 5), [(24, 13), (13, 8)], "jacquet", "every die of the roll is already used"),
        (START, (7, 1), [(24, 17)], "jacquet", "dice must be two numbers from 1 to 6"),
        (
            pos({"5": 1, "3": 1}, {"24": 15}, white_off=13),
            (4, 1),
            [(3, 0), (5, 4)],
            "jacquet",
            "a 4 bears off from 3 only when no man stands higher (a man is on 5)",
        ),
        (
            pos({"5": 1, "3": 1}, {"24": 15}, white_off=13),
            (6, 2),
            [(3, 0), (5, 3)],
            "five-max",
            "a man leaves only by a die equal to its point",
        ),
        (
            pos({"3": 1, "1": 1}, {"24": 15}, white_off=13),
            (5, 2),
            [(3, 1), (1, 0)],
            "murray",
            "bears off fewer men than possible, e.g. 3/off 1/off",
        ),
        (
            Position.from_json(
                {"white": {"24": 14}, "white_bar": 1, "black": {"24": 15}},
                Rules.named("murray"),
            ),
            (5, 3),
            [(24, 19), (25, 22)],
            "murray",
            "a man on the bar must enter before any other man moves",
        ),
        (
            pos({"24": 13, "9": 1, "6": 1}, {"24": 13, "15": 1, "17": 1}),
            (4, 1),
            [(9, 4)],
            "murray",
            "9/4 is ambiguous",
        ),
        (
            pos({"24": 11, "22": 2, "20": 1, "6": 1}, {"24": 15}),
            (4, 2),
            [(24, 20), (6, 4)],
            "murray",
            "holds 3 points of its starting table 19-24 (at most 2)",
        ),
    ],
)
def test_reasons_name_the_broken_rule(
    position: Position,
    dice: tuple[int, int],
    moves: list[tuple[int, int]],
    rules: str,
    message: str,
) -> None:
    with pytest.raises(IllegalPlayError) as caught:
        validate_play(position, dice, moves, Rules.named(rules))
    assert message in str(caught.value)


def test_combined_and_chained_moves() -> None:
    assert validate_play(START, (6, 5), [(24, 13)]).position.men("white") == {24: 14, 13: 1}
    assert validate_play(START, (5, 5), [(24, 4)]).notation() == "24/19 19/14 14/9 9/4"
    assert validate_play(START, (3, 3), [(24, 15)]).notation() == "24/21 21/18 18/15"
    # 24/12 with 3-3 would land on Black's start on the fourth three
    with pytest.raises(IllegalPlayError, match="point 12 is Black's"):
        validate_play(START, (3, 3), [(24, 12)])
    # the only legal 6-6 is a single six
    assert validate_play(START, (6, 6), [(24, 18)]).notation() == "24/18"
    # a finished game has no plays
    with pytest.raises(IllegalPlayError, match="over"):
        validate_play(pos({}, {"24": 15}, white_off=15), (6, 5), [])


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_validated_steps_use_the_roll_and_reach_the_play(name: str) -> None:
    """Whichever path accepts a play, its steps are dice of the roll and replay to its position."""
    rules = Rules.named(name)
    checked = 0
    for position, dice in turns(rules, 6):
        for play in legal_plays(position, dice, rules)[:6]:
            moves = [(step.start, step.end) for step in play.steps]
            share = [(step.start, step.end) for step in play.opponent_steps]
            got = validate_play(position, dice, moves, rules, share)
            assert got.position == play.position
            after = apply_play(position, got.steps)
            if got.opponent_steps:  # Versailles: the opponent's share, then the opponent's turn
                after = apply_play(after, got.opponent_steps).with_turn(after.turn)
            assert after == got.position
            left = dice_steps(dice, rules)
            for step in (*got.steps, *got.opponent_steps):
                left.remove(step.die)  # ValueError if a die is used twice or not rolled
                pips = step.start - step.end
                assert step.die == pips or (step.end == 0 and step.die > pips)
            checked += 1
    assert checked > 100


def test_rearmost_accepts_the_play_bearing_off_the_most_men() -> None:
    murray = Rules.named("murray")
    home = pos({"3": 1, "1": 1}, {"24": 15}, white_off=13)
    assert validate_play(home, (5, 2), [(3, 0), (1, 0)], murray).position.off("white") == 15
    # nothing bears off more than one man with 2-1 from 3 and 1: 3/1 then 1/off and 1/off
    assert validate_play(home, (2, 1), [(3, 1), (1, 0)], murray).position.off("white") == 14


def test_bearing_off_by_a_higher_die_names_the_die_used() -> None:
    home = pos({"2": 1, "1": 2}, {"24": 15}, white_off=12)
    play = validate_play(home, (6, 1), [(2, 0), (1, 0)])
    assert [(step.start, step.end, step.die) for step in play.steps] == [(2, 0, 6), (1, 0, 1)]
    assert play.position.off("white") == 14


def test_short_plays_are_accepted_only_when_nothing_longer_is_legal() -> None:
    five_max = Rules.named("five-max")
    # exact bear-off: the 5 cannot be used (no man on 5, none may move 3/off with a 5)
    home = pos({"3": 1, "2": 1}, {"24": 15}, white_off=13)
    assert validate_play(home, (5, 2), [(2, 0)], five_max).notation() == "2/off"
    with pytest.raises(IllegalPlayError, match="both can be played"):
        validate_play(home, (3, 2), [(2, 0)], five_max)
    # blocked: Black holds every point a 6 or a 5 reaches from White's 24-point men
    blocked = pos({"24": 15}, {"7": 5, "6": 5, "1": 5})
    assert validate_play(blocked, (6, 5), [], Rules.named("jacquet")).notation() == ""


@pytest.mark.parametrize("name", RULESET_NAMES)
@pytest.mark.parametrize(
    "moves",
    [
        [(8, 5, 7), (6, 5)],  # a third item: once read by its first two and accepted
        [(8,), (6, 5)],  # one item: once an IndexError out of the quick path
        [8, 5],
        [(None, 3)],
        # equal to a point, or read as one by int(), but not a point's number: once played
        [(8.0, 5)],
        [(8, 4.6)],
        [("8", "5")],
        [(True, 0)],
    ],
)
def test_a_malformed_move_is_refused_by_name(name: str, moves: list[object]) -> None:
    rules = Rules.named(name)
    position = Position.start(rules)
    with pytest.raises(IllegalPlayError, match="is not a move from one point to another"):
        validate_play(position, (3, 1), moves, rules)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", RULESET_NAMES)
@pytest.mark.parametrize(
    "dice", [None, 7, (6,), (6, 5, 4), (0, 3), ("6", "5"), (3.0, 2), (True, 2), (6, 5.0)]
)
def test_dice_that_are_not_a_roll_are_refused_by_name(name: str, dice: object) -> None:
    """Malformed dice (None once raised a TypeError while the message was being made) are an
    IllegalPlayError, from the door that checks a play and from the one that lists them."""
    rules = Rules.named(name)
    position = Position.start(rules)
    with pytest.raises(IllegalPlayError, match="dice must be two numbers from 1 to 6"):
        validate_play(position, dice, [(24, 18)], rules)  # type: ignore[arg-type]
    with pytest.raises(IllegalPlayError, match="dice must be two numbers from 1 to 6"):
        legal_plays(position, dice, rules)  # type: ignore[arg-type]


@pytest.mark.parametrize("name", RULESET_NAMES)
@pytest.mark.parametrize("field", ["moves", "opponent_moves"])
@pytest.mark.parametrize("value", [None, 5])
def test_moves_that_are_no_collection_are_refused_by_name(
    name: str, field: str, value: object
) -> None:
    """Moves that cannot be listed at all were a TypeError out of the door that checks a play."""
    rules = Rules.named(name)
    position = Position.start(rules)
    given: dict[str, object] = {"moves": [(8, 5)], field: value}
    with pytest.raises(IllegalPlayError, match="moves must be \\(start, end\\) pairs"):
        validate_play(position, (3, 1), rules=rules, **given)  # type: ignore[arg-type]
