"""The quick path against the careful one on plays that are wrong: seeded self-play under
every named ruleset, one play in a game changed (a step's point moved, a step dropped or added,
a hit mark turned, the dice changed), each game written and read back. Whatever the walk makes
of the changed play (accepted, refused, settled by its marks) must be what the engine's careful
path alone (``validate_steps``, or ``validate_turn`` where every die must be used, never
shown the quick path's answer) makes of the same moves from the same position, and any play
``accept_quickly`` accepts must be the careful path's: the quick path may never accept a play
the rules refuse, nor make another play of it. (``validate_play`` tries the quick path first,
so it cannot be the reference here.)"""

from __future__ import annotations

import dataclasses
import random

import pytest

from jacquet_notation.board_terms import BAR
from jacquet_notation.engine import Play, winner
from jacquet_notation.engine.facts import facts_of
from jacquet_notation.engine.plays import dice_steps
from jacquet_notation.engine.quick import accept_quickly
from jacquet_notation.engine.shares import validate_turn
from jacquet_notation.engine.validate import validate_steps
from jacquet_notation.errors import AmbiguousPlayError, IllegalPlayError
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, write_game
from jacquet_notation.position import Position
from jacquet_notation.record import GameRecord, Move, WrittenPlay
from jacquet_notation.replay import replay
from jacquet_notation.replay.marks import by_marks
from jacquet_notation.rules import RULESET_NAMES, Rules

pytestmark = pytest.mark.unit


def _changed(play: WrittenPlay, chance: random.Random) -> WrittenPlay:
    """``play`` with one thing changed, as a transcriber's slip would change it."""
    # kinds: 0 the end moved, 1 the start moved, 2 a step dropped, 3 the hit mark turned, 4 the
    # dice changed, 5 and 6 the same die from a point near or anywhere
    moves = list(play.moves)
    kind = chance.randrange(7)
    at = chance.randrange(len(moves))
    move = moves[at]
    distance = move.start - move.end
    if kind >= 5:
        # the same die from another point: the slips the dice alone cannot catch (a point held,
        # no man there, the courier, a man still out while bearing off)
        shift = chance.choice((-3, -2, -1, 1, 2, 3)) if kind == 5 else chance.randrange(-24, 25)
        start = min(BAR, max(distance, move.start + shift))
        moves[at] = move._replace(start=start, end=start - distance)
    elif kind == 0:
        moves[at] = move._replace(end=min(BAR, max(0, move.end + chance.choice((-2, -1, 1, 2)))))
    elif kind == 1:
        moves[at] = move._replace(
            start=min(BAR, max(0, move.start + chance.choice((-2, -1, 1, 2))))
        )
    elif kind == 2 and len(moves) > 1:
        del moves[at]
    elif kind == 3:
        moves[at] = move._replace(hit=not move.hit)
    else:
        high, low = play.dice or (1, 1)
        dice = chance.choice([(a, b) for a in range(1, 7) for b in range(1, a + 1)])
        if dice == (high, low):
            moves.append(Move(move.end, max(0, move.end - 1)))
        return dataclasses.replace(play, dice=dice, moves=tuple(moves))
    return dataclasses.replace(play, moves=tuple(moves))


def _careful(
    position: Position,
    dice: tuple[int, int],
    moves: list[tuple[int, int]],
    shared: list[tuple[int, int]],
    rules: Rules,
) -> Play:
    """The careful path's play of ``moves``, as validate_play reaches it with no quick answer."""
    if shared or rules.every_die_used:
        return validate_turn(position, dice, moves, rules, shared, None)
    if winner(position) is not None:
        raise IllegalPlayError("the game is over")
    return validate_steps(position, dice_steps(dice, rules), moves, rules)


def _judged_alike(record: GameRecord, rules: Rules, ply_index: int) -> str:
    """How the walk and validate_play judge the ``ply_index``-th ply: 'accepted' or 'refused'."""
    read = parse_game(write_game(record))
    assert read.errors == [], read.errors
    game = replay(read, rules)
    ply = game.plies[ply_index]
    written = ply.written
    assert written.dice is not None
    pairs, shared = written.moves_as_pairs(), written.opponent_moves_as_pairs()
    quick = accept_quickly(ply.before, written.dice, pairs, game.rules)
    high, low = written.dice
    every_die = 2 if high != low else facts_of(game.rules).double_steps or high
    if quick is not None and (shared or (rules.every_die_used and len(quick.steps) < every_die)):
        quick = None  # not the quick path's answer: validate_play weighs the share carefully
    try:
        expected = _careful(ply.before, written.dice, pairs, list(shared), game.rules)
    except AmbiguousPlayError:
        assert quick is None, (rules.name, written.text)
        if ply.error is None:
            assert ply.play == by_marks(written, ply.before, game.rules), written.text
            return "accepted"
        return "refused"
    except IllegalPlayError:
        assert quick is None, (rules.name, written.text)
        assert ply.error is not None, (rules.name, written.text)
        return "refused"
    if quick is not None:
        assert quick == expected, (rules.name, written.text)
    assert ply.error is None, (rules.name, written.text, str(ply.error))
    if ply.note is None:
        assert ply.play == expected, (rules.name, written.text)
    return "accepted"


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_a_changed_play_is_judged_by_the_walk_as_by_the_door(name: str) -> None:
    rules = Rules.named(name)
    chance = random.Random(f"mutated-{name}")
    verdicts: dict[str, int] = {"accepted": 0, "refused": 0}
    for record in generate_records(12, 11, rules):
        playable = [
            index
            for index, play in enumerate(record.plays)
            if play.dice is not None and play.moves and play.action is None
        ]
        for index in chance.sample(playable, min(8, len(playable))):
            plays = [*record.plays[:index], _changed(record.plays[index], chance)]
            tags = {tag: value for tag, value in record.tags.items() if tag != "Result"}
            changed = dataclasses.replace(record, tags=tags, plays=plays, result="*")
            verdicts[_judged_alike(changed, rules, index)] += 1
    # the changes reach both answers, so that both halves of the comparison are exercised
    assert verdicts["refused"] > 30 and verdicts["accepted"] > 5, verdicts
