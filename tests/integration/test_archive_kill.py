"""``kill -9`` during an import, for real: the archive stays consistent and a re-run completes it.

The import runs as the real command in a subprocess whose stderr is a pseudo-terminal, so that it
draws its progress bar; the test reads the count of games from the bar to kill the process at a
known point inside a file, or polls the archive (as Datasette would, WAL) to kill it just after
a file was committed.
"""

from __future__ import annotations

import contextlib
import functools
import os
import pty
import re
import select
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import check_consistent, children, dump, one

from jacquet_notation.archive import BATCH
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import Rules

BIG = 300


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """A big file first, then two small ones, of legal generated games."""
    assert BIG > 2 * BATCH
    folder = tmp_path_factory.mktemp("kill")
    records = list(generate_records(BIG + 80, 9, Rules.named("jacquet")))
    parts = {"big.jqt": records[:BIG], "small1.jqt": records[BIG : BIG + 40]}
    parts["small2.jqt"] = records[BIG + 40 :]
    paths = []
    for name, part in parts.items():
        path = folder / name
        path.write_text("\n".join(write_game(record) for record in part), encoding="utf-8")
        paths.append(str(path))
    return paths


def _sigint_by_default() -> None:
    """In the child, before the command starts: SIGINT's default action (end the process)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


#: a terminal's control sequence (CSI ... final byte), as the progress bar draws with
_CONTROL = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")


def on_screen(output: bytes) -> str:
    """What a terminal shows of ``output``: control sequences gone, each line as its last
    carriage return left it. A failing assertion quotes this, never the raw escapes."""
    text = _CONTROL.sub("", output.decode("utf-8", "replace").replace("\r\n", "\n"))
    return "\n".join(line.rsplit("\r", 1)[-1] for line in text.split("\n"))


class Import:
    """``jacquet archive DB FILES...`` in a subprocess, its progress bar on a pseudo-terminal."""

    def __init__(self, db: Path, files: list[str]) -> None:
        master, slave = pty.openpty()
        env = {key: value for key, value in os.environ.items() if key != "CI"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jacquet_notation", "archive", str(db), *files],
            stdout=subprocess.DEVNULL,
            stderr=slave,
            env=env,
            start_new_session=True,  # a process group of its own, as a terminal would give it
            # Ctrl-C as a terminal delivers it, even when this suite runs in the background of a
            # non-interactive shell, which starts it with SIGINT ignored: a child inherits that,
            # and the command rightly keeps a disposition its parent chose
            preexec_fn=_sigint_by_default,
        )
        os.close(slave)
        self.master = master
        self.seen = b""

    def games_shown(self) -> int:
        """The highest count of games the bar has drawn so far (waits a little for output)."""
        ready, _, _ = select.select([self.master], [], [], 0.05)
        if ready:
            # OSError: the process has gone and closed the terminal.
            with contextlib.suppress(OSError):
                self.seen += os.read(self.master, 65536)
        counts = [int(n) for n in re.findall(rb"(\d+) games", self.seen)]
        return max(counts, default=0)

    def wait_for(self, done: Callable[[], object], timeout: float = 300) -> None:
        deadline = time.monotonic() + timeout
        while not done():
            assert self.process.poll() is None, "the import ended before it could be killed"
            assert time.monotonic() < deadline
            self.games_shown()

    def kill(self) -> None:
        """SIGKILL, no clean-up of any kind; the process must still have been running."""
        assert self.process.poll() is None, "the import ended before it could be killed"
        os.kill(self.process.pid, signal.SIGKILL)
        self.process.wait(timeout=60)
        os.close(self.master)
        assert self.process.returncode == -signal.SIGKILL

    def writer(self) -> int:
        """The pid of the import's writer process (its one child), once it has started."""
        self.wait_for(lambda: children(self.process.pid))
        (pid,) = children(self.process.pid)
        return pid

    def ended(self) -> tuple[int, str]:
        """Wait for the end: the exit code and what was written on the terminal."""
        while self.process.poll() is None:
            self.games_shown()
        with contextlib.suppress(OSError):
            while select.select([self.master], [], [], 0.1)[0]:
                self.seen += os.read(self.master, 65536)
        os.close(self.master)
        return self.process.returncode, on_screen(self.seen)

    def finish(self) -> None:
        while self.process.poll() is None:
            self.games_shown()
        os.close(self.master)
        assert self.process.returncode == 0
        assert b"games" in self.seen  # the bar was drawn on the terminal


