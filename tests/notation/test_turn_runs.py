"""The reader's fast path for plain runs of turns (notation/turn_runs.py) reads every text as the
word loop does: the same records, every field, span and error, whether it takes a token, declines
it, or meets a play for the first time or again."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jacquet_notation.notation import parse_game, read_games, turn_runs
from jacquet_notation.record import GameRecord, WrittenPlay

ROOT = Path(__file__).parents[2]
RECORDS = sorted(
    [*ROOT.glob("corpus/*/*.jqt"), *(ROOT / "tests" / "data" / "notation").glob("*.jqt")]
)

pytestmark = pytest.mark.unit


def play_fields(play: WrittenPlay) -> tuple[Any, ...]:
    """Every slot of a play, its moves' spans and its variations' plays included."""
    return (
        type(play),
        *(getattr(play, name) for name in WrittenPlay.__slots__ if name != "variations"),
        [tuple(move) for move in play.moves],
        [tuple(move) for move in play.opponent_moves],
        [[play_fields(alternative) for alternative in line] for line in play.variations],
    )


def record_fields(record: GameRecord) -> tuple[Any, ...]:
    errors = [(str(e), e.file, e.game, e.line, e.column) for e in record.errors]
    plays = [play_fields(play) for play in record.plays]
    return (
        record.tags,
        record.tag_spans,
        record.result,
        record.comments,
        record.span,
        errors,
        plays,
    )


def read_both(read: Any, monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """What ``read()`` gives word by word; checked equal to the fast path's, read twice (the
    first meeting of each play, then the remembered one)."""
    monkeypatch.setattr(turn_runs, "ENABLED", False)
    slow = [record_fields(record) for record in read()]
    monkeypatch.setattr(turn_runs, "ENABLED", True)
    for _ in range(2):
        assert [record_fields(record) for record in read()] == slow
    return slow


def test_the_corpus_reads_alike(monkeypatch: pytest.MonkeyPatch) -> None:
    turn_runs.PLAY_SHAPES.clear()
    for path in RECORDS:
        read_both(lambda path=path: list(read_games(path)), monkeypatch)


def test_the_bench_records_read_alike_and_mostly_fast(monkeypatch: pytest.MonkeyPatch) -> None:
    spec = importlib.util.spec_from_file_location("bench_parse", ROOT / "bench" / "parse.py")
    assert spec is not None and spec.loader is not None
    bench: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    data, _, _ = bench.jacquet_corpus(80, 3)
    taken = []
    original = turn_runs.read_run

    def counted(*args: Any) -> Any:
        ran = original(*args)
        taken.append(ran is not None)
        return ran

    monkeypatch.setattr("jacquet_notation.notation.reader.read_run", counted)
    records = read_both(lambda: list(read_games(io.BytesIO(data))), monkeypatch)
    assert len(records) == 80 and not any(record[5] for record in records)
    assert sum(taken) > 0.8 * len(taken)  # the fast path is taken, not merely declining


WORDS = [
    "1.",
    "2.",
    "3.",
    "1...",
    "2...",
    "2. ...",
    "6-5:",
    "65:",
    "4-4:",
    "3-3 :",
    "?-?:",
    "7-1:",
    "24/18",
    "18/13",
    "24/18/13",
    "13/7*(2)",
    "13/7(2)*",
    "13/7(16)",
    "13*/7",
    "bar/22",
    "6/off",
    "6/OFF",
    "24/27",
    "24/",
    "pass",
    "PASS",
    "--",
    "+",
    "double 2",
    "take",
    "unknown",
    "!?",
    "$3",
    "{a comment}",
    "; a line",
    "(",
    ")",
    "*",
]
SPACES = [" ", " ", " ", "  ", "\n", "\n   ", "\t", "", "\u00a0", "\x0b"]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(st.tuples(st.sampled_from(WORDS), st.sampled_from(SPACES)), max_size=40),
    st.sampled_from(["", '[Position "gAAgP_8AAAIf_4"]\n', '[Dice "omitted"]\n']),
)
def test_random_records_read_alike(words: list[tuple[str, str]], tags: str) -> None:
    text = tags + "".join(word + space for word, space in words)
    with pytest.MonkeyPatch.context() as monkeypatch:
        read_both(lambda: [parse_game(text)], monkeypatch)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["", "", "1.", "2.", "2...", "3.", "3..."]),
            st.sampled_from(["6-5:", "4-4:", "21:", "5-3:"]),
            st.lists(st.sampled_from(["24/18", "13/9(2)", "8/3*", "6/off", "bar/20", "pass"])),
            st.sampled_from([" ", "\n", "  ", "\n  ", " {c} ", "! ", " (1. 6-5: 24/13) "]),
        ),
        min_size=1,
        max_size=12,
    )
)
def test_runs_of_turns_read_alike(turns: list[tuple[str, str, list[str], str]]) -> None:
    # mostly runs the fast path may take: numbers expected or not, plays around comments
    text = "".join(
        (number + " " if number else "") + " ".join([dice, *steps]) + after
        for number, dice, steps, after in turns
    )
    with pytest.MonkeyPatch.context() as monkeypatch:
        read_both(lambda: [parse_game(text + "\n*")], monkeypatch)
