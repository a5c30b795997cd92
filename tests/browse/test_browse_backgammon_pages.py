"""Backgammon drawn right, and the pages a newcomer found rough (issue "Matches, whole", items 6
and 7): the points a play moved outlined through the position's direction (game page, desk),
a legend per ruleset, the roll said once on a match's score sheet, the games list and the other
lists linking games by their players, one spelling of a name, the home page titled by content.

``jacquet serve`` on a real archive of generated Jacquet games and real backgammon match files
(../shared/data/backgammon-mat); plain HTTP and lxml where the HTML is tested, Chromium where
the page's script is.
"""

from __future__ import annotations

import json
import re
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, SHARED_MAT, build_archive, corpus_archive, query, serving
from lxml import html

from jacquet_notation.browse import desk
from jacquet_notation.position import Position
from jacquet_notation.rules import Rules

#: the shared real match files beside the checkout (../shared/data/backgammon-mat), or beside
#: the folder of worktrees that holds it (../../shared/...)
SHARED = SHARED_MAT
#: Backgammon Studio's dialect; its game 3 has Black's ``41: bar/21 4/3*`` at ply 10
STUDIO = SHARED / "Llabba" / "Llabba - Bigeagle32 9pt Backgammon Studio 2023_09_21 12_05_50.txt"
#: Galaxy's dialect, a player written "lasse"
GALAXY = SHARED / "lasse" / "match2516058.txt"
#: Studio again, the same player written "Lasse"
STUDIO_LASSE = SHARED / "lasse" / "Magic - Lasse 5pt Backgammon Studio 2024_04_22 19_06_30.txt"

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not STUDIO.is_file(), reason="no ../shared/data/backgammon-mat"),
]

#: Black's bar/21 4/3* in White's numbering (the drawing's): from 21 (Black's 4), to 22 (Black's
#: 3) and 4 (Black's 21); the bar is not a point
BAR_21_4_3 = {21: "from", 22: "to", 4: "to"}


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    corpus = ROOT / "corpus" / "valid"
    return corpus_archive(
        tmp_path_factory.mktemp("bgdraw"),
        games=40,
        extra=[STUDIO, GALAXY, STUDIO_LASSE, corpus / "backgammon.jqt", corpus / "jacquet.jqt"],
    )


def get(url: str) -> str:
    with urllib.request.urlopen(url, timeout=30) as response:
        return str(response.read().decode())


def parsed(text: str) -> Any:
    """An HTML page or an SVG document as lxml reads it (typed loosely, as XPath answers are)."""
    return html.fromstring(text)


def svg_marks(root: Any) -> dict[int, str]:
    """The outlined points of the first board in ``root`` (an lxml tree): point -> from | to."""
    found: dict[int, str] = {}
    for outline in root.xpath("(//svg)[1]//polygon[contains(@class, 'moved')]"):
        kind = "from" if "from" in outline.get("class").split() else "to"
        found[int(outline.get("data-point"))] = kind
    return found


def studio_game_3(archive: Path) -> str:
    (row,) = query(
        archive,
        "select g.id from games g join turns t on t.game_id = g.id "
        "where t.ply = 10 and t.written = '41: bar/21 4/3*'",
    )
    return str(row["id"])


def expected_marks(archive: Path, game_id: str, ply: int) -> dict[int, str]:
    """The marks a ply should carry, from its steps as replayed (not from the positions the
    drawing compares), in White's numbering under the game's direction."""
    (turn,) = query(
        archive,
        "select t.side, t.steps, json_extract(o.options, '$.direction') as direction "
        "from turns t join games g on g.id = t.game_id "
        "join rule_options o on o.id = g.options where t.game_id = ? and t.ply = ?",
        [game_id, ply],
    )
    left: dict[int, int] = {}
    for step in (turn["steps"] or "").split():
        start, end = (part.rstrip("*") for part in step.split("/"))
        for point, change in ((start, -1), (end, 1)):
            if point.isdigit() and 1 <= int(point) <= 24:
                left[int(point)] = left.get(int(point), 0) + change
    return {
        Position.to_absolute(turn["side"], point, turn["direction"] or "same"): (
            "to" if change > 0 else "from"
        )
        for point, change in left.items()
        if change
    }


# -- 1. the board is right for Black in backgammon ------------------------------------------------


def test_blacks_backgammon_play_outlines_its_own_points(server: str, archive: Path) -> None:
    game = studio_game_3(archive)
    page = parsed(get(f"{server}/archive/-/game/{game}?ply=10"))
    assert svg_marks(page) == BAR_21_4_3
    # the board drawn alone, as the page's script and the desk fetch it
    (turn,) = query(archive, "select * from turns where game_id = ? and ply = 10", [game])
    board = get(f"{server}/-/jacquet/board/{turn['key_after']}.svg?before={turn['key_before']}")
    assert svg_marks(parsed(board)) == BAR_21_4_3


