"""The Datasette plugin through Datasette's own test client, on a real archive file."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

import pytest
from click.testing import CliRunner
from helpers import (
    EVIL,
    as_version_1,
    build_archive,
    corpus_archive,
    fetch,
    free_port,
    generated,
    jacquet_command,
    make_corpus,
    query,
    serving,
    wait_until_up,
)
from lxml import etree, html

from jacquet_notation.archive import SCHEMA_VERSION
from jacquet_notation.browse.drawing import diagram
from jacquet_notation.browse.metadata import COLUMNS, archive_metadata
from jacquet_notation.browse.server import build_datasette, table_counts
from jacquet_notation.cli import main
from jacquet_notation.notation import write_game
from jacquet_notation.position import Position

# -- a real server ------------------------------------------------------------------------------


def fetch_json(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=10) as response:
        return json.loads(response.read())


# -- fixtures ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus_archive(tmp_path_factory.mktemp("corpus"))


@pytest.fixture(scope="module")
def ds(archive: Path) -> Any:
    return build_datasette(archive)


def get(ds: Any, path: str) -> Any:
    return asyncio.run(ds.client.get(path))


def page(ds: Any, path: str, status: int = 200) -> html.HtmlElement:
    response = get(ds, path)
    assert response.status_code == status, (path, response.text[:500])
    return html.fromstring(response.text)


def select(tree: Any, selector: str) -> list[Any]:
    """Elements matching a simple CSS selector (``tag.class descendant.class``), via XPath."""
    path = ""
    for part in selector.split():
        tag, *classes = part.split(".")
        tests = "".join(
            f"[contains(concat(' ', normalize-space(@class), ' '), ' {name} ')]" for name in classes
        )
        path += f"//{tag or '*'}{tests}"
    return list(tree.xpath("." + path))


def a_game(db: Path, white: str | None = None) -> sqlite3.Row:
    if white is None:
        rows = query(db, "select * from games where status = 'valid' order by plies desc")
    else:
        rows = query(db, "select * from games where white = ?", [white])
    return rows[0]


# -- diagrams in Datasette's own tables ----------------------------------------------------------


def test_key_columns_become_diagrams_with_the_key_as_title(ds: Any, archive: Path) -> None:
    turn = query(archive, "select * from turns where ply = 3 and key_after is not null")[0]
    tree = page(ds, f"/archive/turns?game_id={turn['game_id']}&ply=3")
    links = select(tree, "a.jacquet-cell")
    keys = {link.get("title") for link in links}
    assert keys == {turn["key_before"], turn["key_after"]}
    for link in links:
        key = link.get("title")
        assert link.get("href") == f"/archive/-/position/{key}"
        image = link.find("img")
        assert image.get("alt") == key
        board = get(ds, image.get("src"))
        assert board.status_code == 200
        assert board.headers["content-type"].startswith("image/svg+xml")
        svg = etree.fromstring(board.content)
        assert svg.get("data-key") == key
        assert svg.get("width") == image.get("width")
        assert svg.findtext("{http://www.w3.org/2000/svg}title") == key


def test_diagrams_on_games_and_positions_tables(ds: Any, archive: Path) -> None:
    tree = page(ds, "/archive/positions?_sort_desc=games")
    titles = [link.get("title") for link in select(tree, "a.jacquet-cell")]
    stored = {row["key"] for row in query(archive, "select key from positions")}
    assert titles and set(titles) <= stored
    tree = page(ds, "/archive/games")
    finals = {link.get("title") for link in select(tree, "a.jacquet-cell")}
    assert finals == {row["final_key"] for row in query(archive, "select final_key from games")}


def test_diagram_is_the_position_of_its_key() -> None:
    position = Position.start()
    svg = diagram(position.key())
    assert svg is not None
    root = etree.fromstring(svg.encode())
    stacks = root.findall(".//{http://www.w3.org/2000/svg}g")
    assert sorted(int(g.attrib["data-count"]) for g in stacks) == [15, 15]
    assert diagram("not-a-key") is None
    assert diagram("") is None


def test_a_cell_that_is_not_a_key_stays_text(ds: Any) -> None:
    response = get(ds, "/archive?sql=select+%27hello%27+as+key_before")
    assert response.status_code == 200
    assert "hello" in response.text
    assert "jacquet-cell" not in response.text


def test_table_rows_link_to_game_player_and_position_pages(ds: Any, archive: Path) -> None:
    game = a_game(archive)
    tree = page(ds, f"/archive/games?id={game['id']}")
    hrefs = {link.get("href") for link in select(tree, "a.jacquet-link")}
    assert f"/archive/-/game/{game['id']}?ply=0" in hrefs
    assert f"/archive/-/player/{game['white_id']}" in hrefs
    assert f"/archive/-/player/{game['black_id']}" in hrefs
    tree = page(ds, "/archive/players")
    hrefs = {link.get("href") for link in select(tree, "a.jacquet-link")}
    players = query(archive, "select id from players")
    assert {f"/archive/-/player/{row['id']}" for row in players} <= hrefs
    tree = page(ds, f"/archive/turns?game_id={game['id']}&ply=5")
    hrefs = {link.get("href") for link in select(tree, "a.jacquet-link")}
    assert f"/archive/-/game/{game['id']}?ply=5" in hrefs


# -- the game page -------------------------------------------------------------------------------


def test_game_page_steps_through_the_game_by_plain_links(ds: Any, archive: Path) -> None:
    game = a_game(archive)
    turns = query(archive, "select * from turns where game_id = ? order by ply", [game["id"]])
    assert len(turns) == game["plies"] > 5
    base = f"/archive/-/game/{game['id']}"
    for ply in (0, 1, 5, len(turns)):
        tree = page(ds, f"{base}?ply={ply}")
        holder = select(tree, ".jacquet-board-holder")[0]
        expected = turns[0]["key_before"] if ply == 0 else turns[ply - 1]["key_after"]
        assert holder.get("data-key") == expected
        svg = holder[0]
        assert svg.get("data-key") == expected
        nav = {a.get("class"): a.get("href") for a in select(tree, ".jacquet-steps a")}
        assert nav["first"] == f"{base}?ply=0#board"
        assert nav["prev"] == f"{base}?ply={max(ply - 1, 0)}#board"
        assert nav["next"] == f"{base}?ply={min(ply + 1, len(turns))}#board"
        assert nav["last"] == f"{base}?ply={len(turns)}#board"
        assert select(tree, ".jacquet-permalink")[0].get("href") == f"{base}?ply={ply}"
        if ply:
            turn = turns[ply - 1]
            caption = select(tree, ".jacquet-caption")[0].text_content()
            assert turn["dice"] in caption and turn["steps"] in caption
            assert turn["dice"] in select(tree, ".jacquet-dice")[0].text_content()
    # out of range and nonsense clamp to the game
    assert select(page(ds, f"{base}?ply=9999"), ".jacquet-ply-number")[0].text == str(len(turns))
    assert select(page(ds, f"{base}?ply=abc"), ".jacquet-ply-number")[0].text == "0"


def test_game_page_has_tags_score_sheet_and_script(ds: Any, archive: Path) -> None:
    game = a_game(archive)
    tree = page(ds, f"/archive/-/game/{game['id']}?ply=2")
    tags = dict(
        zip(
            [dt.text_content() for dt in select(tree, ".jacquet-tags dt")],
            [dd.text_content() for dd in select(tree, ".jacquet-tags dd")],
            strict=False,
        )
    )
    assert tags["White"] == game["white"] and tags["Black"] == game["black"]
    assert tags["Result"] == game["result"]
    footer = select(tree, "footer")[0].text_content()
    assert "Record texts: as their sources" in footer and "jacquet-notation" in footer
    sheet = select(tree, ".jacquet-sheet-ply")
    assert [int(a.get("data-ply")) for a in sheet] == list(range(1, game["plies"] + 1))
    assert next(a for a in sheet if "current" in a.get("class")).get("data-ply") == "2"
    states = json.loads(tree.get_element_by_id("jacquet-states").text)
    assert len(states) == game["plies"] + 1
    assert states[-1]["key"] == game["final_key"]
    assert tree.xpath('//script[@src="/-/static-plugins/jacquet-notation/jacquet.js"]')
    script = get(ds, "/-/static-plugins/jacquet-notation/jacquet.js")
    assert script.status_code == 200 and "ArrowRight" in script.text
    board = get(ds, f"/-/jacquet/board/{states[3]['key']}.svg")
    assert board.status_code == 200 and board.headers["content-type"].startswith("image/svg+xml")
    assert etree.fromstring(board.content).get("data-key") == states[3]["key"]


def test_invalid_game_shows_its_error(ds: Any, archive: Path) -> None:
    game = query(archive, "select * from games where status != 'valid'")[0]
    tree = page(ds, f"/archive/-/game/{game['id']}?ply=99")
    errors = select(tree, ".jacquet-errors li")
    assert errors and game["error"].split(":")[-1].strip()[:20] in errors[0].text_content()
    assert select(tree, ".jacquet-sheet-ply.error")


def test_missing_pages_are_404(ds: Any) -> None:
    assert get(ds, "/archive/-/game/0000000000000000").status_code == 404
    assert get(ds, "/archive/-/player/999999").status_code == 404
    assert get(ds, "/archive/-/position/AAAA").status_code == 404
    assert get(ds, "/nosuchdb/-/game/abc").status_code == 404
    assert get(ds, "/-/jacquet/board/nonsense.svg").status_code == 404
    assert get(ds, "/-/static-plugins/jacquet-notation/secret.js").status_code == 404


# -- the position page ---------------------------------------------------------------------------


def test_position_page_lists_plays_with_counts_and_points(ds: Any, archive: Path) -> None:
    first = query(archive, "select key_before from turns where ply = 1 limit 1")[0][0]
    tree = page(ds, f"/archive/-/position/{first}")
    assert select(tree, ".jacquet-board-holder")[0].get("data-key") == first
    rows = select(tree, ".jacquet-play-tree tbody tr")
    expected = query(
        archive,
        "select t.dice, t.key_after, count(*) as n, sum(ifnull(g.winner = t.side, 0)) as wins, "
        "sum(case when g.winner = t.side then g.points else 0 end) as won "
        "from turns t join games g on g.id = t.game_id "
        "where t.key_before = ? and t.key_after is not null group by t.dice, t.key_after",
        [first],
    )
    assert len(rows) == len(expected)
    seen = {}
    for row in rows:
        cells = [cell.text_content().strip() for cell in select(row, "td")]
        key = select(row, "a.jacquet-play-link")[0].get("href").rsplit("/", 1)[1]
        seen[(cells[0].split()[-1], key)] = (int(cells[2]), int(cells[3]), int(cells[5]))
    assert seen == {(e["dice"], e["key_after"]): (e["n"], e["wins"], e["won"]) for e in expected}
    games = {
        a.get("href").split("?")[0].rsplit("/", 1)[1]
        for a in select(tree, ".jacquet-game-list a.jacquet-game-link")
    }
    reaching = {
        r[0] for r in query(archive, "select game_id from turns where key_before = ?", [first])
    }
    assert games == reaching


def test_position_page_of_a_later_position_lists_the_games_through_it(
    ds: Any, archive: Path
) -> None:
    turn = query(archive, "select * from turns where ply = 4 limit 1")[0]
    tree = page(ds, f"/archive/-/position/{turn['key_after']}")
    links = [a.get("href") for a in select(tree, ".jacquet-game-list a.jacquet-game-link")]
    assert f"/archive/-/game/{turn['game_id']}?ply=4" in links


# -- the player page -----------------------------------------------------------------------------


def test_player_page_record_head_to_head_and_games(ds: Any, archive: Path) -> None:
    player = query(archive, "select * from players where name = 'random bot A'")[0]
    games = query(
        archive, "select * from games where white_id = ? or black_id = ?", [player["id"]] * 2
    )
    wins = sum(
        1
        for g in games
        if (g["winner"] == "white") == (g["white_id"] == player["id"]) and g["winner"]
    )
    tree = page(ds, f"/archive/-/player/{player['id']}")
    assert select(tree, "h1")[0].text_content() == "random bot A"
    total = [c.text_content() for c in select(tree, ".jacquet-record-table tr.total td")]
    assert int(total[0]) == len(games) and int(total[1]) == wins
    listed = select(tree, ".jacquet-games a.jacquet-game-link")
    # each game linked by its players (the id kept in the link)
    assert {a.get("href").rsplit("/", 1)[1] for a in listed} == {g["id"] for g in games}
    assert all(a.text_content().startswith("random bot ") for a in listed)
    opponents = select(tree, ".jacquet-head-to-head tbody tr")
    assert [select(r, "td")[0].text_content() for r in opponents] == ["random bot B"]


# -- safety --------------------------------------------------------------------------------------


def test_record_text_is_escaped_everywhere(ds: Any, archive: Path) -> None:
    game = a_game(archive, white=EVIL)
    paths = [
        f"/archive/-/game/{game['id']}",
        f"/archive/-/player/{game['white_id']}",
        f"/archive/-/player/{game['black_id']}",
        f"/archive/-/position/{game['final_key']}",
        "/archive/games",
        "/archive/players",
        "/archive/games_between?player_a=%25script%25&player_b=%25",
    ]
    for path in paths:
        response = get(ds, path)
        assert response.status_code == 200, path
        assert EVIL not in response.text, path
        assert "<b>Dupré</b>" not in response.text, path
        assert "<img src=x" not in response.text, path
        assert (
            "&lt;script&gt;alert(1)&lt;/script&gt;" in response.text
            or "\\u003cscript" in response.text
        ), path
    tree = page(ds, f"/archive/-/player/{game['white_id']}")
    assert select(tree, "h1")[0].text_content() == EVIL
    assert all("alert(1)" not in (script.text or "") for script in tree.xpath("//script"))


def test_served_read_only_with_a_time_limit(ds: Any) -> None:
    assert ds.setting("sql_time_limit_ms") == 1000
    assert all(not db.is_mutable for name, db in ds.databases.items() if name != "_internal")
    response = get(ds, "/archive.json?sql=delete+from+games")
    assert response.status_code == 400
    assert "Statement must be a SELECT" in response.text
    slow = "with recursive n(i) as (select 1 union all select i + 1 from n) select count(*) from n"
    response = get(ds, "/archive.json?" + urlencode({"sql": slow}))
    assert response.status_code == 400
    assert "took too long" in response.text or "interrupted" in response.text


# -- metadata and canned queries -----------------------------------------------------------------


def test_every_column_of_the_archive_is_described(archive: Path) -> None:
    names = [
        row["name"]
        for row in query(archive, "select name from sqlite_master where type in ('table', 'view')")
        if not re.search(r"_fts(_|$)", row["name"]) and not row["name"].startswith("sqlite_")
    ]
    assert {"games", "turns", "positions", "players"} <= set(names)
    missing = [
        f"{name}.{column['name']}"
        for name in names
        for column in query(archive, f"pragma table_info([{name}])")
        if column["name"] not in COLUMNS.get(name, {})
    ]
    assert missing == []


def test_metadata_titles_facets_and_label_columns(ds: Any, archive: Path) -> None:
    tree = page(ds, "/archive/games")
    facets = {f.get("data-column") for f in select(tree, ".facet-info")}
    assert {"rules", "result", "status", "year", "event_id", "white_id", "black_id"} <= facets
    assert select(tree, "h1")[0].text_content().strip().startswith("Games")
    assert "Every game imported" in get(ds, "/archive/games").text
    response = get(ds, "/archive/games?rules=jacquet&_facet=rules")
    assert response.status_code == 200
    metadata = archive_metadata("archive")
    assert metadata["databases"]["archive"]["tables"]["players"]["label_column"] == "name"
    assert metadata["license"] and metadata["source_url"]
    # full-text search on games
    search = get(ds, "/archive/games.json?_search=" + "bot&_shape=objects")
    assert search.status_code == 200
    assert len(search.json()["rows"]) == len(
        query(archive, "select id from games where white like '%bot%' or black like '%bot%'")
    )


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("games_between", "player_a=random+bot+A&player_b=random+bot+B"),
        ("longest_games", ""),
        ("invalid_games_with_errors", ""),
        ("opening_roll_statistics", ""),
    ],
)
def test_canned_queries_answer(ds: Any, archive: Path, name: str, params: str) -> None:
    response = get(ds, f"/archive/{name}.json?_shape=objects&{params}")
    assert response.status_code == 200, response.text[:300]
    rows = response.json()["rows"]
    if name == "games_between":
        expected = query(archive, "select id from games where white like 'random bot%'")
        assert {r["game_id"] for r in rows} == {r["id"] for r in expected}
    elif name == "longest_games":
        assert rows[0]["plies"] == query(archive, "select max(plies) from games")[0][0]
    elif name == "invalid_games_with_errors":
        invalid = query(archive, "select id, error from games where status != 'valid'")
        assert {(r["game_id"], r["error"]) for r in rows} == {(r[0], r[1]) for r in invalid}
    else:
        first_plies = query(
            archive, "select count(*) from turns where ply = 1 and key_after is not null"
        )
        assert sum(r["games"] for r in rows) == first_plies[0][0]


def test_games_reaching_a_position_query(ds: Any, archive: Path) -> None:
    turn = query(archive, "select * from turns where ply = 6 limit 1")[0]
    response = get(ds, f"/archive/games_reaching.json?_shape=objects&key={turn['key_after']}")
    rows = response.json()["rows"]
    assert {"game_id": turn["game_id"], "ply": 6} in [
        {"game_id": r["game_id"], "ply": r["ply"]} for r in rows
    ]
    tree = page(ds, f"/archive/games_reaching?key={turn['key_after']}")
    assert f"/archive/-/game/{turn['game_id']}" in {
        a.get("href") for a in select(tree, "a.jacquet-link")
    }


# -- the command ---------------------------------------------------------------------------------


def test_serve_help_metadata_and_errors(tmp_path: Path, archive: Path) -> None:
    runner = CliRunner()
    result = runner.invoke(main, ["serve", str(archive), "--metadata-json"])
    assert result.exit_code == 0, result.output
    assert json.loads(result.output)["databases"]["archive"]["queries"]["longest_games"]
    result = runner.invoke(main, ["serve", str(tmp_path / "missing")])
    assert result.exit_code == 2
    assert result.output.strip().splitlines() == [
        f"jacquet: {tmp_path / 'missing'}: no such file or folder"
    ]
    result = runner.invoke(main, ["serve", str(archive), str(tmp_path)])
    assert result.exit_code == 2 and "not both" in result.output
    # a truncated archive: SQLite's header is there, the pages are not
    truncated = tmp_path / "truncated.db"
    truncated.write_bytes(archive.read_bytes()[:20000])
    result = runner.invoke(main, ["serve", str(truncated)])
    assert result.exit_code == 2
    [said] = result.output.strip().splitlines()
    assert said.startswith(f"jacquet: {truncated}: the archive is truncated (20000 bytes, ")


def test_serve_migrates_an_archive_an_older_jacquet_wrote(
    tmp_path: Path, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = tmp_path / "old.db"
    as_version_1(archive, old)
    with serving([str(old)], tmp_path) as server:
        # migrated before it is served (the pages are written for the current layout)
        with urllib.request.urlopen(f"{server}/old/-/games") as response:
            assert response.status == 200
        assert query(old, "pragma user_version")[0][0] == SCHEMA_VERSION
    # an old archive that cannot be written is refused in one line, not served half-broken
    readonly = tmp_path / "readonly.db"
    as_version_1(archive, readonly)
    # as for a file this user may not write (root may write any, so the mode cannot show it)
    monkeypatch.setattr(os, "access", lambda path, mode: mode != os.W_OK)
    # a free port: the default (8001) may be another run's, and the port is bound before this
    result = CliRunner().invoke(main, ["serve", str(readonly), "--port", str(free_port())])
    assert result.exit_code == 2
    [said] = result.output.strip().splitlines()
    assert said.startswith(f"jacquet: {readonly}: archive schema version 1 is older than")


def test_table_counts_are_counted_once_and_shown_from_there(archive: Path) -> None:
    counts = table_counts(archive)
    for table in ("games", "turns", "positions", "players", "games_fts"):
        assert counts[table] == query(archive, f"select count(*) from [{table}]")[0][0]
    # told other counts, the server shows those: the table pages no longer count rows
    told = {**counts, "turns": 123456789}
    datasette = build_datasette(archive, counts=told)
    tree = page(datasette, "/archive/turns")
    assert "123,456,789 rows" in select(tree, "h3")[0].text_content()
    # a filtered page still counts its own rows
    game = a_game(archive)
    tree = page(datasette, f"/archive/turns?game_id={game['id']}")
    assert f"{game['plies']} row" in select(tree, "h3")[0].text_content()


def test_serve_records_imports_into_the_default_archive_then_updates_it(tmp_path: Path) -> None:
    records = tmp_path / "records"
    make_corpus(records)
    work = tmp_path / "work"
    work.mkdir()
    with serving([str(records)], work) as server:
        base = f"{server}/jacquet-archive"
        games = fetch_json(f"{base}/games.json?_shape=array&_size=max&_col=id")
        assert len(games) == 14  # 12 generated, the hostile one, the broken one
        page_html = urllib.request.urlopen(f"{base}/-/game/{games[0]['id']}").read().decode()
        assert "jacquet-board" in page_html
    db = work / "jacquet-archive.db"
    assert db.exists()
    imports = query(db, "select * from imports order by id")
    assert len(imports) == 3
    # a new file: the next run adds it and keeps everything else as it was
    more = generated(3, seed=12345)
    (records / "more.jqt").write_text(
        "\n\n".join(write_game(record) for record in more) + "\n", encoding="utf-8"
    )
    with serving([str(records)], work) as server:
        base = f"{server}/jacquet-archive"
        count = fetch_json(f"{base}/games.json?_shape=array&_size=max&_col=id")
        assert len(count) == 17
    after = query(db, "select * from imports order by id")
    assert [dict(row) for row in after[:3]] == [dict(row) for row in imports]
    assert len(after) == 4


def test_serve_an_archive_read_only(tmp_path: Path, archive: Path) -> None:
    copy = tmp_path / "copy.db"
    shutil.copy(archive, copy)
    before = copy.read_bytes()
    with serving([str(copy)], tmp_path) as server:
        base = f"{server}/copy"
        response = fetch_json(f"{base}.json?sql=select+count(*)+as+n+from+games&_shape=array")
        assert response == [{"n": len(query(archive, "select id from games"))}]
        try:
            urllib.request.urlopen(f"{base}.json?sql=delete+from+games")
        except urllib.error.HTTPError as error:
            assert error.code == 400
        else:
            raise AssertionError("a DELETE was accepted")
        databases = fetch_json(f"{base.rsplit('/', 1)[0]}/-/databases.json")
        # a read-only reader (mode=ro), not immutable: an import may write meanwhile
        assert [(d["name"], d["is_mutable"]) for d in databases] == [("copy", True)]
    assert copy.read_bytes() == before


def _children(pid: int) -> list[int]:
    """Processes whose parent is ``pid`` (read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(stat.parent.name))
    return found


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_serve_with_several_worker_processes(tmp_path: Path, archive: Path) -> None:
    game = a_game(archive)
    port = free_port()
    process = subprocess.Popen(
        [*jacquet_command(), "serve", str(archive), "--port", str(port), "--workers", "2"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        base = f"http://127.0.0.1:{port}/archive"
        wait_until_up(f"{base}.json", process)
        # uvicorn's supervisor runs the two servers as its children (plus multiprocessing's
        # resource tracker): at least two processes answer on the one port
        assert len(_children(process.pid)) >= 2
        for _ in range(6):
            with urllib.request.urlopen(f"{base}/-/game/{game['id']}?ply=1", timeout=30) as reply:
                assert reply.status == 200
                assert game["id"] in reply.read().decode()
    finally:
        process.terminate()
        process.wait(timeout=30)
    assert _children(process.pid) == []


def test_plain_datasette_loads_the_plugin_through_its_entry_point(archive: Path) -> None:
    datasette = shutil.which("datasette") or str(Path(sys.executable).with_name("datasette"))
    game = a_game(archive)
    turn = query(archive, "select * from turns where game_id = ? and ply = 2", [game["id"]])[0]
    result = subprocess.run(
        [datasette, str(archive), "--get", f"/archive/-/game/{game['id']}?ply=2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr
    assert f'data-key="{turn["key_after"]}"' in result.stdout
    result = subprocess.run(
        [datasette, str(archive), "--get", f"/archive/turns?game_id={game['id']}&ply=2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert f'alt="{turn["key_after"]}"' in result.stdout


def test_position_page_survives_the_time_limit(
    ds: Any, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datasette.database import QueryInterrupted

    from jacquet_notation.browse import position_page as datasette_plugin

    async def too_slow(db: Any, key: str, limit: int, narrowed: Any = None) -> list[dict[str, Any]]:
        raise QueryInterrupted(Exception("interrupted"), "select ...", {})

    monkeypatch.setattr(datasette_plugin, "plays_from", too_slow)
    first = query(archive, "select key_before from turns where ply = 1 limit 1")[0][0]
    tree = page(ds, f"/archive/-/position/{first}")
    assert "time limit (1000 ms)" in select(tree, ".jacquet-timeout")[0].text_content()
    assert select(tree, ".jacquet-game-list a.jacquet-game-link")


def test_plays_from_a_position_are_kept_for_an_immutable_archive(ds: Any, archive: Path) -> None:
    from jacquet_notation.browse.position_page import plays_from

    first = query(archive, "select key_before from turns where ply = 1 limit 1")[0][0]
    db = ds.get_database("archive")
    assert not db.is_mutable
    one = asyncio.run(plays_from(db, first, 1000))
    reached = "select 1 from turns where key_before = ? and key_after is not null"
    assert one and sum(play["games"] for play in one) == len(query(archive, reached, [first]))
    assert asyncio.run(plays_from(db, first, 1000)) is one


def test_plays_from_a_position_are_kept_until_an_import_changes_the_archive(
    archive: Path, tmp_path: Path
) -> None:
    from jacquet_notation.browse.position_page import plays_from

    copy = tmp_path / "archive.db"
    shutil.copy(archive, copy)
    start = query(copy, "select key_before from turns where ply = 1 limit 1")[0][0]
    mutable = build_datasette(copy, immutable=False)
    db = mutable.get_database("archive")
    assert db.is_mutable
    reached = "select 1 from turns where key_before = ? and key_after is not null"
    kept = asyncio.run(plays_from(db, start, 1000))
    assert asyncio.run(plays_from(db, start, 1000)) is kept
    before = len(query(copy, reached, [start]))
    assert sum(play["games"] for play in kept) == before
    records = tmp_path / "more.jqt"
    records.write_text("\n".join(write_game(r) for r in generated(5, seed=41)), encoding="utf-8")
    build_archive(copy, [records])
    after = len(query(copy, reached, [start]))
    assert after > before
    again = asyncio.run(plays_from(db, start, 1000))
    assert again is not kept and sum(play["games"] for play in again) == after


def test_plays_kept_get_a_longer_time_limit_and_are_interrupted_past_it(
    ds: Any, archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datasette.database import QueryInterrupted
    from datasette.utils import sqlite_timelimit

    from jacquet_notation.browse import position_page as datasette_plugin
    from jacquet_notation.browse.shared import forget_kept, kept_count

    reached = "select key_before from turns where ply = 3 and key_after is not null limit 1"
    key = query(archive, reached)[0][0]
    db = ds.get_database("archive")
    limits: list[int] = []
    real = sqlite_timelimit

    def spy(connection: sqlite3.Connection, ms: int) -> Any:
        limits.append(ms)
        return real(connection, ms)

    monkeypatch.setattr(datasette_plugin, "sqlite_timelimit", spy)
    forget_kept()
    assert asyncio.run(datasette_plugin.plays_from(db, key, 700))
    assert limits == [700 * datasette_plugin.KEPT_QUERY_FACTOR]
    # past its time (here none at all), the sum stops as Datasette's own queries do, unkept
    monkeypatch.setattr(datasette_plugin, "KEPT_QUERY_FACTOR", 0)
    forget_kept()
    with pytest.raises(QueryInterrupted):
        asyncio.run(datasette_plugin.plays_from(db, key, 700))
    assert not kept_count()


def test_the_home_page_says_one_of_each_in_the_singular(tmp_path: Path) -> None:
    record = tmp_path / "one.jqt"
    record.write_text(
        '[Event "Club"]\n[Source "Book"]\n[White "Ann"]\n[Black "Ann"]\n\n1. 6-5: 24/13 *\n',
        encoding="utf-8",
    )
    with serving([str(record)], tmp_path) as server:
        status, text = fetch(f"{server}/")
    assert status == 200
    home = html.fromstring(text)
    headings = [
        h.text_content().strip() for h in home.iter("h3") if isinstance(h, html.HtmlElement)
    ]
    assert "1 player" in headings and "1 event" in headings and "1 source" in headings
    words = etree.tostring(home, method="text", encoding="unicode")
    assert "1 ply" in words and "1 plies" not in words


def test_counts_and_plays_are_kept_in_one_bounded_cache(ds: Any, archive: Path) -> None:
    """The games list's counts and the plays from a position share one cache and its one bound."""
    from jacquet_notation.browse.games_list import kept_rows
    from jacquet_notation.browse.position_page import plays_from
    from jacquet_notation.browse.shared import KEPT_SIZE, forget_kept, kept_count

    db = ds.get_database("archive")
    forget_kept()
    counted = asyncio.run(kept_rows(db, "select count(*) as n from games", {}))
    assert counted == [{"n": len(query(archive, "select id from games"))}]
    first = query(archive, "select key_before from turns where ply = 1 limit 1")[0][0]
    asyncio.run(plays_from(db, first, 1000))
    assert kept_count() == 2
    assert asyncio.run(kept_rows(db, "select count(*) as n from games", {})) is counted
    assert kept_count() == 2 and KEPT_SIZE >= 4096
