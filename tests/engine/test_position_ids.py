"""gnubg's Position ID and Match ID and XG's XGID (position_ids.py) and the one reader of a
SPEC (position_specs.py): IDs copied from gnubg as fixtures that always run, and, where gnubg's
Python package is installed, random positions written by us and read by gnubg, and back."""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jacquet_notation.errors import PositionError
from jacquet_notation.position import MEN, Position, Side
from jacquet_notation.position_ids import (
    MatchState,
    from_gnubg_id,
    from_match_id,
    from_xgid,
    gnubg_id,
    match_id,
    xgid,
)
from jacquet_notation.position_specs import read_spec
from jacquet_notation.rules import Rules

BACKGAMMON = Rules.named("backgammon")
START = Position.start(BACKGAMMON)
HAS_GNUBG = importlib.util.find_spec("gnubg") is not None
needs_gnubg = pytest.mark.skipif(not HAS_GNUBG, reason="gnubg's Python package is not installed")


def _counts(men: dict[int, int]) -> list[int]:
    counts = [0] * 26
    for location, number in men.items():
        counts[location] = number
    counts[0] = MEN - sum(counts)
    return counts


#: White on the bar with two borne off, Black with a blot on its 3-point
HIT = (
    _counts({25: 1, 6: 5, 8: 3, 13: 4}),
    _counts({24: 2, 13: 5, 8: 3, 6: 4, 3: 1}),
)


# -- fixtures copied from gnubg (1.08) -------------------------------------------------------


def test_the_start_is_gnubgs_and_xgs_start() -> None:
    assert gnubg_id(START) == "4HPwATDgc/ABMA"
    assert xgid(START) == "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"
    assert from_gnubg_id("4HPwATDgc/ABMA") == START
    assert from_gnubg_id("4HPwATDgc/ABMA", "black") == START.with_turn("black")


@pytest.mark.parametrize(
    ("turn", "expected"), [("white", "xHPwATDgc/AAEA"), ("black", "4HPwABDxHHwADA")]
)
def test_a_position_with_a_man_on_the_bar_is_gnubgs_id(turn: Side, expected: str) -> None:
    position = Position.from_counts(*HIT, turn, "opposite")
    assert gnubg_id(position) == expected
    assert from_gnubg_id(expected, turn) == position


def test_match_ids_copied_from_gnubg() -> None:
    # a 7-point match, White (gnubg's X) on roll with 3-1, 3 to 1 up, Black owning a 2-cube
    state = MatchState("white", cube=2, owner="black", score=(3, 1), length=7, dice=(3, 1))
    assert match_id(state) == "QYnlABAAGAAE"
    assert from_match_id("QYnlABAAGAAE") == state
    # a money game, centred cube, to roll, without and with Jacoby
    assert match_id(MatchState()) == "cAkAAAAAAAAE"
    assert match_id(MatchState(jacoby=True)) == "cAkAAAAAAAAA"
    # a 5-point match at its start
    assert match_id(MatchState(length=5)) == "cAmgAAAAAAAE"


def test_an_xgid_says_the_match_beside_the_board() -> None:
    position = Position.from_counts(*HIT, "black", "opposite")
    state = MatchState("black", cube=2, owner="black", score=(3, 1), length=7, dice=(3, 1))
    text = xgid(position, state)
    assert text == "XGID=-b----E-C---eD---c-d--a--A:1:-1:-1:31:3:1:0:7:10"
    assert from_xgid(text) == (position, state)


@pytest.mark.parametrize(
    ("spec", "message"),
    [
        ("4HPwATDgc/ABM", "no position"),
        ("4HPwATDgc/ABMA:QYnlABAAGAA", "no position"),
        ("////////////8A", "runs out of bits|men"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0", "is not an XGID"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:2:00:0:0:0:0:10", "side on roll"),
        ("XGID=-b----E-C---eE---c-e----B-:0:0:1:71:0:0:0:0:10", "no roll"),
        ("XGID=-b----E-C---eE---c-e----Z-:0:0:1:00:0:0:0:0:10", "is no men"),
        ("XGID=-b----E-C---eE---c-e----BB:0:0:1:00:0:0:0:0:10", "17 men"),
        ("{not json", "not JSON"),
        ("gibberish", "no position"),
    ],
)
def test_malformed_ids_are_refused_saying_why(spec: str, message: str) -> None:
    with pytest.raises(PositionError, match=message):
        read_spec(spec, BACKGAMMON)


def test_a_jacquet_position_has_no_ids_and_its_rules_read_none() -> None:
    with pytest.raises(PositionError, match="only its key"):
        gnubg_id(Position.start())
    with pytest.raises(PositionError, match="direction=same"):
        read_spec("4HPwATDgc/ABMA", Rules.named("jacquet"))


def test_every_form_of_spec_gives_the_same_position() -> None:
    position = Position.from_counts(*HIT, "black", "opposite")
    forms = {
        "key": position.key(),
        "json": json.dumps(position.to_json()),
        "text": "white bar:1 6:5 8:3 13:4 off:2; black 24:2 13:5 8:3 6:4 3:1; black to move",
        "gnubg": gnubg_id(position) + ":" + match_id(MatchState("black")),
        "xgid": xgid(position),
    }
    for form, spec in forms.items():
        read = read_spec(spec, BACKGAMMON)
        assert (read.form, read.position) == (form, position)
    assert read_spec(gnubg_id(position), BACKGAMMON, "black").position == position


