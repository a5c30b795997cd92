"""The reader's inner loop counts a word's offset in a row of single spaces rather than finding
it (notation/reader.py, ``plain``); whatever the spaces, every span and error names the text as
written: each play's span is its text, each step's span its word, an error's column its word."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jacquet_notation.notation import parse_game
from jacquet_notation.notation.words import spaced_turn_number, word_patterns
from jacquet_notation.record import Span, WrittenPlay

pytestmark = pytest.mark.unit

STEPS = ["24/18", "13/9(2)", "8/3*", "6/off", "bar/20", "24/27"]
SPACES = [" ", " ", " ", "  ", "\t", "\n", "\n  ", " \n", "\u00a0", "\x0b"]


def written(lines: list[str], span: Span) -> str:
    assert span.line == span.end_line  # no play or step here runs across lines
    return lines[span.line - 1][span.column - 1 : span.end_column]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(["6-5:", "4-4:", "21:", "5-3:"]),
            st.lists(st.tuples(st.sampled_from(STEPS), st.sampled_from(SPACES)), max_size=4),
            st.sampled_from([*SPACES, " {c} ", "! ", " $2 "]),
        ),
        min_size=1,
        max_size=10,
    ),
    st.sampled_from(["", "   ", '[Event "E"]\n']),
)
def test_spans_and_errors_name_the_words_as_written(
    plays: list[tuple[str, list[tuple[str, str]], str]], start: str
) -> None:
    text = start + "".join(
        dice + " " + "".join(step + space for step, space in steps) + after
        for dice, steps, after in plays
    )
    record = parse_game(text + "\n*")
    lines = (text + "\n*").split("\n")
    found: list[str] = []
    for play in record.plays:
        assert isinstance(play, WrittenPlay)
        if "\n" not in play.text:
            assert written(lines, play.span) == play.text
        found += [written(lines, move.span) for move in play.moves]
    if not record.errors:
        assert found == [step for _, steps, _ in plays for step, _ in steps]
    for error in record.errors:
        if "found 27" in str(error):
            assert error.line is not None and error.column is not None
            assert lines[error.line - 1][error.column - 1 :].startswith("27")


@given(
    st.lists(
        st.sampled_from(
            [
                "12.",
                "12...",
                "12. ...",
                "3.\t...",
                "3.  ...",
                " ",
                "\t",
                "\n",
                ".",
                "6-5:",
                "24/18",
                "...",
            ]
        ),
        max_size=12,
    ).map("".join)
)
def test_a_spaced_turn_number_is_found_as_the_grammar_finds_it(text: str) -> None:
    """:func:`spaced_turn_number` answers a token with no " ..." nor "\\t..." at once: the same
    answer as looking at each of its turn numbers, the grammar's own pattern."""
    slow = any(" " in found or "\t" in found for found in word_patterns().turn_number.findall(text))
    assert spaced_turn_number(text) == slow
