"""A play's ``counts`` (the turn, pips and men off after it) are moved on from the play
before's where nothing was hit or shared (``plays.counts_after``): every stored figure must be
what counting the position it reaches gives (``plays.position_counts``), on the test corpus
(with hits, cube actions, Versailles' shares, missing plays) and on a sample of the shared
backgammon match files."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from helpers import SHARED_MAT, make_corpus

from jacquet_notation.archive import rows
from jacquet_notation.archive.plays import PLY_COLUMNS, position_counts
from jacquet_notation.notation import parse_chunk
from jacquet_notation.replay import replay
from jacquet_notation.sources import game_chunks

#: where a turn row holds its counts (the row leaves the game's number out)
_COUNTS = PLY_COLUMNS.index("counts") - 1


def _checked(paths: list[Path]) -> int:
    """Every play's stored counts against its position counted again; the plays compared."""
    compared = 0
    for path in paths:
        chunks = list(game_chunks(str(path), "utf-8"))
        batch, _, _ = rows.derive_batch(chunks, None, 1, Counter())
        for chunk, derived in zip(chunks, batch, strict=True):
            game = replay(parse_chunk(chunk))
            for row in derived.turns:
                ply = game.plies[row[0] - 1]
                if ply.play is None:
                    assert row[_COUNTS] is None
                    continue
                assert row[_COUNTS] == position_counts(ply.play.position), (path, row)
                compared += 1
    return compared


#: match files with cube actions (a play that leaves the turn where it was), hits and dances
_CUBES = sorted((Path(__file__).parent.parent / "data" / "sgf" / "gnubg-cases").glob("*.txt"))


def test_counts_moved_on_are_the_positions_counts(tmp_path: Path) -> None:
    assert _CUBES
    assert _checked(make_corpus(tmp_path, games=6) + _CUBES) > 500


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_MAT.is_dir(), reason="no ../shared/data/backgammon-mat")
def test_the_match_files_counts_are_the_positions_counts() -> None:
    assert _checked(sorted(SHARED_MAT.rglob("*.txt"))[::25]) > 5000
