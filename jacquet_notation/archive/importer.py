"""Importing record files into the archive: one transaction a file, written by a writer process.

The importing process cuts each file into batches of games; it derives the rows of most batches
itself and has the writer process (:mod:`.writer`) write them, and hands the writer a batch to
read itself whenever the writer has caught up, so that the two share the work.
"""

from __future__ import annotations

import collections
import contextlib
import hashlib
import io
import json
import os
import sqlite3
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import sqlite_utils

from ..errors import JacquetError, no_game_records
from ..garbage import fewer_collections
from ..match import GameSummary, match_summary
from ..notation import GameChunk, parse_chunk, record_chunks
from ..rules import Rules
from ..sources import STDIN, UnreadablePath, file_sha256, record_files, source_name
from . import import_rows, settling, store
from .opening import open_archive
from .rebuilding import rebuild
from .rows import derive_batch
from .store import ArchiveError
from .summary import ImportSummary
from .writer_process import FileSent, WriterProcess

#: which batches the writer process parses, replays and derives itself (the importing process
#: is the busier of the two, see "Speed" in docs/archive.md). None: each batch that finds the
#: writer caught up (done with every batch but the last one sent), so that the two share the
#: work whatever their speeds; an integer k: one batch in k, fixed (0: none), for measurements
#: and tests
WRITER_SHARE: int | None = None
#: the most files sent to the writer and not yet finished when the next is begun. The writer
#: commits each file on its own; on a folder of small files, one file in its hands left each
#: process waiting on the other at every file (the shared match files: 1,346 files, 16 to 26 s
#: at 1, 11 to 18 s at 8 on 2 cores, alternated runs; no gain past 8). What waits is bounded
#: all the same: the pipe's bytes (PIPE_BYTES, then sending blocks) and, here, each file's
#: counts and error lines until its Finished comes
FILES_IN_FLIGHT = 8


