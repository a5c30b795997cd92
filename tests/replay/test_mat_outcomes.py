"""Every way a backgammon game ends is scored (borne off, a drop, a resignation, with the cube),
in the archive as the files state it: checked against counts made straight from the shared
match files, without the archive or the reader (issue "Matches, whole")."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
from helpers import SHARED_MAT, rows, stated

from jacquet_notation.archive import import_paths
from jacquet_notation.match import outcome
from jacquet_notation.notation import parse_game, read_games
from jacquet_notation.replay import replay

SHARED = SHARED_MAT
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="no ../shared/data/backgammon-mat")


@needs_shared
@pytest.mark.slow
def test_every_shared_game_carries_the_winner_and_points_its_file_states(tmp_path: Path) -> None:
    db = tmp_path / "shared.db"
    summary = import_paths(db, [str(SHARED)])
    # Two games of Backgammon Studio state "Wins 4016 point" (a player who left): more than
    # a resignation can give and not what the winner needed, so an error of the game, scored
    # at the most a resignation gives (3 x the cube).
    assert (summary.games, summary.valid) == (3695, 3693)
    capped = rows(db, "SELECT points, error FROM games WHERE status = 'invalid' ORDER BY points")
    assert len(capped) == 2 and all(points % 3 == 0 and points < 4016 for points, _ in capped)
    assert all("Wins 4016 point" not in error and "4016" in error for _, error in capped)
    stored = {
        (file, index): (white, black, winner, points)
        for file, index, white, black, winner, points in rows(
            db,
            "SELECT o.import_id || '', o.game_index, g.white, g.black, g.winner, "
            "g.points "
            "FROM occurrences o JOIN games g ON g.id = o.game_id",
        )
    }
    files = dict(rows(db, "SELECT id || '', path FROM imports"))
    by_path = {path: import_id for import_id, path in files.items()}
    records: Counter[str] = Counter()
    losses: Counter[str] = Counter()
    points_won: Counter[str] = Counter()
    compared = 0
    for path in sorted(SHARED.rglob("*.txt")):
        import_id = by_path[str(path)]
        for index, (first, second, winner, points) in enumerate(stated(path), 1):
            white, black, won, scored = stored[(import_id, index)]
            assert (white or "", black or "") == (first, second), (path, index)
            expected = None if winner is None else ("white" if winner == first else "black")
            assert (won, scored) == (expected, points), (path.name, index)
            compared += 1
            if winner is not None:
                loser = second if winner == first else first
                records[winner.lower()] += 1
                losses[loser.lower()] += 1
                points_won[winner.lower()] += points or 0
    assert compared == 3695
    # the players' records: the view against the counts from the files (names as the
    # archive normalises them: one player whatever the case)
    view = {
        name.lower(): (wins, lost, won_points)
        for name, wins, lost, won_points in rows(
            db, "SELECT name, wins, losses, points_won FROM player_records"
        )
    }
    for name in (records.keys() | losses.keys()) - {""}:
        assert view[name] == (records[name], losses[name], points_won[name]), name
    unfinished = rows(db, "SELECT count(*) FROM games WHERE winner IS NULL")[0][0]
    assert unfinished == sum(1 for p in SHARED.rglob("*.txt") for g in stated(p) if g[2] is None)


MATCH = """; [Player 1 "anna"]
; [Player 2 "bert"]

5 point match

 Game 1
 anna : 0                        bert : 0
  1) 31: 8/5 6/5                  Doubles => 2
  2)  Takes                      42: 8/4 6/4
  3)  Doubles => 4                Drops
      Wins 2 point

 Game 2
 anna : 2                        bert : 0
  1) 42: 8/4 6/4                  Doubles => 2
  2)  Takes                      63: 24/18 13/10
  3) 21: 13/11 6/5                Wins 4 point

 Game 3
 anna : 2                        bert : 4
  1) 42: 8/4 6/4                 63: 24/18 13/10
"""


@pytest.mark.parametrize(
    ("index", "winner", "points", "ending", "cube"),
    [
        (1, "white", 2, "drop", 2),  # a drop scores the cube before the double
        (2, "black", 4, "resignation", 2),  # a resignation states its points: 2 x the cube
        (3, None, None, "unfinished", 1),  # the record stops: unfinished
    ],
)
def test_each_ending_is_scored_with_the_cube(
    index: int, winner: str | None, points: int | None, ending: str, cube: int
) -> None:
    games = list(read_games(io.BytesIO(MATCH.encode()), file="m.txt"))
    ended = outcome(replay(games[index - 1]))
    assert (ended.winner, ended.points, ended.ending, ended.cube) == (winner, points, ending, cube)


def test_a_game_borne_off_scores_its_value_times_the_cube() -> None:
    record = parse_game(
        '[Rules "backgammon"]\n[Position "white 1:1 off:14; black 6:15; white to move"]\n\n'
        "1. double 2 1... take 2. 2-1: 1/off\n"
    )
    ended = outcome(replay(record))
    # Black has borne off no man: a gammon (2) at a cube of 2
    assert (ended.winner, ended.points, ended.ending, ended.cube) == ("white", 4, "borne-off", 2)
