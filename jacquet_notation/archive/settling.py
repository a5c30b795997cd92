"""An import of many files, settled once at its end: the key indexes built, the shared
positions counted and the groups found for all its files together (docs/archive.md, "Many
files at once").

A file's plays inserted into ``plies``' key indexes land at random keys: once the indexes are
larger than a file, each file's commit writes most of their pages again (at 400,000 games,
199 GB of log for a 4.6 GB archive). So an import whose new files at least double the plays
the archive holds writes every file without them, each in its own transaction as ever, and
marks each file's ``imports`` row ``pending``; the indexes are then built once by sorting, and
what each file's commit would have counted from them is counted once, in one more transaction.
A ``pending`` file is imported (it is skipped by the next import); only its positions' counts
and its groups wait. An import killed before it settles leaves them waiting: the next import
(or a rebuild) settles first.
"""

from __future__ import annotations

from . import import_rows, store
from .groups import refresh_groups
from .store import Connection


def pending_imports(conn: Connection) -> list[int]:
    """The ids of the imports waiting to be settled, in order."""
    found = conn.execute(
        "SELECT id FROM imports WHERE status = ? ORDER BY id", (import_rows.PENDING,)
    )
    return [store.returned_id(row) for row in found]


def settle(conn: Connection) -> bool:
    """Settle every pending import inside the caller's transaction; whether there was one.

    The indexes first (every count below reads them), then the positions of the pending
    imports' games counted as one file's would be (their games are numbered after every
    counted game: a file that is not pending settles the others before it begins), then each
    import's groups in order, as each file's commit finds them.
    """
    pending = pending_imports(conn)
    if not pending:
        return False
    store.temporary_in_memory(conn, False)  # the sorts below grow with the files
    conn.execute(f"PRAGMA cache_size = -{store.WRITER_CACHE_KIB}")  # their sorter's memory
    store.build_key_indexes(conn)
    (first,) = conn.execute(
        "SELECT coalesce(min(n.number), 0) FROM games g JOIN game_numbers n "
        "ON n.game_id = g.id WHERE g.import_id >= ?",
        (pending[0],),
    )
    if first[0]:  # no new game: nothing to count
        store.share_positions(conn, int(first[0]))
    refresh_groups(conn, pending)  # in order, as each file's commit finds them
    mark_settled(conn)
    return True


def mark_settled(conn: Connection) -> None:
    """Give the pending imports their final status without counting (a rebuild, which counts
    every game itself)."""
    final = import_rows.FINAL_STATUS.format(error="error")
    conn.execute(f"UPDATE imports SET status = {final} WHERE status = ?", (import_rows.PENDING,))
