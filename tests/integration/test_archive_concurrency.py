"""The archive under faults and concurrency, with real processes: two imports at once, an import
while ``jacquet serve`` serves the file, the importer killed while its writer still has work.

Loopback only, bounded in requests and seconds; nothing here measures time (the figures are
``bench/serve_during_import.py``'s).
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import children, free_port, stop

from jacquet_notation.archive import import_paths
from jacquet_notation.archive import store as archive
from jacquet_notation.cli import main
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import Rules

#: new files imported while another process works on the same archive, and games in each
FILES = 6
GAMES = 40


def jacquet(*args: str) -> list[str]:
    return [sys.executable, "-m", "jacquet_notation", *args]


@pytest.fixture(scope="module")
def corpus(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[Path]]:
    """One file of games already archived, then :data:`FILES` files of new games."""
    folder = tmp_path_factory.mktemp("concurrency")
    records = list(generate_records((FILES + 1) * GAMES, 14, Rules.named("jacquet")))
    paths = []
    for number in range(FILES + 1):
        path = folder / f"part{number}.jqt"
        part = records[number * GAMES : (number + 1) * GAMES]
        path.write_text("\n".join(write_game(record) for record in part), encoding="utf-8")
        paths.append(path)
    return paths[0], paths[1:]


def rows(db: Path, sql: str, *params: object) -> list[tuple[object, ...]]:
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30) as conn:
        return conn.execute(sql, params).fetchall()


def game_ids(db: Path) -> dict[str, list[str]]:
    """The games of each imported file, by the file's path."""
    found: dict[str, list[str]] = {}
    for path, game in rows(
        db,
        "SELECT i.path, o.game_id FROM occurrences o JOIN imports i ON i.id = o.import_id "
        "ORDER BY i.id, o.game_index",
    ):
        found.setdefault(str(path), []).append(str(game))
    return found


