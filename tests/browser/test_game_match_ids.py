"""A real match's game page in Chromium shows, at each ply, gnubg's POSITIONID:MATCHID and the
XGID with the cube and score: the IDs ``jacquet replay --ids`` prints for the same file."""

from __future__ import annotations

from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from helpers import SHARED_MAT, build_archive, query
from helpers import replay_ids as helpers_replay_ids

MATCH = SHARED_MAT / "lasse" / "MrPurple - Lasse 3pt Backgammon Studio 2024_05_11 20_10_33.txt"
ROOT = Path(__file__).resolve().parents[2]

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not MATCH.is_file(), reason="no ../shared/data/backgammon-mat"),
]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("match-ids") / "archive.db"
    build_archive(db, [MATCH])
    return db


def replay_ids(number: int) -> list[tuple[str, str]]:
    """(gnubg ID, XGID) at the start and after each ply, as ``jacquet replay --ids`` says."""
    return helpers_replay_ids(MATCH, number)


def shown(page: Any) -> tuple[str, str]:
    """The IDs the page shows and the copy buttons would copy (they must agree)."""
    ids = page.evaluate(
        """() => ['gnubg-id', 'xgid'].map(name => [
             document.querySelector('code.jacquet-' + name).textContent,
             document.querySelector('button.jacquet-copy-' + (name === 'xgid' ? 'xgid' : 'gnubg'))
               .getAttribute('data-copy')])"""
    )
    assert ids[0][0] == ids[0][1] and ids[1][0] == ids[1][1]
    return (str(ids[0][0]), str(ids[1][0]))


@pytest.mark.parametrize("number", [1, 2])
def test_the_game_page_shows_the_ids_replay_prints(
    server: str, archive: Path, page: Any, number: int
) -> None:
    (game,) = query(archive, "select id, plies from games where game_index = ?", [number])
    expected = replay_ids(number)
    assert len(expected) == game["plies"] + 1
    assert all(":" in gnubg and xg.startswith("XGID=") for gnubg, xg in expected)
    page.goto(f"{server}/archive/-/game/{quote(game['id'], safe='')}")
    assert shown(page) == expected[0]
    for ply in range(1, len(expected)):
        page.keyboard.press("ArrowRight")
        page.wait_for_function(
            "(ply) => document.querySelector('#board').getAttribute('data-current') === "
            "String(ply)",
            arg=ply,
        )
        assert shown(page) == expected[ply], ply
    # a permalink to the last ply shows its IDs as served, without the script's stepping
    page.goto(f"{server}/archive/-/game/{quote(game['id'], safe='')}?ply={len(expected) - 1}")
    assert shown(page) == expected[-1]
