"""The engine's whole Versailles turns agree with the brute-force reference (tests/reference.py).

Only positions where the mover cannot use every die count: those are where the share is played.
They are built to be so (a side whose men are hemmed in by the opponent's points, a courier
blocked from its landings, runs of five or six points so that the block rules bind), for doubles
(squared) and non-doubles, both sides to move, under several block conventions and with the
``every-die`` option on other rulesets.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from reference import best_plays, reference_plays

from jacquet_notation.engine import Step, dice_steps, legal_plays, search, validate_play, winner
from jacquet_notation.engine.context import Context
from jacquet_notation.errors import IllegalPlayError, PositionError
from jacquet_notation.position import Position, Side, opposite_point, other
from jacquet_notation.rules import Rules
from jacquet_notation.selfplay import Bot, play_game

#: the brute-force reference on every ruleset: tens of seconds, out of the unit tier
pytestmark = [pytest.mark.slow]

ROUTE = [*range(12, 0, -1), *range(24, 12, -1)]  # the opponent's route, in the mover's numbering


def men(rng: random.Random, points: list[int], counts: list[int], total: int = 15) -> None:
    """Spread ``total`` men of one side over ``points`` (at least one each)."""
    for point in points:
        counts[point] += 1
    for _ in range(total - sum(counts)):
        counts[rng.choice(points)] += 1


def hemmed_in(rng: random.Random) -> Position | None:
    """A position where the side to move often cannot use every die."""
    mover = [0] * 26
    kind = rng.randrange(4)
    if kind == 0:  # the courier phase: the courier out (or not yet) and hemmed in
        mover[24] = 14 if rng.random() < 0.8 else 15
        if mover[24] == 14:
            mover[rng.randrange(7, 24)] += 1
    elif kind == 1:  # a run of five to seven points along the opponent's route: the block rules
        first = rng.randrange(len(ROUTE) - 7)
        men(rng, ROUTE[first : first + rng.choice((5, 6, 7))] + rng.sample(range(1, 25), 2), mover)
    elif kind == 2:  # bearing off, against an opponent spread over its outer tables
        men(rng, rng.sample(range(1, 7), rng.randint(1, 4)), mover, rng.randint(4, 15))
        mover[0] = 15 - sum(mover)
    else:
        men(rng, rng.sample(range(1, 25), rng.randint(2, 8)), mover)
    free = [p for p in range(1, 25) if not mover[opposite_point(p)]]
    opponent = [0] * 26
    if rng.random() < 0.3:  # the opponent holds a run too
        runs = [p for p in ROUTE if p in free]
        first = rng.randrange(max(1, len(runs) - 6))
        men(rng, runs[first : first + 6], opponent)
    else:
        men(rng, rng.sample(free, min(len(free), rng.randint(5, 12))), opponent)
    turn: Side = rng.choice(("white", "black"))
    white, black = (mover, opponent) if turn == "white" else (opponent, mover)
    try:
        position = Position.from_counts(white, black, turn)
        position.check(Rules())
    except PositionError:
        return None
    return position


def mover_leaves_dice(position: Position, dice: tuple[int, int], rules: Rules) -> bool:
    """Whether the mover's legal plays leave a die unused (by the reference, not the engine)."""
    side = position.turn
    opponent = other(side)
    if dice[0] == dice[1]:
        roll = [dice[0]] * (dice[0] if rules.doubles == "squared" else 4)
    else:
        roll = sorted(dice, reverse=True)
    me, them = position.counts(side), position.counts(opponent)
    if me[0] == 15 or them[0] == 15:
        return False
    return any(left for _, _, left in best_plays(me, them, roll, rules)[:1])


RULESETS = {
    "versailles": 2000,
    "versailles+blocks=bouchon": 300,
    "versailles+blocks=variable-1": 300,
    "versailles+blocks=five-max": 300,
    "jacquet+every-die=yes": 300,
    "bouchon+every-die=yes": 300,
}


def rules_of(text: str) -> Rules:
    name, *overrides = text.split("+")
    return Rules.named(name).with_options(dict(option.split("=", 1) for option in overrides))