# -- random positions --------------------------------------------------------------------------


@st.composite
def backgammon_positions(draw: st.DrawFn) -> Position:
    """Any board of backgammon: each side's 15 men anywhere (off and the bar too), never both
    sides on one point."""
    white = [0] * 26
    for _ in range(MEN):
        white[draw(st.integers(0, 25))] += 1
    free = [q for q in range(26) if q in (0, 25) or not white[25 - q]]
    black = [0] * 26
    for _ in range(MEN):
        black[draw(st.sampled_from(free))] += 1
    turn: Side = draw(st.sampled_from(["white", "black"]))
    return Position.from_counts(white, black, turn, "opposite")


match_states = st.builds(
    MatchState,
    mover=st.sampled_from(["white", "black"]),
    cube=st.sampled_from([1, 2, 4, 64]),
    owner=st.sampled_from([None, "white", "black"]),
    score=st.tuples(st.integers(0, 20), st.integers(0, 20)),
    length=st.integers(0, 25),
    dice=st.one_of(st.none(), st.tuples(st.integers(1, 6), st.integers(1, 6))),
)


@given(backgammon_positions(), match_states)
def test_ids_read_back_are_the_same_position(position: Position, state: MatchState) -> None:
    assert from_gnubg_id(gnubg_id(position), position.turn) == position
    state = MatchState(**{**_fields(state), "mover": position.turn})
    assert from_match_id(match_id(state)) == state
    assert read_spec(f"{gnubg_id(position)}:{match_id(state)}", BACKGAMMON).position == position
    again, read_state = from_xgid(xgid(position, state))
    assert again == position
    if state.length:
        assert read_state == state


def _fields(state: MatchState) -> dict[str, Any]:
    return {name: getattr(state, name) for name in MatchState.__slots__}


#: run by a gnubg of its own (HOME a fresh folder: gnubg keeps settings in ~/.gnubg, which
#: gnubgs run at once share and abort on): each XGID set, then gnubg's Position ID and board
GNUBG_READS = """
import json, sys
import gnubg
gnubg.command("set player 0 human")  # else gnubg, on roll after the opening, plays on its own
gnubg.command("new match 7")
answers = []
for text in json.loads(open(sys.argv[1], encoding="utf-8").read()):
    gnubg.command("set xgid " + text)
    answers.append([gnubg.positionid(), gnubg.board(), gnubg.cubeinfo()["score"]])
sys.stderr.write("ANSWER" + json.dumps(answers))
"""


def _gnubg(xgids: list[str], home: Path) -> list[Any]:
    asked = home / "xgids.json"
    asked.write_text(json.dumps(xgids), encoding="utf-8")
    done = subprocess.run(
        [sys.executable, "-c", GNUBG_READS, str(asked)],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env={**os.environ, "HOME": str(home)},
        timeout=300,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    answers: list[Any] = json.loads(done.stderr.rpartition("ANSWER")[2])
    return answers


def _gnubg_board(position: Position) -> list[list[int]]:
    """``gnubg.board()``'s form: the side not on roll, then the side on roll, 25 locations."""
    waiting = position.counts("white" if position.turn == "black" else "black")
    mover = position.counts(position.turn)
    return [list(waiting[1:26]), list(mover[1:26])]


@needs_gnubg
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.large_base_example])
@given(positions=st.lists(backgammon_positions(), min_size=60, max_size=60))
def test_our_gnubg_id_is_gnubgs(positions: list[Position]) -> None:
    import gnubg  # type: ignore[import-not-found,import-untyped,unused-ignore]  # GPL, optional

    for position in positions:
        ours = gnubg_id(position)
        board = _gnubg_board(position)
        assert gnubg.positionid(board) == ours
        assert [list(side) for side in gnubg.positionfromid(ours)] == board


@needs_gnubg
@settings(max_examples=3, deadline=None, suppress_health_check=[HealthCheck.large_base_example])
@given(
    positions=st.lists(backgammon_positions(), min_size=60, max_size=60),
    states=st.lists(match_states, min_size=60, max_size=60),
)
def test_gnubg_reads_our_xgid_as_the_same_board_and_side_on_roll(
    positions: list[Position], states: list[MatchState]
) -> None:
    fixed = [
        MatchState(**{**_fields(state), "length": max(*state.score, state.length - 1) + 1})
        for state in states
    ]
    with tempfile.TemporaryDirectory() as home:
        answers = _gnubg([xgid(p, s) for p, s in zip(positions, fixed, strict=True)], Path(home))
    for position, state, (theirs, board, score) in zip(positions, fixed, answers, strict=True):
        assert theirs == gnubg_id(position), xgid(position, state)
        assert board == _gnubg_board(position)
        # gnubg makes the side on roll its X (player 1): its score is the mover's
        assert score[1] == state.score_of(position.turn)
