"""The rows the archive derives are the same whichever way the consistent rulesets are found:
the archive's own (``consistent_rulesets``: its replay shared, no words, a refused ruleset not
replayed) against the full inference (``infer(record).consistent``), every row of every game
compared, on the test corpus and on a sample of the shared backgammon match files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from helpers import SHARED_MAT, make_corpus

from jacquet_notation.archive import rows
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import ReplayedGame, infer
from jacquet_notation.sources import game_chunks


def _by_full_inference(
    record: GameRecord, *, replayed: ReplayedGame | None = None
) -> tuple[str, ...]:
    """The reference: every ruleset walked and worded, the archive's replay not used."""
    return infer(record).consistent


def _derived(paths: list[Path]) -> list[object]:
    """Every row ``derive_batch`` makes of ``paths``, as plain data."""
    found: list[object] = []
    for path in paths:
        batch, messages, _ = rows.derive_batch(
            list(game_chunks(str(path), "utf-8")), None, 1, Counter()
        )
        found.append(messages)
        for derived in batch:
            found.append(
                (derived.game, derived.turns, derived.notes, derived.decisions, derived.status)
            )
    return found


def _compare(paths: list[Path], monkeypatch: pytest.MonkeyPatch) -> list[str | None]:
    """Our rows and the reference's, compared; the consistent rulesets of each game."""
    ours = _derived(paths)
    with monkeypatch.context() as patched:
        patched.setattr(rows, "consistent_rulesets", _by_full_inference)
        reference = _derived(paths)
    assert ours == reference
    return [entry[0]["consistent_rules"] for entry in ours if isinstance(entry, tuple)]


def test_the_corpus_rows_are_the_full_inferences(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fits = _compare(make_corpus(tmp_path, games=6), monkeypatch)
    assert len(set(fits)) > 1  # games that fit different rulesets


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_MAT.is_dir(), reason="no ../shared/data/backgammon-mat")
def test_the_match_files_rows_are_the_full_inferences(monkeypatch: pytest.MonkeyPatch) -> None:
    sample = sorted(SHARED_MAT.rglob("*.txt"))[::25]
    fits = _compare(sample, monkeypatch)
    assert len(fits) > 50 and "backgammon" in fits
