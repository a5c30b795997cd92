"""The match page and the game page's match state on a real 13 point match in a real browser,
its scores checked against the file by hand (the comments say which line reads what), and every
link of the match page and of a player page answered without a 4xx or 5xx."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any
from urllib.error import HTTPError
from urllib.parse import urljoin
from urllib.request import urlopen

import pytest
from helpers import SHARED_MAT, build_archive, query

MATCH = SHARED_MAT / "Llabba" / "Llabba - Iandaurca 13pt Backgammon Studio 2023_03_24 12_56_54.txt"
UNKNOWN = SHARED_MAT / "Llabba" / "Minchy - Llabba 13pt Backgammon Studio 2023_02_24 19_44_27.txt"

pytestmark = [
    pytest.mark.browser,
    pytest.mark.slow,
    pytest.mark.skipif(not MATCH.is_file(), reason="no shared/data/backgammon-mat"),
]

# Read in the file by hand: each "Game N" and the score line under it (Llabba, Player 1, is
# White; Iandaurca Black): line 19 "Llabba : 0  Iandaurca : 0", line 43 "2  0", line 76
# "6  0", line 104 "8  0", line 131 "10  0", line 160 "10  2", line 172 "10  3", line 202
# "10  5", line 242 "12  5"; game 9 ends at line 274 "Wins 2 point" (Llabba): 14-5.
SCORES_BEFORE = ["0-0", "2-0", "6-0", "8-0", "10-0", "10-2", "10-3", "10-5", "12-5"]
# who wins each game and how many points (left column: Llabba, White; right: Black)
WINS = [
    "White wins 2 points",  # line 40, left: "Wins 2 point"
    "White wins 4 points",  # line 73, left
    "White wins 2 points: a double dropped",  # line 100 "Doubles => 4  Drops", 101 left
    "White wins 2 points",  # line 128, left
    "Black wins 2 points",  # line 156, right
    "Black wins 1 point: a double dropped",  # line 168 "Drops  Wins 1 point", right
    "Black wins 2 points",  # line 198, right
    "White wins 2 points",  # line 239, left
    "White wins 2 points",  # line 274, left
]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("match-page") / "archive.db"
    build_archive(db, [MATCH, UNKNOWN])
    return db


def _match_id(archive: Path) -> int:
    [row] = query(archive, "select id from matches where match_id = '2752451'")
    return int(row["id"])


def test_the_match_page_shows_each_game_s_score_the_crawford_game_and_the_end(
    server: str, archive: Path, page: Any
) -> None:
    page.goto(f"{server}/archive/-/match/{_match_id(archive)}")
    assert page.locator("h1").inner_text().split() == [
        "Llabba", "(White)", "v", "Iandaurca", "(Black)",
    ]  # fmt: skip
    assert "13 point match" in page.locator(".jacquet-match-facts").inner_text()
    rows = page.locator("table.jacquet-match-games tbody tr")
    assert rows.count() == 9
    assert page.locator(".jacquet-match-score").all_inner_texts() == SCORES_BEFORE
    crawford = page.locator(".jacquet-crawford").all_inner_texts()
    # Llabba reaches 12 (one short of 13) after game 8: game 9 is the Crawford game, only it
    assert [text.strip() for text in crawford] == [""] * 8 + ["Crawford game"]
    endings = page.locator(".jacquet-game-ending").all_inner_texts()
    for said, expected in zip(endings, WINS, strict=True):
        assert expected in said
    assert page.locator(".jacquet-match-final").inner_text() == (
        "Llabba (White) wins the match, 14-5"
    )
    # each game's link opens its game page, the one of that game in the file
    page.locator("a.jacquet-game-link", has_text="Game 9").click()
    page.wait_for_selector(".jacquet-game-match")
    state = page.locator(".jacquet-game-match").inner_text()
    assert "13 point match" in state
    assert "game 9 of 9" in state
    assert "score before this game 12-5" in state
    assert "Crawford game" in state
    assert "White wins 2 points" in page.locator(".jacquet-game-ending").inner_text()


def test_a_game_page_says_the_match_state_and_an_unknown_play_in_words(
    server: str, archive: Path, page: Any
) -> None:
    # Minchy v Llabba, game 10 (line 188), score line 189 "Minchy : 3  Llabba : 11"; line 220
    # "31) 21: ????   Wins 4016 point": Black (Llabba) resigned into on a roll not played
    [game] = query(
        archive, "select id, plies from games where tags like '%2664955%' and game_index = 10"
    )
    page.goto(f"{server}/archive/-/game/{game['id']}?ply={game['plies']}")
    state = page.locator(".jacquet-game-match").inner_text()
    assert "score before this game 3-11" in state
    assert "Crawford" not in state  # 11 is not 12: no one is one point short of 13
    caption = page.locator(".jacquet-caption").inner_text()
    assert "????" not in caption
    # gnubg reads "21: ????" before a resignation as the roll alone, unplayed (docs/notation.md)
    assert caption.startswith("31. White 2-1: (no move)")
    assert (
        # "Wins 4016 point": more than a resignation can give, an error of the game, scored at
        # the most it can (3 x the cube at 4)
        "Black wins 12 points: a resignation" in page.locator(".jacquet-game-ending").inner_text()
    )
    sheet = page.locator(".jacquet-score-sheet").inner_text()
    assert "????" not in sheet


def _links(base: str, path: str) -> set[str]:
    with urlopen(urljoin(base, path)) as answer:
        html = answer.read().decode()
    return {
        urljoin(urljoin(base, path), href.replace("&amp;", "&"))
        for href in re.findall(r'href="([^"#]+)', html)
        if not href.startswith(("http://", "https://", "mailto:")) or href.startswith(base)
    }


def _status(url: str) -> int:
    try:
        with urlopen(url) as answer:
            return int(answer.status)
    except HTTPError as error:
        return int(error.code)


def test_every_link_of_the_match_page_and_a_player_page_answers(server: str, archive: Path) -> None:
    [player] = query(archive, "select id from players where name = 'Llabba'")
    links = _links(server, f"/archive/-/match/{_match_id(archive)}") | _links(
        server, f"/archive/-/player/{player['id']}"
    )
    assert any("/-/match/" in link for link in links)  # the player page links its matches
    # the matches table links each match's page (by its match id) and its players
    table = _links(server, "/archive/matches")
    assert f"{server}/archive/-/match/{_match_id(archive)}" in table
    assert f"{server}/archive/-/player/{player['id']}" in table
    assert len(links) > 20
    bad = {link: code for link in sorted(links) if (code := _status(link)) >= 400}
    assert bad == {}
