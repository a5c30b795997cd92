"""How ``jacquet serve``'s server processes treat their sockets and their collector."""

from __future__ import annotations

import asyncio
import gc
import http.client
import socket
import threading
from collections.abc import Iterator
from typing import Any

import pytest
import uvicorn

from jacquet_notation.commands._nodelay import PROTOCOL, NoDelayHTTPProtocol, set_nodelay
from jacquet_notation.commands.serve import FrozenAfterFirstRequest


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

    class Recording(NoDelayHTTPProtocol):  # type: ignore[misc]
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


def test_the_protocol_named_to_uvicorn_is_this_one() -> None:
    config = uvicorn.Config(lambda: None, http=PROTOCOL)
    config.load()
    assert config.http_protocol_class is NoDelayHTTPProtocol


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
