"""Backgammon records in the browser, as the match files state them (issue "Matches, whole"):
a player's record and head to head, an event's table of matches won, and a server's generic
event name ("Online match", unrelated matches of many pairs) listed as matches rather than drawn
as one crosstable. Every figure is counted by the test straight from the files' text (their
``Wins N point`` lines and the column they stand in), and read over real HTTP from
``jacquet serve``."""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from helpers import SHARED_MAT, fetch, query, serving, stated, stated_match
from lxml import etree

from jacquet_notation.archive import import_paths
from jacquet_notation.browse.collections import one_event

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not SHARED_MAT.is_dir(), reason="no ../shared/data/backgammon-mat"),
]

#: a cycle of four players among the shared files (each met two others): one event's matches
CYCLE = (
    "Llabba/match1278964.txt",  # sahlen v llabba
    "Llabba/match1281172.txt",  # llabba v mano
    "lasse/match3706358.txt",  # sahlen v lasse
    "lasse/match4610272.txt",  # lasse v mano, five times
    "lasse/match4909365.txt",
    "lasse/match6476997.txt",
    "lasse/match808169.txt",
    "lasse/match808192.txt",
)
CYCLE_EVENT = "Cycle Cup"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("shared") / "archive.db"
    import_paths(db, [str(SHARED_MAT)])
    return db


@pytest.fixture(scope="module")
def cycle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path, list[Path]]]:
    """The cycle's files, copied with an ``Event`` header, in an archive of their own (the
    same games in the shared archive are one row each, of no event), served; its base URL."""
    folder = tmp_path_factory.mktemp("cycle")
    files = []
    for name in CYCLE:
        copy = folder / Path(name).name
        text = (SHARED_MAT / name).read_text(encoding="utf-8")
        copy.write_text(f'; [Event "{CYCLE_EVENT}"]\n{text}', encoding="utf-8")
        files.append(copy)
    db = folder / "archive.db"
    import_paths(db, [str(folder)])
    with serving([str(db)]) as base:
        yield base, db, files


def _page(url: str) -> lxml.html.HtmlElement:
    status, text = fetch(url)
    assert status == 200, (url, text[:500])
    return lxml.html.fromstring(text)


def _cells(row: lxml.html.HtmlElement) -> list[str]:
    return [cell.text_content().strip() for cell in row.xpath("./td|./th")]


def _records(
    paths: list[Path],
) -> tuple[dict[str, Counter[str]], dict[tuple[str, str], Counter[str]]]:
    """Per player (names lower-cased, as the archive makes one player of them) and per
    (player, opponent): games, won, lost, unfinished, points won and lost, from the files."""
    players: dict[str, Counter[str]] = defaultdict(Counter)
    pairs: dict[tuple[str, str], Counter[str]] = defaultdict(Counter)
    for path in paths:
        for first, second, winner, points in stated(path):
            for me, other in ((first.lower(), second.lower()), (second.lower(), first.lower())):
                for tally in (players[me], pairs[me, other]):
                    tally["games"] += 1
                    if winner is None:
                        tally["unfinished"] += 1
                    elif winner.lower() == me:
                        tally["wins"] += 1
                        tally["points_won"] += points or 0
                    else:
                        tally["losses"] += 1
                        tally["points_lost"] += points or 0
    return players, pairs


def _player_id(db: Path, name: str) -> int:
    return int(query(db, "select id from players where name = ? collate nocase", [name])[0]["id"])


@pytest.mark.parametrize("name", ["lasse", "llabba"])
def test_a_players_record_and_head_to_head_are_the_files(
    server: str, archive: Path, name: str
) -> None:
    players, pairs = _records(sorted(SHARED_MAT.rglob("*.txt")))
    page = _page(f"{server}/archive/-/player/{_player_id(archive, name)}")
    total = _cells(page.xpath("//table[@class='jacquet-record-table']//tr[@class='total']")[0])
    mine = players[name]
    fields = ("games", "wins", "losses", "unfinished", "points_won", "points_lost")
    assert total[1:] == [str(mine[field]) for field in fields]
    # the head-to-head, 50 opponents a page: every page walked, every opponent once
    base = f"{server}/archive/-/player/{_player_id(archive, name)}"
    rows = page.xpath("//section[@class='jacquet-head-to-head']//tbody/tr")
    number = 0
    while f"?opponents={number + 1}" in html_text(page):
        number += 1
        more = _page(f"{base}?opponents={number}")
        rows += more.xpath("//section[@class='jacquet-head-to-head']//tbody/tr")
        page = more
    opponents = {other for me, other in pairs if me == name}
    assert len(rows) == len(opponents)
    for row in rows:
        opponent, *figures = _cells(row)
        # the files' nameless opponents are one row, under "?"
        tally = pairs[name, "" if opponent == "?" else opponent.lower()]
        assert figures == [
            str(tally[field]) for field in ("games", "wins", "losses", "points_won", "points_lost")
        ], opponent


