"""A bulk import (many new files at once) settles once, at its end, into the archive that a file
at a time makes; one left unsettled (killed) is settled by the next import or a rebuild."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from helpers import check_consistent, dump, one, rows

from jacquet_notation.archive import import_paths, importer, rebuild
from jacquet_notation.archive.plays import PLY_KEY_INDEXES
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import Rules
from jacquet_notation.sources import record_files

CORPUS = Path(__file__).parents[2] / "corpus"


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> list[str]:
    """Generated games in three files (the third repeats games of the first two, cut short, so
    that groups form across files), then the corpus: valid, broken and match files."""
    folder = tmp_path_factory.mktemp("bulk")
    records = list(generate_records(40, 21, Rules.named("jacquet")))
    texts = [write_game(record) for record in records]
    (folder / "a.jqt").write_text("\n".join(texts[:20]), encoding="utf-8")
    (folder / "b.jqt").write_text("\n".join(texts[20:]), encoding="utf-8")
    shortened = []
    for record in records[::7]:
        record.plays = record.plays[: max(12, len(record.plays) // 2)]
        record.result = "*"
        shortened.append(write_game(record))
    (folder / "c.jqt").write_text("\n".join(shortened), encoding="utf-8")
    shutil.copytree(CORPUS, folder / "corpus")
    return [str(folder / name) for name in ("a.jqt", "b.jqt", "c.jqt")] + [str(folder / "corpus")]


def everything(db: Path) -> dict[str, Any]:
    """What the tests compare: every table's rows, the groups and the stored shared positions."""
    found: dict[str, Any] = dump(db)
    found["groups"] = rows(db, "SELECT game_id, group_id FROM game_groups ORDER BY game_id")
    found["shared"] = rows(db, "SELECT * FROM shared_positions ORDER BY key")
    return found


def key_indexes(db: Path) -> set[str]:
    names = {row[0] for row in rows(db, "SELECT name FROM sqlite_master WHERE type = 'index'")}
    return names & {name for name, _, _ in PLY_KEY_INDEXES}


@pytest.fixture(scope="module")
def one_at_a_time(files: list[str], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The archive a file at a time makes: each file an import of its own."""
    db = tmp_path_factory.mktemp("single") / "single.db"
    for entry in record_files(files):
        import_paths(db, [entry if isinstance(entry, str) else entry.path])
    return db


@pytest.mark.slow
def test_a_bulk_import_is_the_archive_a_file_at_a_time_makes(
    files: list[str], one_at_a_time: Path, tmp_path: Path
) -> None:
    db = tmp_path / "bulk.db"
    summary = import_paths(db, files)
    assert summary.files > 3
    assert one(db, "SELECT count(*) FROM imports WHERE status = 'pending'") == 0
    assert key_indexes(db) == {name for name, _, _ in PLY_KEY_INDEXES}
    assert one(db, "SELECT count(*) FROM game_groups") > 0  # the test compares something
    check_consistent(db)
    single = everything(one_at_a_time)
    bulk = everything(db)
    # the imports' order and statuses are the same; only the paths' folder differs
    assert [row[2:] for row in bulk["imports"]] == [row[2:] for row in single["imports"]]
    for table in single:
        if table != "imports":
            assert bulk[table] == single[table], table


@pytest.mark.slow
def test_an_unsettled_import_is_settled_by_the_next(
    files: list[str], one_at_a_time: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """As a bulk import killed after its files committed leaves it: the next import (of one
    more file, not a bulk one) settles it first, and the archive is the same."""
    db = tmp_path / "left.db"
    with monkeypatch.context() as patch:
        patch.setattr(importer._Importer, "settle", lambda self: None)
        import_paths(db, files[:3])
    assert one(db, "SELECT count(*) FROM imports WHERE status = 'pending'") == 3
    assert key_indexes(db) == set()
    assert one(db, "SELECT count(*) FROM game_groups") == 0
    check_consistent(db)
    summary = import_paths(db, files[3:])  # the corpus's files are small: no bulk import
    assert summary.new_games > 0
    check_consistent(db)
    assert key_indexes(db) == {name for name, _, _ in PLY_KEY_INDEXES}
    single = everything(one_at_a_time)
    settled = everything(db)
    for table in single:
        if table != "imports":
            assert settled[table] == single[table], table


def test_a_rebuild_settles_what_was_left(files: list[str], tmp_path: Path) -> None:
    db = tmp_path / "rebuilt.db"
    reference = tmp_path / "reference.db"
    import_paths(reference, files[:3])
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(importer._Importer, "settle", lambda self: None)
        import_paths(db, files[:3])
    rebuild(db)
    assert rows(db, "SELECT DISTINCT status FROM imports") == [("complete",)]
    check_consistent(db)
    assert everything(db) == everything(reference)


def test_a_run_of_known_files_and_one_new_one_is_no_bulk_import(
    files: list[str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Only new files count toward a bulk import: importing a folder again, with one new file,
    keeps the archive's key indexes (each file hashed once)."""
    db = tmp_path / "again.db"
    import_paths(db, files[:2])
    bulks: list[bool] = []
    real_plan = importer._Importer.plan

    def plan(self: importer._Importer, entries: Any) -> None:
        real_plan(self, entries)
        bulks.append(self.bulk)

    monkeypatch.setattr(importer._Importer, "plan", plan)
    summary = import_paths(db, files[:3])
    assert bulks == [False]
    assert (summary.skipped_files, summary.files) == (2, 3)
    check_consistent(db)
