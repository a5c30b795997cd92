"""Where records come from: the paths named, walked once for every command that reads records.

Every command that reads record files (validate, archive, export, fmt, replay, serve) finds them
here, so that a folder, a missing file, a broken link or a FIFO means the same to each.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

#: the file endings read when a folder is given (a file named on the command line is always read)
RECORD_SUFFIXES = (".jqt", ".jacquet", ".txt")


@dataclass(frozen=True, slots=True)
class UnreadablePath:
    """A path named or found that is not read: reported, counted as unreadable, never skipped.

    A folder without record files, a missing file, a broken symbolic link, a folder that cannot
    be listed, or a special file (a FIFO, a socket, a device): opening a FIFO for reading waits
    for a writer that may never come, so such a path is refused before anything opens it.
    """

    path: str
    reason: str

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
        if path == "-":
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
                yield UnreadablePath(path, f"no record files ({suffixes}) in this folder")
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
