"""Archives that are not what they claim, served by a real ``jacquet serve`` over real HTTP.

A file of the current version whose tables are not the archive's is refused in one line; one
whose turns hold garbage is served without a 500; one on read-only media is served immutable;
one whose write-ahead log was deleted while it was served is read again rather than answering
"malformed".
"""

from __future__ import annotations

import json
import os
import re
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any, cast
from urllib.parse import quote

import pytest
from helpers import as_version_1, copy_archive, corpus_archive, fetch, generated, serving
from lxml import html

from jacquet_notation.archive import SCHEMA_VERSION, open_archive
from jacquet_notation.notation import write_game


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A good archive of the corpus' records (12 generated games, a hostile one, a broken one)."""
    return corpus_archive(tmp_path_factory.mktemp("damage"))


def _damaged(archive: Path, folder: Path, name: str, script: str) -> Path:
    """A copy of ``archive`` at ``folder/name.db`` with ``script`` run on it (its version kept)."""
    copy = folder / f"{name}.db"
    copy_archive(archive, copy)
    target = sqlite3.connect(copy)
    target.executescript(script)
    target.commit()
    target.close()
    return copy


def _serve_refused(db: Path) -> tuple[int, list[str]]:
    """The exit code and the lines of ``jacquet serve DB`` that must refuse to serve it (a
    server left running past the timeout fails the test)."""
    try:
        done = subprocess.run(
            [sys.executable, "-m", "jacquet_notation", "serve", str(db), "--port", "9"],
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{db}: served instead of refused") from None
    return done.returncode, done.stderr.strip().splitlines()


#: a games table that another program made, without the column every listing reads: its
#: indexes, triggers and views that name the column must go first for SQLite to drop it
_NO_STATUS = (
    "drop index idx_games_status; drop trigger game_list_insert; drop trigger game_list_update; "
    "drop view opening_rolls; drop view invalid_games; alter table games drop column status"
)


@pytest.mark.parametrize(
    ("script", "said"),
    [
        (_NO_STATUS, "table games lacks column status"),
        (
            "pragma legacy_alter_table = 1; alter table games rename column status to state",
            "table games lacks column status",
        ),
        (
            "drop view turns; create view turns as select game as game_id from plies",
            "view turns lacks column ply (and 14 more)",
        ),
        ("drop view player_records", "view player_records is missing"),
        (
            "drop trigger game_list_insert; drop trigger game_list_update; "
            "drop trigger game_list_delete; drop table game_list",
            "table game_list is missing",
        ),
        # a view made again over a table since dropped: compiling it fails
        (
            "drop view head_to_head; create table gone (player_id); create view head_to_head "
            "as select player_id from gone; drop table gone",
            "view head_to_head cannot be read (no such table: main.gone)",
        ),
    ],
)
def test_a_current_version_file_without_the_archive_s_columns_is_refused_in_one_line(
    tmp_path: Path, archive: Path, script: str, said: str
) -> None:
    db = _damaged(archive, tmp_path, "odd", script)
    code, lines = _serve_refused(db)
    assert code == 2, lines
    assert lines == [f"jacquet: {db}: not a jacquet archive of version {SCHEMA_VERSION}: {said}"], (
        lines
    )
    # an import is refused the same way, before it writes anything
    before = db.read_bytes()
    done = subprocess.run(
        [sys.executable, "-m", "jacquet_notation", "archive", str(db), str(archive)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert done.stderr.strip().splitlines()[-1].endswith(said), done.stderr
    assert db.read_bytes() == before


def test_the_expected_layout_is_the_schema_s_own_and_a_good_archive_passes(
    archive: Path,
) -> None:
    from jacquet_notation.archive.opening import check_columns, expected_layout

    layout = expected_layout()
    assert layout["games"][0] == "table" and "status" in layout["games"][1]
    assert layout["player_records"][0] == "view"
    assert not [name for name in layout if name.startswith("games_fts_")]  # SQLite's own
    reader = sqlite3.connect(archive)
    try:
        check_columns(str(archive), reader)  # raises for a file that lacks any of it
    finally:
        reader.close()
    # a migrated archive has the whole layout too (the migrations make what a new one has)
    old = archive.parent / "old.db"
    as_version_1(archive, old)
    open_archive(old).conn.close()
    reader = sqlite3.connect(old)
    try:
        check_columns(str(old), reader)
    finally:
        reader.close()


# -- garbage in the cells of turns and games -------------------------------------------------------

#: cells of the wrong type or out of their domain, as another program (or a disk) might leave
_GARBAGE = """
    update plies set turn = 'y', side = 'purple', dice = 7, written = 3, before = 'zz',
      key_after = X'00', steps = 5, pips = 'many'
      where game = (select n.number from game_numbers n join games g on g.id = n.game_id
                    where g.plies > 4 order by g.id limit 1) and ply > 1;
    insert or replace into ply_notes (game, ply, cube, error, opponent_steps)
      select game, ply, 'double x', 4, X'01' from plies
      where game = (select n.number from game_numbers n join games g on g.id = n.game_id
                    where g.plies > 4 order by g.id limit 1) and ply > 1;
    update plies set steps = -1
      where game = (select n.number from game_numbers n join games g on g.id = n.game_id
                    where g.plies > 4 order by g.id limit 1) and ply = 3;
    update plies set id = id + (1 << 40)
      where game = (select n.number from game_numbers n join games g on g.id = n.game_id
                    where g.plies > 4 order by g.id limit 1) and ply = 4;
    update plies set side = null, turn = 2.5 where (game + ply) % 3 = 0;
    update plies set key_after = 'not a key' where (game * 7 + ply) % 5 = 0;
    update games set tags = '[1, 2]', options = 7, errors = '{"a": 1}', plies = 'x',
      points = 'y', winner = 'z', rules = 3, final_key = 9 where rowid % 2 = 0;
    update players set name = 12 where id = (select min(id) from players);
"""


@pytest.fixture(scope="module")
def garbage(archive: Path) -> Path:
    return _damaged(archive, archive.parent, "garbage", _GARBAGE)


def _links(text: str) -> list[str]:
    found = cast(list[Any], html.fromstring(text).xpath("//a/@href"))
    return [str(href) for href in found]


def test_garbage_in_turns_and_games_cells_answers_no_page_500(garbage: Path) -> None:
    connection = sqlite3.connect(garbage)
    games = [row[0] for row in connection.execute("select id from games order by id")]
    players = [row[0] for row in connection.execute("select id from players")]
    keys = [
        row[0]
        for row in connection.execute("select distinct key_before from turns limit 20")
        if row[0]
    ]
    connection.close()
    with serving([str(garbage)]) as base:
        pages = ["/", "/garbage/-/home", "/garbage/-/games", "/garbage/-/event/1"]
        pages += ["/garbage/-/source/1", "/garbage/turns", "/garbage/games"]
        pages += [f"/garbage/-/game/{game}" for game in games]
        pages += [f"/garbage/-/game/{games[0]}?ply={ply}" for ply in range(8)]
        pages += [f"/garbage/-/player/{player}" for player in players]
        pages += [f"/garbage/-/position/{quote(key)}" for key in keys]
        failed = []
        for url in pages:
            status, text = fetch(base + url)
            if status >= 500:
                failed.append((url, status, re.sub(r"\s+", " ", text)[-300:]))
        assert failed == []
        # the damaged game says so, and still shows the plies it can
        damaged = _a_damaged_game(garbage)
        status, text = fetch(f"{base}/garbage/-/game/{damaged}")
        assert status == 200
        assert "damaged" in text
        page = html.fromstring(text)
        assert page.xpath("//*[contains(@class, 'jacquet-board')]")


def _a_damaged_game(db: Path) -> str:
    connection = sqlite3.connect(db)
    try:
        found = connection.execute("select game_id from turns where side = 'purple' limit 1")
        return str(found.fetchone()[0])
    finally:
        connection.close()


# -- read-only media -------------------------------------------------------------------------------


@pytest.fixture
def read_only_place(tmp_path: Path) -> Iterator[tuple[Path, Path]]:
    """A folder (``src``) and its read-only bind mount (``dst``): what is put in ``src`` is
    seen in ``dst`` on a read-only file system. Skipped where mounting is refused."""
    source, mounted = tmp_path / "src", tmp_path / "dst"
    source.mkdir()
    mounted.mkdir()
    bound = subprocess.run(["mount", "--bind", str(source), str(mounted)], capture_output=True)
    if bound.returncode != 0:
        pytest.skip(f"mount --bind refused: {bound.stderr.decode().strip()}")
    try:
        again = subprocess.run(
            ["mount", "-o", "remount,ro,bind", str(mounted)], capture_output=True
        )
        if again.returncode != 0:
            pytest.skip(f"a read-only remount refused: {again.stderr.decode().strip()}")
        yield source, mounted
    finally:
        subprocess.run(["umount", str(mounted)], check=True)


def _checkpointed(archive: Path, target: Path) -> None:
    """``archive`` copied to ``target`` as one file (no -wal, no -shm): a published copy."""
    copy_archive(archive, target)


def test_a_good_archive_on_a_read_only_mount_is_served_immutable(
    archive: Path, read_only_place: tuple[Path, Path]
) -> None:
    source, mounted = read_only_place
    _checkpointed(archive, source / "published.db")
    db = mounted / "published.db"
    with pytest.raises(OSError):
        (mounted / "probe").write_text("x")  # the place is read-only indeed
    with serving([str(db)]) as base:
        status, text = fetch(f"{base}/-/databases.json")
        assert status == 200
        assert '"is_mutable": false' in text
        for url in ["/", "/published/-/games", "/published/games", "/published/turns"]:
            status, text = fetch(base + url)
            assert status == 200, (url, text[-300:])
        status, text = fetch(f"{base}/published/-/games")
        game = next(link for link in _links(text) if "/-/game/" in link)
        status, text = fetch(base + game)
        assert status == 200 and "jacquet-board" in text
    assert sorted(os.listdir(source)) == ["published.db"]  # nothing was made beside it


def test_an_old_archive_on_read_only_media_is_refused_with_what_to_do(
    archive: Path, read_only_place: tuple[Path, Path]
) -> None:
    source, mounted = read_only_place
    as_version_1(archive, source / "old.db")
    code, lines = _serve_refused(mounted / "old.db")
    assert code == 2
    assert lines == [
        f"jacquet: {mounted / 'old.db'}: archive schema version 1 is older than this jacquet's "
        f"({SCHEMA_VERSION}) and the file is on read-only media; it must be migrated on "
        "writable media first (copy it there and run jacquet serve or jacquet archive on it)"
    ]
    assert sorted(os.listdir(source)) == ["old.db"]


# -- the write-ahead log deleted while served ------------------------------------------------------


def test_a_log_deleted_while_served_then_imported_into_is_read_again(
    tmp_path: Path, archive: Path
) -> None:
    db = tmp_path / "served.db"
    _checkpointed(archive, db)
    more = tmp_path / "more.jqt"
    more.write_text(
        "\n\n".join(write_game(record) for record in generated(4, seed=4242)) + "\n",
        encoding="utf-8",
    )
    with serving([str(db)]) as base:
        before, status = _page_count(base)
        assert status == 200
        # connections open in every server process and thread, as on a server in use
        assert {fetch(f"{base}/served/-/games")[0] for _ in range(16)} == {200}
        for kind in ("-wal", "-shm"):
            Path(f"{db}{kind}").unlink()  # under the server's feet
        imported = subprocess.run(
            [sys.executable, "-m", "jacquet_notation", "archive", str(db), str(more)],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert imported.returncode == 0, imported.stderr
        answers = [fetch(f"{base}/served/-/games")[0] for _ in range(20)]
        answers += [fetch(f"{base}/served/games.json?_size=1")[0] for _ in range(20)]
        assert answers == [200] * 40
        # the games imported meanwhile are there, whichever server process answers
        assert {_page_count(base) for _ in range(8)} == {(before + 4, 200)}


def _page_count(base: str) -> tuple[int, int]:
    """The games the server counts now, and the status of its answer."""
    status, text = fetch(f"{base}/served.json?sql=select+count(*)+from+games&_shape=arrayfirst")
    return (json.loads(text)[0] if status == 200 else -1), status


def test_a_log_beside_an_archive_on_read_only_media_is_refused_not_ignored(
    archive: Path, read_only_place: tuple[Path, Path]
) -> None:
    source, mounted = read_only_place
    work = source.parent / "work.db"
    _checkpointed(archive, work)
    writer = sqlite3.connect(work)
    writer.execute("pragma journal_mode = wal")
    writer.execute("pragma wal_autocheckpoint = 0")
    writer.execute("update players set name = name || ' (renamed)'")
    writer.commit()
    # copied while the writer is open: the commit is in the log only, and no -shm goes along
    shutil.copy(work, source / "logged.db")
    shutil.copy(f"{work}-wal", source / "logged.db-wal")
    writer.close()
    code, lines = _serve_refused(mounted / "logged.db")
    assert code == 2
    [said] = lines
    assert said.startswith(f"jacquet: {mounted / 'logged.db'}: on read-only media, with a ")
    assert said.endswith(
        "open it once on writable media (jacquet archive), which folds the log into the file"
    )
