"""Benchmark: where an archive's bytes go, beside the text it was imported from.

    python3 bench/archive_size.py PATH... [--keep DB]

Imports the files or folders named into a new archive (``archive.import_paths``), checkpoints
it, and prints its size as a ratio to its peer, the bytes of the record files read (the
issue's target: at most 4 x), then each table's and index's pages (SQLite's ``dbstat``
virtual table) and its bytes per game and per play. For ``.mat`` folders (the shared match
files) as for ``.jqt`` (bench/archive.py's generated file, ``--corpus`` there).
"""

from __future__ import annotations

import argparse
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jacquet_notation.archive import import_paths  # noqa: E402
from jacquet_notation.sources import record_files  # noqa: E402


def text_bytes(paths: list[str]) -> int:
    """The bytes of every record file the import reads (the walk the import makes)."""
    return sum(Path(file).stat().st_size for file in record_files(paths) if isinstance(file, str))


def breakdown(db: Path) -> list[tuple[str, int, int]]:
    """Each table's and index's bytes and the bytes of its pages left unused, largest first
    (``dbstat``)."""
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        return list(
            conn.execute(
                "SELECT name, sum(pgsize), sum(unused) FROM dbstat GROUP BY name ORDER BY 2 DESC"
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="+")
    parser.add_argument("--keep", type=Path, help="write the archive here (else a temporary)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as temp:
        db = args.keep or Path(temp) / "archive.db"
        import_paths(db, args.paths)
        parts = breakdown(db)
        with sqlite3.connect(db) as conn:
            games = conn.execute("SELECT count(*) FROM games").fetchone()[0]
            plays = conn.execute("SELECT count(*) FROM turns").fetchone()[0]
        size = db.stat().st_size
    text = text_bytes(args.paths)
    print(f"{games} games, {plays} plays; text {text / 2**20:.2f} MiB (the peer)")
    print(f"archive {size / 2**20:.2f} MiB: {size / text:.2f} x the text (target <= 4)")
    print(f"{'table or index':34}{'MiB':>9}{'share':>8}{'B/game':>9}{'B/play':>9}{'unused':>8}")
    for name, used, unused in parts[:20]:
        print(
            f"{name:34}{used / 2**20:9.2f}{used / size:8.1%}{used / max(games, 1):9.0f}"
            f"{used / max(plays, 1):9.1f}{unused / used:8.1%}"
        )
    rest = sum(used for _, used, _ in parts[20:])
    print(f"{f'the other {len(parts) - 20}':34}{rest / 2**20:9.2f}{rest / size:8.1%}")


if __name__ == "__main__":
    main()
