"""uvicorn's HTTP protocol with Nagle's algorithm off on every connection it accepts.

asyncio turns Nagle off only for sockets whose protocol number is TCP; the socket uvicorn binds
for several server processes is created with protocol 0, so the connections accepted on it keep
Nagle on. A response is written in more than one piece, and on a kept-alive connection the last
piece then waits for the client's delayed acknowledgement: about 40 ms added to every page
(measured with ``bench/serve.py``: a 13 ms player page answered in 56 ms).
"""

from __future__ import annotations

import asyncio
import socket
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

#: what ``uvicorn.run(http=...)`` imports in each server process
PROTOCOL = f"{__name__}:NoDelayHTTPProtocol"


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """Send each write at once on ``transport``'s TCP socket (nothing for other sockets)."""
    sock: Any = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class NoDelayHTTPProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's own HTTP protocol (httptools or h11), with :func:`set_nodelay` on connecting."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        set_nodelay(transport)
        super().connection_made(transport)
