"""The transcriber's desk in Chromium: ``jacquet serve`` as a subprocess on a real archive, the
page typed into as a person would, its endpoint asked by the page's own script."""

from __future__ import annotations

import re
import time
from pathlib import Path
from typing import Any

import pytest
from helpers import corpus_archive

from jacquet_notation.browse.desk import CHECK_PATH, DESK_PATH
from jacquet_notation.engine import legal_plays
from jacquet_notation.notation import parse_game, parse_games
from jacquet_notation.position import Position
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TAGS = '[White "Ann"]\n[Black "Bob"]\n\n'


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus_archive(tmp_path_factory.mktemp("desk-browser"), games=2)


@pytest.fixture(scope="module")
def serve_options() -> list[str]:
    return ["--workers", "1"]


@pytest.fixture
def page_options() -> dict[str, Any]:
    return {"viewport": {"width": 1400, "height": 1000}, "accept_downloads": True}


@pytest.fixture
def page(page: Any, server: str) -> Any:
    """The shared fresh page (conftest.py's), open on the desk."""
    page.goto(f"{server}{DESK_PATH}")
    return page


def record_lines() -> list[str]:
    """A record's lines whose fourth play (line 6, Black from its empty 6-point) is illegal."""
    first = TAGS + "1. 6-5: 24/13 6-1: 24/17\n"
    third = legal_plays(replay(parse_game(first)).final, (4, 3), Rules.named("jacquet"))[0]
    return [*first.splitlines(), f"2. 4-3: {third.notation()}", "2... 5-2: 6/1 6/4"]


def test_an_illegal_fourth_play_is_shown_beside_its_line_within_a_second(page: Any) -> None:
    text = page.locator("#jacquet-desk-text")
    text.fill("")
    text.focus()
    lines = record_lines()
    page.keyboard.type("\n".join(lines), delay=5)
    typed = time.monotonic()
    note = page.locator('#jacquet-desk-notes li.error[data-line="6"]')
    note.wait_for(state="visible", timeout=1000)
    assert time.monotonic() - typed < 1.0
    assert "6" in note.inner_text() and note.inner_text().startswith("◀")
    # beside that line and no other: the lines before it are clean
    assert page.locator("#jacquet-desk-notes li.error").count() == 1
    assert page.locator("#jacquet-desk-notes li").count() == len(lines)
    # the note sits at the height of its line in the text
    box = text.bounding_box()
    line_height = 20
    assert abs(note.bounding_box()["y"] - (box["y"] + 6 + 5 * line_height)) < 4
    # the board shows the position where the game stopped, which is the replay's
    game = replay(parse_game("\n".join(lines)))
    holder = page.locator("#jacquet-desk-board")
    page.wait_for_function(
        "key => document.querySelector('#jacquet-desk-board svg')"
        "?.getAttribute('data-key') === key",
        arg=game.plies[3].before.key(),
        timeout=5000,
    )
    assert holder.get_attribute("data-key") == game.plies[3].before.key()


def test_the_caption_names_the_side_white_and_says_why_a_play_is_not_played(page: Any) -> None:
    text = page.locator("#jacquet-desk-text")
    caption = page.locator("#jacquet-desk-caption")
    # the cursor on a legal play: the side as the project writes it
    text.fill(TAGS + "1. 6-5: 24/13 6-1: 24/17\n2. 4-3: 24/20 24/21")
    page.wait_for_function(
        "() => document.querySelector('#jacquet-desk-caption').textContent.startsWith('Turn 2')",
        timeout=5000,
    )
    assert caption.inner_text().startswith("Turn 2, White 4-3")
    # the cursor on a play after an illegal one: not played, and the reason is a sentence
    lines = record_lines()
    text.fill("\n".join([*lines, "3. 6-5: 13/7 13/8"]))
    page.wait_for_function(
        "() => document.querySelector('#jacquet-desk-caption').textContent.startsWith('Turn 3')",
        timeout=5000,
    )
    assert caption.inner_text() == (
        "Turn 3, White 6-5: 13/7 13/8 — not played: an earlier play could not be made"
    )


