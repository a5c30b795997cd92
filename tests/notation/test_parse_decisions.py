"""The parser's remembered decisions (notation/grammar.py, ``_Decisions``) read every text as
Lark's parser does: the same items, tokens and variations, the same errors, whether the
decisions are fresh, learned from the text itself, or learned from others."""

from __future__ import annotations

import io
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lark import Token
from lark.exceptions import UnexpectedInput

from jacquet_notation.notation import split_games
from jacquet_notation.notation.grammar import Variation, _decisions, lark_parse, parse

ROOT = Path(__file__).parents[2]
RECORDS = sorted(
    [*ROOT.glob("corpus/*/*.jqt"), *(ROOT / "tests" / "data" / "notation").glob("*.jqt")]
)

pytestmark = pytest.mark.unit


def dump(items: list[Any]) -> list[Any]:
    """Everything the reader reads of the parser's items: each token's type, text and place,
    each variation's parentheses, items and depth."""
    out: list[Any] = []
    for item in items:
        if isinstance(item, Token):
            out.append((item.type, str(item), item.start_pos, item.line, item.column))
        else:
            assert isinstance(item, Variation)
            parts = (dump([item.opening]), dump(item.items), dump([item.closing]), item.depth)
            out.append(("variation", *parts))
    return out


def outcome(read: Callable[[str], Any], text: str) -> tuple[Any, ...]:
    try:
        return ("items", dump(read(text)))
    except UnexpectedInput as error:
        allowed = getattr(error, "allowed", None)
        expected = getattr(error, "expected", None)
        return (
            type(error).__name__,
            str(error),
            error.line,
            error.column,
            sorted(allowed) if allowed is not None else None,
            sorted(expected) if expected is not None else None,
        )


def check_alike(text: str) -> tuple[Any, ...]:
    """``parse`` as ``lark_parse`` on ``text``: read once (learning, perhaps), then again."""
    lark = outcome(lark_parse, text)
    assert outcome(parse, text) == lark
    assert outcome(parse, text) == lark
    return lark


def chunks(path: Path) -> list[str]:
    with open(path, "rb") as handle:
        return [chunk.text for chunk in split_games(handle, str(path)) if chunk.syntax == "jqt"]


def test_every_record_of_the_corpus_reads_as_lark_reads_it() -> None:
    texts = [text for path in RECORDS for text in chunks(path)]
    assert len(texts) > 50
    for fresh in (True, False):
        if fresh:
            _decisions.cache_clear()
        outcomes = [check_alike(text) for text in texts]
        assert any(result[0] == "items" for result in outcomes)
        assert any(result[0] != "items" for result in outcomes)  # errors compared too
        assert any("variation" in str(result) for result in outcomes)
    decisions = _decisions()
    assert 0 < len(decisions.steps) < 1_000 and len(decisions.stacks) < 1_000


def test_a_game_remembered_is_not_asked_of_lark(monkeypatch: pytest.MonkeyPatch) -> None:
    text = '[White "A"]\n\n1. 6-5: 24/18 18/13 (1. 6-5: 24/13) 5-3: 24/21 {c} 24/19!\n2-0\n'
    check_alike(text)

    def refused(*args: object, **kwargs: object) -> None:
        raise AssertionError("asked of Lark")

    monkeypatch.setattr("jacquet_notation.notation.grammar.lark_parse", refused)
    monkeypatch.setattr(_decisions(), "learn", refused)
    assert dump(parse(text)) != []
    for cut in (text + "(", text[: text.index("(") + 1], text[: text.index(")")]):
        with pytest.raises(AssertionError, match="asked of Lark"):
            parse(cut)  # an error is always Lark's to say, each step known or not


WORDS = [
    "1.",
    "2.",
    "1...",
    "2...",
    "12. ...",
    "6-5:",
    "65:",
    "4-4:",
    "?-?:",
    "7-1:",
    "24/18",
    "24/18/13",
    "13/7*(2)",
    "bar/22",
    "6/off",
    "24/",
    "pass",
    "--",
    "+",
    "double 2",
    "take",
    "unknown",
    "!?",
    "?",
    "$3",
    "{a comment}",
    "{open",
    "; a line",
    "(",
    ")",
    "2-0",
    "*",
    '[Event "E"]',
    '[Rules "murray"]',
    "]",
]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(st.sampled_from(WORDS), st.sampled_from([" ", " ", " ", "\n", "", "\t"])),
        max_size=40,
    )
)
def test_random_records_read_as_lark_reads_them(words: list[tuple[str, str]]) -> None:
    check_alike("".join(word + space for word, space in words))


def test_the_bench_records_read_as_lark_reads_them() -> None:
    # annotated random games with variations, as bench/parse.py makes them
    import importlib.util

    spec = importlib.util.spec_from_file_location("bench_parse", ROOT / "bench" / "parse.py")
    assert spec is not None and spec.loader is not None
    bench: Any = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    data, _, _ = bench.jacquet_corpus(60, 7)
    _decisions.cache_clear()
    for chunk in split_games(io.BytesIO(data)):
        text = chunk.text
        assert check_alike(text)[0] == "items"
        # cut short where a variation opens or closes, or in the middle: known steps, a stack
        # not accepted at the end
        for cut in (text.find("("), text.find(")"), len(text) // 2):
            if cut > 0:
                check_alike(text[:cut])
                check_alike(text[: cut + 1])


def test_variations_nested_deep_are_read_by_lark_and_leave_the_table_bounded() -> None:
    _decisions.cache_clear()
    for depth in (3, 40, 150):
        text = "1. 6-5: 24/18 " + "(1. 6-5: 24/13 " * depth + ")" * depth + " *\n"
        items = check_alike(text)
        assert items[0] == "items"
        assert f", {depth})" in str(items)  # the outer variation's depth, as Lark's transformer
    decisions = _decisions()
    assert len(decisions.stacks) < 100
    assert max(len(stack) for stack in decisions.stacks) <= decisions.DEEPEST
