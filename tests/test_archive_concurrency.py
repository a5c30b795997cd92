"""The archive under faults and concurrency, with real processes: two imports at once, an import
while ``jacquet serve`` serves the file, the importer killed while its writer still has work.

Loopback only, bounded in requests and seconds; nothing here measures time (the figures are
``bench/serve_during_import.py``'s).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from jacquet_notation import archive
from jacquet_notation.archive import import_paths
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


def children(pid: int) -> list[int]:
    """The live child processes of ``pid`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                    state, parent = handle.read().rsplit(")", 1)[1].split()[:2]
            except OSError:
                continue
            if int(parent) == pid and state != "Z":
                found.append(int(entry))
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