def test_clicking_a_legal_play_inserts_it(page: Any) -> None:
    text = page.locator("#jacquet-desk-text")
    text.fill("")
    text.focus()
    page.keyboard.type(TAGS + "1. 6-5: ", delay=5)
    buttons = page.locator("#jacquet-desk-legal button")
    buttons.first.wait_for(timeout=5000)
    expected = sorted({play.notation() for play in legal_plays(Position.start(), (6, 5))})
    assert [buttons.nth(i).inner_text() for i in range(buttons.count())] == expected
    choice = buttons.nth(buttons.count() - 1).inner_text()
    buttons.nth(buttons.count() - 1).click()
    assert text.input_value().endswith(f"1. 6-5: {choice}")
    # the record is checked again and is now clean
    page.wait_for_function(
        "() => document.getElementById('jacquet-desk-status').textContent.startsWith('No errors')",
        timeout=5000,
    )
    assert page.locator("#jacquet-desk-notes li.error").count() == 0
    assert replay(parse_game(text.input_value())).is_valid


def _open_cleared_setup(page: Any) -> None:
    """Open the setting board and clear it, waiting until no man is drawn."""
    page.locator("#jacquet-desk-setup summary").click()
    page.locator("#jacquet-desk-setup-board svg").wait_for(timeout=5000)
    page.locator("#jacquet-desk-clear").click()
    page.wait_for_function(
        "() => document.querySelectorAll('#jacquet-desk-setup-board svg g.stack').length === 0",
        timeout=5000,
    )


def _click_point(page: Any, point: int, times: int = 1) -> None:
    """Click the point ``point`` (White's numbering) of the setting board, by its label."""
    labels = page.locator("#jacquet-desk-setup-board svg > text")
    label = labels.filter(has_text=re.compile(rf"^{point}$")).first
    page.locator("#jacquet-desk-setup-board").scroll_into_view_if_needed()
    box = label.bounding_box()
    # into the point's triangle: below the labels of 13-24, above those of 1-12
    dy = 60 if point >= 13 else -60
    for _ in range(times):
        before = page.locator("#jacquet-desk-setup-tag").inner_text()
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2 + dy)
        page.wait_for_function(
            "before => document.getElementById('jacquet-desk-setup-tag').textContent !== before",
            arg=before,
            timeout=5000,
        )


def test_men_clicked_onto_a_board_make_a_position_tag(page: Any) -> None:
    page.locator("#jacquet-desk-text").fill(TAGS + "*\n")
    _open_cleared_setup(page)
    _click_point(page, 6, 3)
    _click_point(page, 5, 2)
    page.locator('input[name="jacquet-desk-men"][value="black"]').check()
    _click_point(page, 18, 2)
    _click_point(page, 13, 1)
    page.locator('input[name="jacquet-desk-men"][value="remove"]').check()
    _click_point(page, 5, 1)
    page.locator("#jacquet-desk-turn").select_option("black")
    page.wait_for_function(
        "() => document.getElementById('jacquet-desk-setup-status')"
        ".textContent.includes('black to move')",
        timeout=5000,
    )
    write = page.locator("#jacquet-desk-write")
    assert write.is_enabled()
    write.click()
    record = page.locator("#jacquet-desk-text").input_value()
    # the tag goes after the others, before the plays
    assert record.startswith(TAGS.rstrip("\n") + '\n[Position "'), record
    assert record.endswith('"]\n\n*\n')
    found = re.search(r'^\[Position "([A-Za-z0-9_-]+)"\]$', record, re.MULTILINE)
    assert found, record
    position = Position.from_key(found.group(1))
    assert position.turn == "black"
    assert position.men("white") == {6: 3, 5: 1} and position.off("white") == 11
    # Black's men went onto White's 18 and 13: its own 6 and 1
    assert position.men("black") == {6: 2, 1: 1} and position.off("black") == 12
    # the record with its tag reads and replays cleanly (once the reader starts from the tag,
    # this checks the position against the rules), and the page checks it again
    assert parse_game(record).tags["Position"] == found.group(1)
    assert replay(parse_game(record)).is_valid
    page.wait_for_function(
        "() => document.getElementById('jacquet-desk-status').textContent.startsWith('No errors')",
        timeout=5000,
    )


