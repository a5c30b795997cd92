"""How ``jacquet serve``'s server processes treat their sockets and their collector."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import http.client
import os
import signal
import socket
import sqlite3
import subprocess
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import uvicorn
from helpers import as_version_1, free_port, jacquet_command, stop
from uvicorn.protocols.http.auto import AutoHTTPProtocol

from jacquet_notation.archive import import_paths
from jacquet_notation.browse.server import FrozenAfterFirstRequest, bind

#: one legal game
GAME = '[Event "x"]\n\n1. 6-5: 24/13 4-3: 24/17 *\n'


def _nodelay(sock: Any) -> int:
    return int(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A listening socket made as uvicorn makes one for several processes: protocol 0 (and
    without ``SO_REUSEPORT``, so that no server may share its port)."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    yield sock
    sock.close()


def _nagle_seen(listener: socket.socket) -> int:
    """TCP_NODELAY on the one connection asyncio accepts on ``listener``, as asyncio left it."""
    seen: list[int] = []

    async def one_connection() -> None:
        made = asyncio.get_running_loop().create_future()

        class Probe(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                seen.append(_nodelay(transport.get_extra_info("socket")))
                transport.close()
                if not made.done():
                    made.set_result(None)

        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        port = listener.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        # however loaded the machine: the connection is made once the loop gets to it
        await asyncio.wait_for(made, timeout=60)
        writer.close()
        server.close()

    asyncio.run(one_connection())
    assert len(seen) == 1
    return seen[0]


def test_asyncio_leaves_nagle_on_for_a_socket_of_protocol_0(listener: socket.socket) -> None:
    """Why bind gives TCP's protocol number: asyncio sets TCP_NODELAY only on such sockets."""
    assert _nagle_seen(listener) == 0


@pytest.mark.parametrize("probed", [0, 1])
def test_asyncio_turns_nagle_off_on_every_connection_of_binds_sockets(probed: int) -> None:
    sockets = bind("127.0.0.1", 0, 2)
    assert all(sock.proto == socket.IPPROTO_TCP for sock in sockets)
    # the kernel shares a port's new connections among its listening sockets: the one probed
    # must be the only one left, or the probe's connection may wait at the other for ever
    for number, sock in enumerate(sockets):
        if number != probed:
            sock.close()
    with sockets[probed] as sock:
        assert _nagle_seen(sock) == 1


def test_uvicorn_serves_binds_socket_with_nagle_off() -> None:
    """A real uvicorn server with its own HTTP protocol on bind's socket: Nagle off."""
    (listener,) = bind("127.0.0.1", 0)
    accepted: list[int] = []

    class Recording(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            accepted.append(_nodelay(transport.get_extra_info("socket")))
            super().connection_made(transport)

    async def app(scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            return
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"first ", "more_body": True})
        await send({"type": "http.response.body", "body": b"second"})

    config = uvicorn.Config(app, http=Recording, log_level="warning", lifespan="off")
    server = uvicorn.Server(config)
    thread = threading.Thread(target=server.run, kwargs={"sockets": [listener]})
    thread.start()
    try:
        for _ in range(500):
            if server.started:
                break
            threading.Event().wait(0.01)
        connection = http.client.HTTPConnection("127.0.0.1", listener.getsockname()[1])
        for _ in range(3):  # kept alive: one connection
            connection.request("GET", "/")
            assert connection.getresponse().read() == b"first second"
        connection.close()
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listener.close()
    assert accepted == [1]


def test_bind_gives_each_worker_its_own_socket_on_one_port() -> None:
    sockets = bind("127.0.0.1", 0, 3)
    try:
        assert len({sock.fileno() for sock in sockets}) == 3
        assert len({sock.getsockname() for sock in sockets}) == 1
        for sock in sockets:
            assert sock.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) == 1
    finally:
        for sock in sockets:
            sock.close()
    (alone,) = bind("127.0.0.1", 0)  # one process: no other socket may share its port
    with alone:
        assert alone.getsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT) == 0


def test_the_collector_is_frozen_once_after_the_first_request() -> None:
    answered: list[str] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        answered.append(scope["type"])

    wrapped = FrozenAfterFirstRequest(app)

    async def call(kind: str) -> None:
        await wrapped({"type": kind}, None, None)

    gc.unfreeze()
    try:
        asyncio.run(call("lifespan"))
        assert gc.get_freeze_count() == 0  # start-up alone: not yet
        asyncio.run(call("http"))
        frozen = gc.get_freeze_count()
        assert frozen > 0 and wrapped.frozen
        gc.unfreeze()
        asyncio.run(call("http"))
        assert gc.get_freeze_count() == 0  # once only
        assert answered == ["lifespan", "http", "http"]
    finally:
        gc.unfreeze()


# -- the port, bound before anything is claimed ---------------------------------------------------


