"""bits.rotated_runs_of_six, the quick path's block test in one call, is the two functions it
stands for, over every flag word of the board's points (hypothesis) and at the runs' edges."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from jacquet_notation.bits import FLAG, POINTS, flags, rotate, rotated_runs_of_six, runs_of_six

POINT_SETS = st.sets(st.integers(min_value=1, max_value=24))


def _word(points: set[int]) -> int:
    return sum(FLAG[point] for point in points)


@given(POINT_SETS)
def test_rotated_runs_of_six_is_runs_of_six_of_rotate(points: set[int]) -> None:
    word = _word(points)
    assert rotated_runs_of_six(word) == runs_of_six(rotate(word))


def test_every_run_of_six_points_either_side_of_the_turn() -> None:
    for low in range(1, 20):
        run = flags(low, low + 5)
        assert rotated_runs_of_six(run) == runs_of_six(rotate(run))
        # a run within one half of the board stays a run in the other numbering; one across
        # the 12/13 seam is split by it
        assert bool(rotated_runs_of_six(run)) == (low + 5 <= 12 or low >= 13)
        assert rotated_runs_of_six(run & ~FLAG[low + 2]) == 0
    assert rotated_runs_of_six(POINTS) == runs_of_six(rotate(POINTS))
