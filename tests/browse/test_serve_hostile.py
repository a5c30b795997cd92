"""``jacquet serve`` against hostile visitors and hostile file names, through real HTTP.

The server runs as a subprocess under a memory limit (``RLIMIT_AS``): should a guard fail, the
query dies in the server (and the test fails) instead of taking the test machine's memory.
"""

from __future__ import annotations

import json
import resource
from collections.abc import Callable
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote, urlencode, urljoin

import pytest
from helpers import fetch, watched_page
from lxml import html

from jacquet_notation.archive import import_paths
from jacquet_notation.browse.limits import QUERY_BYTES_LIMIT, VALUE_LIMIT
from jacquet_notation.browse.metadata import database_name
from jacquet_notation.browse.shared import MAX_PAGE
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import Rules

#: a file name with markup, a space and dots: every way a name has broken the pages
HOSTILE = 'x"><img src=x onerror=alert(99)> games.v2'
NAME = database_name(f"{HOSTILE}.db")
#: the server's address space: far above what it needs, far below what a failed guard takes
SERVER_MEMORY = 3 * 1024**3


def _limit_memory() -> None:
    resource.setrlimit(resource.RLIMIT_AS, (SERVER_MEMORY, SERVER_MEMORY))


def _get(url: str) -> tuple[int, str]:
    """The status and text of ``url``, errors included (a minute: the server is limited)."""
    return fetch(url, timeout=60)


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive of generated games, in a file whose name holds markup, a space and dots."""
    folder = tmp_path_factory.mktemp("hardening")
    records = folder / "games.jqt"
    games = generate_records(6, 11, Rules.named("jacquet"))
    records.write_text("\n\n".join(write_game(game) for game in games) + "\n", encoding="utf-8")
    db = folder / f"{HOSTILE}.db"
    import_paths(str(db), [str(records)])
    return db


@pytest.fixture(scope="module")
def serve_limit() -> Callable[[], None]:
    """The server's memory limited (``server`` serves the hostile file)."""
    return _limit_memory


def _hrefs(text: str, xpath: str = "//a/@href") -> list[str]:
    """The links of a page (``xpath`` selects their ``href`` attributes)."""
    found = cast(list[Any], html.fromstring(text).xpath(xpath))
    return [str(href) for href in found]


def _sql(server: str, sql: str) -> tuple[int, dict[str, Any]]:
    status, text = _get(f"{server}/{NAME}.json?{urlencode({'sql': sql})}")
    return status, json.loads(text)


def _a_game(server: str) -> dict[str, Any]:
    status, games = _sql(server, "select id, white_id from games order by id limit 1")
    assert status == 200, games
    return dict(zip(games["columns"], games["rows"][0], strict=True))


# -- what a query may cost ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("sql", "error"),
    [
        ("select zeroblob(200000000)", "string or blob too big"),
        ("select randomblob(900000000)", "string or blob too big"),
        (f"select zeroblob({VALUE_LIMIT + 1})", "string or blob too big"),
        ("select printf('%.*c', 500000000, 'x')", "not authorized"),
        ("select format('%.*c', 500000000, 'x')", "not authorized"),
        ("select hex(fts3_tokenizer('simple'))", "not authorized"),
        ("select hex(FTS3_Tokenizer('porter'))", "not authorized"),
        # many values each under the length limit: the query's rows pass the budget
        (
            "with recursive n(i) as (select 1 union all select i + 1 from n where i < "
            f"{QUERY_BYTES_LIMIT // VALUE_LIMIT + 10}) select zeroblob({VALUE_LIMIT}) from n",
            "the query's results pass",
        ),
    ],
)
def test_costly_or_leaking_sql_is_refused(server: str, sql: str, error: str) -> None:
    status, answer = _sql(server, sql)
    assert status == 400, answer
    assert error in answer["error"]
    # the server is still there and answers ordinary SQL
    status, answer = _sql(server, "select count(*) from games")
    assert (status, answer["rows"]) == (200, [[6]])


def test_values_within_the_limits_still_come_back(server: str) -> None:
    status, answer = _sql(server, f"select length(zeroblob({VALUE_LIMIT})) as n")
    assert (status, answer["rows"]) == (200, [[VALUE_LIMIT]])
    status, answer = _sql(server, "select group_concat(tags, ' ') from games")
    assert status == 200 and len(answer["rows"][0][0]) > 1000


# -- absurd addresses ------------------------------------------------------------------------------


