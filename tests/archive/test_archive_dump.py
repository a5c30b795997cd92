"""Every row an import stores is the same whichever process derives it, and the rulesets a game
fits are those its replay alone under each named ruleset accepts: the whole archive of the test
corpus and of a sample of the shared match files dumped (``scripts/archive_dump.py``: every
table, sorted), so that a change made for the import's speed that changes any row fails here.

``scripts/archive_dump.py`` compares an archive made before a change with one made after (the
bench's file, docs/archive.md "Speed"); these tests hold what needs no earlier code."""

from __future__ import annotations

import importlib.util
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from helpers import ROOT, SHARED_MAT, make_corpus

from jacquet_notation.archive import import_paths, importer
from jacquet_notation.archive.rows import reread
from jacquet_notation.replay import NAMED_RULESETS, replay
from jacquet_notation.replay.alone import game_verdict
from jacquet_notation.stored_text import unpack


def _dumper() -> Callable[[Path], list[str]]:
    """``dump`` of scripts/archive_dump.py (a script, not a package: loaded by its path)."""
    spec = importlib.util.spec_from_file_location(
        "archive_dump", ROOT / "scripts" / "archive_dump.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    dump: Callable[[Path], list[str]] = module.dump
    return dump


def _archives(
    folder: Path, paths: list[Path], monkeypatch: pytest.MonkeyPatch, shares: tuple[int | None, ...]
) -> list[Path]:
    """``paths`` imported once for each writer's share (importer.WRITER_SHARE)."""
    made = []
    for share in shares:
        db = folder / f"share-{share}.db"
        monkeypatch.setattr(importer, "WRITER_SHARE", share)
        import_paths(db, [str(path) for path in paths])
        made.append(db)
    return made


def _fits_alone(db: Path) -> int:
    """Each readable game's stored ``consistent_rules`` against the named rulesets whose own
    replay of its stored text finds no error (the walk shared by none); the games compared."""
    conn = sqlite3.connect(db)
    compared = 0
    try:
        for original, file, index, line, gap, stored in conn.execute(
            "SELECT original, file, game_index, line, gap, consistent_rules FROM games "
            "WHERE status != 'unreadable'"
        ):
            record = reread(unpack(original) or "", file, index or 1, line or 1, gap or 0)
            # its own ruleset's verdict is the import's replay's (under the rules it names,
            # whose tag may itself be an error), the others' their own replay's
            own = replay(record)
            games = [own if r == own.rules else replay(record, r) for r in NAMED_RULESETS]
            fits = [game.rules.name for game in games if game_verdict(game, 1) is None]
            assert stored == " ".join(fits), (file, index)
            compared += 1
    finally:
        conn.close()
    return compared


@pytest.mark.slow
def test_the_corpus_rows_are_the_same_whichever_process_derives_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = make_corpus(tmp_path / "corpus", games=20)
    paths += sorted((ROOT / "corpus").rglob("*.jqt"))
    if SHARED_MAT.is_dir():
        paths += sorted(SHARED_MAT.rglob("*.txt"))[::50]
    dump = _dumper()
    here, there, shared = (dump(db) for db in _archives(tmp_path, paths, monkeypatch, (0, 1, None)))
    assert here == there == shared
    assert sum(line.startswith("('") for line in here) > 500  # rows, not an empty archive
    assert _fits_alone(tmp_path / "share-0.db") > 50
