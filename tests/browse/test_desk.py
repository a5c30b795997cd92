"""The transcriber's desk: ``check_text`` and ``setup_position`` against the reader, the replay
and the engine, and the JSON endpoint over real HTTP (``jacquet serve`` as a subprocess) with its
bounds: the CSRF token, the body's size, the time, no writes."""

from __future__ import annotations

import asyncio
import hashlib
import http.client
import itertools
import json
import re
import threading
import time
import urllib.request
from http.cookiejar import CookieJar
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from helpers import corpus_archive, serving

from jacquet_notation.browse import desk
from jacquet_notation.browse.board_setup import setup_position
from jacquet_notation.browse.desk import MAX_BODY, check_text
from jacquet_notation.browse.server import build_datasette
from jacquet_notation.budget import OutOfTime, time_budget
from jacquet_notation.engine import ROLLS, legal_plays
from jacquet_notation.notation import parse_game, parse_games
from jacquet_notation.position import Position
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules

TAGS = '[White "Ann"]\n[Black "Bob"]\n\n'
#: real backgammon match files, the corpus' copies
MATCHES = Path(__file__).resolve().parents[2] / "corpus" / "valid" / "backgammon-mat"
JACQUET = Rules.named("jacquet")


def fourth_illegal() -> tuple[str, int]:
    """A record whose first three plays are legal and whose fourth (alone on line 6) is not:
    Black plays from its 6-point, where it has no man. The line of the fourth play too."""
    first = TAGS + "1. 6-5: 24/13 6-1: 24/17\n"
    after = replay(parse_game(first)).final
    third = legal_plays(after, (4, 3), JACQUET)[0].notation()
    text = first + f"2. 4-3: {third}\n2... 5-2: 6/1 6/4\n"
    return text, 6


# -- check_text: the answer the page draws -----------------------------------------------------


def test_an_illegal_fourth_play_is_named_at_its_line() -> None:
    text, line = fourth_illegal()
    answer = check_text(text, line, 8)
    game = replay(parse_game(text))
    assert [error["line"] for error in answer["errors"]] == [line]
    error = answer["errors"][0]
    assert error["kind"] == "illegal-play" and error["column"] > 1
    assert error["message"] == str(game.errors[0].message).splitlines()[0]
    # every ply's position is the replay's, the illegal one shown where it stopped
    assert [ply["key"] for ply in answer["plies"][:3]] == [
        ply.after.key() for ply in game.plies[:3] if ply.after is not None
    ]
    assert answer["plies"][3]["played"] is False
    assert answer["plies"][3]["key"] == game.plies[3].before.key()
    assert answer["start"] == Position.start().key()
    # the cursor's ply is the fourth: the legal plays of 5-2 from the position before it
    cursor = answer["cursor"]
    assert cursor["ply"] == 3 and cursor["dice"] == "5-2"
    expected = sorted({play.notation() for play in legal_plays(game.plies[3].before, (5, 2))})
    assert cursor["legal"] == expected[: desk.LEGAL_SHOWN]
    assert cursor["legal_count"] == len(expected) > 0


def test_the_cursor_chooses_the_ply() -> None:
    text, _ = fourth_illegal()
    # line 4 column 4 is the start of White's 6-5: the board after it, the legal plays of 6-5
    answer = check_text(text, 4, 4)
    assert answer["cursor"]["ply"] == 0 and answer["cursor"]["dice"] == "6-5"
    before_any = check_text(text, 1, 1)
    assert before_any["cursor"]["ply"] is None and before_any["cursor"]["legal"] == []


def test_no_legal_plays_after_a_play_that_could_not_be_made() -> None:
    text, _ = fourth_illegal()
    text += "3. 6-6: 24/18(2) 18/12(2)\n"
    answer = check_text(text, 7, 5)
    assert answer["cursor"]["ply"] == 4
    assert answer["cursor"]["stopped"] is True and answer["cursor"]["legal"] == []


