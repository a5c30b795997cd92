"""How ``jacquet serve``'s server processes treat their sockets and their collector."""

from __future__ import annotations

import asyncio
import gc
import http.client
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

from jacquet_notation.archive import import_paths
from jacquet_notation.browse import accept as _uvicorn
from jacquet_notation.browse.accept import (
    LOOP,
    PROTOCOL,
    FairAcceptLoop,
    ServerHTTPProtocol,
    set_nodelay,
)
from jacquet_notation.browse.server import FrozenAfterFirstRequest

#: one legal game
GAME = '[Event "x"]\n\n1. 6-5: 24/13 4-3: 24/17 *\n'


def _nodelay(sock: Any) -> int:
    return int(sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY))


@pytest.fixture
def listener() -> Iterator[socket.socket]:
    """A listening socket made as uvicorn makes one for several processes: protocol 0."""
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind(("127.0.0.1", 0))
    sock.listen()
    yield sock
    sock.close()


def test_asyncio_leaves_nagle_on_for_such_a_socket_and_set_nodelay_turns_it_off(
    listener: socket.socket,
) -> None:
    seen: list[tuple[int, int]] = []

    class Probe(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            sock = transport.get_extra_info("socket")
            before = _nodelay(sock)
            set_nodelay(transport)
            seen.append((before, _nodelay(sock)))
            transport.close()

    async def one_connection() -> None:
        server = await asyncio.get_running_loop().create_server(Probe, sock=listener)
        port = listener.getsockname()[1]
        _, writer = await asyncio.open_connection("127.0.0.1", port)
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.01)
        writer.close()
        server.close()

    asyncio.run(one_connection())
    # asyncio sets TCP_NODELAY only when the socket's protocol number is TCP's
    assert seen == [(0, 1)]


def test_uvicorn_serves_through_the_protocol_with_nagle_off(listener: socket.socket) -> None:
    """A real uvicorn server on such a socket: every connection it accepts has Nagle off."""
    accepted: list[int] = []

    class Recording(ServerHTTPProtocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            super().connection_made(transport)
            accepted.append(_nodelay(transport.get_extra_info("socket")))

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
    assert accepted == [1]
    assert _uvicorn.open_connections() == 0  # counted while open, and no longer


def test_the_protocol_named_to_uvicorn_is_this_one() -> None:
    config = uvicorn.Config(lambda: None, http=PROTOCOL)
    config.load()
    assert config.http_protocol_class is ServerHTTPProtocol


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


def _accepting(
    loop: asyncio.AbstractEventLoop, listener: socket.socket, waiting: int, serving: int
) -> tuple[int, int]:
    """Connections ``loop`` takes of ``waiting`` when ready: at once, and after its pause."""
    made: list[asyncio.BaseTransport] = []

    class Count(asyncio.Protocol):
        def connection_made(self, transport: asyncio.BaseTransport) -> None:
            made.append(transport)

    port = listener.getsockname()[1]
    clients = [socket.create_connection(("127.0.0.1", port)) for _ in range(waiting)]
    listener.setblocking(False)
    before = _uvicorn._open
    _uvicorn._open = serving  # as if the process served that many already
    try:
        # the handler a ready listening socket runs, called as the loop's server calls it
        loop._accept_connection(Count, listener, None, None, 2048)  # type: ignore[attr-defined]
        loop.run_until_complete(asyncio.sleep(0.002))
        at_once = len(made)
        # then until one more is taken: a busy process waits its pause for each (an idle one
        # was handed one turn only: no more come)
        for _ in range(5000 if serving else 0):
            if len(made) > at_once:
                break
            loop.run_until_complete(asyncio.sleep(0.001))
        return at_once, len(made)
    finally:
        _uvicorn._open = before
        for transport in made:
            transport.close()
        loop._remove_reader(listener.fileno())  # type: ignore[attr-defined]
        while True:  # take what is left, so that the next case starts clean
            try:
                listener.accept()[0].close()
            except BlockingIOError:
                break
        for client in clients:
            client.close()
        loop.run_until_complete(asyncio.sleep(0))


def test_an_idle_process_takes_one_connection_a_turn_a_busy_one_waits_first(
    listener: socket.socket,
) -> None:
    plain = asyncio.SelectorEventLoop()
    fair = FairAcceptLoop()
    try:
        # asyncio's own loop takes all three waiting connections in one go
        assert _accepting(plain, listener, waiting=3, serving=0)[0] == 3
        # an idle process: one at once; the others are left to whoever asks next
        assert _accepting(fair, listener, waiting=3, serving=0)[0] == 1
        # a process serving twenty: none at once; after its pause (0.1 s) the one still
        # waiting, and the next only after another pause
        assert _accepting(fair, listener, waiting=3, serving=20) == (0, 1)
    finally:
        plain.close()
        fair.close()


def test_a_busy_process_leaves_a_connection_to_an_idle_one(listener: socket.socket) -> None:
    """Two loops on one socket, as two server processes: the idle one gets the connection."""
    busy, idle = FairAcceptLoop(), FairAcceptLoop()
    taken: dict[str, int] = {"busy": 0, "idle": 0}

    def counting(name: str) -> type[asyncio.Protocol]:
        class Count(asyncio.Protocol):
            def connection_made(self, transport: asyncio.BaseTransport) -> None:
                taken[name] += 1
                transport.close()

        return Count

    port = listener.getsockname()[1]
    listener.setblocking(False)
    client = socket.create_connection(("127.0.0.1", port))
    before = _uvicorn._open
    try:
        _uvicorn._open = 1  # the busy process's turn comes first: it steps back
        busy._accept_connection(counting("busy"), listener, None, None, 2048)
        _uvicorn._open = 0
        idle._accept_connection(counting("idle"), listener, None, None, 2048)
        idle.run_until_complete(asyncio.sleep(0.01))
        _uvicorn._open = 1
        busy.run_until_complete(asyncio.sleep(_uvicorn.BUSY_PAUSE + 0.05))
        assert taken == {"busy": 0, "idle": 1}
    finally:
        _uvicorn._open = before
        busy._remove_reader(listener.fileno())  # type: ignore[attr-defined]
        client.close()
        busy.close()
        idle.close()


def test_uvicorn_makes_its_loop_from_the_name_given() -> None:
    config = uvicorn.Config(lambda: None, loop=LOOP)
    factory = config.get_loop_factory()
    assert factory is not None
    loop = factory()
    try:
        assert isinstance(loop, FairAcceptLoop)
    finally:
        loop.close()


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
