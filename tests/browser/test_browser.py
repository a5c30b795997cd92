"""The archive in a real browser: ``jacquet serve`` as a subprocess, Chromium driven by Playwright.

Screenshots go to ``artifacts/`` (kept by CI as test artefacts). Without Chromium the tests are
skipped on a workstation but fail under CI, where ``scripts/test.sh`` installs it.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import EVIL, TRICKY, corpus_archive, query

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus_archive(tmp_path_factory.mktemp("browse"))


def shot(page: Any, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def board_key(page: Any) -> str:
    return str(page.locator(".jacquet-board-holder svg").get_attribute("data-key"))


def test_step_through_a_game_with_the_keyboard(server: str, archive: Path, page: Any) -> None:
    game = query(archive, "select * from games where status = 'valid' order by plies desc")[0]
    turns = query(archive, "select * from turns where game_id = ? order by ply", [game["id"]])
    page.goto(f"{server}/archive/-/game/{game['id']}")
    assert board_key(page) == turns[0]["key_before"]
    shot(page, "game-start")
    for ply in (1, 2, 3):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "key => document.querySelector('.jacquet-board-holder svg')"
            ".getAttribute('data-key') === key",
            arg=turns[ply - 1]["key_after"],
        )
        assert page.url.endswith(f"?ply={ply}#board")
        assert turns[ply - 1]["dice"] in page.locator(".jacquet-caption").inner_text()
    assert page.locator(".jacquet-sheet-ply.current").get_attribute("data-ply") == "3"
    shot(page, "game-ply-3")
    page.keyboard.press("ArrowLeft")
    page.wait_for_function(
        "key => document.querySelector('.jacquet-board-holder svg')"
        ".getAttribute('data-key') === key",
        arg=turns[1]["key_after"],
    )
    page.keyboard.press("End")
    page.wait_for_function(
        "key => document.querySelector('.jacquet-board-holder svg')"
        ".getAttribute('data-key') === key",
        arg=game["final_key"],
    )
    assert page.url.endswith(f"?ply={len(turns)}#board")
    # the shared link opens on the same ply, without any script
    page.goto(f"{server}/archive/-/game/{game['id']}?ply=2")
    assert board_key(page) == turns[1]["key_after"]


def test_plain_links_work_without_javascript(server: str, archive: Path, browser: Any) -> None:
    game = query(archive, "select * from games where status = 'valid' order by plies desc")[0]
    turns = query(archive, "select * from turns where game_id = ? order by ply", [game["id"]])
    context = browser.new_context(java_script_enabled=False)
    page = context.new_page()
    try:
        page.goto(f"{server}/archive/-/game/{game['id']}")
        page.click("a.next")
        page.wait_for_url("**ply=1*")
        assert board_key(page) == turns[0]["key_after"]
        page.click("a.last")
        page.wait_for_url(f"**ply={len(turns)}*")
        assert board_key(page) == game["final_key"]
        shot(page, "game-no-javascript")
    finally:
        context.close()


def test_follow_a_position_link(server: str, archive: Path, page: Any) -> None:
    game = query(archive, "select * from games where status = 'valid' order by plies desc")[0]
    turns = query(archive, "select * from turns where game_id = ? order by ply", [game["id"]])
    page.goto(f"{server}/archive/-/game/{game['id']}?ply=4")
    page.click("a.jacquet-position-link")
    page.wait_for_url(f"**/-/position/{turns[3]['key_after']}")
    assert board_key(page) == turns[3]["key_after"]
    assert page.locator(f".jacquet-game-list a[href*='{game['id']}']").count() == 1
    shot(page, "position")
    # and from a diagram in Datasette's own turns table
    page.goto(f"{server}/archive/turns?game_id={game['id']}&ply=2")
    page.locator(f"a.jacquet-cell[title='{turns[1]['key_after']}']").click()
    page.wait_for_url(f"**/-/position/{turns[1]['key_after']}")
    assert page.locator(".jacquet-play-tree tbody tr").count() >= 1


def test_apply_a_facet(server: str, archive: Path, page: Any) -> None:
    page.goto(f"{server}/archive/games")
    total = query(archive, "select count(*) from games")[0][0]
    invalid = query(archive, "select count(*) from games where status = 'invalid'")[0][0]
    assert 0 < invalid < total
    page.locator(".facet-info[data-column='status'] a", has_text="invalid").first.click()
    page.wait_for_url("**status=invalid*")
    rows = page.locator("table.rows-and-columns tbody tr")
    assert rows.count() == invalid
    shot(page, "games-faceted")


def test_hostile_names_show_as_text(server: str, archive: Path, page: Any) -> None:
    game = query(archive, "select * from games where white = ?", [EVIL])[0]
    page.goto(f"{server}/archive/-/game/{game['id']}")
    title = page.locator("h1.jacquet-title")
    assert EVIL in title.inner_text()
    assert TRICKY in title.inner_text()
    page.goto(f"{server}/archive/-/player/{game['white_id']}")
    assert page.locator("h1").inner_text() == EVIL
    page.goto(f"{server}/archive/games")
    assert page.get_by_text(EVIL).count() >= 1
    shot(page, "hostile-names")
    # the page fixture asserts that no dialog opened
