"""The importing process's handle on the writer process (:mod:`.writer`): the requests it
sends, and the writer's answers, which come in the order of the requests and are taken as they
come, so that the importer reads the next file while the writer writes those before it
(``importer.FILES_IN_FLIGHT``).
"""

from __future__ import annotations

import collections
import contextlib
import gc
import multiprocessing
import time
from dataclasses import dataclass
from multiprocessing.connection import Connection as Pipe
from typing import Any

from ..match import GameSummary
from ..notation import GameChunk
from ..rules import Rules
from .messages import (
    Abort,
    Aborted,
    BatchDone,
    Began,
    Begin,
    Failed,
    Finish,
    Finished,
    Quit,
    ReadBatch,
    Reply,
    Request,
    WriteBatch,
)
from .rows import DerivedGame
from .store import ArchiveError
from .writer import PIPE_BYTES, serve


@dataclass
class FileSent:
    """A file sent to the writer, and its answers as they come."""

    began: Began | None = None
    finished: Finished | None = None
    #: the writer said the file grew the archive past its cap
    refused: bool = False


class WriterProcess:
    """The importer's handle on the writer process (see :func:`.writer.serve`)."""

    def __init__(self, path: str, rules: Rules | None) -> None:
        methods = multiprocessing.get_all_start_methods()
        # fork starts at once (nothing to import again). The child never touches the
        # importer's connection it inherits, and leaves by os._exit: no finaliser closes it.
        context: Any = multiprocessing.get_context("fork" if "fork" in methods else "spawn")
        self.requests: Pipe
        self.replies: Pipe
        requests_end, self.requests = context.Pipe(duplex=False)
        self.replies, replies_end = context.Pipe(duplex=False)
        self.path = path
        #: batches sent and not yet done; the processor time of each process since the start
        #: (the writer's as it last said)
        self.pending = 0
        self.writer_cpu = 0.0
        #: the files sent and not yet finished, oldest first; those finished, not yet asked for
        self.files: collections.deque[FileSent] = collections.deque()
        self.done: list[FileSent] = []
        self.started = time.process_time()
        self.process = context.Process(
            target=serve,
            args=(path, rules, requests_end, self.requests, self.replies, replies_end),
            name="jacquet-archive-writer",
            daemon=True,
        )
        # Connections that are garbage are closed here, by the library that opened them, rather
        # than inherited by the child (see writer.serve).
        gc.collect()
        self.process.start()
        requests_end.close()
        replies_end.close()
        # A pipe holds 64 KiB: a batch of rows (about 450 KiB pickled) would wait for the writer
        # to read most of it. A larger pipe lets the importer go on to its next batch.
        with contextlib.suppress(ImportError, OSError, AttributeError):
            import fcntl  # POSIX; F_SETPIPE_SZ is Linux's

            fcntl.fcntl(self.requests.fileno(), fcntl.F_SETPIPE_SZ, PIPE_BYTES)

    def _gone(self) -> ArchiveError:
        self.process.join(timeout=5)
        return ArchiveError(
            f"{self.path}: the archive's writer process stopped "
            f"(exit code {self.process.exitcode}); nothing of the file in progress was kept"
        )

    def send(self, request: Request) -> None:
        try:
            self.requests.send(request)
        except OSError:
            raise self._gone() from None

    def _reply(self) -> Reply:
        try:
            return self.replies.recv()  # type: ignore[no-any-return]
        except (EOFError, OSError):
            raise self._gone() from None

    def _take(self, reply: Reply) -> None:
        """Note one of the writer's answers, which come in the order of the requests: a file's
        Began, its batches done, its Finished, then the next file's."""
        match reply:
            case BatchDone(cpu, refused):
                self.writer_cpu = cpu
                self.pending -= 1
                self.files[0].refused = self.files[0].refused or refused
            case Began():
                self.files[0].began = reply
            case Finished():
                self.files[0].finished = reply
                self.done.append(self.files.popleft())
            case Failed(error):
                raise error
            case _:
                raise ArchiveError(f"{self.path}: the writer answered {reply!r}")

    def finished(self, wait: int | None = None) -> list[FileSent]:
        """The files the writer has finished, in order, each once: those it has answered for
        so far, or (``wait``) waiting until at most that many are left in progress."""
        while (self.files and self.replies.poll()) or (wait is not None and len(self.files) > wait):
            self._take(self._reply())
        done, self.done = self.done, []
        return done

    @property
    def refused(self) -> bool:
        """Whether the writer has said that the file being sent grew the archive past its cap
        (it ignores the rest of it: the importer stops reading it)."""
        return bool(self.files) and self.files[-1].refused

    def caught_up(self) -> bool:
        """Whether to give the writer the next batch to read: it has kept up, and used less
        processor time so far than the importer (so the two come out about even).

        The importer asks just after sending a batch, which the writer has then only begun: one
        batch pending is the writer keeping up.
        """
        while self.pending and self.replies.poll():
            self._take(self._reply())
        return self.pending <= 1 and self.writer_cpu < time.process_time() - self.started

    def begin(self, name: str, sha: str | None, deferred: bool, bulk: bool, limit: int) -> FileSent:
        """Open a file's transaction in the writer, without waiting for it (the file's
        :class:`Began` comes with its :class:`Finished`, from :meth:`finished`)."""
        self.send(Begin(name, sha, deferred, bulk, limit))
        sent = FileSent()
        self.files.append(sent)
        return sent

    def write(self, batch: list[DerivedGame]) -> None:
        """Have the writer write a batch the importer derived."""
        self.send(WriteBatch(batch))
        self.pending += 1

    def read(
        self, number: int, chunks: list[GameChunk], previous: GameSummary | None = None
    ) -> None:
        """Have the writer read batch ``number`` itself (see :data:`.importer.WRITER_SHARE`),
        its first game checked against ``previous``."""
        self.send(ReadBatch(number, chunks, previous))
        self.pending += 1

    def finish(self, games: int, counts: dict[str, int], problem: str | None) -> None:
        """Have the writer record the file's counts and commit it (or refuse it), without
        waiting: see :meth:`finished`."""
        self.send(Finish(games, counts, problem))

    def abort(self) -> None:
        """Roll the file in progress back, and wait until it is (the answers before are
        dropped: the files they finished are committed, the import is ending on an error)."""
        with contextlib.suppress(ArchiveError):
            self.send(Abort())
            while not isinstance(self._reply(), Aborted):
                pass
        self.files.clear()
        self.pending = 0

    def close(self) -> None:
        """Let the writer end, and wait for it (it is never left running)."""
        with contextlib.suppress(OSError):
            self.requests.send(Quit())
        self.requests.close()
        self.process.join(timeout=60)
        if self.process.is_alive():
            self.process.kill()
            self.process.join()
        self.replies.close()
