"""What ``jacquet serve`` changes in how uvicorn's server processes take their connections.

Both pieces are given to uvicorn by import path (``http=``, ``loop=``), so that each server
process it starts imports them.

- :class:`ServerHTTPProtocol`: Nagle's algorithm off on every connection. asyncio turns it off
  only for sockets whose protocol number is TCP's, and the socket uvicorn binds for several
  processes is created with protocol 0. A response is written in more than one piece, and on a
  kept-alive connection the last piece then waits for the client's delayed acknowledgement:
  about 40 ms added to every page (a 12 ms player page was answered in 56 ms).
- :class:`FairAcceptLoop`: new connections go to the process serving the fewest. All server
  processes wait on the one listening socket, and asyncio's loop accepts every connection
  waiting there at once: four clients connecting together all went to one process in a quarter
  of the trials and three to one in most others, leaving a core idle while the other served
  three or four. Here a process takes one connection at a time, and one already serving some
  first lets the others ask.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Callable
from typing import Any

from uvicorn.protocols.http.auto import AutoHTTPProtocol

#: what ``uvicorn.run(http=...)`` imports in each server process
PROTOCOL = f"{__name__}:ServerHTTPProtocol"
#: what ``uvicorn.run(loop=...)`` imports in each server process (called to make the loop)
LOOP = f"{__name__}:FairAcceptLoop"
#: how long a process lets a new connection wait for the others, per connection it serves
BUSY_PAUSE = 0.005

#: connections this process serves now (one server a process: uvicorn's, through the protocol)
_open = 0


def open_connections() -> int:
    """The connections this server process has open (see :class:`ServerHTTPProtocol`)."""
    return _open


def set_nodelay(transport: asyncio.BaseTransport) -> None:
    """Send each write at once on ``transport``'s TCP socket (nothing for other sockets)."""
    sock: Any = transport.get_extra_info("socket")
    if sock is not None and sock.family in (socket.AF_INET, socket.AF_INET6):
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)


class ServerHTTPProtocol(AutoHTTPProtocol):  # type: ignore[misc,valid-type]
    """uvicorn's own HTTP protocol (httptools or h11): Nagle off, the connections counted."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        global _open
        set_nodelay(transport)
        _open += 1
        super().connection_made(transport)

    def connection_lost(self, exc: Exception | None) -> None:
        global _open
        _open -= 1
        super().connection_lost(exc)


class FairAcceptLoop(asyncio.SelectorEventLoop):
    """asyncio's loop, taking new connections one at a time, and later when it already has some.

    ``_accept_connection`` is asyncio's own (private) handler of a ready listening socket: it
    accepts up to its fifth argument's number of waiting connections (the backlog, 2,048 under
    uvicorn). Here a process with no connection accepts one at once; one serving ``n`` stops
    watching the socket for ``n`` times :data:`BUSY_PAUSE`, during which an idle process takes
    the connection, then accepts it itself if it is still waiting (so none waits longer) and
    watches again. Only for several processes: alone, a pause would only delay.
    """

    def _accept_connection(
        self,
        protocol_factory: Any,
        sock: Any,
        sslcontext: Any = None,
        server: Any = None,
        backlog: int = 100,
        *rest: Any,
    ) -> None:
        args = (protocol_factory, sock, sslcontext, server, 1, *rest)
        accept: Callable[..., None] = super()._accept_connection  # type: ignore[misc]
        busy = open_connections()
        if not busy:
            accept(*args)
            return
        self._remove_reader(sock.fileno())  # type: ignore[attr-defined]

        def resume() -> None:
            if sock.fileno() == -1:
                return  # the server closed meanwhile
            accept(*args)  # the connection that was waiting, unless another process took it
            # watched again as asyncio watches it (the backlog argument is ignored here)
            watch: Callable[..., None] = self._add_reader  # type: ignore[attr-defined]
            watch(sock.fileno(), self._accept_connection, *args)

        self.call_later(BUSY_PAUSE * busy, resume)
