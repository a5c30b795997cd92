"""A player of more matches and opponents than a page holds: the player page counts them all
(the ``player_matches`` view), says which of how many it shows, and its page links reach the
rest; no list of the page stops at 200 (or at a page) silently."""

from __future__ import annotations

import re
from pathlib import Path
from urllib.request import urlopen

import pytest
from helpers import build_archive, query

from jacquet_notation.browse.shared import PAGE_ROWS

pytestmark = [pytest.mark.slow]

MATCHES = 210  # more than 200 (the old cap) and than four pages of PAGE_ROWS
RIVALS = 60  # more opponents than a page


def _match_file(folder: Path, number: int) -> Path:
    """A 1 point match of one game: ``many`` (Player 1) wins two of three by resignation."""
    rival = f"rival{number % RIVALS}"
    column = " " * 38 if number % 3 == 0 else " " * 6  # the right column: Player 2 wins
    path = folder / f"m{number}.txt"
    path.write_text(
        f'; [Site "Test"]\n; [Match ID "{number}"]\n; [Player 1 "many"]\n'
        f'; [Player 2 "{rival}"]\n; [Variation "Backgammon"]\n\n1 point match\n\n Game 1\n'
        f" many : 0                             {rival} : 0\n"
        "  1) 31: 8/5 6/5                      42: 8/4 6/4\n"
        f"{column}Wins 1 point\n"
    )
    return path


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("many-matches")
    db = folder / "archive.db"
    build_archive(db, [_match_file(folder, n) for n in range(1, MATCHES + 1)])
    return db


def _get(url: str) -> str:
    with urlopen(url) as answer:
        return str(answer.read().decode())


def test_a_player_of_many_matches_gets_every_one_counted_and_paged(
    server: str, archive: Path
) -> None:
    [player] = query(archive, "select id from players where name = 'many'")
    base = f"{server}/archive/-/player/{player['id']}"
    html = _get(base)
    # 210 matches: 140 won (numbers not divisible by 3), 70 lost
    assert "210 matches: 140 won, 70 lost, 0 unfinished" in html
    assert f"1–{PAGE_ROWS} of 210" in html
    assert f"1–{PAGE_ROWS} of {RIVALS}" in html  # the head-to-head too
    seen: set[str] = set()
    page = 0
    while True:
        html = _get(f"{base}?matches={page}")
        listed = re.findall(r'class="jacquet-match-link" href="[^"]*/-/match/(\d+)"', html)
        assert 0 < len(listed) <= PAGE_ROWS
        seen.update(listed)
        if f"?matches={page + 1}" not in html:
            break
        page += 1
    assert len(seen) == MATCHES
    assert page == (MATCHES - 1) // PAGE_ROWS
    assert f"{page * PAGE_ROWS + 1}–{MATCHES} of {MATCHES}" in html
    last = _get(f"{base}?opponents=1")
    assert f"{PAGE_ROWS + 1}–{RIVALS} of {RIVALS}" in last
    assert "?opponents=0" in last and "?opponents=2" not in last
