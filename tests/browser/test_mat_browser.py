"""A real match in a real browser: ``jacquet serve`` on an archive of a Galaxy match file, the
game page stepped through with the keyboard (hits, bar entries, the cube), the match linked, the
player's match record. Checked against the file by hand (the comments say what each line reads).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import SHARED_MAT, build_archive, query

# the shared real match files beside the checkout (../shared/data/backgammon-mat)
SHARED = SHARED_MAT
MATCH = SHARED / "lasse" / "match2516058.txt"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not MATCH.is_file(), reason="no ../shared/data/backgammon-mat"),
]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("mat-browse") / "archive.db"
    build_archive(db, [MATCH])
    return db


def _board(page: Any) -> dict[str, Any]:
    """What the board on the page shows: its key, each side's stacks (own numbering), the bar,
    the cube (value, owner)."""
    return dict(
        page.evaluate(
            """() => {
              const svg = document.querySelector('.jacquet-board-holder svg');
              const stacks = (side) => Object.fromEntries(
                [...svg.querySelectorAll('g.stack.' + side)].map(
                  g => [g.dataset.point, Number(g.dataset.count)]));
              const bar = (side) => {
                const g = svg.querySelector('g.bar.' + side);
                return g ? Number(g.dataset.count) : 0;
              };
              const cube = svg.querySelector('g.cube');
              return {
                key: svg.dataset.key, white: stacks('white'), black: stacks('black'),
                white_bar: bar('white'), black_bar: bar('black'),
                cube: cube ? [Number(cube.dataset.value), cube.getAttribute('class')] : null,
              };
            }"""
        )
    )


def _step(page: Any, ply: int) -> dict[str, Any]:
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        # the board drawn for this ply, not the last one's still shown while it is fetched (a
        # cube action keeps the key: the race read the cube as 1 after "Takes")
        "(ply) => document.querySelector('.jacquet-board-holder').getAttribute('data-ply')"
        " === String(ply) && document.querySelector('.jacquet-board-holder svg')",
        arg=ply,
    )
    return _board(page)


def test_a_real_match_game_steps_through_hits_and_the_cube(
    server: str, archive: Path, page: Any
) -> None:
    # Game 3 of lasse (White, Player 1) v yueda (Black), 3 point match at 1-1
    [game] = query(archive, "select id from games where game_index = 3")
    turns = query(archive, "select * from turns where game_id = ? order by ply", [game["id"]])
    page.goto(f"{server}/archive/-/game/{game['id']}")
    start = _board(page)
    assert start["cube"] == [1, "cube centred"]
    assert start["white"] == {"24": 2, "13": 5, "8": 3, "6": 5}

    # line 45, right: "52: 13/8 24/22" (Black opens)
    board = _step(page, 1)
    assert board["key"] == turns[0]["key_after"]
    assert board["black"]["22"] == 1 and board["black"]["24"] == 1 and board["black"]["8"] == 4
    # line 46, left: "62: 24/18 13/11": White's blots on 18 and 11
    board = _step(page, 2)
    assert board["white"]["18"] == 1 and board["white"]["11"] == 1 and board["white"]["24"] == 1
    # line 46, right: "Doubles => 2": the men stay, the cube stays centred at 1 until taken
    board = _step(page, 3)
    assert board["key"] == turns[1]["key_after"] and board["cube"] == [1, "cube centred"]
    # line 47, left: "Takes": the cube at 2, on White's side
    board = _step(page, 4)
    assert board["key"] == turns[1]["key_after"] and board["cube"] == [2, "cube white"]
    # line 47, right: "64: 24/18 18/14": Black's 14 is White's 11, where White's blot stood
    # (Galaxy writes no *): hit, White has a man on the bar
    board = _step(page, 5)
    assert board["white_bar"] == 1 and "11" not in board["white"]
    assert board["black"]["14"] == 1
    # line 48, left: "55: 25/20 8/3 8/3 13/8": White enters on 20 (Black's 5, open), and 8/3
    # lands on Black's 22, Black's blot of line 45: hit, Black on the bar
    board = _step(page, 6)
    assert board["white_bar"] == 0 and board["white"]["20"] == 1 and board["white"]["3"] == 2
    assert board["black_bar"] == 1 and "22" not in board["black"]
    assert board["cube"] == [2, "cube white"]
    # line 48, right: "41: 25/21 14/13": Black enters on 21 (White's 4, open)
    board = _step(page, 7)
    assert board["black_bar"] == 0 and board["black"]["21"] == 1 and board["black"]["13"] == 5
    assert board["key"] == turns[6]["key_after"]

    # the last ply, line 77: "64: 25/21 25/19" (gnubg warns at it, and keeps it): two men enter
    page.goto(f"{server}/archive/-/game/{game['id']}?ply={len(turns)}")
    board = _board(page)
    assert board["key"] == turns[-1]["key_after"]
    assert board["black_bar"] == 0 and board["black"]["21"] == 1 and board["black"]["19"] == 1
    assert board["cube"] == [2, "cube white"]

    # the match is linked from the game, and its row says who won and the score
    link = page.locator("a.jacquet-match-link")
    assert link.count() == 1
    link.click()
    page.wait_for_load_state()
    text = page.locator("body").inner_text()
    assert "2516058" in text and "lasse" in text and "yueda" in text


def test_the_players_pages_show_their_match_records(server: str, archive: Path, page: Any) -> None:
    players = {p["name"]: p["id"] for p in query(archive, "select id, name from players")}
    page.goto(f"{server}/archive/-/player/{players['lasse']}")
    assert "1 won, 0 lost" in page.locator(".jacquet-match-record").inner_text()
    assert page.locator(".jacquet-match-score").first.inner_text() == "3-1"
    assert page.locator(".jacquet-match-outcome").first.inner_text() == "won"
    page.goto(f"{server}/archive/-/player/{players['yueda']}")
    assert "0 won, 1 lost" in page.locator(".jacquet-match-record").inner_text()
    assert page.locator(".jacquet-match-score").first.inner_text() == "1-3"


def test_a_backgammon_position_page_draws_the_position(
    server: str, archive: Path, page: Any
) -> None:
    [turn] = query(
        archive,
        "select key_after from turns t join occurrences o on o.game_id = t.game_id "
        "where o.game_index = 3 and t.ply = 5",
    )
    page.goto(f"{server}/archive/-/position/{turn['key_after']}")
    svg = page.locator("svg.jacquet-board").first
    assert svg.get_attribute("data-key") == turn["key_after"]
    assert svg.get_attribute("data-direction") == "opposite"
    assert page.locator("svg.jacquet-board g.bar.white").first.get_attribute("data-count") == "1"
