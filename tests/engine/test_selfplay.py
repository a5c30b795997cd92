"""Seeded self-play for every ruleset: the properties every game must keep."""

from __future__ import annotations

import random

import pytest

from jacquet_notation.engine import holds_prime, legal_plays, score
from jacquet_notation.position import Position, other, other_point
from jacquet_notation.rules import RULESET_NAMES, Rules
from jacquet_notation.selfplay import play_game


def check_position(position: Position, rules: Rules) -> None:
    """Men conserved and never both sides on one point."""
    for side in ("white", "black"):
        assert sum(position.counts(side)) == 15
    white = position.counts("white")
    black = position.counts("black")
    for point in range(1, 25):
        assert not (white[point] and black[other_point(point, rules.direction)])
    position.check(rules)


@pytest.mark.parametrize("bot", ["random", "greedy"])
@pytest.mark.parametrize("name", RULESET_NAMES)
def test_selfplay_properties(name: str, bot: str) -> None:
    rules = Rules.named(name)
    for seed in range(4 if bot == "greedy" else 10):
        game = play_game(rules, random.Random(seed), bot)  # type: ignore[arg-type]
        # every game ends, with a winner scored as the ruleset says
        assert game.winner is not None
        assert game.final.off(game.winner) == 15
        assert game.points == score(game.final, game.winner, rules, game.prime_seen[game.winner])
        loser = other(game.winner)
        if rules.scoring == "spanish":
            counts = game.final.counts(loser)
            assert game.points == 3 * sum(counts[19:26]) + 2 * sum(counts[13:19]) + sum(
                counts[1:13]
            )
        elif game.final.off(loser):
            assert game.points == 1
        else:
            assert game.points in ((2, 3) if rules.scoring in ("marcia", "backgammon") else (2,))
        # the opening: the lead dice differ, the first roll follows rules.opening
        assert game.lead[0] != game.lead[1]
        assert game.first == ("white" if game.lead[0] > game.lead[1] else "black")
        # Versailles: each tied lead's double is played by White, then Black, before the lead
        opened = 2 * len(game.tied_leads)
        if rules.opening == "ordinary":
            assert game.turns[opened].dice == (max(game.lead), min(game.lead))
        before = game.start
        assert before.turn == ("white" if opened else game.first)
        primes = {"white": False, "black": False}
        for index, turn in enumerate(game.turns):
            if index == opened:
                before = before.with_turn(game.first)
            assert turn.side == before.turn
            # the play was legal, and no step landed on a held opposing point
            legal = {play.position for play in legal_plays(before, turn.dice, rules)}
            assert turn.play.position in legal
            opponent = before.counts(other(turn.side))
            for step in turn.play.steps:
                if 1 <= step.end <= 24:
                    assert opponent[other_point(step.end, rules.direction)] < rules.held
            check_position(turn.play.position, rules)
            primes[turn.side] |= holds_prime(turn.play.position, turn.side)
            if turn.play.opponent_steps:  # Versailles: the share may make the opponent's prime
                primes[other(turn.side)] |= holds_prime(turn.play.position, other(turn.side))
            before = turn.play.position
        assert before == game.final
        assert primes == game.prime_seen


def test_the_ordinary_opening_is_never_a_double() -> None:
    rules = Rules.named("jacquet")
    firsts = [play_game(rules, random.Random(s), max_turns=1).turns[0].dice for s in range(300)]
    assert all(a != b for a, b in firsts)
    assert len(set(firsts)) == 15  # every non-double roll occurs


def test_the_reroll_opening_may_be_a_double() -> None:
    rules = Rules.named("jacquet").with_options({"opening": "reroll"})
    firsts = [play_game(rules, random.Random(s), max_turns=1).turns[0].dice for s in range(300)]
    assert any(a == b for a, b in firsts)


def test_selfplay_is_seeded() -> None:
    rules = Rules.named("jacquet")
    one = play_game(rules, random.Random(42), "greedy")
    two = play_game(rules, random.Random(42), "greedy")
    assert [(t.dice, t.play.notation()) for t in one.turns] == [
        (t.dice, t.play.notation()) for t in two.turns
    ]
    three = play_game(rules, random.Random(43), "greedy")
    assert [t.dice for t in one.turns] != [t.dice for t in three.turns]


def test_max_turns_cuts_a_game_short() -> None:
    game = play_game(Rules.named("jacquet"), random.Random(1), max_turns=5)
    assert len(game.turns) == 5 and game.winner is None and game.points == 0


def test_greedy_prefers_pips_and_points() -> None:
    """No play the greedy bot passes over is better on pips and points made, worse on neither."""
    rules = Rules.named("jacquet")

    def made(position: Position, side: str) -> int:
        return len(position.men(side))  # type: ignore[arg-type]

    chosen_differs = 0
    for seed in range(3):
        game = play_game(rules, random.Random(seed), "greedy")
        before = game.start
        for turn in game.turns:
            side = turn.side
            after = turn.play.position
            for other_play in legal_plays(before, turn.dice, rules):
                alt = other_play.position
                dominates = (
                    alt.pips(side) <= after.pips(side)
                    and made(alt, side) >= made(after, side)
                    and alt.off(side) >= after.off(side)
                    and (alt.pips(side), -made(alt, side)) < (after.pips(side), -made(after, side))
                )
                assert not dominates, (before, turn.dice, turn.play.notation())
                chosen_differs += alt != after
            before = after
    assert chosen_differs > 0  # there were choices to make
