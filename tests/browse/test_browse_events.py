"""The event and source pages: a tournament's games and crosstable, a book's games in order.

``jacquet serve`` on the corpus archive plus a small round robin (three players, one event, one
source), read over HTTP and in Chromium; every figure checked against the archive's own rows.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
from helpers import corpus_archive, fetch, generated, query

from jacquet_notation.notation import write_game

pytestmark = [pytest.mark.slow]

EVENT = "Club de Versailles, 1820"
SOURCE = "Recueil Marchand (1821)"
PLAYERS = ("Anne Roy", "Bert Vale", "Cléo Marchand")


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("events")
    records = generated(9, seed=11)
    for number, record in enumerate(records):
        # a double round robin, then three more: each pair meets with either colour
        white, black = PLAYERS[number % 3], PLAYERS[(number + 1 + number // 3) % 3]
        if white == black:
            black = PLAYERS[(number + 2) % 3]
        record.tags.update(White=white, Black=black, Event=EVENT, Source=SOURCE)
        record.tags["Round"] = str(number + 1)
    tournament = folder / "tournament.jqt"
    tournament.write_text("\n\n".join(write_game(r) for r in records) + "\n", encoding="utf-8")
    return corpus_archive(folder, extra=[tournament])


def event_id(archive: Path, name: str = EVENT) -> int:
    return int(query(archive, "select id from events where name = ?", [name])[0]["id"])


@pytest.mark.browser
def test_crosstable_totals_agree_with_the_games(server: str, archive: Path, page: Any) -> None:
    """In Chromium: each row's cells sum to its points and games, and those are the points
    and games the archive gives each player in the event."""
    number = event_id(archive)
    page.goto(f"{server}/archive/-/event/{number}")
    rows = page.locator("table.jacquet-crosstable tbody tr")
    assert rows.count() == 3
    seen = {}
    for index in range(rows.count()):
        row = rows.nth(index)
        name = row.locator("th a").inner_text()
        cells = [
            row.locator("td.jacquet-cell-points").nth(i).inner_text()
            for i in range(row.locator("td.jacquet-cell-points").count())
        ]
        points = int(row.locator("td.points").inner_text())
        games = int(row.locator("td.games").inner_text())
        pairs = [re.fullmatch(r"(\d+)/(\d+)", cell) for cell in cells if cell != "—"]
        assert sum(int(m.group(1)) for m in pairs if m) == points
        assert sum(int(m.group(2)) for m in pairs if m) == games
        seen[name] = (games, points, int(row.locator("td.wins").inner_text()))
    expected = {}
    for player in PLAYERS:
        row = query(
            archive,
            "select count(*) as games, sum(case when won then points else 0 end) as points, "
            "sum(won) as wins from (select points, (winner = 'white' and white = ?1) "
            "or (winner = 'black' and black = ?1) as won from games "
            "where event_id = ?2 and (white = ?1 or black = ?1))",
            [player, number],
        )[0]
        expected[player] = (row["games"], row["points"], row["wins"])
    assert seen == expected
    # ranked by points, and the games listed are the event's, each linking to its page
    ranking = [seen[name][1] for name in seen]
    assert ranking == sorted(ranking, reverse=True)
    links = page.locator("table.jacquet-game-list a.jacquet-game-link")
    assert links.count() == 9
    links.first.click()
    page.wait_for_url(re.compile(r"/-/game/"))
    assert page.locator("a.jacquet-event-link").inner_text() == EVENT


def test_source_lists_its_games_in_order(server: str, archive: Path) -> None:
    (source,) = query(archive, "select id from sources where name = ?", [SOURCE])
    status, html = fetch(f"{server}/archive/-/source/{source['id']}")
    assert status == 200
    listed = re.findall(r'class="jacquet-game-link" href="[^"]*/-/game/([0-9a-f]+)"', html)
    in_file = [
        row["id"]
        for row in query(
            archive, "select id from games where source_id = ? order by game_index", [source["id"]]
        )
    ]
    assert listed == in_file and len(listed) == 9
    assert f'href="/archive/-/event/{event_id(archive)}"' in html  # each game's event


def test_links_into_events_and_sources(server: str, archive: Path) -> None:
    number = event_id(archive)
    (game,) = query(archive, "select id, source_id from games where event_id = ? limit 1", [number])
    status, html = fetch(f"{server}/archive/-/game/{game['id']}")
    assert status == 200
    assert f'href="/archive/-/event/{number}"' in html
    assert f'href="/archive/-/source/{game["source_id"]}"' in html
    # the games table's event and source cells, the events and sources tables' names
    _, table = fetch(f"{server}/archive/games?event_id={number}")
    assert f'href="/archive/-/event/{number}">{EVENT}</a>' in table
    assert f'href="/archive/-/source/{game["source_id"]}"' in table
    _, events = fetch(f"{server}/archive/events")
    assert f'href="/archive/-/event/{number}"' in events
    # a player's page links each game's event
    (player,) = query(archive, "select id from players where name = ?", [PLAYERS[0]])
    _, player_page = fetch(f"{server}/archive/-/player/{player['id']}")
    assert f'href="/archive/-/event/{number}"' in player_page


def test_invalid_games_are_marked(server: str, archive: Path) -> None:
    (broken,) = query(archive, "select id, event_id, white_id from games where status != 'valid'")
    _, html = fetch(f"{server}/archive/-/event/{broken['event_id']}")
    assert 'class="jacquet-invalid"' in html and "jacquet-status-invalid" in html
    _, player = fetch(f"{server}/archive/-/player/{broken['white_id']}")
    assert 'class="jacquet-invalid"' in player
    _, tournament = fetch(f"{server}/archive/-/event/{event_id(archive)}")
    assert "jacquet-status-invalid" not in tournament


def test_unknown_and_absurd_ids_are_not_found(server: str) -> None:
    for path in ("event/999", "source/999", "event/99999999999999999999999", "source/x"):
        assert fetch(f"{server}/archive/-/{path}")[0] == 404, path
