"""The games list made for people (``/DB/-/games``) and the archive's narrow ``game_list``.

A real archive (imported by the archive's own code), served by ``jacquet serve`` as a
subprocess; the pages read over HTTP and in Chromium. Every figure the page shows is checked
against SQL of the test's own on the archive file.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from helpers import TRICKY, as_version_1, copy_archive, corpus_archive, fetch, query
from markupsafe import escape

from jacquet_notation.archive import GAME_COLUMNS, SCHEMA_VERSION, open_archive, rebuild

pytestmark = [pytest.mark.slow]

LIST_COLUMNS = ("id", "date", "event", "white", "black", "result", "rules", "plies", "status")


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    # more games than a page holds (50), so that the list has pages
    return corpus_archive(tmp_path_factory.mktemp("games-list"), games=70)


def total_shown(html: str) -> int:
    found = re.search(r'class="jacquet-total-games">([0-9,]+)<', html)
    assert found, "the list shows no total"
    return int(found.group(1).replace(",", ""))


def game_ids(html: str) -> list[str]:
    return re.findall(r'class="jacquet-game-link" href="[^"]*/-/game/([0-9a-f]+)"', html)


def list_url(server: str, query_string: str = "") -> str:
    return f"{server}/archive/-/games{'?' + query_string if query_string else ''}"


# -- the archive's narrow copy ---------------------------------------------------------------------


def table_rows(db: Path, table: str) -> list[tuple[Any, ...]]:
    columns = ", ".join(LIST_COLUMNS)
    return [tuple(row) for row in query(db, f"select {columns} from {table} order by id")]


def test_game_list_is_kept_equal_to_games(archive: Path, tmp_path: Path) -> None:
    assert table_rows(archive, "game_list") == table_rows(archive, "games")
    copy = tmp_path / "copy.db"
    copy_archive(archive, copy)
    rebuild(copy)  # rewrites every game row: the triggers follow
    assert table_rows(copy, "game_list") == table_rows(copy, "games")
    connection = sqlite3.connect(copy)
    with connection:
        connection.execute("delete from games where status != 'valid'")
    connection.close()
    assert table_rows(copy, "game_list") == table_rows(copy, "games")


def test_an_archive_of_version_1_is_migrated(archive: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    as_version_1(archive, old)
    open_archive(old).conn.close()
    assert query(old, "pragma user_version")[0][0] == SCHEMA_VERSION
    assert table_rows(old, "game_list") == table_rows(old, "games")


# -- over HTTP ------------------------------------------------------------------------------------


def test_the_list_counts_and_pages_every_game(server: str, archive: Path) -> None:
    games = query(archive, "select count(*) from games")[0][0]
    status, html = fetch(list_url(server))
    assert status == 200
    assert total_shown(html) == games
    first = game_ids(html)
    assert len(first) == 50
    status, html = fetch(list_url(server, "page=2"))
    second = game_ids(html)
    assert len(second) == games - 50
    assert set(first) | set(second) == {row[0] for row in query(archive, "select id from games")}
    # eight columns a reader scans, and the raw table one link away
    headers = re.findall(r'class="jacquet-sort" data-column="([a-z]+)"', html)
    assert headers == ["date", "event", "white", "black", "result", "rules", "plies", "status"]
    assert 'href="/archive/games"' in html


@pytest.mark.parametrize(
    ("query_string", "sql"),
    [
        ("status=invalid", "status = 'invalid'"),
        ("status=valid&result=0-1", "status = 'valid' and result = '0-1'"),
        ("rules=jacquet", "rules = 'jacquet'"),
        ("player={player}", "white_id = {player} or black_id = {player}"),
        ("event={event}", "event_id = {event}"),
        ("year_from=1700&year_to=2100", "year between 1700 and 2100"),
        ("q=Dupr%C3%A9", "black like '%Dupré%'"),
    ],
)
def test_each_filter_matches_sql(server: str, archive: Path, query_string: str, sql: str) -> None:
    player = query(archive, "select id from players where name = ?", [TRICKY])[0][0]
    event = query(archive, "select event_id from games where status = 'invalid'")[0][0]
    sql = sql.format(player=player, event=event)
    query_string = query_string.format(player=player, event=event)
    expected = {row[0] for row in query(archive, f"select id from games where {sql}")}
    status, html = fetch(list_url(server, query_string))
    assert status == 200
    assert total_shown(html) == len(expected)
    assert set(game_ids(html)) == expected or len(expected) > 50


def test_the_filter_counts_match_sql(server: str, archive: Path) -> None:
    _, html = fetch(list_url(server, "status=valid"))
    for row in query(
        archive, "select result, count(*) from games where status = 'valid' group by result"
    ):
        value, count = row[0], row[1]
        # each count links to the list with that value chosen (and the status kept)
        assert re.search(
            rf"result={re.escape(value.replace('*', '%2A'))}[^>]*>{re.escape(value)}"
            rf"&nbsp;<span>{count}</span>",
            html,
        ), value


@pytest.mark.parametrize(
    "column", ["date", "event", "white", "black", "result", "rules", "plies", "status"]
)
def test_every_sort_works_both_ways(server: str, archive: Path, column: str) -> None:
    for sort, descending in ((column, False), (f"-{column}", True)):
        status, html = fetch(list_url(server, f"sort={sort}&counts=0"))
        assert status == 200
        shown = game_ids(html)
        values = {row[0]: row[1] for row in query(archive, f"select id, {column} from games")}
        ordered = [values[game] for game in shown]
        present = [value for value in ordered if value is not None]
        assert present == sorted(present, reverse=descending), sort
        # unknown values sort lowest: first ascending, last descending
        unknown = len(ordered) - len(present)
        assert ordered == (
            [*present, *[None] * unknown] if descending else [*[None] * unknown, *present]
        )


@pytest.mark.parametrize(
    "query_string",
    [
        "page=99999999999999999999999",
        "page=-4",
        "page=abc",
        "page=1e9",
        "sort=id",
        "sort=-canonical",
        "sort=date;drop%20table%20games",
        "year_from=x&year_to=",
        "player=999999999999999999999999",
        "player=-1&event=abc",
        "q=%22unbalanced",
        "q=AND%20OR%20NOT%20*",
        "q=" + "x" * 3000,
        "status=%00",
    ],
)
def test_no_address_fails(server: str, query_string: str) -> None:
    status, html = fetch(list_url(server, query_string))
    assert status == 200, html[:500]


def test_a_page_past_the_end_shows_the_last(server: str, archive: Path) -> None:
    games = query(archive, "select count(*) from games")[0][0]
    _, html = fetch(list_url(server, "page=999"))
    assert len(game_ids(html)) == games - 50
    assert "showing the last" in html


# -- in Chromium ----------------------------------------------------------------------------------


@pytest.mark.browser
def test_filters_and_sorts_in_the_browser(server: str, archive: Path, page: Any) -> None:
    page.goto(list_url(server))
    # a filter chosen in the form
    page.select_option("select[name=status]", "invalid")
    page.click("button[type=submit]")
    page.wait_for_load_state()
    invalid = query(archive, "select count(*) from games where status = 'invalid'")[0][0]
    assert int(page.inner_text(".jacquet-total-games")) == invalid
    assert page.locator("tbody td.col-status").all_inner_texts() == ["invalid"] * invalid
    # removing it through its chip brings every game back
    page.click(".jacquet-chip")
    page.wait_for_url(lambda url: "status=" not in url)
    games = query(archive, "select count(*) from games")[0][0]
    assert int(page.inner_text(".jacquet-total-games")) == games
    # sorting by plies: a click sorts ascending, a second click descending
    page.click("a.jacquet-sort[data-column=plies]")
    page.wait_for_url(lambda url: url.endswith("sort=plies"))
    plies = [int(text) for text in page.locator("tbody td.col-plies").all_inner_texts()]
    everything = sorted(row[0] for row in query(archive, "select plies from games"))
    assert plies == everything[:50]
    page.click("a.jacquet-sort[data-column=plies]")
    page.wait_for_url(lambda url: url.endswith("sort=-plies"))
    plies = [int(text) for text in page.locator("tbody td.col-plies").all_inner_texts()]
    assert plies == sorted(everything, reverse=True)[:50]
    # the next page keeps the sort
    page.click("a[rel=next]")
    page.wait_for_url(lambda url: "page=2" in url)
    plies = [int(text) for text in page.locator("tbody td.col-plies").all_inner_texts()]
    assert plies == sorted(everything, reverse=True)[50:]
    # the thumbnail is the final position, readable on hover
    thumb = page.locator(".jacquet-thumb img").first
    small = thumb.bounding_box()
    thumb.hover()
    page.wait_for_timeout(300)
    large = thumb.bounding_box()
    assert small and large and large["width"] > 2.5 * small["width"]
    # a player's name leads to the player page
    page.goto(list_url(server, "q=Dupr%C3%A9"))
    page.click(f"td.col-black a:text-is('{TRICKY}')")
    assert "/-/player/" in page.url


# -- every "games" link leads to the list; the raw tables for SQL users ----------------------------


def test_games_links_lead_to_the_list(server: str, archive: Path) -> None:
    game, player = query(archive, "select id, white_id from games limit 1")[0]
    for path in (f"/archive/-/game/{game}", f"/archive/games/{game}"):
        _, html = fetch(f"{server}{path}")
        crumbs = re.search(r'<p class="crumbs">(.*?)</p>', html, re.S)
        assert crumbs and 'href="/archive/-/games">games</a>' in crumbs.group(1), path
        assert 'href="/archive/games"' not in crumbs.group(1)
    _, html = fetch(f"{server}/archive/-/player/{player}")
    link = re.search(r'class="jacquet-player-list" href="([^"]+)"', html)
    assert link
    expected = query(
        archive, "select count(*) from games where white_id = ? or black_id = ?", [player, player]
    )[0][0]
    _, listed = fetch(f"{server}{link.group(1).replace('&amp;', '&')}")
    assert total_shown(listed) == expected


def test_the_raw_games_table_folds_its_notes_and_draws_its_json(server: str, archive: Path) -> None:
    _, html = fetch(f"{server}/archive/games?status=invalid")
    notes = re.search(r'<details class="jacquet-column-notes">(.*?)</details>', html, re.S)
    assert notes and f"What each of the {len(GAME_COLUMNS)} columns holds" in notes.group(1)
    assert "<dt>fingerprint</dt>" in notes.group(1)
    # errors as a list of line:column and the message, not JSON
    line, column, message = query(
        archive,
        "select json_extract(errors, '$[0].line'), json_extract(errors, '$[0].column'), "
        "json_extract(errors, '$[0].message') from games where status = 'invalid'",
    )[0]
    cell = re.search(r'<td class="col-errors[^"]*"[^>]*>(.*?)</td>', html, re.S)
    assert cell and f"<li>{line}:{column} {escape(message)}" in cell.group(1)
    assert '"message"' not in cell.group(1) and "&#34;message&#34;" not in cell.group(1)
    # tags as a definition list
    tags = re.search(r'<td class="col-tags[^"]*"[^>]*>(.*?)</td>', html, re.S)
    assert tags and "<dt>White</dt><dd>Ann</dd>" in tags.group(1)
    # the rules options likewise, though the row holds the id of their set (version 15)
    ruleset = query(
        archive,
        "select json_extract(o.options, '$.ruleset') from games g "
        "join rule_options o on o.id = g.options where g.status = 'invalid'",
    )[0][0]
    options = re.search(r'<td class="col-options[^"]*"[^>]*>(.*?)</td>', html, re.S)
    assert options and f"<dt>ruleset</dt><dd>{ruleset}</dd>" in options.group(1)


def test_canned_queries_are_titled_in_words(server: str) -> None:
    _, html = fetch(f"{server}/archive/opening_roll_statistics")
    title = re.search(r"<title>(.*?)</title>", html, re.S)
    assert title and title.group(1).strip() == "Opening-roll statistics — archive"