def test_a_line_being_typed_keeps_the_board_of_the_lines_before() -> None:
    text, _ = fourth_illegal()
    head = text.rsplit("2...", 1)[0]
    typing = head + "2... 5-2: 6/"  # a step half typed: a syntax error on line 6
    answer = check_text(typing, 6, 12)
    assert answer["errors"] and answer["errors"][0]["line"] == 6
    assert answer["errors"][0]["kind"] != "illegal-play"
    # the plays of lines 4 and 5 are still replayed, and the board is after the third
    assert len(answer["plies"]) == 3 and all(ply["played"] for ply in answer["plies"])
    assert answer["cursor"]["ply"] == 2


def test_an_empty_text_is_the_opening_position() -> None:
    answer = check_text("", 1, 1)
    assert answer["errors"] == [] and answer["plies"] == []
    assert answer["start"] == Position.start().key()


# -- setup_position: men clicked onto a board ----------------------------------------------------


def test_a_set_position_reads_back_from_its_key() -> None:
    answer = setup_position(
        {"white": {"6": 3, "5": 2}, "black": {"18": 2, "13": 1}, "turn": "black"}
    )
    assert answer["problem"] is None
    position = Position.from_key(answer["key"])
    assert answer["tag"] == f'[Position "{answer["key"]}"]'
    assert position.turn == "black"
    assert position.men("white") == {6: 3, 5: 2} and position.off("white") == 10
    # the board is drawn in White's numbering: Black's men on White's 18 and 13 are its 6 and 1
    assert position.men("black") == {6: 2, 1: 1} and position.off("black") == 12
    assert answer["white"] == {"6": 3, "5": 2} and answer["black"] == {"18": 2, "13": 1}


def test_backgammon_points_map_by_its_direction() -> None:
    answer = setup_position({"rules": "backgammon", "white": {"1": 15}, "black": {"24": 15}})
    position = Position.from_key(answer["key"])
    assert position.direction == "opposite" and position.men("black") == {1: 15}
    start = setup_position({"rules": "backgammon", "start": True})
    assert start["key"] == Position.start(Rules.named("backgammon")).key()


def test_an_impossible_position_is_refused_and_a_forbidden_one_named() -> None:
    assert "16 men" in setup_position({"white": {"6": 16}})["error"]
    both = setup_position({"white": {"6": 1}, "black": {"6": 1}})
    assert "both sides" in both["error"]
    # Jacquet has no hitting: men borne off while one stands outside home cannot happen
    forbidden = setup_position({"white": {"13": 3}})
    assert forbidden["problem"] and "13" in forbidden["problem"]
    assert "unknown ruleset" in setup_position({"rules": "chess"})["error"]


# -- the endpoint in process: the time limit -------------------------------------------------


