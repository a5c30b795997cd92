"""The reader at any depth and size: nesting past the limit is one error of its game, and memory
stays proportional to the text read (issue 14)."""

from __future__ import annotations

import io
import re
import sys
import tracemalloc
from pathlib import Path

import pytest
from click.testing import CliRunner, Result

from jacquet_notation.cli import main
from jacquet_notation.notation import MAX_PLAYS_TEXT, MAX_VARIATION_DEPTH, parse_games, read_games
from jacquet_notation.notation.grammar import POSSESSIVE_IS_SAFE, RUNS, parser
from jacquet_notation.notation.grammar import possessive as possessive_form
from jacquet_notation.record import WrittenPlay

NEXT_GAME = '[Event "next"]\n\n1. 6-5: 24/18 18/13 5-3: 24/21 21/16\n*\n'


def nested(depth: int) -> str:
    """A game whose first play has ``depth`` variations one inside another, then another game."""
    opening = "(1. 6-5: 24/13 " * depth
    return (
        f'[Event "deep"]\n[White "W"]\n\n1. 6-5: 24/18 18/13 {opening}{")" * depth}'
        f" 5-3: 24/21 21/16\n*\n\n{NEXT_GAME}"
    )


def deepest(plays: list[WrittenPlay]) -> int:
    """How deep the variations of a line go, walked without recursion."""
    stack: list[tuple[tuple[WrittenPlay, ...], int]] = [(tuple(plays), 0)]
    found = 0
    while stack:
        line, depth = stack.pop()
        found = max(found, depth)
        for play in line:
            stack.extend((variation, depth + 1) for variation in play.variations)
    return found


def test_variations_as_deep_as_the_limit_are_read() -> None:
    first, second = parse_games(nested(MAX_VARIATION_DEPTH))
    assert first.errors == [] and second.errors == []
    assert deepest(first.plays) == MAX_VARIATION_DEPTH


@pytest.mark.parametrize("depth", [MAX_VARIATION_DEPTH + 1, 490, 5000])
def test_deeper_variations_are_one_error_of_their_game(depth: int) -> None:
    text = nested(depth)
    first, second = parse_games(text, "deep.jqt")
    assert len(first.errors) == 1
    error = first.errors[0]
    message = error.message.splitlines()[0]
    assert message == (
        f"expected variations nested at most {MAX_VARIATION_DEPTH} deep,"
        f" found a variation {MAX_VARIATION_DEPTH + 1} deep"
    )
    # the error points at the opening parenthesis of the first variation too deep
    line = text.split("\n")[(error.line or 0) - 1]
    assert line[(error.column or 0) - 1] == "("
    assert line[: (error.column or 0) - 1].count("(") == MAX_VARIATION_DEPTH
    assert (first.tags, first.text) == ({"Event": "deep", "White": "W"}, text.split("\n\n[")[0])
    assert second.errors == [] and second.tags == {"Event": "next"} and len(second.plays) == 2


@pytest.mark.parametrize("where", ["after", "before"])
def test_deep_variations_beside_a_syntax_error_are_refused_too(where: str) -> None:
    # The reader goes on after a syntax error, parsing the stretches around it on their own:
    # those stretches are held to the same depth as a whole game.
    deep = "(1. 6-5: 24/13 " * 3000 + ")" * 3000
    slip = "2. 6-5: 24/18--"
    plays = f"{slip} 3. 4-3: {deep}" if where == "after" else f"2. 4-3: 24/20 {deep} 3. {slip[3:]}"
    text = f'[Event "deep"]\n\n1. 6-5: 24/18 18/13 {plays} 4. 4-4: 24/20(2) *\n\n{NEXT_GAME}'
    first, second = parse_games(text, "deep.jqt")
    messages = [error.message.splitlines()[0] for error in first.errors]
    assert len(messages) == 2, messages
    assert any(m.endswith(f"found a variation {MAX_VARIATION_DEPTH + 1} deep") for m in messages)
    assert second.errors == [] and len(second.plays) == 2


