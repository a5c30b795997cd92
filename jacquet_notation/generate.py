"""Game records from seeded self-play: the legal games that feed the tests and the benchmarks.

Self-play lives in the engine's world (``selfplay.py``); this module turns its games into records,
the notation's world, so that they can be written in canonical notation and read back.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from .record import GameRecord, WrittenPlay
from .replay import written_play
from .rules import Rules
from .selfplay import Bot, SelfPlayGame, play_game


def game_record(game: SelfPlayGame, number: int, seed: int, bot: str) -> GameRecord:
    """A record of one self-play game, tagged so that it says where it came from."""
    plays: list[WrittenPlay] = []
    turn = 1
    previous = None
    for ply, (side, dice, play) in enumerate(game.turns):
        # a new turn at White's play, or at Black's second in a row (after a tied lead)
        if ply > 0 and (side == "white" or side == previous):
            turn += 1
        previous = side
        plays.append(written_play(side, turn, dice, play))
    if game.winner is None:
        result = "*"
    else:
        result = f"{game.points}-0" if game.winner == "white" else f"0-{game.points}"
    tags = {
        "Event": f"Self-play, seed {seed}",
        "Site": "jacquet generate",
        "Date": "????.??.??",
        "Round": str(number),
        "White": f"{bot} bot A",
        "Black": f"{bot} bot B",
        "Result": result,
        "Rules": game.rules.name,
    }
    # an option set apart from the named ruleset (every-die with jacquet, say) is a tag, so that
    # the record is replayed under the rules it was played by
    named = Rules.named(game.rules.name).options()
    for option, value in game.rules.options().items():
        if option != "ruleset" and named.get(option) != value:
            tags[option.capitalize()] = value
    return GameRecord(tags=tags, plays=plays, result=result, index=number)


def generate_records(
    games: int, seed: int, rules: Rules, bot: Bot = "random"
) -> Iterator[GameRecord]:
    """``games`` records of legal self-play, the same for the same arguments."""
    rng = random.Random(seed)
    for number in range(1, games + 1):
        yield game_record(play_game(rules, rng, bot), number, seed, bot)