def gone(pid: int, timeout: float = 30) -> bool:
    """Whether process ``pid`` ends (or is a zombie) within ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as handle:
                if handle.read().rsplit(")", 1)[1].split()[0] == "Z":
                    return True
        except OSError:
            return True
        time.sleep(0.05)
    return False


def imports_done(db: Path) -> int:
    """Committed imports, read by another connection while the import writes (WAL)."""
    if not db.exists():
        return 0
    try:
        with sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=10) as conn:
            return int(conn.execute("SELECT count(*) FROM imports").fetchone()[0])
    except sqlite3.OperationalError:  # the schema is not committed yet
        return 0


@pytest.fixture(scope="module")
def reference(files: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The archive an uninterrupted import makes."""
    return completed(tmp_path_factory.mktemp("reference") / "reference.db", files)


def completed(db: Path, files: list[str]) -> Path:
    """``db`` after an import of ``files`` run to its end, checked consistent."""
    Import(db, files).finish()
    check_consistent(db)
    return db


def test_kill_inside_the_first_file_then_rerun(
    files: list[str], reference: Path, tmp_path: Path
) -> None:
    db = tmp_path / "first.db"
    run = Import(db, files)
    run.wait_for(lambda: run.games_shown() >= BATCH)  # games written, the file not committed
    writer = run.writer()
    run.kill()
    # the writer sees the end of its pipe: it rolls the file back and ends (no orphan)
    assert gone(writer)
    check_consistent(db)
    assert one(db, "SELECT count(*) FROM games") == 0
    assert one(db, "SELECT count(*) FROM imports") == 0
    assert dump(completed(db, files)) == dump(reference)


def test_kill_after_the_first_file_keeps_it(
    files: list[str], reference: Path, tmp_path: Path
) -> None:
    db = tmp_path / "second.db"
    run = Import(db, files)
    run.wait_for(lambda: imports_done(db) >= 1)
    run.kill()
    check_consistent(db)
    assert one(db, "SELECT games FROM imports WHERE id = 1") == BIG
    # the small files may have been sent whole while the big one was written (and committed)
    assert one(db, "SELECT count(*) FROM games") in (BIG, BIG + 40, BIG + 80)
    assert dump(completed(db, files)) == dump(reference)


def test_killed_again_and_again_then_completed(
    files: list[str], reference: Path, tmp_path: Path
) -> None:
    """Resumable: each run gets a little further; the last one completes the archive."""
    db = tmp_path / "again.db"
    stops = [
        lambda run: run.games_shown() >= 2 * BATCH,
        lambda run: run.games_shown() >= 2 * BATCH,
        lambda run: imports_done(db) >= 1,
    ]
    # (no stop after the second file: the importer sends the third, small, while the second
    # is written, and the run may end before a kill could land)
    for stop in stops:
        run = Import(db, files)
        run.wait_for(functools.partial(stop, run))
        run.kill()
        check_consistent(db)
    # the kill lands once the first file has committed; the small ones after it may have been
    # sent whole while it was written, and committed too (the writer commits a file that was
    # sent to its end, even after the importer's death)
    assert one(db, "SELECT count(*) FROM imports") in (1, 2, 3)
    assert dump(completed(db, files)) == dump(reference)


def test_writer_killed_gives_one_clean_line_and_keeps_nothing_of_the_file(
    files: list[str], reference: Path, tmp_path: Path
) -> None:
    db = tmp_path / "writer.db"
    run = Import(db, files)
    run.wait_for(lambda: run.games_shown() >= BATCH)
    os.kill(run.writer(), signal.SIGKILL)
    code, shown = run.ended()
    assert code == 2, shown
    assert "Traceback" not in shown and "\x1b" not in shown
    # the error starts a line of its own, after the bar
    stopped = f"jacquet: {db}: the archive's writer process stopped (exit code -9)"
    assert any(line.startswith(stopped) for line in shown.split("\n")), shown
    check_consistent(db)
    assert one(db, "SELECT count(*) FROM games") == 0
    assert dump(completed(db, files)) == dump(reference)


def test_ctrl_c_rolls_the_file_back_and_ends_both_processes(
    files: list[str], reference: Path, tmp_path: Path
) -> None:
    """SIGINT to the whole process group, as a terminal's Ctrl-C: the writer ignores it, the
    importer tells it to roll the file back, and both end."""
    db = tmp_path / "interrupted.db"
    run = Import(db, files)
    run.wait_for(lambda: run.games_shown() >= BATCH)
    writer = run.writer()
    os.killpg(run.process.pid, signal.SIGINT)
    code, shown = run.ended()
    assert code != 0, shown
    assert "Traceback" not in shown
    assert gone(writer)
    check_consistent(db)
    assert one(db, "SELECT count(*) FROM games") == 0
    assert dump(completed(db, files)) == dump(reference)