def test_a_position_the_rules_forbid_cannot_be_written(page: Any) -> None:
    _open_cleared_setup(page)
    _click_point(page, 13)
    assert "13-point" in page.locator("#jacquet-desk-setup-status").inner_text()
    assert page.locator("#jacquet-desk-write").is_disabled()


def test_the_record_downloads_as_jqt(page: Any, tmp_path: Path) -> None:
    text = page.locator("#jacquet-desk-text")
    text.fill(TAGS + "1. 6-5: 24/13 *")
    with page.expect_download() as waiting:
        page.locator("#jacquet-desk-download").click()
    download = waiting.value
    assert download.suggested_filename.endswith(".jqt")
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    assert saved.read_text(encoding="utf-8") == TAGS + "1. 6-5: 24/13 *\n"


def test_the_endpoint_refuses_a_10_mb_body_and_a_missing_token(page: Any) -> None:
    statuses = page.evaluate(
        """async (url) => {
            const token = document.querySelector('meta[name="jacquet-csrftoken"]').content;
            const json = {"content-type": "application/json"};
            const big = JSON.stringify({text: "x".repeat(10 * 1024 * 1024)});
            const huge = await fetch(url, {method: "POST", body: big,
                headers: {...json, "x-csrftoken": token}});
            const bare = await fetch(url, {method: "POST", body: '{"text": ""}', headers: json});
            const good = await fetch(url, {method: "POST", body: '{"text": ""}',
                headers: {...json, "x-csrftoken": token}});
            return [huge.status, bare.status, good.status];
        }""",
        CHECK_PATH,
    )
    assert statuses == [413, 403, 200]


def _offset(text: str, line: int, column: int) -> int:
    """The index in ``text`` of a 1-based line and column."""
    return sum(len(row) + 1 for row in text.split("\n")[: line - 1]) + column - 1


def test_a_pasted_match_file_shows_the_game_at_the_cursor(page: Any) -> None:
    matches = Path(__file__).resolve().parents[2] / "corpus" / "valid" / "backgammon-mat"
    match = (matches / "studio-solnze-lasse.txt").read_text(encoding="utf-8")
    games = [replay(record) for record in parse_games(match)]
    assert len(games) >= 2
    text = page.locator("#jacquet-desk-text")
    text.fill(match)  # pasted whole
    for game in (games[0], games[-1], games[0]):
        span = game.plies[0].written.span
        # the cursor put inside the game's first play, as a click there puts it
        text.evaluate(
            "(area, at) => { area.focus(); area.setSelectionRange(at, at);"
            " area.dispatchEvent(new Event('click')); }",
            _offset(match, span.line, span.column + 1),
        )
        after = game.plies[0].after
        assert after is not None
        page.wait_for_function(
            "key => document.querySelector('#jacquet-desk-board svg')"
            "?.getAttribute('data-key') === key",
            arg=after.key(),
            timeout=5000,
        )


def test_a_pasted_xgid_sets_the_position_and_its_tag(page: Any) -> None:
    """The set position's "paste an ID": an XGID with Black on roll sets the board, the side to
    move and the tag's key, read on the server by position_specs."""
    page.locator("#jacquet-desk-setup summary").click()
    page.locator("#jacquet-desk-setup-board svg").wait_for(timeout=5000)
    page.select_option("#jacquet-desk-rules", "backgammon")
    page.fill("#jacquet-desk-spec", "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:0:10")
    page.locator("#jacquet-desk-spec-set").click()
    key = Position.start(Rules.named("backgammon")).with_turn("black").key()
    page.wait_for_function(
        "key => document.getElementById('jacquet-desk-setup-tag').textContent.includes(key)",
        arg=key,
        timeout=5000,
    )
    assert page.locator("#jacquet-desk-turn").input_value() == "black"
    page.fill("#jacquet-desk-spec", "XGID=nonsense")
    page.locator("#jacquet-desk-spec-set").click()
    page.wait_for_function(
        "() => document.getElementById('jacquet-desk-setup-status').className === 'failed'",
        timeout=5000,
    )
    assert "not an XGID" in page.locator("#jacquet-desk-setup-status").inner_text()