def test_a_check_past_the_time_limit_is_answered_503(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(desk, "TIME_LIMIT", 0.0)
    datasette = build_datasette(archive)

    async def ask() -> Any:
        page = await datasette.client.get(desk.DESK_PATH)
        token = page.cookies["ds_csrftoken"]
        assert f'content="{token}"' in page.text
        return await datasette.client.post(
            desk.CHECK_PATH,
            content=json.dumps({"text": fourth_illegal()[0]}),
            headers={"content-type": "application/json", "x-csrftoken": token},
            cookies={"ds_csrftoken": token},
        )

    response = asyncio.run(ask())
    assert response.status_code == 503
    assert "took longer" in response.json()["error"]


def _all_places_free() -> None:
    """Wait until no check runs in this process (an earlier test's late thread may)."""
    taken = [desk.CHECK_PLACES.acquire(timeout=60) for _ in range(desk.CHECKS_AT_ONCE)]
    assert all(taken)
    for _ in taken:
        desk.CHECK_PLACES.release()


def test_late_checks_that_run_on_are_bounded(
    archive: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a late check's thread cannot be stopped: at most CHECKS_AT_ONCE run on, one more waits
    # for a place and is answered busy, and their places come back when they end
    release = threading.Event()
    real = desk.check_text
    _all_places_free()

    def stuck(text: str, line: int = 1, column: int = 1) -> dict[str, Any]:
        release.wait(60)
        return real(text, line, column)

    monkeypatch.setattr(desk, "check_text", stuck)
    monkeypatch.setattr(desk, "TIME_LIMIT", 2.0)  # the stuck ones are late; a busy answer is not
    datasette = build_datasette(archive)

    async def ask(times: int) -> list[Any]:
        page = await datasette.client.get(desk.DESK_PATH)
        token = page.cookies["ds_csrftoken"]
        answers = []
        for _ in range(times):
            answers.append(
                await datasette.client.post(
                    desk.CHECK_PATH,
                    content=json.dumps({"text": fourth_illegal()[0]}),
                    headers={"content-type": "application/json", "x-csrftoken": token},
                    cookies={"ds_csrftoken": token},
                )
            )
        return answers

    # one loop for both rounds: asyncio.run would wait for the stuck threads as it closes
    loop = asyncio.new_event_loop()
    late = loop.run_until_complete(ask(desk.CHECKS_AT_ONCE + 1))
    assert [a.status_code for a in late] == [503] * (desk.CHECKS_AT_ONCE + 1)
    assert all("took longer" in a.json()["error"] for a in late[:-1])
    assert "busy" in late[-1].json()["error"]
    release.set()
    _all_places_free()  # the stuck threads end, and give their places back
    monkeypatch.setattr(desk, "TIME_LIMIT", 60.0)
    [answer] = loop.run_until_complete(ask(1))
    assert answer.status_code == 200 and answer.json()["errors"]
    # checks that merely overlap (more at once than there are places) wait their turn
    monkeypatch.setattr(desk, "check_text", real)

    async def together(times: int) -> list[int]:
        asked = [ask(1) for _ in range(times)]
        return [answers[0].status_code for answers in await asyncio.gather(*asked)]

    assert loop.run_until_complete(together(2 * desk.CHECKS_AT_ONCE + 1)) == [200] * (
        2 * desk.CHECKS_AT_ONCE + 1
    )
    loop.close()


# -- the endpoint over real HTTP -----------------------------------------------------------------


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return corpus_archive(tmp_path_factory.mktemp("desk"), games=2)


@pytest.fixture(scope="module")
def serve_options() -> list[str]:
    return ["--workers", "1"]


def _session(server: str) -> tuple[urllib.request.OpenerDirector, str]:
    """An opener holding the page's cookie, and the token the page carries."""
    jar = CookieJar()
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
    with opener.open(f"{server}{desk.DESK_PATH}", timeout=30) as response:
        page = response.read().decode()
    found = re.search(r'name="jacquet-csrftoken" content="([^"]+)"', page)
    assert found, page
    return opener, found.group(1)


def _post(
    opener: urllib.request.OpenerDirector, url: str, body: bytes, headers: dict[str, str]
) -> tuple[int, Any]:
    request = urllib.request.Request(url, data=body, headers=headers, method="POST")
    try:
        with opener.open(request, timeout=30) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        return error.code, error.read()


def test_the_home_page_links_to_the_desk(server: str) -> None:
    with urllib.request.urlopen(f"{server}/", timeout=30) as response:
        home = response.read().decode()
    assert f'href="{desk.DESK_PATH}"' in home


def test_the_endpoint_answers_the_page_with_its_token(server: str) -> None:
    opener, token = _session(server)
    text, line = fourth_illegal()
    body = json.dumps({"text": text, "line": line, "column": 5}).encode()
    status, answer = _post(
        opener,
        f"{server}{desk.CHECK_PATH}",
        body,
        {"content-type": "application/json", "x-csrftoken": token},
    )
    assert status == 200
    assert answer["errors"] == check_text(text, line, 5)["errors"]
    # each ply's board is the plugin's own diagram, and it draws
    with urllib.request.urlopen(f"{server}{answer['plies'][0]['board']}", timeout=30) as svg:
        assert svg.headers["content-type"].startswith("image/svg+xml")
        assert answer["plies"][0]["key"].encode() in svg.read()


def test_a_request_without_the_token_is_refused(server: str) -> None:
    opener, token = _session(server)
    body = json.dumps({"text": "1. 6-5: 24/13"}).encode()
    url = f"{server}{desk.CHECK_PATH}"
    json_type = {"content-type": "application/json"}
    # with the cookie but no token: Datasette's asgi-csrf refuses it
    assert _post(opener, url, body, json_type)[0] == 403
    # a wrong token
    assert _post(opener, url, body, {**json_type, "x-csrftoken": token[::-1]})[0] == 403
    # no cookie at all (which asgi-csrf lets through): the endpoint refuses it itself
    bare = urllib.request.build_opener()
    assert _post(bare, url, body, json_type)[0] == 403
    assert _post(bare, url, body, {**json_type, "x-csrftoken": token})[0] == 403


def _raw_post(server: str, token: str, headers: dict[str, str], body: bytes) -> tuple[int, bytes]:
    """A POST written by hand, so that the body may be less than the length it declares."""
    where = urlsplit(server)
    connection = http.client.HTTPConnection(where.hostname or "", where.port, timeout=30)
    try:
        connection.putrequest("POST", desk.CHECK_PATH)
        for name, value in {
            "content-type": "application/json",
            "x-csrftoken": token,
            "cookie": f"ds_csrftoken={token}",
            **headers,
        }.items():
            connection.putheader(name, value)
        connection.endheaders()
        connection.send(body)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def test_a_10_mb_body_is_refused_before_it_is_read(server: str) -> None:
    _, token = _session(server)
    ten_mb = 10 * 1024 * 1024
    # the length declared: the answer comes while 9.9 MB of the body were never sent
    status, body = _raw_post(
        server, token, {"content-length": str(ten_mb)}, b'{"text": "' + b"x" * 65536
    )
    assert status == 413 and b"256 KB" in body
    # chunked, without a length: refused once it passes the limit
    chunk = b"x" * (64 * 1024)
    chunks = b"".join(
        b"%x\r\n%s\r\n" % (len(chunk), chunk) for _ in range(MAX_BODY // len(chunk) + 2)
    )
    status, body = _raw_post(server, token, {"transfer-encoding": "chunked"}, chunks)
    assert status == 413


def test_other_refusals_are_named(server: str) -> None:
    opener, token = _session(server)
    url = f"{server}{desk.CHECK_PATH}"
    headers = {"content-type": "application/json", "x-csrftoken": token}
    assert _post(opener, url, b"{not json", headers)[0] == 400
    assert _post(opener, url, b"[1, 2]", headers)[0] == 400
    assert _post(opener, url, b'{"text": 3}', headers)[0] == 400
    assert _post(opener, url, b"text", {**headers, "content-type": "text/plain"})[0] == 415
    with pytest.raises(urllib.error.HTTPError) as refused:
        opener.open(url, timeout=30)
    assert refused.value.code == 405


def test_nothing_is_written_to_the_archive(server: str, archive: Path) -> None:
    before = hashlib.sha256(archive.read_bytes()).hexdigest()
    opener, token = _session(server)
    headers = {"content-type": "application/json", "x-csrftoken": token}
    text, _ = fourth_illegal()
    for body in (
        {"text": text},
        {"setup": {"white": {"6": 15}, "black": {"18": 15}}},
    ):
        assert (
            _post(opener, f"{server}{desk.CHECK_PATH}", json.dumps(body).encode(), headers)[0]
            == 200
        )
    assert hashlib.sha256(archive.read_bytes()).hexdigest() == before


def test_the_token_is_good_in_every_server_process(archive: Path) -> None:
    """With several server processes, the page and its POSTs may be answered by different ones:
    they sign the token with one secret. Each POST is a new connection, spread over both."""
    with serving([str(archive), "--workers", "2"]) as base:
        opener, token = _session(base)
        headers = {"content-type": "application/json", "x-csrftoken": token}
        body = json.dumps({"text": "1. 6-5: 24/13"}).encode()
        statuses = [_post(opener, f"{base}{desk.CHECK_PATH}", body, headers)[0] for _ in range(24)]
    assert statuses == [200] * 24


# -- round two from the world: costly checks end, bad input is a 400, the game at the cursor ----

BACKGAMMON = Rules.named("backgammon")


def costly_fragments(size: int) -> str:
    """``size`` bytes of one-play backgammon fragments written without dice, from an open
    position (every man a blot or a pair: many rolls and plays to try), one in four not legal."""
    counts = [0] * 26
    for point in range(13, 25):
        counts[point] = 1
    counts[22] = counts[23] = counts[24] = 2
    open_position = Position.from_counts(counts, list(counts), "white", BACKGAMMON.direction)
    head = f'[Rules "backgammon"]\n[Position "{open_position.key()}"]\n\n1. ?-?: '
    parts: list[str] = []
    written = 0
    for number in itertools.count():
        roll = ROLLS[number % len(ROLLS)]
        plays = legal_plays(open_position, roll, BACKGAMMON)
        play = "13/12" if number % 4 == 3 else plays[number * 7 % len(plays)].notation()
        parts.append(f"{head}{play}\n\n")
        written += len(parts[-1])
        if written >= size:
            return "".join(parts)
    raise AssertionError  # pragma: no cover


@pytest.fixture(scope="module")
def costly() -> str:
    return costly_fragments(228_000)  # under MAX_BODY once written as JSON


def test_a_costly_check_ends_when_its_answer_is_given_up(
    archive: Path, costly: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    _all_places_free()
    monkeypatch.setattr(desk, "TIME_LIMIT", 0.5)
    datasette = build_datasette(archive)

    async def ask() -> Any:
        page = await datasette.client.get(desk.DESK_PATH)
        token = page.cookies["ds_csrftoken"]
        return await datasette.client.post(
            desk.CHECK_PATH,
            content=json.dumps({"text": costly}),
            headers={"content-type": "application/json", "x-csrftoken": token},
            cookies={"ds_csrftoken": token},
        )

    # one loop, left open: asyncio.run would wait for a thread that ran on as it closes
    loop = asyncio.new_event_loop()
    started = time.monotonic()
    answer = loop.run_until_complete(ask())
    answered = time.monotonic() - started
    assert answer.status_code == 503 and "took longer" in answer.json()["error"]
    assert answered < 0.5 + desk.GRACE + 1.0
    # the check gave up at its deadline: its place is free at once, not when its work ends
    taken = [desk.CHECK_PLACES.acquire(timeout=1.0) for _ in range(desk.CHECKS_AT_ONCE)]
    for took in taken:
        if took:
            desk.CHECK_PLACES.release()
    assert all(taken)
    loop.close()


def test_the_budget_stops_the_replay_between_plies_and_nothing_else_has_one() -> None:
    text = costly_fragments(20_000)
    started = time.monotonic()
    with pytest.raises(OutOfTime), time_budget(started + 0.2):
        check_text(text)
    assert time.monotonic() - started < 1.0
    # outside the desk there is no budget: the same text is checked whole
    assert check_text(text)["errors"]


def test_two_costly_checks_do_not_lock_the_desk(server: str, costly: str) -> None:
    opener, token = _session(server)
    url = f"{server}{desk.CHECK_PATH}"
    headers = {"content-type": "application/json", "x-csrftoken": token}
    body = json.dumps({"text": costly}).encode()
    assert len(body) <= MAX_BODY
    answers: list[int] = []

    def costly_post() -> None:
        answers.append(_post(opener, url, body, headers)[0])

    posts = [threading.Thread(target=costly_post) for _ in range(2)]
    started = time.monotonic()
    for post in posts:
        post.start()
    for post in posts:
        post.join(60)
    # each is answered at its time limit (or sooner), not when its work would have ended
    assert sorted(answers) in ([503, 503], [200, 503], [200, 200])
    assert time.monotonic() - started < desk.TIME_LIMIT + desk.GRACE + 5
    # and the desk is free again at once: a short check is answered, not "busy"
    small = json.dumps({"text": "1. 6-5: 24/13 6-1: 24/17\n"}).encode()
    checked = time.monotonic()
    status, answer = _post(opener, url, small, headers)
    assert status == 200, answer
    assert time.monotonic() - checked < desk.TIME_LIMIT


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (b"[" * 100_000 + b"]" * 100_000, "nested too deep"),
        (json.dumps({"text": "1. 6-5: 24/13\x00 6-1: 24/17\n"}).encode(), "NUL"),
        (json.dumps({"setup": {"white": {"\u00b2": 1}, "black": {}}}).encode(), ""),
    ],
    ids=["deep-json", "nul", "superscript-setup"],
)
def test_bad_input_is_a_one_line_400(server: str, body: bytes, said: str) -> None:
    opener, token = _session(server)
    request = urllib.request.Request(
        f"{server}{desk.CHECK_PATH}",
        data=body,
        headers={"content-type": "application/json", "x-csrftoken": token},
        method="POST",
    )
    with pytest.raises(urllib.error.HTTPError) as refused:
        opener.open(request, timeout=30)
    assert refused.value.code == 400
    assert refused.value.headers["content-type"].startswith("application/json")
    message = json.loads(refused.value.read())["error"]
    assert message and "\n" not in message and "Traceback" not in message
    assert said in message


def test_a_superscript_in_a_typed_record_is_the_records_error_not_the_servers(
    server: str,
) -> None:
    # The request is sound; the record is not: the desk names the record's error, as it does
    # for any mistake typed (a set position sent as JSON with one is a bad request: above).
    opener, token = _session(server)
    body = json.dumps({"text": '[Position "white 24:1\u00b2; black 24:15; white to move"]\n\n'})
    status, answer = _post(
        opener,
        f"{server}{desk.CHECK_PATH}",
        body.encode(),
        {"content-type": "application/json", "x-csrftoken": token},
    )
    assert status == 200, answer
    assert "Position" in json.dumps(answer) and "Traceback" not in json.dumps(answer)


def test_a_match_file_shows_the_game_at_the_cursor() -> None:
    text = (MATCHES / "studio-solnze-lasse.txt").read_text(encoding="utf-8")
    games = list(parse_games(text))
    assert len(games) >= 2 and len({game.span.line for game in games}) == 1
    for game in (games[0], games[1], games[-1]):
        first = game.plays[0].span
        answer = check_text(text, first.line, first.column)
        assert answer["plies"][0]["line"] == first.line
        assert answer["cursor"]["ply"] == 0
    # on the match's header, before any game: its first game
    assert check_text(text, 1, 1)["plies"][0]["line"] == games[0].plays[0].span.line


def test_a_match_file_over_http_answers_the_game_at_the_cursor(server: str) -> None:
    text = (MATCHES / "studio-solnze-lasse.txt").read_text(encoding="utf-8")
    # the first game's first play: the match's last game was shown wherever the cursor was
    first = next(iter(parse_games(text))).plays[0].span
    opener, token = _session(server)
    body = json.dumps({"text": text, "line": first.line, "column": first.column}).encode()
    status, answer = _post(
        opener,
        f"{server}{desk.CHECK_PATH}",
        body,
        {"content-type": "application/json", "x-csrftoken": token},
    )
    assert status == 200
    assert answer["plies"][0]["line"] == first.line


def test_the_desk_starts_from_a_gnubg_id_or_an_xgid() -> None:
    """The desk's "start from a set position" takes any SPEC, through the one reader."""
    xgid = "XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:0:10"
    by_xgid = setup_position({"rules": "backgammon", "spec": xgid})
    by_id = setup_position({"rules": "backgammon", "spec": "4HPwATDgc/ABMA", "turn": "black"})
    start = setup_position({"rules": "backgammon", "start": True, "turn": "black"})
    assert by_xgid["key"] == by_id["key"] == start["key"]
    assert by_xgid["tag"] == start["tag"] and by_xgid["turn"] == "black"
    refused = setup_position({"rules": "backgammon", "spec": "XGID=nonsense"})
    assert "is not an XGID" in refused["error"]