def invoke(*args: str) -> Result:
    return CliRunner().invoke(main, list(args))


def assert_clean(result: Result) -> None:
    """Exit 0 or 1, no exception escaped, and every message line is one line of its own."""
    assert result.exit_code in (0, 1), result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert "Traceback" not in result.output


@pytest.mark.parametrize("depth", [MAX_VARIATION_DEPTH, 5000])
def test_every_command_gives_a_clean_result_at_any_depth(tmp_path: Path, depth: int) -> None:
    record = tmp_path / "deep.jqt"
    record.write_text(nested(depth), encoding="utf-8")
    xml = tmp_path / "deep.xml"
    refused = f"found a variation {MAX_VARIATION_DEPTH + 1} deep"
    for args in (
        ("validate", "--jobs", "2", str(record)),
        ("validate", "--jobs", "1", str(record)),
        ("fmt", str(record)),
        ("replay", str(record)),
        ("export", "--xml", str(xml), str(record)),
        ("import-xml", str(xml)),
        ("archive", str(tmp_path / "deep.db"), str(record)),
        ("archive", str(tmp_path / "deep.db"), "--rebuild"),
    ):
        result = invoke(*args)
        assert_clean(result)
        if depth > MAX_VARIATION_DEPTH and args[0] in ("validate", "fmt", "replay", "archive"):
            lines = [line for line in result.output.splitlines() if refused in line]
            assert lines, (args, result.output)
    # the game after the deep one is read and written back by every path
    assert "1. 6-5: 24/18 18/13 5-3: 24/21 21/16" in invoke("fmt", str(record)).output
    assert "1. 6-5: 24/18 18/13 5-3: 24/21 21/16" in invoke("import-xml", str(xml)).output


def peak_of_reading(text: str) -> int:
    """The peak of Python allocations while reading and parsing ``text`` from bytes."""
    data = text.encode("utf-8")
    tracemalloc.start()
    try:
        for record in read_games(io.BytesIO(data), "big.jqt"):
            assert record.errors == []
            del record
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


LONG_TAGS = "".join(f'[Long{n} "{"tag value " * 60_000}"]\n' for n in range(5)) + "\n*\n"
ESCAPED = 'a \\" b \\\\ ' * 20_000  # a \" b \\ ...: quotes and backslashes escaped
ESCAPES = "".join(f'[Long{n} "{ESCAPED}"]\n' for n in range(5)) + "\n*\n"
LONG_COMMENTS = "".join("{" + "words in a comment " * 30_000 + "}\n" for _ in range(5)) + "*\n"


def annotated_turns(count: int) -> str:
    return "".join(
        f"{turn}. 6-5: 24/18 18/13 5-3: 24/21 24/19 {{a note}} ({turn}... 5-3: 24/16)\n"
        for turn in range(1, count + 1)
    )


def plain_turns(count: int) -> str:
    return "".join(f"{turn}. 6-5: 24/18 18/13 5-3: 24/21 24/19\n" for turn in range(1, count + 1))


#: a long game (plays of about 160,000 characters)
LONG_GAME = f'[Event "long"]\n\n{plain_turns(4_000)}*\n'


@pytest.mark.parametrize(
    "text",
    [LONG_TAGS, ESCAPES, LONG_COMMENTS, LONG_GAME],
    ids=["tags", "escaped-tags", "comments", "long-game"],
)
def test_memory_stays_proportional_to_the_text(text: str) -> None:
    # A few MB: the reader may hold a few copies of a game's text and its plays, not a hundred.
    size = len(text.encode("utf-8"))
    assert size > 150_000
    assert peak_of_reading(text) <= 5 * size + 20_000_000


