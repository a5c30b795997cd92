"""A position found by the ID a player shares (position_lookup.py): ``/DB/-/position?id=`` and
the home page's search box (the games list's ``q``) take a key, a gnubg Position ID or an XGID,
and open the position's page through the positions table's key; a real ``jacquet serve``."""

from __future__ import annotations

import urllib.error
import urllib.request
from pathlib import Path
from urllib.parse import quote

import pytest
from helpers import ROOT, build_archive, reached_backgammon_position

from jacquet_notation.position import Position
from jacquet_notation.position_ids import gnubg_id, xgid

pytestmark = pytest.mark.integration


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("lookup") / "archive.db"
    build_archive(db, [ROOT / "corpus" / "valid" / "backgammon.jqt"])
    return db


def _opened(url: str) -> tuple[int, str]:
    try:
        with urllib.request.urlopen(url, timeout=30) as response:
            return response.status, response.geturl()
    except urllib.error.HTTPError as error:
        return error.code, url


def test_every_id_of_a_reached_position_opens_its_page(server: str, archive: Path) -> None:
    position = reached_backgammon_position(archive)
    page = f"/archive/-/position/{position.key()}"
    for spec in (position.key(), gnubg_id(position), xgid(position)):
        status, landed = _opened(f"{server}/archive/-/position?id={quote(spec, safe='')}")
        assert (status, landed) == (200, server + page), spec
        # the home page's search box sends its words to the games list as q
        status, landed = _opened(f"{server}/archive/-/games?q={quote(spec, safe='')}")
        assert (status, landed) == (200, server + page), spec


def test_an_id_with_its_match_part_finds_the_board(server: str, archive: Path) -> None:
    """gnubg's ``POSITIONID:MATCHID`` and an XGID with cube, score and length open the board's
    page: the match part says the match state, the board is what a position is looked up by."""
    position = reached_backgammon_position(archive)
    page = f"/archive/-/position/{position.key()}"
    fields = xgid(position).split(":")
    # the cube at 2 owned by the player on roll, 2-3 in a 7-point match, no Crawford game
    fields[1:3] = ["1", "1"]
    fields[5:9] = ["2", "3", "0", "7"]
    for spec in (gnubg_id(position) + ":cAmgAAAAAAAE", ":".join(fields)):
        for path in ("position?id=", "games?q="):
            status, landed = _opened(f"{server}/archive/-/{path}{quote(spec, safe='')}")
            assert (status, landed) == (200, server + page), (spec, path)


def test_a_bad_id_is_a_400_an_unreached_one_a_404_and_words_are_searched(server: str) -> None:
    assert _opened(f"{server}/archive/-/position?id=nonsense")[0] == 400
    # three of White's men left on its 1-point, every man of Black's borne off
    white, black = [12, 3] + [0] * 24, [15] + [0] * 25
    never = xgid(Position.from_counts(white, black, "white", "opposite"))
    assert _opened(f"{server}/archive/-/position?id={quote(never, safe='')}")[0] == 404
    status, landed = _opened(f"{server}/archive/-/games?q=nonsense")
    assert status == 200 and "/-/games" in landed


def test_the_position_page_shows_both_ids_with_copy_buttons(server: str, archive: Path) -> None:
    from lxml import html

    position = reached_backgammon_position(archive)
    url = f"{server}/archive/-/position/{position.key()}"
    with urllib.request.urlopen(url, timeout=30) as response:
        root = html.fromstring(response.read().decode())
    assert root.xpath("string(//code[@class='jacquet-gnubg-id'])") == gnubg_id(position)
    assert root.xpath("string(//code[@class='jacquet-xgid'])") == xgid(position)
    copied = root.xpath("//button[@class='jacquet-copy']/@data-copy")
    assert copied == [gnubg_id(position), xgid(position)]