@pytest.mark.parametrize("text", RULESETS)
def test_whole_turns_agree_where_the_mover_cannot_use_every_die(text: str) -> None:
    rules = rules_of(text)
    wanted = RULESETS[text]
    rng = random.Random(f"versailles {text}")
    seen: Counter[str] = Counter()
    while seen["positions"] < wanted:
        position = hemmed_in(rng)
        if position is None:
            continue
        dice = (rng.randint(1, 6), rng.randint(1, 6))
        if not mover_leaves_dice(position, dice, rules):
            continue
        plays = legal_plays(position, dice, rules)
        found = [play.position for play in plays]
        assert len(set(found)) == len(found), (position.to_json(), dice)
        expected = reference_plays(position, dice, rules)
        assert set(found) == expected, (position.to_json(), dice)
        for play in plays[:3]:
            # each whole turn, as written, validates to itself; without its share it is refused
            moves = [(step.start, step.end) for step in play.steps]
            share = [(step.start, step.end) for step in play.opponent_steps]
            assert validate_play(position, dice, moves, rules, share).position == play.position
            if share:
                with pytest.raises(IllegalPlayError, match="the share is missing"):
                    validate_play(position, dice, moves, rules)
        seen["positions"] += 1
        seen["doubles" if dice[0] == dice[1] else "non-doubles"] += 1
        seen["shared" if any(play.opponent_steps for play in plays) else "lost"] += 1
        seen["used none"] += all(not play.steps for play in plays)
        unrestricted = reference_plays(position, dice, rules.replace(blocks="unrestricted"))
        seen["blocks bind"] += unrestricted != expected
    # every kind of case was met, not only the easy ones
    assert seen["doubles"] >= wanted // 10, seen
    assert seen["non-doubles"] >= wanted // 10, seen
    assert seen["shared"] >= wanted // 4, seen
    assert seen["lost"] >= 1, seen
    assert seen["used none"] >= wanted // 20, seen
    assert seen["blocks bind"] >= 1, seen


@pytest.mark.parametrize("text", [*RULESETS, "jacquet-unrestricted", "murray", "backgammon"])
def test_a_play_of_fewer_dice_is_judged_as_the_search_judges_it(
    text: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The quick path's answer for a play that leaves dice (search.fewer_dice_legal, which
    spares the search while no man can bear off) agrees with the search, for every state fewer
    steps reach, legal or not, from hemmed-in and self-play positions."""
    rules = rules_of(text)
    rng = random.Random(f"fewer dice {text}")
    searches = Counter[str]()
    real_search = search.Search

    def counted(ctx: Context, dice: list[int]) -> search.Search:
        searches["searches"] += 1
        return real_search(ctx, dice)

    monkeypatch.setattr(search, "Search", counted)
    seen: Counter[str] = Counter()
    game = 0
    while seen["positions"] < 200:
        if seen["positions"] % 2 and rules.direction == "same":
            positions = [hemmed_in(rng)]
        else:
            # random bots seldom close a backgammon board against men on the bar; greedy ones do
            bot: Bot = "greedy" if text == "backgammon" and game % 2 else "random"
            played = play_game(rules, random.Random(game), bot)
            positions = [turn.play.position for turn in played.turns[::7]]
            game += 1
        for position in positions:
            if position is None or winner(position) is not None:
                continue
            dice = dice_steps((rng.randint(1, 6), rng.randint(1, 6)), rules)
            ctx = Context(position, rules)
            legal = real_search(ctx, dice).plays_by_state
            # where the mover uses every die no play of fewer dice is legal: a few such suffice
            whole = len(next(iter(legal.values()))) == len(dice)
            seen["positions"] += not whole
            start: dict[int, tuple[Step, ...]] = {ctx.start: ()}
            levels = [start]
            for die in dice if dice[0] != dice[-1] else dice[1:]:
                level: dict[int, tuple[Step, ...]] = {}
                # two dice: each from the start; steps of a double: one level from the last
                ctx.expand(start if dice[0] != dice[-1] else levels[-1], die, level)
                levels.append(level)
            for level in levels:
                for state, path in list(level.items())[: 1 if whole else 30]:
                    before = searches["searches"]
                    answer = search.fewer_dice_legal(ctx, dice, state, path)
                    assert answer == (state in legal), (position.to_json(), dice, path)
                    seen["legal" if answer else "not legal"] += 1
                    seen["legal without a search"] += answer and searches["searches"] == before
    assert seen["legal"] >= 200, seen
    assert seen["not legal"] >= 200, seen
    # the quick answer was met (where a man may bear off or a longer play may break a rule, the
    # search decides)
    assert seen["legal without a search"] >= 10, seen
