"""Seeded self-play: whole games played by simple bots, for generated records and benchmarks.

Randomness lives here and only here: the engine is pure, and a game is a function of the rules,
the bot and the seed of the ``random.Random`` passed in.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Literal, NamedTuple

from .engine import Play, holds_prime, legal_plays, score, winner
from .position import Position, Side, other
from .rules import Rules

Bot = Literal["random", "greedy"]


class SelfPlayTurn(NamedTuple):
    """One turn: who played, the roll, and the play chosen (``play.position`` is the result).

    Under ``every_die_used`` the play is the whole turn, the opponent's share included
    (``play.opponent_steps``), and ``side`` may repeat after a tied lead (see ``tied_leads``).
    """

    side: Side
    dice: tuple[int, int]
    play: Play


@dataclass(slots=True)
class SelfPlayGame:
    """A finished (or cut short) game of self-play."""

    rules: Rules
    #: the lead throw that decided the first player: (White's die, Black's die)
    lead: tuple[int, int]
    #: the higher thrower of ``lead``, who plays the lead dice (or, under ``reroll``, a new roll)
    first: Side
    turns: list[SelfPlayTurn] = field(default_factory=list)
    start: Position = field(default_factory=Position.start)
    final: Position = field(default_factory=Position.start)
    #: None when ``max_turns`` ran out first
    winner: Side | None = None
    points: int = 0
    #: whether each side held a prime at some moment (``marcia`` scoring)
    prime_seen: dict[Side, bool] = field(default_factory=lambda: {"white": False, "black": False})
    #: Versailles (``every_die_used``): the die of each tied lead before ``lead``, in order. Each
    #: gave two turns of that double, White's (the first thrower) then Black's: they are the
    #: first ``2 * len(tied_leads)`` of ``turns``, so the side that wins ``lead`` may move twice
    #: in a row. Empty in every other ruleset, where ties are simply thrown again.
    tied_leads: list[int] = field(default_factory=list)


_SIDES: tuple[Side, Side] = ("white", "black")


def play_game(
    rules: Rules,
    rng: random.Random,
    bot: Bot = "random",
    max_turns: int = 2000,
) -> SelfPlayGame:
    """Play one game from the start position.

    The opening follows ``rules.opening``: each side throws one die, White first, and the higher
    starts; under ``ordinary`` those two dice are its first roll (never a double), under
    ``reroll`` it throws both dice afresh. Tied lead dice are thrown again; under
    ``every_die_used`` (Versailles) each side first plays that double, White (the first thrower)
    then Black (docs/rules.md).
    """
    tied: list[int] = []
    while True:
        lead = (rng.randint(1, 6), rng.randint(1, 6))
        if lead[0] != lead[1]:
            break
        if rules.every_die_used:
            tied.append(lead[0])
    first: Side = "white" if lead[0] > lead[1] else "black"
    position = Position.start(rules).with_turn("white" if tied else first)
    game = SelfPlayGame(
        rules=rules, lead=lead, first=first, start=position, final=position, tied_leads=tied
    )
    dice: tuple[int, int] = (max(lead), min(lead))
    if rules.opening == "reroll":
        dice = _roll(rng)
    # the opening's turns, each (side, roll): the tied leads' doubles, then the lead's winner
    opening: list[tuple[Side, tuple[int, int]]] = [
        (side, (die, die)) for die in tied for side in _SIDES
    ]
    opening.append((first, dice))
    for number in range(max_turns):
        if number < len(opening):
            side, dice = opening[number]
            position = position.with_turn(side)
        side = position.turn
        plays = legal_plays(position, dice, rules)
        play = _choose(plays, position, rules, rng, bot)
        game.turns.append(SelfPlayTurn(side, dice, play))
        position = play.position
        if not game.prime_seen[side] and holds_prime(position, side):
            game.prime_seen[side] = True
        opponent = other(side)
        if play.opponent_steps and not game.prime_seen[opponent]:
            game.prime_seen[opponent] = holds_prime(position, opponent)
        won = winner(position)
        if won is not None:
            game.winner = won
            game.points = score(position, won, rules, game.prime_seen[won])
            break
        if number + 1 >= len(opening):
            dice = _roll(rng)
    game.final = position
    return game


def _roll(rng: random.Random) -> tuple[int, int]:
    a, b = rng.randint(1, 6), rng.randint(1, 6)
    return (a, b) if a >= b else (b, a)


def _choose(
    plays: list[Play], position: Position, rules: Rules, rng: random.Random, bot: Bot
) -> Play:
    if bot == "random" or len(plays) == 1:
        return plays[rng.randrange(len(plays))]
    side = position.turn
    opponent = other(side)
    held = rules.held

    def value(play: Play) -> int:
        after = play.position
        made = sum(1 for count in after.men(side).values() if count >= held)
        # pips gained, points made, and (hitting rulesets) pips the opponent loses
        return (
            -after.pips(side) * 2
            + made * 3
            + after.off(side) * 2
            + (after.pips(opponent) - position.pips(opponent))
        )

    scores = [value(play) for play in plays]
    best = max(scores)
    choices = [play for play, s in zip(plays, scores, strict=True) if s == best]
    return choices[rng.randrange(len(choices))]
