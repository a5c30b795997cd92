"""A served database's connections opened again when its log is deleted under them
(:mod:`jacquet_notation.browse.reopening`), in process, where the order of events is the test's:
the integration test (tests/integration/test_archive_damage.py) serves a real archive."""

from __future__ import annotations

import asyncio
import gc
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from datasette.app import Datasette

from jacquet_notation.browse.reopening import reopen_when_replaced

ROWS = 2_000


@pytest.fixture
def logged(tmp_path: Path) -> Path:
    """A WAL database of ROWS rows, checkpointed."""
    path = tmp_path / "logged.db"
    conn = sqlite3.connect(path)
    conn.execute("pragma journal_mode = wal")
    conn.execute("create table t (x)")
    conn.executemany("insert into t values (?)", [(i,) for i in range(ROWS)])
    conn.commit()
    conn.execute("pragma wal_checkpoint(truncate)")
    conn.close()
    return path


@pytest.fixture
def no_collector() -> Iterator[None]:
    """The cyclic collector off, so that garbage stays until something collects it."""
    gc.disable()
    try:
        yield
    finally:
        gc.enable()


def _written_elsewhere(path: Path, rows: int) -> None:
    """``rows`` more rows written and checkpointed by another process (one of this process
    would share the readers' view of the log)."""
    code = (
        "import sqlite3, sys\n"
        "conn = sqlite3.connect(sys.argv[1])\n"
        f"conn.executemany('insert into t values (?)', [(i,) for i in range({rows})])\n"
        "conn.commit()\n"
        "conn.execute('pragma wal_checkpoint(passive)')\n"
        "conn.close()\n"
    )
    subprocess.run([sys.executable, "-c", code, str(path)], check=True, timeout=60)


def _count(db: Any) -> int:
    async def counted() -> int:
        return int((await db.execute("select count(*) from t")).first()[0])

    return asyncio.run(counted())


def _cursor_in_a_cycle(conn: sqlite3.Connection) -> None:
    """A cursor with a live statement, kept only by a reference cycle: what an exception's
    traceback leaves when a query is interrupted (its frame holds the cursor)."""
    cursor = conn.execute("select x from t")
    cursor.fetchmany(3)
    holder: list[object] = [cursor]
    holder.append(holder)


@pytest.mark.usefixtures("no_collector")
@pytest.mark.parametrize("cycle", [False, True], ids=["plain", "cursor-in-a-cycle"])
def test_a_log_deleted_and_made_again_is_read_through_fresh_connections(
    logged: Path, cycle: bool
) -> None:
    datasette = Datasette([str(logged)])
    db = datasette.databases["logged"]
    reopen_when_replaced(db)
    assert _count(db) == ROWS  # the connections now read this -wal and -shm
    if cycle:
        asyncio.run(db.execute_fn(_cursor_in_a_cycle))
    for kind in ("-wal", "-shm"):
        os.unlink(f"{logged}{kind}")
    _written_elsewhere(logged, 500)
    assert Path(f"{logged}-shm").exists()  # the writer made new ones
    # Every connection is closed and opened again; one left open underneath by its statement
    # would share the deleted -shm with the fresh ones, and they would count ROWS
    assert _count(db) == ROWS + 500
    assert _count(db) == ROWS + 500  # and again, on the connections opened then
    _written_elsewhere(logged, 1)
    assert _count(db) == ROWS + 501  # a write in place is simply read: nothing to open again
