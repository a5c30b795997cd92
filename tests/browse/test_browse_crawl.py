"""Every link a visitor can click answers: ``jacquet serve`` on the corpus archive, crawled.

The crawl starts at the home page and at one page of each of the plugin's kinds, and follows
every link of the server's own pages (tables, their sort headers and facets, rows, canned
queries, JSON and CSV links, the game, position, player, event and source pages). It is bounded:
one visit per URL pattern (the path with its ids blanked, the query's names, and the values of
Datasette's own ``_`` arguments: a sort header is its own pattern), at most ``BUDGET`` pages.
"""

from __future__ import annotations

import re
import urllib.error
import urllib.request
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import parse_qsl, urljoin, urlsplit

import pytest
from helpers import ROOT, corpus_archive, query

pytestmark = [pytest.mark.slow]

#: pages fetched at most: the corpus archive has about 250 patterns
BUDGET = 1200
#: the plugin's pages whose last segment is an id or a key
_PLUGIN_PAGE = re.compile(r"/-/(game|position|player|event|source)/[^/?]+")
#: a table of SQLite's full-text index: ``games_fts``, ``games_fts_idx``, …
_FTS_TABLE = re.compile(r"^\w+_fts(_\w+)?(?=$|\.)")
#: failures that are not the plugin's, each with why (and who is on it):
ELSEWHERE = {
    # Datasette 0.65 links the rows of a full-text index's shadow table (a blob primary key,
    # ``1,b~27~27``) to row pages it then cannot find; reported to h19-home (the raw tables)
    re.compile(r"/\*_fts/[^/?]+(\.blob)?(\?|$)"): "Datasette: blob keys of FTS shadow tables",
}
#: the path of a diagram: each is the same route
_BOARD = re.compile(r"/-/jacquet/board/[^/?]+\.svg")


class _Links(HTMLParser):
    """The ``href`` and ``src`` of a page's links, images and scripts."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if value and (
                (name == "href" and tag in ("a", "link")) or (name == "src" and tag != "iframe")
            ):
                self.found.append(value)


def pattern(url: str, tables: set[str]) -> str:
    """The URL with what varies from row to row blanked: the plugin pages' ids and keys, row
    pages' primary keys; of the query, whether it filters (not on what) and Datasette's ``_``
    arguments (their values too on a page: a sort header is its own pattern)."""
    parts = urlsplit(url)
    path = _PLUGIN_PAGE.sub(lambda m: f"/-/{m.group(1)}/*", parts.path)
    path = _BOARD.sub("/-/jacquet/board/*.svg", path)
    segments = path.split("/")
    # /DB/TABLE/PK is a row page (DB and TABLE as Datasette writes them)
    if len(segments) == 4 and segments[2] in tables:
        segments[3] = "*"
    # SQLite's own full-text tables (shown among the hidden tables): one of each kind
    segments = [_FTS_TABLE.sub("*_fts", segment) for segment in segments]
    path = "/".join(segments)
    arguments = parse_qsl(parts.query, keep_blank_values=True)
    if path.endswith((".json", ".csv", ".blob")):
        # the data behind a page: one of each format a path, whatever its arguments
        return path
    names = {
        # a sort or a facet is its own page
        name if name == "_next" else f"{name}={value}"
        for name, value in arguments
        if name.startswith("_")
    }
    if any(not name.startswith("_") for name, _ in arguments):
        names.add("*")  # filtered: every filter is the same code, whichever column
    return f"{path}?{'&'.join(sorted(names))}"


def fetch(url: str) -> tuple[int, str]:
    """The status of ``url`` and its text if it is HTML."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            kind = response.headers.get("content-type", "")
            # read whole, whatever it is: a stream left unread makes the server log a line a
            # write into the pipe the test holds, which fills and stalls it
            data = response.read()
            return response.status, data.decode("utf-8", "replace") if "html" in kind else ""
    except urllib.error.HTTPError as error:
        return error.code, ""


