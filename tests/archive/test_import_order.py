"""The importer reads a file while the writer writes the one before: what an import reports keeps
the files' order, and a file met twice in one run is imported once, whichever process finds it
known."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from helpers import check_consistent, one, rows

from jacquet_notation.archive import import_paths

BROKEN = Path(__file__).parents[2] / "corpus" / "broken"
VALID = Path(__file__).parents[2] / "corpus" / "valid"


@pytest.mark.slow
def test_errors_and_counts_come_in_the_files_order(tmp_path: Path) -> None:
    broken = sorted(BROKEN.glob("*.jqt"))[:8]
    valid = sorted(VALID.rglob("*.jqt"))[:6]
    missing = tmp_path / "gone.jqt"
    # broken and valid files in turn, one that cannot be opened in the middle
    paths = [str(path) for pair in zip(broken, valid, strict=False) for path in pair]
    paths.insert(5, str(missing))
    one_by_one = []
    separate = tmp_path / "separate.db"
    for path in paths:
        summary = import_paths(separate, [path])
        one_by_one.append(summary)
    together = import_paths(tmp_path / "together.db", paths)
    assert together.errors == [line for summary in one_by_one for line in summary.errors]
    # the test compares something: a line for each broken file, and the missing one
    assert len(together.errors) >= sum(str(path) in paths for path in broken) + 1
    for count in ("games", "valid", "invalid", "unreadable", "new_games", "unreadable_files"):
        assert getattr(together, count) == sum(getattr(s, count) for s in one_by_one), count
    assert rows(tmp_path / "together.db", "SELECT path, games, status FROM imports") == rows(
        separate, "SELECT path, games, status FROM imports"
    )
    check_consistent(tmp_path / "together.db")


def test_a_file_met_twice_in_one_run_is_imported_once(tmp_path: Path) -> None:
    source = sorted(VALID.rglob("*.jqt"))[0]
    paths = []
    for name in ("a", "b", "c"):
        copy = tmp_path / f"{name}.jqt"
        shutil.copyfile(source, copy)
        paths.append(str(copy))
    db = tmp_path / "twice.db"
    summary = import_paths(db, paths)
    assert (summary.files, summary.skipped_files) == (3, 2)
    assert summary.games == 3 * summary.new_games > 0
    assert one(db, "SELECT count(*) FROM imports") == 1
    assert one(db, "SELECT count(*) FROM occurrences") == summary.new_games
    check_consistent(db)
