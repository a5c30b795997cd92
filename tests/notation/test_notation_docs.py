"""The examples of docs/notation.md, run: they read, replay, the canonical ones are canonical."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from jacquet_notation.notation import parse_games, write_games
from jacquet_notation.replay import replay

DOC = Path(__file__).resolve().parents[2] / "docs" / "notation.md"
FENCE = re.compile(r"^```(\S*)(?: (\S+))?((?: \S+)*)\n(.*?)^```\n", re.M | re.S)
MATCHES = list(FENCE.finditer(DOC.read_text("utf-8")))
BLOCKS = [(m.group(1), m.group(2), m.group(4)) for m in MATCHES]
EXAMPLES = [(kind, text) for language, kind, text in BLOCKS if language == "jacquet"]
#: examples that show the notation only (``jacquet syntax``, ``jacquet canonical syntax``)
SYNTAX_ONLY = {m.group(4) for m in MATCHES if "syntax" in (m.group(2), *m.group(3).split())}
GAMES = [text for kind, text in EXAMPLES if kind != "error" and text not in SYNTAX_ONLY]
ERRORS = [
    (text, BLOCKS[number + 1][2])
    for number, (language, kind, text) in enumerate(BLOCKS)
    if language == "jacquet" and kind == "error"
]


def test_the_page_has_examples_of_each_kind() -> None:
    kinds = [kind for kind, _ in EXAMPLES]
    assert (
        kinds.count("canonical") >= 2
        and kinds.count(None) + kinds.count("syntax") >= 3
        and len(ERRORS) >= 4
    )
    assert all(BLOCKS[i + 1][0] == "text" for i, b in enumerate(BLOCKS) if b[1] == "error")


@pytest.mark.parametrize(("kind", "text"), [e for e in EXAMPLES if e[0] != "error"])
def test_examples_read_without_error(kind: str | None, text: str) -> None:
    games = parse_games(text)
    assert games and all(not game.errors for game in games), [
        str(e) for g in games for e in g.errors
    ]
    if kind == "canonical":
        assert write_games(games) == text


@pytest.mark.parametrize(("text", "message"), ERRORS)
def test_error_examples_give_the_documented_message(text: str, message: str) -> None:
    (game,) = parse_games(text)
    assert str(game.errors[0]) + "\n" == message


def test_some_examples_are_games() -> None:
    assert GAMES and len(GAMES) < len(EXAMPLES)


@pytest.mark.parametrize("text", GAMES)
def test_examples_replay_without_error(text: str) -> None:
    """An example not marked ``syntax`` is a game the rules accept, result included."""
    games = [replay(record) for record in parse_games(text)]
    assert games and all(not game.errors for game in games), [
        str(e) for g in games for e in g.errors
    ]
