"""Write corpus/valid/<ruleset>.jqt: one complete, annotated game for each named ruleset.

The games come from seeded self-play (greedy bot) so that they are legal by construction; the
annotations mark the moments a reader should check by hand (the courier's arrival, a hit, the
first man off, the result) and one variation gives a legal alternative. The tests replay these
files with the engine and check every play against the independent brute-force generator.

Run from the repository root: ``python3 scripts/make_corpus_games.py``.
"""

from __future__ import annotations

import dataclasses
import random
import sys
from pathlib import Path

from jacquet_notation.engine import legal_plays
from jacquet_notation.generate import game_record
from jacquet_notation.notation import write_game
from jacquet_notation.replay import written_play
from jacquet_notation.rules import RULESET_NAMES, Rules
from jacquet_notation.selfplay import play_game

SEED = 1818
OUT = Path("corpus/valid")


def annotated(name: str) -> str:
    rules = Rules.named(name)
    rng = random.Random(f"{SEED}-{name}")
    game = play_game(rules, rng, "greedy")
    bot = "greedy"
    record = game_record(game, 1, SEED, bot)
    record.tags["Event"] = f"Corpus game for the {name} ruleset"
    record.tags["Source"] = f"jacquet-notation self-play, seed '{SEED}-{name}', {bot} bot"
    record.tags["Annotator"] = "jacquet-notation developers"
    record.comments.append(
        f"A complete {name} game by seeded self-play, annotated at the moments to check by hand."
    )
    plays = list(record.plays)
    courier_home = {"white": False, "black": False}
    first_off = {"white": False, "black": False}
    first_hit = False
    shared = False
    for i, turn in enumerate(game.turns):
        side, dice, play = turn
        before = game.start if i == 0 else game.turns[i - 1].play.position.with_turn(side)
        notes: list[str] = []
        if rules.courier and not courier_home[side] and not play.position.in_courier_phase(side):
            courier_home[side] = True
            notes.append("The courier is home: every man may move from now on.")
        if not first_off[side] and play.position.off(side) > before.off(side):
            first_off[side] = True
            notes.append(f"{side.capitalize()} bears off its first man.")
        if not first_hit and any(step.hit for step in play.steps):
            first_hit = True
            notes.append("A hit: the lone man goes to the bar and must re-enter first.")
        tied = 2 * len(game.tied_leads)
        if i < tied and i % 2 == 0:
            notes.append(
                f"Tied lead dice ({dice[0]}-{dice[1]}): each side plays the double, the first "
                "thrower first; then the lead is thrown again."
            )
        if tied and i == tied:
            twice = side == game.turns[i - 1].side
            notes.append(
                f"The lead thrown again: {side.capitalize()} throws higher and plays these dice "
                "as its first roll"
                + (f", so {side.capitalize()} plays twice in a row." if twice else ".")
            )
        if play.opponent_steps and not shared:
            shared = True
            notes.append(
                f"{side.capitalize()} cannot use every die: the opponent plays the rest on its "
                "own men at once, written after + in its own numbering."
            )
        if not play.steps and not play.opponent_steps:
            notes.append("No legal step with this roll: a pass.")
            if rules.every_die_used:
                notes.append("Neither side can use these dice: they are lost.")
        elif not play.steps:
            notes.append(f"{side.capitalize()} can use neither die: the opponent plays them.")
        variations: tuple[tuple, ...] = ()
        if i == 2:
            others = [p for p in legal_plays(before, dice, rules) if p.position != play.position]
            if others:
                alternative = written_play(side, plays[i].turn, dice, others[0])
                alternative = dataclasses.replace(
                    alternative, comments=("Another legal play of the same roll.",)
                )
                variations = ((alternative,),)
        if notes or variations:
            plays[i] = dataclasses.replace(plays[i], comments=tuple(notes), variations=variations)
    last = plays[-1]
    plays[-1] = dataclasses.replace(
        last,
        annotation="!",
        comments=(
            *last.comments,
            f"All men off: {record.result} under {rules.scoring} scoring.",
        ),
    )
    record.plays = plays
    return write_game(record)


def main() -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for name in sys.argv[1:] or RULESET_NAMES:
        (OUT / f"{name}.jqt").write_text(annotated(name), encoding="utf-8")
        print(f"wrote {OUT / name}.jqt")


if __name__ == "__main__":
    main()
