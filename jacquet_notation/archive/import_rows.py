"""The ``imports`` table's rows: a file's import begun, found already done, finished, and
recounted (docs/archive.md, ``imports``). Apart from :mod:`.store` so that each status's rule is
written once, for the importer, the writer, a bulk import's settling and a rebuild alike.
"""

from __future__ import annotations

import sqlite_utils

from ..notation import READER
from .store import Connection, now, returned_id

#: ``imports.status`` of a bulk import's file until it settles (:mod:`.settling`): imported
PENDING = "pending"
#: SQL: a file's status once imported and settled, from its error (SQL, ``{error}``)
FINAL_STATUS = "CASE WHEN {error} IS NULL THEN 'complete' ELSE 'unreadable' END"


def imported(conn: Connection, sha: str | None) -> int | None:
    """The import that already brought the file of this sha256 through this reader, if any.

    A file imported by another reader (:data:`~jacquet_notation.notation.READER`) is read again:
    an older reader may have read it wrongly (the games it stored are re-derived first, see
    :func:`stale_imports`).
    """
    found = conn.execute(
        "SELECT id FROM imports WHERE sha256 = ? "
        "AND status IN ('complete', 'unreadable', ?) AND reader IS ? ORDER BY id LIMIT 1",
        (sha, PENDING, READER),
    ).fetchone()
    return None if found is None else int(found[0])


def new_import(
    conn: Connection,
    path: str | None,
    sha: str | None,
    *,
    status: str = "running",
    error: str | None = None,
) -> int:
    inserted = conn.execute(
        "INSERT INTO imports (path, sha256, started, games, valid, invalid, unreadable, "
        "new_games, status, error, reader) VALUES (?, ?, ?, 0, 0, 0, 0, 0, ?, ?, ?) RETURNING id",
        (path, sha, now(), status, error, READER),
    ).fetchone()
    return returned_id(inserted)


def stale_imports(conn: Connection) -> bool:
    """Whether a file's games were stored by another reader than this one (or one before the
    archive noted readers): then they are derived again from their texts before an import."""
    found = conn.execute(
        "SELECT 1 FROM imports WHERE status = 'complete' AND reader IS NOT ? LIMIT 1", (READER,)
    ).fetchone()
    return found is not None


def mark_reread(conn: Connection) -> None:
    """Note that every stored game was derived by this reader (after a rebuild). A file that
    this reader has not read is left as it was: it is read again when it is next imported."""
    conn.execute("UPDATE imports SET reader = ? WHERE status = 'complete'", (READER,))


def finish_import(
    conn: Connection,
    import_id: int,
    games: int,
    counts: dict[str, int],
    new_games: int,
    problem: str | None,
    pending: bool = False,
) -> None:
    """Record what the import of a file found: ``counts`` by status, and its ``problem`` if it
    could not be read to the end (``unreadable``); a bulk import's file is ``pending``."""
    conn.execute(
        "UPDATE imports SET finished = ?, games = ?, valid = ?, invalid = ?, "
        "unreadable = ?, new_games = ?, status = CASE WHEN ? THEN ? ELSE "
        + FINAL_STATUS.format(error="?")
        + " END, error = ? WHERE id = ?",
        (
            now(),
            games,
            counts["valid"],
            counts["invalid"],
            counts["unreadable"],
            new_games,
            pending,
            PENDING,
            problem,
            problem,
            import_id,
        ),
    )


def recount_imports(db: sqlite_utils.Database) -> None:
    """Recount each import's games by status from its occurrences (after a rebuild)."""
    db.conn.execute(
        """UPDATE imports SET
          games = (SELECT count(*) FROM occurrences o WHERE o.import_id = imports.id),
          valid = (SELECT count(*) FROM occurrences o JOIN games g ON g.id = o.game_id
                   WHERE o.import_id = imports.id AND g.status = 'valid'),
          invalid = (SELECT count(*) FROM occurrences o JOIN games g ON g.id = o.game_id
                     WHERE o.import_id = imports.id AND g.status = 'invalid'),
          unreadable = (SELECT count(*) FROM occurrences o JOIN games g ON g.id = o.game_id
                        WHERE o.import_id = imports.id AND g.status = 'unreadable')"""
    )
