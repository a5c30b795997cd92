"""The writer process's answers to the importer, sent so that the writer never waits for the
importer to read them.

The importer may itself be waiting, to send a request into a full pipe, while the writer sends
an answer larger than the pipe of answers holds (a file's Finished carries the error lines of
every batch the writer read); if the writer then waited too, each process would wait for the
other for ever (tests/integration/test_archive_writer.py). So an answer is written at once, as
far as the pipe takes it without blocking, and whatever it does not take waits in a backlog
that a thread writes as the importer reads; the answers after it join the backlog, so that
they come in order. Nearly every answer goes straight into the pipe, with no thread between:
handing each answer to a thread cost the writer about a tenth of an import of the shared match
files (the answers came later, and the importer took more of the work).
"""

from __future__ import annotations

import collections
import os
import select
import struct
import threading
from multiprocessing.connection import Connection as Pipe
from multiprocessing.reduction import ForkingPickler

from .messages import Reply


class Answers:
    """The writer's end of the pipe of answers (see the module's docstring)."""

    def __init__(self, replies: Pipe) -> None:
        self.replies = replies
        self.fd = replies.fileno()
        #: where the pipe cannot be written without blocking (not POSIX), every answer goes
        #: through the thread, which then waits in ``send_bytes`` instead
        self.direct = True
        try:
            os.set_blocking(self.fd, False)
        except OSError:
            self.direct = False
        self.lock = threading.Condition()
        #: what the pipe has not taken yet, oldest first: frames, or the rest of one
        self.backlog: collections.deque[memoryview] = collections.deque()
        #: an answer could not be written: the importer is gone
        self.broken = False
        self.closed = False
        # a daemon: one waiting on an importer that never reads again ends with the process
        self.thread = threading.Thread(
            target=self._run, name="jacquet-archive-answers", daemon=True
        )
        self.thread.start()

    def send(self, reply: Reply) -> None:
        """Send ``reply`` after every answer before it, without waiting for the importer."""
        data = ForkingPickler.dumps(reply)
        # the frame of Connection.send_bytes, which the importer's Connection.recv reads: the
        # length as four bytes, big-endian, then the bytes (an answer is far below 2 GiB)
        frame = memoryview(b"".join((struct.pack("!i", len(data)), data)))
        with self.lock:
            if self.broken:
                return
            if not self.backlog and self.direct:
                rest = self._write(frame)
                if rest is None:
                    return
                frame = rest
            self.backlog.append(frame)
            self.lock.notify()

    def _write(self, frame: memoryview) -> memoryview | None:
        """Write what the pipe takes of ``frame`` now; the rest, or None once it is all taken
        (or the importer is gone)."""
        while frame:
            try:
                frame = frame[os.write(self.fd, frame) :]
            except BlockingIOError:
                return frame
            except OSError:
                self.broken = True
                return None
        return None

    def _run(self) -> None:
        """Write the backlog as the importer reads, until it is closed and empty."""
        while True:
            with self.lock:
                while not self.backlog and not self.closed and not self.broken:
                    self.lock.wait()
                if not self.backlog or self.broken:
                    return
                frame = self.backlog[0]
            if not self.direct:
                try:
                    self.replies.send_bytes(frame[4:])  # frames itself: no blocking write here
                except OSError:
                    self.broken = True
                with self.lock:
                    self.backlog.popleft()
                continue
            select.select([], [self.fd], [])  # room in the pipe (or the importer is gone)
            with self.lock:
                rest = self._write(frame)
                if rest is None:
                    self.backlog.popleft()
                else:
                    self.backlog[0] = rest

    def close(self) -> None:
        """Let the answers waiting go out; the thread ends once they have (not waited for: the
        importer reads them, or it is gone)."""
        with self.lock:
            self.closed = True
            self.lock.notify()