def test_absurd_ids_keys_and_pages_are_400_or_404(server: str) -> None:
    game = _a_game(server)
    start = "/-/jacquet/board"
    huge = "9" * 30
    urls = [
        f"/{NAME}/-/player/{huge}",
        f"/{NAME}/-/player/{'9' * 5000}",
        f"/{NAME}/-/player/{2**63}",
        f"/{NAME}/-/player/{game['white_id']}?page={huge}",
        f"/{NAME}/-/player/{game['white_id']}?page={MAX_PAGE + 1}",
        f"/{NAME}/-/game/{huge}",
        f"/{NAME}/-/position/{huge}",
        f"/{NAME}/-/position/{'A' * 32}?page={huge}",
        f"{start}/{huge}.svg?width={huge}",
        f"/{NAME}/games?_sort=canonical",
        f"/{NAME}/positions?_sort_desc=canonical",
    ]
    for url in urls:
        status, text = _get(server + url)
        assert status in (400, 404), (url, status, text[:300])
    # a ply past the game's end shows its last ply (the game page's own choice): never 500
    for ply in (huge, "9" * 5000, "-" + huge):
        status, _ = _get(f"{server}/{NAME}/-/game/{game['id']}?ply={ply}")
        assert status == 200, ply
    # the position page's games, past any page there is: 400, not 500
    status, answer = _sql(server, "select key_after from turns where ply = 1 limit 1")
    key = answer["rows"][0][0]
    for page in (huge, str(MAX_PAGE + 1)):
        status, _ = _get(f"{server}/{NAME}/-/position/{key}?page={page}")
        assert status == 400, page
    status, _ = _get(f"{server}/{NAME}/-/position/{key}?page={MAX_PAGE}")
    assert status == 200


def test_every_sort_link_offered_works(server: str) -> None:
    status, text = _get(f"{server}/{NAME}.json")
    assert status == 200
    database = json.loads(text)
    names = [table["name"] for table in database["tables"] + database["views"]]
    assert {"games", "positions", "players", "turns", "head_to_head"} <= set(names)
    checked = 0
    for name in names:
        url = f"{server}/{NAME}/{quote(name)}"
        status, text = _get(url)
        assert status == 200, url
        links = {href for href in _hrefs(text, "//table//th//a/@href") if "_sort" in href}
        for href in sorted(links):
            status, text = _get(urljoin(url, href))
            assert status == 200, (name, href, text[:300])
            checked += 1
    assert checked > 50


# -- the database's name ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("file", "name"),
    [
        ("archive.db", "archive"),
        ("jacquet-archive.db", "jacquet-archive"),
        ("/some/where/games.v2.db", "games-v2"),
        ("my games 1818.sqlite", "my-games-1818"),
        ('x"><img src=x onerror=alert(99)>.db', "x-img-src-x-onerror-alert-99"),
        ("_internal.db", "internal"),
        ("Partie_de_Jacquet.db", "Partie_de_Jacquet"),
        ("«».db", "archive"),
        (".db", "db"),  # a dot file: its whole name is the stem
    ],
)
def test_database_name_is_a_slug_of_the_file_name(file: str, name: str) -> None:
    assert database_name(file) == name


def test_served_under_a_safe_name_and_the_plugin_links_work(server: str) -> None:
    status, text = _get(f"{server}/-/databases.json")
    assert [database["name"] for database in json.loads(text)] == [NAME]
    game = _a_game(server)
    pages = [
        f"/{NAME}/games",
        f"/{NAME}/turns?game_id={game['id']}",
        f"/{NAME}/games/{game['id']}",
        f"/{NAME}/-/game/{game['id']}?ply=1",
        f"/{NAME}/-/player/{game['white_id']}",
        f"/{NAME}",
        "/",
    ]
    followed = 0
    for path in pages:
        status, text = _get(server + path)
        assert status == 200, path
        assert "onerror=alert(99)" not in text, path  # nothing of the file's name as markup
        for href in _hrefs(text):
            plugin = any(f"/-/{page}/" in href for page in ("game", "player", "position"))
            if plugin and href.startswith("/"):
                followed += 1
                assert _get(server + href)[0] == 200, (path, href)
    assert followed > 20


@pytest.mark.browser
@pytest.mark.slow
def test_no_script_from_the_file_name_runs_in_a_browser(server: str, browser: Any) -> None:
    game = _a_game(server)
    with watched_page(browser) as (page, seen):
        for path in (
            f"/{NAME}/games",
            f"/{NAME}/games/{game['id']}",
            f"/{NAME}/turns?game_id={game['id']}",
            f"/{NAME}/-/game/{game['id']}",
            f"/{NAME}",
        ):
            response = page.goto(server + path, wait_until="load")
            assert response is not None and response.status == 200, path
            page.wait_for_timeout(200)  # an injected image's onerror fires after load
    assert seen.dialogs == []