def test_a_game_with_too_many_plays_is_an_error_of_its_own() -> None:
    plays = plain_turns(15_000)  # about 600,000 characters of plays
    assert len(plays) > MAX_PLAYS_TEXT
    text = f'[Event "long"]\n{{{"a long comment " * 50_000}}}\n{plays}*\n\n{NEXT_GAME}'
    first, second = parse_games(text, "long.jqt")
    assert [error.message.splitlines()[0] for error in first.errors] == [
        f"expected at most {MAX_PLAYS_TEXT:,} characters of plays in a game (are the games"
        " separated by results or tags?), found more"
    ]
    error = first.errors[0]
    # counted from the first play, past the tag and the comment: the character after the limit
    lines = text.split("\n")
    offset = sum(len(line) + 1 for line in lines[2 : (error.line or 0) - 1])
    # the two newlines, after the tag and after the comment, count as plays
    assert 2 + offset + (error.column or 0) - 1 == MAX_PLAYS_TEXT
    assert first.tags == {"Event": "long"} and first.text == text.split("\n\n[")[0]
    assert second.errors == [] and len(second.plays) == 2
    assert peak_of_reading(text.replace(plays, "")) > 0  # the rest reads, without the plays


def test_a_long_game_is_refused_in_little_memory() -> None:
    text = f'[Event "long"]\n\n{annotated_turns(40_000)}*\n'
    size = len(text.encode("utf-8"))
    data = text.encode("utf-8")
    tracemalloc.start()
    try:
        (record,) = read_games(io.BytesIO(data), "long.jqt")
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert len(record.errors) == 1
    # a few copies of its lines, not its plays (about 50 bytes for each of their characters)
    assert peak <= 8 * size


CORPUS = Path(__file__).parents[2] / "corpus"


@pytest.mark.parametrize(
    "possessive",
    [
        pytest.param(True, id="possessive"),
        pytest.param(False, id="atomic"),
    ],
)
def test_long_terminals_match_what_the_grammar_says(possessive: bool) -> None:
    # The lexer makes the repetitions of the long terminals possessive, or atomic where this
    # Python's possessive repetitions are wrong (no memory per repetition); at every position
    # of every corpus file they must match what Lark's own expressions match.
    if possessive and not POSSESSIVE_IS_SAFE:
        pytest.skip(f"possessive repetitions are wrong on Python {sys.version.split()[0]}")
    texts = [path.read_text("utf-8") for path in sorted(CORPUS.rglob("*.jqt"))]
    texts += [
        '[A "x \\" y"] [B "\\\\"]\n[C "a"]',
        "1. 6-5: 24/18 18/13 5-3: 24/21 24/19\n2. 4-4: 13/9(2) -- 3. pass 43 : bar/22*/20 ",
        "6-5: 24/13 5-3 24/21 1... 2-2: 6/off(2)* 1.2.3... 4. ...",
        "1. 6-1: 13/7 + 24/23 2. 3-3: 8/5(2) + 6/3(2)",  # a share after " + " (gh-106052)
    ]
    for terminal in parser().terminals:
        if terminal.name not in RUNS:
            continue
        plain = re.compile(terminal.pattern.to_regexp())
        rewritten = re.compile(possessive_form(terminal.pattern.to_regexp(), possessive))
        assert rewritten.pattern != plain.pattern
        for text in texts:
            for at in range(len(text)):
                found, expected = rewritten.match(text, at), plain.match(text, at)
                assert (found and found.end()) == (expected and expected.end()), (text, at)


def test_the_lexer_uses_the_form_this_python_matches_right() -> None:
    # Debian 12's Python 3.11.2 stops a possessive run of turns at a Versailles share's " + ";
    # the reader must read the docs' own example whole on every Python it claims.
    games = parse_games("1. 6-1: 13/7 + 24/23\n")
    assert [error.message for game in games for error in game.errors] == []
    assert (sys.version_info >= (3, 11, 5)) == POSSESSIVE_IS_SAFE
