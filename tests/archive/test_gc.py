"""The collector's rhythm during an import: gentler inside, as it was after."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest

from jacquet_notation.garbage import YOUNG_THRESHOLD, fewer_collections


def test_thresholds_inside_and_restored_after() -> None:
    before = gc.get_threshold()
    with fewer_collections():
        inside = gc.get_threshold()
    assert inside == (max(YOUNG_THRESHOLD, before[0]), *before[1:])
    assert gc.get_threshold() == before


def test_restored_after_an_error() -> None:
    before = gc.get_threshold()
    with pytest.raises(RuntimeError), fewer_collections(5000):
        assert gc.get_threshold()[0] == max(5000, before[0])
        raise RuntimeError("stop")
    assert gc.get_threshold() == before


def test_an_import_runs_with_the_gentler_rhythm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jacquet_notation.archive import importer as archive

    seen: list[int] = []
    real = archive._Importer.file

    def spy(self: archive._Importer, path: str) -> None:
        seen.append(gc.get_threshold()[0])
        real(self, path)

    monkeypatch.setattr(archive._Importer, "file", spy)
    folder = tmp_path
    records = folder / "one.jqt"
    records.write_text('[White "A"]\n[Black "B"]\n\n1. 6-5: 24/18 18/13\n', encoding="utf-8")
    archive.import_paths(folder / "a.db", [str(records)])
    assert seen == [max(YOUNG_THRESHOLD, gc.get_threshold()[0])]


def test_validation_runs_with_the_gentler_rhythm(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jacquet_notation import validation

    seen: list[int] = []
    real = validation.report_record

    def spy(record: Any, rules: Any = None) -> Any:
        seen.append(gc.get_threshold()[0])
        return real(record, rules)

    monkeypatch.setattr(validation, "report_record", spy)
    records = tmp_path / "two.jqt"
    game = '[White "A"]\n[Black "B"]\n\n1. 6-5: 24/18 18/13\n'
    records.write_text(game + "\n" + game, encoding="utf-8")
    before = gc.get_threshold()
    reports = list(validation.validate_paths([str(records)]))
    assert [report.status for report in reports] == ["valid", "valid"]
    assert seen == [max(YOUNG_THRESHOLD, before[0])] * 2
    assert gc.get_threshold() == before