class _Importer:
    """Imports files one transaction each, and counts what it did."""

    def __init__(
        self,
        db: sqlite_utils.Database,
        path: str,
        rules: Rules | None,
        encoding: str,
        progress: Callable[[int], None] | None,
    ) -> None:
        self.db = db
        self.conn = db.conn
        self.path = path
        self.encoding = encoding
        self.progress = progress
        # batches are derived here (or by the writer), written by the writer process
        self.rules = rules
        self.writer_process: WriterProcess | None = None
        self.summary = ImportSummary()
        #: the run's new files are written as one bulk import, settled at its end (settling.py)
        self.bulk = False
        #: each file's sha256, read once by :meth:`plan`
        self.shas: dict[str, str] = {}
        #: the files sent to the writer and not yet finished, oldest first
        self.reading: collections.deque[_FileRead] = collections.deque()

    def plan(self, entries: Sequence[str | UnreadablePath]) -> None:
        """Decide whether the run is a bulk import: more than one new file, whose bytes at least
        double the plays the archive holds (the measure :func:`.store.key_indexes_deferred`
        applies to one file). Each file is hashed here, once, so that a file already imported
        counts for nothing (re-importing a folder with one new file is not bulk)."""
        sizes = []
        for entry in entries:
            if not isinstance(entry, str) or entry == STDIN:
                continue
            try:
                sha = self.shas[entry] = file_sha256(entry)
                if import_rows.imported(self.conn, sha) is None:
                    sizes.append(os.path.getsize(entry))
            except OSError:
                continue  # reported when the file's turn comes
        self.bulk = len(sizes) > 1 and store.key_indexes_deferred(self.conn, sum(sizes))

    def run(self, entries: Sequence[str | UnreadablePath]) -> None:
        """Import every entry (:func:`.sources.record_files`), then settle."""
        self.plan(entries)
        try:
            for entry in entries:
                if isinstance(entry, str):
                    self.file(entry)
                else:
                    self.summary.files += 1
                    self.unreadable_file(entry.path, entry.message(), io=entry.io)
            self.wait_for_writer()
        finally:
            self.close()
            # an interrupted bulk import settles what it committed too; if it cannot, the next
            # import does (as after a kill), and the first error is the one told
            failing = sys.exc_info()[1] is not None
            try:
                self.settle()
            except (sqlite3.Error, ArchiveError):
                if not failing:
                    raise

    def settle(self) -> None:
        """Settle the archive's pending imports (:mod:`.settling`), in a transaction of its own."""
        if settling.pending_imports(self.conn):
            with store.write_lock(self.conn, self.path):
                settling.settle(self.conn)

    def unreadable_file(
        self, path: str, message: str, sha: str | None = None, *, io: bool = True
    ) -> None:
        """Record a file that could not be read at all (once: re-running adds nothing);
        ``io``: it could not be opened or read (an I/O error), not merely empty of records."""
        self.wait_for_writer()
        self.summary.unreadable += 1
        self.summary.unreadable_files += 1
        self.summary.io_errors += io
        self.summary.errors.append(message)
        with store.write_lock(self.conn, self.path):
            seen = self.conn.execute(
                "SELECT 1 FROM imports WHERE path IS ? AND sha256 IS ? AND error IS ?",
                (path, sha, message),
            ).fetchone()
            if seen is None:
                import_id = import_rows.new_import(
                    self.conn, path, sha, status="unreadable", error=message
                )
                self.conn.execute(
                    "UPDATE imports SET finished = ? WHERE id = ?", (store.now(), import_id)
                )

    def skip(self, import_id: int) -> None:
        """Report a file already imported from what the archive holds, without reading it."""
        summary = self.summary
        games, valid, invalid, unreadable, status, error = self.conn.execute(
            "SELECT games, valid, invalid, unreadable, status, error FROM imports WHERE id = ?",
            (import_id,),
        ).fetchone()
        summary.skipped_files += 1
        summary.games += games
        summary.valid += valid
        summary.invalid += invalid
        summary.unreadable += unreadable
        for (errors,) in self.conn.execute(
            "SELECT g.errors FROM occurrences o JOIN games g ON g.id = o.game_id "
            "WHERE o.import_id = ? AND g.errors IS NOT NULL ORDER BY o.game_index",
            (import_id,),
        ):
            summary.errors.extend(detail["text"] for detail in json.loads(errors))
        if status in ("unreadable", import_rows.PENDING) and error:
            summary.unreadable += 1
            summary.unreadable_files += 1
            summary.errors.append(error)

    def file(self, path: str) -> None:
        """Import one file (or ``-``, standard input) in one transaction."""
        self.summary.files += 1
        data: bytes | None = None
        try:
            if path == STDIN:
                data = sys.stdin.buffer.read()
                sha = hashlib.sha256(data).hexdigest()
            else:
                sha = self.shas.pop(path, "") or file_sha256(path)
        except OSError as error:
            self.unreadable_file(path, f"{path}: {error.strerror or error}")
            return
        # asked here first, to skip the file without starting the writer; asked again by the
        # writer under the write lock, which decides (see WriterProcess.begin)
        done = import_rows.imported(self.conn, sha)
        if done is not None:
            self.wait_for_writer()
            self.skip(done)
            return
        name = source_name(path)
        self._read(name, sha, io.BytesIO(data) if data is not None else None)

    def _writer(self) -> WriterProcess:
        """The writer process, started for the first file that is read."""
        if self.writer_process is None:
            self.writer_process = WriterProcess(self.path, self.rules)
        return self.writer_process

    def close(self) -> None:
        if self.writer_process is not None:
            self.writer_process.close()
            self.writer_process = None

    def _read(self, name: str, sha: str, stream: io.BytesIO | None) -> None:
        """Send a file to the writer, batch by batch, then go on to the next without waiting
        for its commit: the writer writes one file while this process reads the next (on a
        folder of small files the two took turns). What the writer says of the file is told
        by :meth:`_told`, in order, when it comes."""
        try:
            size = len(stream.getbuffer()) if stream is not None else os.path.getsize(name)
        except OSError:
            size = 0  # the reading below meets the same problem and reports it
        writer = self._writer()
        self._told(writer.finished(wait=FILES_IN_FLIGHT))
        deferred = not self.bulk and store.key_indexes_deferred(self.conn, size)
        sent = writer.begin(name, sha, deferred, self.bulk, store.growth_cap(size))
        mine = _FileRead(sent)
        self.reading.append(mine)
        chunks: list[GameChunk] = []

        def send() -> None:
            number = len(mine.errors)
            if (
                writer.caught_up()
                if WRITER_SHARE is None
                else WRITER_SHARE and number % WRITER_SHARE == WRITER_SHARE - 1
            ):
                writer.read(number, chunks, mine.previous)
                mine.errors.append(None)
                # the batch the writer reads: its last game read here too, for the next
                mine.previous = match_summary(parse_chunk(chunks[-1]))
            else:
                # the import id is the writer's to give (it may not have begun the file yet)
                batch, lines, mine.previous = derive_batch(
                    chunks, self.rules, None, mine.counts, mine.previous
                )
                mine.errors.append(lines)
                writer.write(batch)
            mine.games += len(chunks)
            if self.progress is not None:
                self.progress(len(chunks))

        sent_all = False
        try:
            try:
                with contextlib.ExitStack() as stack:
                    source = stream if stream is not None else stack.enter_context(open(name, "rb"))
                    for chunk in record_chunks(source, name, encoding=self.encoding):
                        chunks.append(chunk)
                        if len(chunks) >= store.BATCH:
                            send()
                            chunks = []
                            if writer.refused:
                                break  # past its cap: nothing more of it is read
            except OSError as error:
                mine.problem = f"{name}: {error.strerror or error}"
                self.summary.io_errors += 1
            except JacquetError as error:
                error.file = error.file or name
                mine.problem = str(error).splitlines()[0]
            if chunks and not writer.refused:
                send()
            if mine.games == 0 and mine.problem is None:
                mine.problem = str(no_game_records(name))
            writer.finish(mine.games, mine.counts, mine.problem)
            sent_all = True
        finally:
            if not sent_all:
                # an error on this side: the writer drops the file before it is raised
                writer.abort()
                self.reading.clear()
        self._told(writer.finished())

    def _told(self, finished: list[FileSent]) -> None:
        """Count what the writer said of each file it finished, in the order they were sent."""
        summary = self.summary
        for sent in finished:
            mine = self.reading.popleft()
            assert mine.sent is sent and sent.began is not None and sent.finished is not None
            if sent.began.already:  # another import committed the same file meanwhile
                self.skip(sent.began.import_id)
                continue
            finished_file = sent.finished
            if finished_file.refused is not None:  # rolled back: unreadable, its games not kept
                summary.errors.append(finished_file.refused)
                summary.unreadable += 1
                summary.unreadable_files += 1
                continue
            for number, lines in finished_file.messages:
                mine.errors[number] = lines
            for batch_errors in mine.errors:
                summary.errors.extend(batch_errors or ())
            if mine.problem is not None:
                summary.errors.append(mine.problem)
                summary.unreadable += 1
                summary.unreadable_files += 1
            summary.games += mine.games
            counts = mine.counts
            for status in counts:
                counts[status] += finished_file.counts[status]
            summary.valid += counts["valid"]
            summary.invalid += counts["invalid"]
            summary.unreadable += counts["unreadable"]
            summary.new_games += finished_file.added

    def wait_for_writer(self) -> None:
        """Wait for every file sent, and count them (before what is told without the writer:
        a file skipped or unreadable, the end), so that the errors keep the files' order."""
        if self.writer_process is not None:
            self._told(self.writer_process.finished(wait=0))


