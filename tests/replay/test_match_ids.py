"""gnubg's Match ID where the match state is known: ``jacquet position POSITIONID:MATCHID`` says
the state it carries, ``replay --ids`` prints the Match ID after each play of a match's game, and
our Match IDs are gnubg's (its Python package, where installed; IDs copied from it always)."""

from __future__ import annotations

import importlib.util
import io
import json
import random
from pathlib import Path

import pytest
from helpers import gnubg_match_id, run

from jacquet_notation.match.states import states_after
from jacquet_notation.notation import read_games
from jacquet_notation.position_ids import MatchState, from_match_id, match_id
from jacquet_notation.replay import replay

ROOT = Path(__file__).resolve().parent.parent.parent
MATCH = ROOT / "tests" / "data" / "sgf" / "gnubg-cases" / "galaxy-dance-then-losses.txt"
needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="gnubg's Python package is not installed"
)


@pytest.mark.integration
def test_position_prints_the_match_state_a_match_id_carries() -> None:
    # gnubg's QYnlABAAGAAE: 7 points, 3-1 to White (X), Black owns the 2-cube, White on roll 3-1
    done = run("position", "4HPwATDgc/ABMA:QYnlABAAGAAE")
    assert done.returncode == 0, done.stderr
    assert "gnubg ID: 4HPwATDgc/ABMA:QYnlABAAGAAE" in done.stdout
    said = "7-point match, score 3-1 (White-Black), cube 2 owned by Black, White on roll with 3-1"
    assert f"Match:    {said}" in done.stdout
    # --json keeps the five keys, the Match ID inside gnubg_id
    answer = json.loads(run("position", "4HPwATDgc/ABMA:QYnlABAAGAAE", "--json").stdout)
    assert answer["gnubg_id"] == "4HPwATDgc/ABMA:QYnlABAAGAAE"
    assert "Match:" not in run("position", "4HPwATDgc/ABMA").stdout  # no state: none said


@pytest.mark.unit
def test_the_states_of_a_crawford_game() -> None:
    first, second = list(read_games(MATCH))[:2]
    assert states_after(replay(first)) is not None
    # game 2 at 2-0 of 3 points, the first at one point short: the Crawford game
    states = states_after(replay(second), (0, 0))
    assert states is not None and len(states) == len(second.plays) + 1
    assert {(s.length, s.score, s.crawford) for s in states} == {(3, (2, 0), True)}
    assert [s.mover for s in states[:3]] == [second.plays[0].side, "black", "white"]
    assert not any(s.doubled for s in states)
    # the match's first game: no Crawford game yet at 0-0
    assert not any(s.crawford for s in states_after(replay(first)) or [])


@pytest.mark.unit
def test_a_double_leaves_the_doubler_to_move_and_the_take_turns_the_cube() -> None:
    text = (
        '[Rules "backgammon"]\n[Match "5"]\n[Score "1-2"]\n\n'
        "1. 3-1: 8/5 6/5 6-4: 24/18 13/9 2. double 2 take 3. 5-2: 13/8 13/11\n"
    )
    (record,) = read_games(io.StringIO(text))
    states = states_after(replay(record))
    assert states is not None
    assert [p.action for p in record.plays] == [None, None, "double", "take", None]
    doubled, taken = states[3], states[4]
    assert (doubled.mover, doubled.doubled, doubled.cube) == ("white", True, 1)
    assert (taken.mover, taken.doubled, taken.cube, taken.owner) == ("white", False, 2, "black")
    # gnubg's Match ID of the double: White (X) doubled, Black to decide
    assert from_match_id(match_id(doubled)) == doubled


@pytest.mark.unit
def test_a_game_without_the_match_has_no_states() -> None:
    (record,) = read_games(io.StringIO('[Rules "backgammon"]\n\n1. 3-1: 8/5 6/5\n'))
    assert states_after(replay(record)) is None


@pytest.mark.integration
def test_replay_ids_prints_the_match_id_after_each_play() -> None:
    done = run("replay", str(MATCH), "--game", "2", "--ids")
    assert done.returncode == 0, done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("gnubg ID:")]
    record = list(read_games(MATCH))[1]
    assert len(lines) == len(record.plays) + 1
    states = states_after(replay(record), (0, 0))
    assert states is not None
    for line, state in zip(lines, states, strict=True):
        assert f":{match_id(state)}   XGID=" in line
    # copied from gnubg: the Crawford game at 2-0 of 3, Black to roll after White's 2-1
    assert lines[1].startswith("gnubg ID: 0HPkATDgc/ABMA:sAFgAAAAEAAE")
    # a game of no match: the board's IDs only
    plain = run("replay", str(ROOT / "corpus/valid/fragments/backgammon-bar.jqt"), "--ids").stdout
    assert "gnubg ID:" in plain and ":" not in plain.split("gnubg ID: ")[1].split()[0]


@needs_gnubg
@pytest.mark.integration
def test_our_match_ids_are_gnubgs() -> None:
    import gnubg  # type: ignore[import-not-found,import-untyped,unused-ignore]  # GPL, optional

    gnubg.command("set jacoby on")  # in a money game; gnubg's Match ID of a match says it off
    draw = random.Random(26)
    for _ in range(300):
        length = draw.choice([0, 1, 3, 5, 7, 11, 25])
        score = (draw.randrange(max(length, 1)), draw.randrange(max(length, 1)))
        score = score if length else (0, 0)
        # high die first, as our records hold a roll (gnubg's posinfo sorts them so)
        high, low = sorted((draw.randint(1, 6), draw.randint(1, 6)), reverse=True)
        rolled = (high, low)
        state = MatchState(
            mover=draw.choice(["white", "black"]),
            cube=1 << draw.randrange(7),
            owner=draw.choice([None, "white", "black"]),
            crawford=bool(length) and draw.random() < 0.3,
            score=score,
            length=length,
            dice=draw.choice([None, rolled]),
            jacoby=not length,
        )
        assert gnubg_match_id(gnubg, state) == match_id(state), state