def test_every_backgammon_ply_outlines_what_it_moved(server: str, archive: Path) -> None:
    game = studio_game_3(archive)
    (plies,) = query(archive, "select plies from games where id = ?", [game])
    for ply in range(1, 15):
        page = parsed(get(f"{server}/archive/-/game/{game}?ply={ply}"))
        assert svg_marks(page) == expected_marks(archive, game, ply), ply
    assert plies["plies"] > 14


def test_jacquet_outlines_both_sides_as_before(server: str, archive: Path) -> None:
    """Jacquet's sides move the same way: White's and Black's plays alike still outline the
    points they moved (p and p + 12)."""
    (game,) = query(
        archive, "select id from games where rules = 'jacquet' and status = 'valid' limit 1"
    )
    sides = set()
    for ply in range(1, 9):
        page = parsed(get(f"{server}/archive/-/game/{game['id']}?ply={ply}"))
        marks = svg_marks(page)
        assert marks and marks == expected_marks(archive, game["id"], ply), ply
        sides.add(
            query(
                archive, "select side from turns where game_id = ? and ply = ?", [game["id"], ply]
            )[0]["side"]
        )
    assert sides == {"white", "black"}


def _desk_check(server: str, text: str, line: int) -> Any:
    """The desk's answer to ``text`` with the cursor on ``line``, as its page asks it."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{server}{desk.DESK_PATH}", timeout=30) as response:
        found = re.search(r'name="jacquet-csrftoken" content="([^"]+)"', response.read().decode())
    assert found
    request = urllib.request.Request(
        f"{server}{desk.CHECK_PATH}",
        data=json.dumps({"text": text, "line": line, "column": 1}).encode(),
        headers={"content-type": "application/json", "x-csrftoken": found.group(1)},
        method="POST",
    )
    with opener.open(request, timeout=30) as response:
        return json.loads(response.read())


DESK_RECORD = (
    '[White "Llabba"]\n[Black "Bigeagle32"]\n[Rules "backgammon"]\n\n'
    "1. 6-3: 24/18 13/10 6-5: 13/8 13/7*\n"
    "2. 2-1: bar/24 13/11 2-2: 24/22(2) 6/4(2)\n"
    "3. 2-1: 11/9 10/9 3-3: 13/7 8/5(2)\n"
    "4. 5-2: 24/22 13/8 6-2: 13/7 6/4\n"
    "5. 5-1: 13/12* 13/8 4-1: bar/21 4/3*\n"
)


def test_the_desk_outlines_blacks_backgammon_play(server: str) -> None:
    answer = _desk_check(server, DESK_RECORD, 8)
    assert answer["errors"] == []
    tenth = answer["plies"][9]
    board = get(f"{server}{tenth['board']}")
    assert svg_marks(parsed(board)) == BAR_21_4_3
    # and White's play before it (13/12* 13/8) where White's numbering is the board's
    ninth = get(f"{server}{answer['plies'][8]['board']}")
    assert svg_marks(parsed(ninth)) == {13: "from", 12: "to", 8: "to"}


def page_marks(page: Any, holder: str) -> dict[int, str]:
    """The outlined points of the board in ``holder`` as Chromium shows it."""
    marks = page.evaluate(
        """(holder) => Object.fromEntries([...document.querySelectorAll(
             holder + ' svg polygon.moved')].map(p => [p.dataset.point,
             p.classList.contains('from') ? 'from' : 'to']))""",
        holder,
    )
    return {int(point): kind for point, kind in marks.items()}


@pytest.mark.browser
def test_stepping_to_blacks_play_in_chromium(server: str, archive: Path, page: Any) -> None:
    game = studio_game_3(archive)
    (turn,) = query(archive, "select key_after from turns where game_id = ? and ply = 10", [game])
    page.goto(f"{server}/archive/-/game/{game}?ply=9")
    page.keyboard.press("ArrowRight")
    page.wait_for_function(
        "key => document.querySelector('.jacquet-board-holder').dataset.key === key",
        arg=turn["key_after"],
    )
    page.wait_for_function("document.querySelector('.jacquet-board-holder svg polygon.moved')")
    assert page_marks(page, ".jacquet-board-holder") == BAR_21_4_3


@pytest.mark.browser
def test_the_desk_in_chromium_outlines_blacks_play(server: str, page: Any) -> None:
    page.goto(f"{server}{desk.DESK_PATH}")
    text = page.locator("#jacquet-desk-text")
    text.fill(DESK_RECORD.rstrip("\n"))
    text.focus()
    page.keyboard.press("Control+End")
    page.keyboard.type(" ")  # the page checks as it is typed, the cursor on the last line
    page.wait_for_function(
        "document.querySelector('#jacquet-desk-board svg polygon.moved.from[data-point=\"21\"]')",
        timeout=10000,
    )
    assert page_marks(page, "#jacquet-desk-board") == BAR_21_4_3


# -- 2. a legend per ruleset; the roll said once on a match's score sheet -------------------------


def legend(root: Any) -> str:
    (found,) = root.xpath("//span[@class='jacquet-legend']")
    return " ".join(found.text_content().split())


def test_a_backgammon_page_has_no_courier_in_its_legend(server: str, archive: Path) -> None:
    game = studio_game_3(archive)
    text = legend(parsed(get(f"{server}/archive/-/game/{game}?ply=10")))
    assert "courier" not in text
    assert "▲" in text and "▼" in text and "to move" in text  # the turn marker explained
    assert "moved from" in text
    (turn,) = query(archive, "select key_after from turns where game_id = ? and ply = 10", [game])
    text = legend(parsed(get(f"{server}/archive/-/position/{turn['key_after']}")))
    assert "courier" not in text and "to move" in text and "moved from" not in text


def test_a_jacquet_page_keeps_the_courier_in_its_legend(server: str, archive: Path) -> None:
    (game,) = query(archive, "select id from games where rules = 'jacquet' limit 1")
    text = legend(parsed(get(f"{server}/archive/-/game/{game['id']}?ply=1")))
    assert "courier" in text and "to move" in text and "moved from" in text
    # a position whose courier is out, as its board rings it
    (turn,) = query(
        archive, "select key_after from turns where game_id = ? and ply = 1", [game["id"]]
    )
    page = parsed(get(f"{server}/archive/-/position/{turn['key_after']}"))
    assert page.xpath("//svg//*[contains(@class, 'courier')]")
    assert "courier" in legend(page)


def test_a_match_score_sheet_says_each_roll_once(server: str, archive: Path) -> None:
    game = studio_game_3(archive)
    page = parsed(get(f"{server}/archive/-/game/{game}"))
    plays = [
        " ".join(a.text_content().split())
        for a in page.xpath("//a[contains(@class, 'jacquet-sheet-ply')]")
    ]
    assert plays[0] == "6-3: 24/18 13/10"
    assert "4-1: bar/21 4/3*" in plays
    assert not [play for play in plays if re.match(r"\d-\d: \d\d:", play)]
    # a Jacquet record's sheet as it was: its roll once too
    (jacquet,) = query(archive, "select id from games where rules = 'jacquet' limit 1")
    (first,) = query(
        archive, "select dice, written from turns where game_id = ? and ply = 1", [jacquet["id"]]
    )
    page = parsed(get(f"{server}/archive/-/game/{jacquet['id']}"))
    shown = " ".join(
        page.xpath("//a[contains(@class, 'jacquet-sheet-ply')]")[0].text_content().split()
    )
    assert shown == first["written"] and shown.startswith(first["dice"] + ":")


# -- 3. the games list and the other lists, the home page, the position page's note -------------


def words(element: Any) -> str:
    return " ".join(element.text_content().split())


def game_labels(archive: Path) -> dict[str, str]:
    """Each game's expected link text: its players as the archive spells them (the players
    table: the first spelling imported) and its result when it has one."""
    rows = query(
        archive,
        "select g.id, coalesce(w.name, '?') as white, coalesce(b.name, '?') as black, g.result "
        "from games g left join players w on w.id = g.white_id "
        "left join players b on b.id = g.black_id",
    )
    return {
        row["id"]: f"{row['white']} v {row['black']}"
        + (f", {row['result']}" if row["result"] not in (None, "", "*") else "")
        for row in rows
    }


def linked_games(root: Any) -> list[tuple[str, str]]:
    """(game id from the link's address, the link's words) of every game link of a page."""
    found = []
    for link in root.xpath("//a[contains(@class, 'jacquet-game-link')]"):
        game_id = link.get("href").split("?")[0].rsplit("/", 1)[1]
        found.append((game_id, words(link)))
    return found


def test_the_games_list_links_each_game_by_players_and_result(server: str, archive: Path) -> None:
    labels = game_labels(archive)
    page = parsed(get(f"{server}/archive/-/games"))
    links = linked_games(page)
    assert len(links) == 50
    for game_id, text in links:
        assert text == labels[game_id], game_id
    assert "undated" not in " ".join(text for _, text in links)
    # the date is still shown, as text
    assert page.xpath("//td[@class='col-date']")


def test_the_games_lists_page_links_use_glyphs_debian_draws(server: str) -> None:
    page = parsed(get(f"{server}/archive/-/games?page=2"))
    (pages,) = page.xpath("//p[@class='jacquet-pages']")
    assert [words(a) for a in pages.xpath(".//a")] == ["« first", "‹ previous"]
    page = parsed(get(f"{server}/archive/-/games"))
    (pages,) = page.xpath("//p[@class='jacquet-pages']")
    assert [words(a) for a in pages.xpath(".//a")] == ["next ›", "last »"]
    assert not re.search("[\u23e9-\u23ff\u25b6\u25c0]", get(f"{server}/archive/-/games?page=2"))


def test_a_player_is_spelled_one_way_on_every_list(server: str, archive: Path) -> None:
    (lasse,) = query(archive, "select id, name from players where normalised = 'lasse'")
    written = query(
        archive,
        "select white as name from games where white_id = ? union "
        "select black from games where black_id = ?",
        [lasse["id"], lasse["id"]],
    )
    assert {row["name"] for row in written} == {"lasse", "Lasse"}  # the records differ
    assert lasse["name"] == "lasse"  # the first spelling imported (Galaxy's file before Studio's)
    (magic,) = query(archive, "select id from players where name = 'Magic'")
    (event,) = query(archive, "select id, event_id from games where white = 'Magic' limit 1")
    (reached,) = query(
        archive,
        "select key_after from turns t join games g on g.id = t.game_id "
        "where g.white = 'Magic' and t.ply = 1 limit 1",
    )
    pages = [
        f"/archive/-/games?player={lasse['id']}",
        "/archive/-/games?rules=backgammon",
        f"/archive/-/player/{lasse['id']}",
        f"/archive/-/player/{magic['id']}",
        f"/archive/-/event/{event['event_id']}",
        f"/archive/-/position/{reached['key_after']}",
        f"/archive/-/game/{event['id']}",
        "/",
    ]
    for path in pages:
        page = parsed(get(f"{server}{path}"))
        shown = {
            words(a)
            for a in page.xpath("//a[@href]")
            if a.get("href").endswith(f"/-/player/{lasse['id']}")
        } | {text for _, text in linked_games(page)}
        spelled = {
            name for name in ("lasse", "Lasse") if re.search(rf"\b{name}\b", " ".join(shown))
        }
        assert spelled == {"lasse"}, path


def test_every_list_of_games_names_its_players(server: str, archive: Path) -> None:
    """The player, event, source and position pages list games by players and result, the id
    kept in the link."""
    labels = game_labels(archive)
    (lasse,) = query(archive, "select id from players where normalised = 'lasse'")
    (event,) = query(archive, "select id from events where name = 'Online match'")
    (source,) = query(archive, "select source_id from games where source_id is not null limit 1")
    start = Position.start(Rules.named("backgammon")).key()
    for path in (
        f"/archive/-/player/{lasse['id']}",
        f"/archive/-/event/{event['id']}",
        f"/archive/-/source/{source['source_id']}",
        f"/archive/-/position/{start}",
    ):
        links = linked_games(parsed(get(f"{server}{path}")))
        assert links, path
        for game_id, text in links:
            assert re.fullmatch("[0-9a-f]{16}", game_id)
            assert text.startswith(labels[game_id]), (path, text)
            assert game_id not in text


def test_the_home_page_is_titled_by_what_it_holds(
    server: str, archive: Path, tmp_path: Path
) -> None:
    page = parsed(get(f"{server}/"))
    assert words(page.xpath("//h1")[0]) == "Jacquet and backgammon archive"
    assert "Jacquet and backgammon archive" in words(page.xpath("//title")[0])
    (matches,) = query(archive, "select count(*) as n from matches")
    assert matches["n"] > 1
    (held,) = page.xpath("//*[contains(@class, 'jacquet-holdings-matches')]")
    assert re.search(rf"\b{matches['n']} matches\b", words(held))
    # an archive of backgammon only
    only = tmp_path / "backgammon.db"
    build_archive(only, [STUDIO])
    with serving([str(only)]) as base:
        page = parsed(get(f"{base}/"))
    assert words(page.xpath("//h1")[0]) == "Backgammon archive"
    (held,) = page.xpath("//*[contains(@class, 'jacquet-holdings-matches')]")
    assert re.search(r"\b1 match\b", words(held))


@pytest.mark.browser
def test_the_position_pages_note_is_not_an_error(server: str, archive: Path, page: Any) -> None:
    start = Position.start(Rules.named("backgammon")).key()
    page.goto(f"{server}/archive/-/position/{start}")
    note = page.locator(".jacquet-plays .jacquet-note")
    assert note.is_visible()
    colour = note.evaluate("e => getComputedStyle(e).color")
    assert colour != "rgb(176, 0, 32)"  # the pages' error red (#b00020)
