"""The archive's home page at ``/``: its figures, its links into the games list, its search.

``jacquet serve`` as a subprocess on a real archive, Chromium driven by Playwright; every
figure shown is checked against SQL of the test's own and against the list it links to.
"""

from __future__ import annotations

import re
import urllib.request
from pathlib import Path
from typing import Any

import pytest
from helpers import TRICKY, corpus_archive, query

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus_archive(tmp_path_factory.mktemp("home"), games=20)


def number(text: str) -> int:
    found = re.search(r"[0-9][0-9,]*", text)
    assert found, text
    return int(found.group(0).replace(",", ""))


def test_slash_is_the_archive(server: str, archive: Path) -> None:
    with urllib.request.urlopen(f"{server}/", timeout=30) as response:
        html = response.read().decode()
    assert response.status == 200
    games = query(archive, "select count(*) from games")[0][0]
    assert f"<strong>{games}</strong> games" in html


def test_every_figure_links_to_a_list_of_that_many(server: str, archive: Path, page: Any) -> None:
    page.goto(f"{server}/")
    links = page.locator(
        ".jacquet-holdings-games a, a.jacquet-ruleset, a.jacquet-decade, a.jacquet-player, "
        "a.jacquet-event, a.jacquet-source"
    )
    targets: list[tuple[int, str]] = []
    for index in range(links.count()):
        link = links.nth(index)
        cls = link.get_attribute("class") or ""
        # the figure is in the link (the games, a status) or just after it (a name's count)
        if cls.startswith("jacquet-status") or cls == "jacquet-all-games":
            shown = number(link.inner_text())
        else:
            shown = number(link.evaluate("a => a.nextSibling.textContent"))
        targets.append((shown, str(link.get_attribute("href"))))
    statuses = {
        row[0]: row[1] for row in query(archive, "select status, count(*) from games group by 1")
    }
    assert len(targets) >= 4 + len(statuses)
    for shown, href in targets:
        page.goto(f"{server}{href}")
        assert number(page.inner_text(".jacquet-total-games")) == shown, href
    # the status figures themselves, against SQL
    page.goto(f"{server}/")
    for status in ("valid", "invalid", "unreadable"):
        text = page.inner_text(f"a.jacquet-status-{status}")
        assert number(text) == statuses.get(status, 0)


def test_players_are_counted_as_white_and_black(server: str, archive: Path, page: Any) -> None:
    page.goto(f"{server}/")
    first = page.locator("a.jacquet-player").first
    name = first.inner_text()
    count = number(first.evaluate("a => a.nextSibling.textContent"))
    expected = query(
        archive,
        "select count(*) from games g join players p on p.id in (g.white_id, g.black_id) "
        "where p.name = ?",
        [name],
    )[0][0]
    assert count == expected


def test_the_search_box_finds_a_player(server: str, archive: Path, page: Any) -> None:
    page.goto(f"{server}/")
    page.fill("#jacquet-home-q", "Dupré")
    page.press("#jacquet-home-q", "Enter")
    page.wait_for_load_state()
    assert "/-/games?q=" in page.url
    assert page.locator("td.col-black").all_inner_texts() == [TRICKY]


def test_latest_games_and_imports(server: str, archive: Path, page: Any) -> None:
    page.goto(f"{server}/")
    latest = query(
        archive, "select white, black from games order by import_id desc, game_index desc limit 1"
    )[0]
    first = page.locator(".jacquet-recent-games li").first
    assert f"{latest[0]} – {latest[1]}" in first.inner_text()
    # each latest game has its readable board, which loads
    image = first.locator("img")
    # the thumbnail is lazy, so the page's load event may come before it does
    image.scroll_into_view_if_needed()
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=image.element_handle(), timeout=10_000
    )
    assert image.evaluate("img => img.naturalWidth") > 100
    # the broken file's error is listed under its import, with a link to the game
    error = query(archive, "select id, line, error from games where status != 'valid'")[0]
    item = page.locator(".jacquet-import-errors li").first
    assert error[2] in item.inner_text()
    item.locator("a").click()
    assert f"/-/game/{error[0]}" in page.url


def test_events_lead_to_their_pages(server: str, archive: Path, page: Any) -> None:
    page.goto(f"{server}/")
    first = page.locator("a.jacquet-event-page").first
    event = page.locator("a.jacquet-event").first.inner_text()
    first.click()
    assert "/-/event/" in page.url
    assert event in page.inner_text("h1")
