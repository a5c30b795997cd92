"""The desk's live ruleset line in Chromium: as a record is typed, which named rulesets its
plays fit so far, and where the others are first broken (``jacquet infer``), the line the page
shows being the server's own inference of the text typed."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import corpus_archive

from jacquet_notation.browse.desk import DESK_PATH
from jacquet_notation.notation import parse_game
from jacquet_notation.replay import infer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TAGS = '[White "Ann"]\n[Black "Bob"]\n\n'
FIRST = "1. 6-5: 24/13 5-4: 24/15"
#: White's second play moves a man off the 24-point while its courier is on 7: only backgammon
#: (no courier) allows it
SECOND = "2. 6-3: 13/7 24/21"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus_archive(tmp_path_factory.mktemp("desk-rules"), games=2)


@pytest.fixture(scope="module")
def serve_options() -> list[str]:
    return ["--workers", "1"]


@pytest.fixture
def page(page: Any, server: str) -> Any:
    page.goto(f"{server}{DESK_PATH}")
    return page


def shown(page: Any, expected: str) -> None:
    page.wait_for_function(
        "text => document.querySelector('#jacquet-desk-consistent').textContent === text",
        arg=expected,
        timeout=5000,
    )


def test_the_ruleset_line_follows_the_record_as_it_is_typed(page: Any) -> None:
    text = page.locator("#jacquet-desk-text")
    text.fill("")
    text.focus()
    page.keyboard.type(TAGS + FIRST, delay=2)
    so_far = infer(parse_game(TAGS + FIRST))
    assert "jacquet" in so_far.consistent and "backgammon" in so_far.consistent
    shown(page, so_far.sentence())
    line = page.locator("#jacquet-desk-consistent").inner_text()
    assert line.startswith("consistent with jacquet, ")
    assert "(jacquet and spanish told apart by the result alone)" in line
    # one more play, and every ruleset with a courier is excluded at it, at its move
    page.keyboard.type("\n" + SECOND, delay=2)
    then = infer(parse_game(TAGS + FIRST + "\n" + SECOND))
    assert then.consistent == ("backgammon",)
    shown(page, then.sentence())
    line = page.locator("#jacquet-desk-consistent").inner_text()
    assert line.startswith(
        "consistent with backgammon; jacquet excluded at ply 3 (line 5, column 14): "
    )
    assert "the courier (on 7) must reach the home table" in line