def crawl(base: str, seeds: list[str], tables: set[str]) -> tuple[dict[str, int], list[str]]:
    """Pattern -> status for every pattern reached, and the URLs that answered 4xx or 5xx.
    Four requests at a time (the server has a process per core), a round at a time."""
    seen: dict[str, int] = {}
    failures: list[str] = []
    queue = deque(urljoin(base, seed) for seed in seeds)
    with ThreadPoolExecutor(4) as pool:
        while queue and len(seen) < BUDGET:
            batch: dict[str, str] = {}
            while queue and len(seen) + len(batch) < BUDGET and len(batch) < 16:
                url = queue.popleft()
                key = pattern(url, tables)
                if key not in seen and key not in batch:
                    batch[key] = url
            for (key, url), (status, body) in zip(
                batch.items(), pool.map(fetch, batch.values()), strict=True
            ):
                seen[key] = status
                if status >= 400:
                    if not any(known.search(key) for known in ELSEWHERE):
                        failures.append(f"{status} {url}")
                    continue
                parser = _Links()
                parser.feed(body)
                for link in parser.found:
                    target = urljoin(url, link).split("#")[0]
                    if target.startswith(base + "/") and pattern(target, tables) not in seen:
                        queue.append(target)
    return seen, failures


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The corpus archive: the hostile and generated records of the browser tests and the
    project's corpus (every ruleset, the broken records, events and sources)."""
    return corpus_archive(tmp_path_factory.mktemp("crawl"), extra=[ROOT / "corpus"])


def test_every_link_of_every_page_type_answers(server: str, archive: Path) -> None:
    name = archive.stem
    game = query(archive, "select id from games where status = 'valid' limit 1")[0]["id"]
    invalid = query(archive, "select id from games where status != 'valid' limit 1")[0]["id"]
    player = query(archive, "select id from players limit 1")[0]["id"]
    event = query(archive, "select event_id from games group by event_id order by count(*) desc")
    source = query(archive, "select id from sources limit 1")[0]["id"]
    key = query(
        archive, "select key_after from turns where key_after is not null limit 1 offset 3"
    )[0]["key_after"]
    tables = {
        row["name"]
        for row in query(archive, "select name from sqlite_master where type in ('table', 'view')")
    }
    seeds = [
        "/",
        f"/{name}",
        f"/{name}/games",
        f"/{name}/-/game/{game}?ply=3",
        f"/{name}/-/game/{invalid}",
        f"/{name}/-/position/{key}",
        f"/{name}/-/player/{player}",
        f"/{name}/-/event/{event[0]['event_id']}",
        f"/{name}/-/source/{source}",
    ]
    seen, failures = crawl(server, seeds, tables)
    assert failures == [], "\n".join(failures)
    # the crawl reached every kind of page, and stayed within its budget
    for kind in (
        f"/{name}/-/game/*",
        f"/{name}/-/position/*",
        f"/{name}/-/player/*",
        f"/{name}/-/event/*",
        f"/{name}/-/source/*",
        f"/{name}/games?_sort=id",
        f"/{name}/invalid_games_with_errors",
        f"/{name}/events?",
        f"/{name}/sources?",
    ):
        assert any(seen_key.startswith(kind) for seen_key in seen), (kind, sorted(seen)[:50])
    assert len(seen) < BUDGET, "the crawl ran out of budget before it ran out of links"


def test_pattern_blanks_ids_and_keeps_sorts() -> None:
    tables = {"games", "players"}
    assert pattern("http://h/db/-/game/abc?ply=3", tables) == "/db/-/game/*?*"
    assert pattern("http://h/db/games?_sort=id", tables) == "/db/games?_sort=id"
    assert pattern("http://h/db/games/abc", tables) == "/db/games/*?"
    assert pattern("http://h/db/games?_next=20&white_id=3", tables) == "/db/games?*&_next"
    assert pattern("http://h/db/games?_sort=id&event_id=3", tables) == (
        pattern("http://h/db/games?_sort=id&white_id=5&year=1800", tables)
    )
    assert pattern("http://h/db/games.json?_shape=array&_sort=id", tables) == "/db/games.json"
    assert pattern("http://h/db/games_fts_idx?_sort=term", tables) == "/db/*_fts?_sort=term"
    assert pattern("http://h/db/games_fts_idx.json", tables) == "/db/*_fts.json"