def _serve(args: list[str], cwd: Path) -> subprocess.CompletedProcess[str]:
    """``jacquet serve ARGS`` as a real process, in ``cwd``; one that would serve is stopped by
    the timeout, which the caller's assertions then report."""
    return subprocess.run(
        [*jacquet_command(), "serve", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )


@pytest.mark.parametrize("workers", ["1", "2"])
def test_a_port_already_taken_is_one_line_exit_2_and_nothing_imported(
    tmp_path: Path, listener: socket.socket, workers: str
) -> None:
    record = tmp_path / "game.jqt"
    record.write_text(GAME, encoding="utf-8")
    port = str(listener.getsockname()[1])
    result = _serve([str(record), "--port", port, "--workers", workers], tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [f"jacquet: 127.0.0.1:{port}: Address already in use"]
    assert "serving on" not in result.stdout + result.stderr
    assert list(tmp_path.iterdir()) == [record]  # no ./jacquet-archive.db


def test_a_taken_port_leaves_an_old_archive_unmigrated(
    tmp_path: Path, listener: socket.socket
) -> None:
    record = tmp_path / "game.jqt"
    record.write_text(GAME, encoding="utf-8")
    archive = tmp_path / "new.db"
    import_paths(archive, [str(record)])
    db = tmp_path / "games.db"
    as_version_1(archive, db)
    before = db.read_bytes()
    port = str(listener.getsockname()[1])
    result = _serve([str(db), "--port", port], tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [f"jacquet: 127.0.0.1:{port}: Address already in use"]
    assert db.read_bytes() == before
    with sqlite3.connect(db) as conn:
        assert conn.execute("pragma user_version").fetchone() == (1,)


@pytest.mark.parametrize("name", ["fake.db", "fake.sqlite", "fake.SQLITE3", "empty.db"])
def test_a_file_named_like_an_archive_that_is_not_sqlite_is_refused(
    tmp_path: Path, name: str
) -> None:
    fake = tmp_path / name
    fake.write_text("" if name.startswith("empty") else GAME, encoding="utf-8")
    result = _serve([str(fake), "--port", str(free_port())], tmp_path)
    assert result.returncode == 2, result.stderr
    assert result.stderr.splitlines() == [
        f"jacquet: {fake}: not a SQLite file, so not an archive to serve"
    ]
    assert list(tmp_path.iterdir()) == [fake]


def test_the_serving_line_comes_once_the_port_listens(tmp_path: Path) -> None:
    record = tmp_path / "game.jqt"
    record.write_text(GAME, encoding="utf-8")
    port = free_port()
    process = subprocess.Popen(
        [*jacquet_command(), "serve", str(record), "--port", str(port), "--workers", "1"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stderr is not None
        for line in process.stderr:
            if "serving on" in line:
                break
        assert line.strip() == f"jacquet: serving on http://127.0.0.1:{port}/"
        # the port takes a connection as soon as the line is out
        socket.create_connection(("127.0.0.1", port), timeout=5).close()
    finally:
        stop(process)  # type: ignore[arg-type]


def _tcp_sockets(port: int) -> dict[int, str]:
    """The loopback TCP sockets whose local port is ``port``: inode -> state (0A: listening,
    01: established), from the kernel's own table."""
    found: dict[int, str] = {}
    for line in Path("/proc/net/tcp").read_text().splitlines()[1:]:
        fields = line.split()
        if int(fields[1].rsplit(":", 1)[1], 16) == port:
            found[int(fields[9])] = fields[3]
    return found


def _socket_inodes(pid: int) -> set[int]:
    """The sockets process ``pid`` holds, by inode (none once it has gone)."""
    inodes: set[int] = set()
    try:
        fds = list(Path(f"/proc/{pid}/fd").iterdir())
    except OSError:
        return inodes
    for fd in fds:
        with contextlib.suppress(OSError):
            target = os.readlink(fd)
            if target.startswith("socket:["):
                inodes.add(int(target[8:-1]))
    return inodes


def test_two_workers_each_serve_their_own_socket_and_the_kernel_shares_connections_out(
    tmp_path: Path,
) -> None:
    record = tmp_path / "game.jqt"
    record.write_text(GAME, encoding="utf-8")
    port = free_port()
    process = subprocess.Popen(
        [*jacquet_command(), "serve", str(record), "--port", str(port), "--workers", "2"],
        cwd=tmp_path,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    connections: list[http.client.HTTPConnection] = []
    again: list[int] = []
    try:
        children: list[int] = []
        for _ in range(600):  # both workers up: each answers on its own socket
            children = [
                int(pid)
                for pid in Path(f"/proc/{process.pid}/task/{process.pid}/children")
                .read_text()
                .split()
            ]
            listening = {i for i, state in _tcp_sockets(port).items() if state == "0A"}
            workers = [pid for pid in children if _socket_inodes(pid) & listening]
            if len(listening) == 2 and len(workers) == 2:
                break
            threading.Event().wait(0.1)
        assert len(listening) == 2 and len(workers) == 2
        for _ in range(16):  # each from its own client port, kept open
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
            connection.request("GET", "/-/versions.json")
            assert connection.getresponse().read()
            connections.append(connection)
        established = {i for i, state in _tcp_sockets(port).items() if state == "01"}
        held = [len(_socket_inodes(pid) & established) for pid in workers]
        assert sum(held) == 16 and min(held) > 0, held  # all 16 to one: 1 chance in 32,768
        os.kill(workers[0], signal.SIGKILL)  # a worker that ends is started again on its socket
        for _ in range(600):
            children = [
                int(pid)
                for pid in Path(f"/proc/{process.pid}/task/{process.pid}/children")
                .read_text()
                .split()
            ]
            again = [pid for pid in children if _socket_inodes(pid) & listening]
            if len(again) == 2 and workers[0] not in again:
                break
            threading.Event().wait(0.1)
        assert len(again) == 2 and workers[0] not in again
    finally:
        for connection in connections:
            connection.close()
        stop(process)
    assert process.returncode is not None
    for pid in again:  # asked to stop, the workers stop too
        for _ in range(100):
            if not Path(f"/proc/{pid}").exists():
                break
            threading.Event().wait(0.1)
        assert not Path(f"/proc/{pid}").exists()
