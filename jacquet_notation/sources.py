"""Where records come from: the paths named, standard input, a file's digest, its games cut.

Every command that reads record files (validate, archive, export, fmt, replay, serve) finds and
opens them here, so that a folder, a missing file, a broken link, a FIFO or ``-`` means the same
to each. Nothing here parses a game: :func:`game_chunks` only cuts a file into the text of its
games, which worker processes then parse.
"""

from __future__ import annotations

import hashlib
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from .notation import GameChunk, record_chunks

#: the path that names standard input, and the file name its games and errors carry
STDIN = "-"
STDIN_NAME = "<stdin>"

#: the file endings read when a folder is given (a file named on the command line is always read);
#: what a file holds, a Jacquet record, a match file, gnubg's SGF or an eXtreme Gammon file, is
#: told by its content, not its ending
RECORD_SUFFIXES = (".jqt", ".jacquet", ".txt", ".mat", ".sgf", ".xg")


@dataclass(frozen=True, slots=True)
class UnreadablePath:
    """A path named or found that is not read: reported, counted as unreadable, never skipped.

    A folder without record files, a missing file, a broken symbolic link, a folder that cannot
    be listed, or a special file (a FIFO, a socket, a device): opening a FIFO for reading waits
    for a writer that may never come, so such a path is refused before anything opens it.

    ``io`` is True for a path that could not be opened (an I/O error: every command exits 2)
    and False for a folder that was listed but holds no record file (read, nothing in it: as a
    file without games, exit 1); see docs/validate.md, "Paths that cannot be read".
    """

    path: str
    reason: str
    io: bool = True

    def message(self) -> str:
        """The one line every command prints for it: ``path: reason``."""
        return f"{self.path}: {self.reason}"


_SPECIAL_KINDS = (
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def unreadable_reason(path: str) -> str | None:
    """Why ``path`` is not to be opened for reading; None for a regular file or a folder.

    Decided with ``os.stat`` alone, so that a FIFO is refused without ever being opened.
    """
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        if os.path.islink(path):
            return "a broken symbolic link (its target does not exist)"
        return "No such file or directory"
    except OSError as error:
        return error.strerror or str(error)
    if stat.S_ISREG(mode) or stat.S_ISDIR(mode):
        return None
    kind = next((name for test, name in _SPECIAL_KINDS if test(mode)), "a special file")
    return f"{kind}, not a regular file: not read"


def record_files(paths: Sequence[str]) -> Iterator[str | UnreadablePath]:
    """The files named, and the record files under the folders named (sorted, recursively).

    The one walk of every command that reads records (validate, archive, export, fmt, serve):
    a path yielded as a string is ``-`` or a regular file; anything else named or found with a
    record file's ending comes as an :class:`UnreadablePath`, in its place in the order.
    """
    for path in paths:
        if path == STDIN:
            yield path
            continue
        reason = unreadable_reason(path)
        if reason is not None:
            yield UnreadablePath(path, reason)
        elif not os.path.isdir(path):
            yield path
        else:
            found = _walk(path)
            if not found:
                suffixes = ", ".join(RECORD_SUFFIXES)
                yield UnreadablePath(path, f"no record files ({suffixes}) in this folder", io=False)
            for name, problem in found:
                yield name if problem is None else UnreadablePath(name, problem)


def _walk(folder: str) -> list[tuple[str, str | None]]:
    """Every record file under ``folder`` with why it cannot be read (None when it can), and
    every subfolder that cannot be listed, sorted by path; symbolic links to folders are not
    followed (a link may loop)."""
    found: list[tuple[str, str | None]] = []

    def unlistable(error: OSError) -> None:
        found.append((str(error.filename), error.strerror or str(error)))

    for top, folders, files in os.walk(folder, onerror=unlistable):
        for name in files + folders:
            if Path(name).suffix.lower() not in RECORD_SUFFIXES:
                continue
            full = str(Path(top, name))
            reason = unreadable_reason(full)
            if reason is None and os.path.isdir(full):
                continue  # a folder named like a record file: walked, not read
            found.append((full, reason))
    return sorted(found)


def source_name(path: str) -> str:
    """The file name the games of ``path`` carry: ``<stdin>`` for ``-``, else the path."""
    return STDIN_NAME if path == STDIN else path


@contextmanager
def open_source(path: str) -> Iterator[IO[bytes]]:
    """The bytes of a path the walk yielded: the file, opened and closed here, or for ``-``
    standard input, which belongs to the process and is left open."""
    if path == STDIN:
        yield sys.stdin.buffer
        return
    with open(path, "rb") as stream:
        yield stream


def game_chunks(path: str, encoding: str) -> Iterator[GameChunk]:
    """The games of one file (or of ``-``) as chunks of text, cut but not parsed.

    An eXtreme Gammon ``.xg`` file is told by its first bytes and read as its games
    (``notation/xg_reader.py``). Raises ``NotationError`` for a file that is neither text nor
    a readable ``.xg`` file and ``OSError`` for one that cannot be
    read; a file without games yields nothing, which each caller reports in its own way.
    """
    with open_source(path) as stream:
        yield from record_chunks(stream, source_name(path), encoding=encoding)


def file_sha256(path: str) -> str:
    """The SHA-256 of a file's bytes, read a megabyte at a time: how an import knows a file."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        while chunk := handle.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()