def html_text(page: Any) -> str:
    """The page's markup, to look for a link's query in it."""
    return str(etree.tostring(page, encoding="unicode"))


def _event_files(name: str) -> list[Path]:
    return [
        path
        for path in sorted(SHARED_MAT.rglob("*.txt"))
        if f'; [Event "{name}"]' in path.read_text(encoding="utf-8", errors="replace")
    ]


def test_online_match_is_listed_as_its_matches_not_one_crosstable(
    server: str, archive: Path
) -> None:
    """Backgammon Studio names every match "Online match": 49 matches of 49 pairs, two players
    against strangers, no tournament. The page lists those matches, each as its file ends."""
    files = _event_files("Online match")
    assert len(files) == 49
    number = query(archive, "select id from events where name = 'Online match'")[0]["id"]
    page = _page(f"{server}/archive/-/event/{number}")
    assert not page.xpath("//table[contains(@class, 'jacquet-crosstable')]")
    assert "not one tournament" in page.xpath("string(//section[@class='jacquet-event-matches'])")
    rows = page.xpath("//table[@class='jacquet-event-matches']/tbody/tr")
    listed: Counter[tuple[str, str, str | None]] = Counter()
    for row in rows:
        first, second, winner = (
            row.xpath("string(./td[@class=$c])", c=c).strip().lower()
            for c in ("white", "black", "winner")
        )
        listed[first, second, winner or None] += 1
    expected: Counter[tuple[str, str, str | None]] = Counter()
    for path in files:
        first, second, winner = stated_match(path)
        expected[first.lower(), second.lower(), winner.lower() if winner else None] += 1
    assert listed == expected


def test_a_backgammon_events_table_counts_matches_won(
    cycle: tuple[str, Path, list[Path]],
) -> None:
    """Four players, each meeting two: a crosstable, of matches won, with the games' points."""
    base, db, files = cycle
    number = query(db, "select id from events where name = ?", [CYCLE_EVENT])[0]["id"]
    page = _page(f"{base}/archive/-/event/{number}")
    heads = [
        th.text_content()
        for th in page.xpath("//table[contains(@class, 'jacquet-crosstable')]/thead//th")
    ]
    assert heads[-7:] == ["Matches", "Won", "Lost", "Unfinished", "Games", "Points", "Points lost"]
    matches: dict[str, Counter[str]] = defaultdict(Counter)
    for path in files:
        first, second, winner = stated_match(path)
        for me in (first.lower(), second.lower()):
            matches[me]["matches"] += 1
            outcome = "unfinished" if winner is None else "won" if winner.lower() == me else "lost"
            matches[me][outcome] += 1
    games, _ = _records(files)
    rows = page.xpath("//table[contains(@class, 'jacquet-crosstable')]/tbody/tr")
    seen = {}
    for row in rows:
        name = row.xpath("string(./th)").split(". ", 1)[1].strip().lower()
        figures = [
            row.xpath("string(./td[@class=$c])", c=c)
            for c in ("matches", "wins", "losses", "unfinished", "games", "points", "points-lost")
        ]
        seen[name] = figures
    assert seen == {
        name: [str(matches[name][field]) for field in ("matches", "won", "lost", "unfinished")]
        + [str(games[name][field]) for field in ("games", "points_won", "points_lost")]
        for name in matches
    }
    # ranked by matches won
    won = [int(seen_row[1]) for seen_row in seen.values()]
    assert won == sorted(won, reverse=True)


def _pairs(*games: tuple[int, int]) -> list[dict[str, int]]:
    return [{"white_id": white, "black_id": black} for white, black in games]


@pytest.mark.parametrize(
    ("pairings", "one"),
    [
        (_pairs((1, 2), (2, 3), (3, 1)), True),  # a round robin
        (_pairs((1, 2), (3, 4), (5, 6), (7, 8), (1, 3), (5, 7), (1, 5)), True),  # a knockout
        (_pairs((1, 2), (1, 2), (2, 1)), True),  # two players: a series
        (_pairs(*((1, n) for n in range(2, 12))), False),  # one player against strangers
        (_pairs((1, 2), (3, 4), (5, 6)), False),  # unrelated pairs
    ],
)
def test_one_event_is_told_from_its_pairings(pairings: list[dict[str, int]], one: bool) -> None:
    assert one_event(pairings) is one


def test_the_head_to_head_view_is_the_files(archive: Path) -> None:
    """The ``head_to_head`` view (named players; points net), against the files' counts."""
    _, pairs = _records(sorted(SHARED_MAT.rglob("*.txt")))
    view = {
        (row["player"].lower(), row["opponent"].lower()): (row["games"], row["wins"], row["points"])
        for row in query(archive, "select player, opponent, games, wins, points from head_to_head")
    }
    named = {pair: tally for pair, tally in pairs.items() if "" not in pair}
    assert view == {
        pair: (tally["games"], tally["wins"], tally["points_won"] - tally["points_lost"])
        for pair, tally in named.items()
    }