def alive(pid: int) -> bool:
    """Whether process ``pid`` exists and has not ended (a zombie has ended)."""
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.parametrize("fresh", [True, False], ids=["new archive", "existing archive"])
def test_two_imports_at_once_import_each_file_once(
    corpus: tuple[Path, list[Path]], tmp_path: Path, fresh: bool
) -> None:
    """Both runs import the same files at once: one writes a file while the other waits for it,
    then finds it imported. On a new archive, one creates it while the other waits."""
    old, files = corpus
    db = tmp_path / "twice.db"
    before = 0 if fresh else GAMES
    if not fresh:
        import_paths(db, [str(old)])
    names = [str(path) for path in files]
    runs = [
        subprocess.Popen(
            jacquet("archive", str(db), *names),
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for _ in range(2)
    ]
    for run in runs:
        out, err = run.communicate(timeout=600)
        assert run.returncode == 0, out + err
        assert "Traceback" not in err
    files_now = FILES + (0 if fresh else 1)
    assert rows(db, "SELECT count(*) FROM imports") == [(files_now,)]
    assert rows(db, "SELECT count(DISTINCT sha256) FROM imports") == [(files_now,)]
    assert rows(db, "SELECT count(*) FROM occurrences") == [(before + FILES * GAMES,)]
    assert rows(db, "SELECT sum(games) FROM imports") == [(before + FILES * GAMES,)]
    assert rows(db, "PRAGMA integrity_check") == [("ok",)]
    assert rows(db, "PRAGMA foreign_key_check") == []
    assert rows(db, "SELECT count(*) FROM players GROUP BY normalised HAVING count(*) > 1") == []


def test_an_import_waits_for_the_lock_then_says_so_in_one_line(
    corpus: tuple[Path, list[Path]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Another process holds the archive's write lock longer than an import waits."""
    old, files = corpus
    db = tmp_path / "locked.db"
    import_paths(db, [str(old)])
    monkeypatch.setattr(archive, "WAIT_SECONDS", 0.5)
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        result = CliRunner().invoke(main, ["archive", str(db), str(files[0])])
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert result.exit_code == 2, result.output
    assert result.output.strip().splitlines() == [
        f"jacquet: {db}: another process is writing to this archive; gave up after waiting "
        "0.5 s for it (run the import again when it is done)"
    ]
    assert rows(db, "SELECT count(*) FROM imports") == [(1,)]
    # the lock released, the same command imports the file
    assert CliRunner().invoke(main, ["archive", str(db), str(files[0])]).exit_code == 0
    assert rows(db, "SELECT count(*) FROM imports") == [(2,)]


def test_the_writer_ends_quietly_when_the_importer_is_killed(
    corpus: tuple[Path, list[Path]], tmp_path: Path
) -> None:
    """The writer, stopped, has a request to answer when the importer is killed: resumed, it
    answers into a pipe nobody reads any more, and must end in at most one line."""
    _, files = corpus
    db = tmp_path / "killed.db"
    errors = tmp_path / "stderr.txt"
    with open(errors, "w", encoding="utf-8") as stderr:
        run = subprocess.Popen(
            jacquet("archive", str(db), *map(str, files)),
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            start_new_session=True,
        )
    deadline = time.monotonic() + 120
    while not (writers := children(run.pid)):
        assert run.poll() is None and time.monotonic() < deadline
        time.sleep(0.01)
    (writer,) = writers
    os.kill(writer, signal.SIGSTOP)
    time.sleep(0.5)  # the importer has sent the file's start, perhaps batches: all unanswered
    os.kill(run.pid, signal.SIGKILL)
    run.wait(timeout=60)
    os.kill(writer, signal.SIGCONT)
    while alive(writer):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    shown = errors.read_text(encoding="utf-8")
    assert "Traceback" not in shown
    assert len(shown.strip().splitlines()) <= 1, shown
    assert rows(db, "SELECT count(*) FROM imports WHERE status = 'complete'") == [(0,)]


# -- jacquet serve during an import --------------------------------------------------------------


@pytest.fixture
def served(corpus: tuple[Path, list[Path]], tmp_path: Path) -> Iterator[tuple[Path, str]]:
    """``jacquet serve`` (two server processes) on an archive of the first file."""
    old, _ = corpus
    db = tmp_path / "served.db"
    import_paths(db, [str(old)])
    port = free_port()
    server = subprocess.Popen(
        jacquet("serve", str(db), "--port", str(port), "--workers", "2"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 120
        while status(f"{base}/-/versions.json") != 200:
            assert server.poll() is None and time.monotonic() < deadline
            time.sleep(0.1)
        with urllib.request.urlopen(f"{base}/-/databases.json", timeout=30) as response:
            (database,) = json.loads(response.read())
        yield db, f"{base}/{database['name']}"
    finally:
        stop(server)


def status(url: str) -> int:
    """The HTTP status of ``url`` (0 when nothing answers)."""
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            response.read()
            return int(response.status)
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return 0


def test_serve_answers_every_page_right_during_and_after_an_import(
    corpus: tuple[Path, list[Path]], served: tuple[Path, str], tmp_path: Path
) -> None:
    old, files = corpus
    db, base = served
    # the games each new file brings, known beforehand from an archive of their own
    reference = tmp_path / "reference.db"
    import_paths(reference, [str(path) for path in files])
    expected = game_ids(reference)
    known = list(game_ids(db)[str(old)])
    importing = subprocess.Popen(
        jacquet("archive", str(db), *map(str, files)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    pick = random.Random(14)
    committed: set[str] = set()
    tables = ["games", "turns", "positions", "imports", "occurrences", "players"]
    failures: list[str] = []
    requests = during = 0
    deadline = time.monotonic() + 300
    while requests < 3000 and time.monotonic() < deadline:
        running = importing.poll() is None
        # which files had committed before the pages below are asked for
        for (path,) in rows(db, "SELECT path FROM imports WHERE status = 'complete'"):
            if str(path) not in committed and str(path) in expected:
                committed.add(str(path))
                known.extend(expected[str(path)])
        for url in (
            f"{base}/-/game/{pick.choice(known)}",
            f"{base}/-/game/{pick.choice(known)}?ply=1",
            f"{base}/{pick.choice(tables)}",
        ):
            code = status(url)
            requests += 1
            during += running
            if code != 200:
                failures.append(f"{code} {url}")
        if not running:
            break
    assert importing.wait(timeout=300) == 0, importing.stderr.read() if importing.stderr else ""
    assert failures == []
    assert during >= 30, during  # pages asked for while the import ran
    print(f"{requests} requests, {during} during the import, {len(committed)} files seen")
    # after the import, with no restart: every game of every file has its page
    for game in [game for ids in expected.values() for game in ids]:
        assert status(f"{base}/-/game/{game}") == 200, game