@dataclass
class _FileRead:
    """What the importing process knows of a file it sent, until the writer has finished it."""

    sent: FileSent
    counts: dict[str, int] = field(
        default_factory=lambda: {"valid": 0, "invalid": 0, "unreadable": 0}
    )
    games: int = 0
    problem: str | None = None
    #: the error lines of each batch, in order; None for a batch the writer reads
    errors: list[list[str] | None] = field(default_factory=list)
    #: the summary of the last game sent, which the next batch's first game is checked
    #: against (validate's checks across games), whichever process derives that batch
    previous: GameSummary | None = None


def import_paths(
    db: str | os.PathLike[str],
    paths: Sequence[str],
    *,
    rules: Rules | None = None,
    encoding: str = "utf-8",
    progress: Callable[[int], None] | None = None,
) -> ImportSummary:
    """Import the record files ``paths`` (files, folders, ``-``) into the archive ``db``.

    One transaction per file; a file whose sha256 is already in ``imports`` is skipped without
    being parsed. ``progress`` is called with the number of games just handled.
    """
    database = open_archive(db)
    if import_rows.stale_imports(database.conn):
        # stored by another reader, which may have read them wrongly: derived again first
        database.close()
        rebuild(db, rules=rules)
        database = open_archive(db)
    try:
        importer = _Importer(database, os.fspath(db), rules, encoding, progress)
        with fewer_collections():
            importer.run(list(record_files(paths)))
        return importer.summary
    finally:
        database.close()
