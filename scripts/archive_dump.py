"""Every row an import derives, as sorted text: to show that a change to the import's speed
changed no row (compare the dump of an archive made before the change with one made after).

    python3 scripts/archive_dump.py ARCHIVE.db [OUT.txt]        # dump an archive
    python3 scripts/archive_dump.py --import FILE... --out OUT.txt   # import into a new one, dump
    python3 scripts/archive_dump.py --views ARCHIVE.db [OUT.txt]    # every view's rows instead

Each table (the full-text index's shadow tables left out: SQLite's, rebuilt from ``games``) is
written as one line a row, its columns by name, the rows sorted; the columns that say when an
import ran (``imports.started``, ``finished``) and the file's path in ``imports`` are left out,
being the run's rather than the rows'. The last line is the sha256 of the lines before it.
``tests/archive/test_archive_dump.py`` loads :func:`dump` from here.
"""

from __future__ import annotations

import argparse
import hashlib
import sqlite3
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

#: a run's own columns, not derived from the records
VOLATILE = {"imports": {"started", "finished", "path"}}


def dump(db: str | Path, kind: str = "table") -> list[str]:
    """One line a row of every table of ``db`` (``kind`` ``view``: of every view, what a
    visitor reads, the same across a schema change that stores the rows otherwise), sorted
    within each table, tables by name."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        names = [
            name
            for (name,) in conn.execute(
                "SELECT name FROM sqlite_master WHERE type = ? AND name NOT LIKE 'sqlite_%' "
                "AND name NOT LIKE '%_fts_%' ORDER BY name",
                (kind,),
            )
        ]
        lines: list[str] = []
        for name in names:
            columns = [row[1] for row in conn.execute(f'PRAGMA table_info("{name}")')]
            kept = [column for column in columns if column not in VOLATILE.get(name, set())]
            listed = ", ".join(f'"{column}"' for column in kept)
            found = [repr(row) for row in conn.execute(f'SELECT {listed} FROM "{name}"')]
            lines.append(f"== {name} ({listed}): {len(found)}")
            lines.extend(sorted(found))
        return lines
    finally:
        conn.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("archive", nargs="?", type=Path)
    parser.add_argument("out", nargs="?", type=Path)
    parser.add_argument("--import", dest="files", nargs="+", type=Path)
    parser.add_argument("--out", dest="out_option", type=Path)
    parser.add_argument(
        "--views", action="store_true", help="dump every view's rows rather than every table's"
    )
    args = parser.parse_args()
    out = args.out or args.out_option
    with tempfile.TemporaryDirectory() as temp:
        db = args.archive
        if args.files:
            from jacquet_notation.archive import import_paths

            db = Path(temp) / "dump.db"
            import_paths(db, [str(path) for path in args.files])
        if db is None:
            parser.error("name an archive, or files to --import")
        lines = dump(db, "view" if args.views else "table")
    digest = hashlib.sha256("\n".join(lines).encode()).hexdigest()
    text = "\n".join(lines) + f"\nsha256 {digest}\n"
    if out is None:
        sys.stdout.write(text)
    else:
        out.write_text(text, encoding="utf-8")
        print(f"{len(lines)} lines, sha256 {digest}")


if __name__ == "__main__":
    main()
