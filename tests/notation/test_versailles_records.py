"""Jacquet de Versailles in records: the opponent's share of the dice after `` + ``.

The notation, the canonical writer and ``fmt``, the XML round trip and the score sheet; the
replay, the archive and the corpus of Versailles records (docs/notation.md, docs/rules.md).
"""

from __future__ import annotations

import io
import itertools
import sqlite3
import urllib.request
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from click.testing import CliRunner
from helpers import as_version_10, check_consistent, one, rows, serving
from lxml import etree

from jacquet_notation.archive import SCHEMA_VERSION, TURN_COLUMNS, import_paths, open_archive
from jacquet_notation.cli import main
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, parse_games, read_games, write_game
from jacquet_notation.record import Move, Span
from jacquet_notation.replay import ReplayError, replay
from jacquet_notation.rules import Rules
from jacquet_notation.xml import NAMESPACE, read_xml, schema, scoresheet, write_xml

NS = {"j": NAMESPACE}

#: a few plays with shares, written as a transcriber might (not canonical)
WRITTEN = """[Rules "versailles"]

1. 6-1: 13/7 + 24/23 5-3: 24/21 24/16
2. 6-6: pass + 24/18 18/12
   2-1: 24/22  +  24/23 {the 1 was White's}
*
"""
CANONICAL = """[Rules "versailles"]

1. 6-1: 13/7 + 24/23 5-3: 24/21 24/16
2. 6-6: + 24/18 18/12 2-1: 24/22 + 24/23 {the 1 was White's}
*
"""


def test_the_share_is_read_apart_from_the_movers_steps() -> None:
    game = parse_game(WRITTEN)
    assert game.errors == []
    first, second, third, fourth = game.plays
    assert first.moves == (Move(13, 7),) and first.opponent_moves == (Move(24, 23),)
    assert first.has_share and not first.is_pass
    assert second.opponent_moves == () and not second.has_share
    assert third.moves == () and third.is_pass
    assert third.opponent_moves == (Move(24, 18), Move(18, 12))
    assert fourth.side == "black" and fourth.opponent_moves == (Move(24, 23),)
    assert third.opponent_moves_as_pairs() == [(24, 18), (18, 12)]


def test_spans_of_a_play_and_its_share() -> None:
    game = parse_game(WRITTEN)
    first = game.plays[0]
    assert first.text == "6-1: 13/7 + 24/23"
    assert first.span == Span(3, 4, 3, 20)
    assert first.opponent_moves[0].span == Span(3, 16, 3, 20)
    fourth = game.plays[3]
    assert fourth.text == "2-1: 24/22  +  24/23"


def test_the_canonical_writer_and_its_round_trip() -> None:
    game = parse_game(WRITTEN)
    assert write_game(game) == CANONICAL
    again = parse_game(CANONICAL)
    assert again == game and write_game(again) == CANONICAL
    # the share takes part in equality: a record without it is another record
    assert parse_game(CANONICAL.replace(" + 24/23 5-3", " 5-3")) != game


def test_fmt_writes_the_canonical_share(tmp_path: Path) -> None:
    path = tmp_path / "v.jqt"
    path.write_text(WRITTEN, encoding="utf-8")
    result = CliRunner().invoke(main, ["fmt", str(path)])
    # (these plays are not the game's legal ones: fmt says so on stderr, and still writes them)
    assert result.stdout == CANONICAL


def test_a_misplaced_plus_is_named_where_it_stands() -> None:
    for text, column in [
        ("1. 6-1: 13/7 +24/23", 14),
        ("1. 6-1: 13/7 + 24/23 + 18/17", 22),
        ("1. 6-1: 13/7 + pass", 14),
        ("1. pass + 24/23", 9),
    ]:
        (error,) = parse_game(text).errors
        assert error.line == 1 and error.column == column, (text, str(error))
        assert "expected the opponent's share after the dice" in str(error)


def test_other_games_of_the_file_are_still_read() -> None:
    text = "1. 6-1: 13/7 +24/23\n\n" + CANONICAL
    bad, good = parse_games(text)
    assert bad.errors and not good.errors
    assert good.plays[0].opponent_moves == (Move(24, 23),)


def _export(text: str) -> bytes:
    out = io.BytesIO()
    write_xml(parse_games(text), out)
    return out.getvalue()


def test_xml_marks_the_share_and_round_trips() -> None:
    document = _export(CANONICAL)
    root = etree.fromstring(document)
    assert schema().validate(root), schema().error_log
    plays = root.findall(".//j:play", NS)
    first = plays[0]
    moves = first.findall("j:move", NS)
    assert [(m.get("from"), m.get("to"), m.get("by")) for m in moves] == [
        ("13", "7", None),
        ("24", "23", "black"),
    ]
    fourth = plays[3]
    assert [m.get("by") for m in fourth.findall("j:move", NS)] == [None, "white"]
    (back,) = read_xml(io.BytesIO(document), "v.xml")
    (original,) = parse_games(CANONICAL)
    assert back == original and write_game(back) == CANONICAL


def test_the_schema_refuses_a_share_by_no_side() -> None:
    root = etree.fromstring(_export(CANONICAL))
    move = root.find(".//j:move[@by]", NS)
    assert move is not None
    move.set("by", "grey")
    assert not schema().validate(root)


def test_the_score_sheet_shows_the_share() -> None:
    page = lxml.html.fromstring(scoresheet(etree.fromstring(_export(CANONICAL))))
    rows: Any = page.xpath("//table[contains(@class, 'turns')]/tbody/tr")
    cells = [[td.text_content().strip() for td in row.findall("td")] for row in rows]
    assert cells[0][1] == "6-1: 13/7 + 24/23"
    assert cells[1][1] == "6-6: + 24/18 18/12"
    assert cells[1][2].startswith("2-1: 24/22 + 24/23")
    assert page.xpath("//span[@class='share']")


# -- replay ------------------------------------------------------------------------------------

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
GAME = CORPUS / "valid" / "versailles.jqt"
#: the opening of the corpus game: a tied lead (2-2 each), Black leads 5-3 and plays twice in a
#: row, White plays the 3 Black cannot use; then turn 3 with a share both ways
OPENING = """[White "Ann"]
[Black "Bob"]
[Rules "versailles"]

1. 2-2: 24/22 22/20 1... 2-2: 24/22 22/20
2... 5-3: 20/15 + 20/17
3. 5-2: 17/15 15/10 2-1: 15/13 + 10/9
*
"""


def _errors(text: str) -> list[ReplayError]:
    game = replay(parse_game(text))
    return [error for error in game.errors if isinstance(error, ReplayError)]


def test_the_corpus_game_validates_with_shares_and_a_tied_lead() -> None:
    (record,) = read_games(GAME)
    game = replay(record)
    assert game.errors == [] and game.winner is not None
    sides = [ply.side for ply in game.plies]
    assert sides[:3] == ["white", "black", "black"]  # the tied lead, then Black leads
    assert [ply.written.dice for ply in game.plies[:2]] == [(4, 4), (4, 4)]
    shared = [ply for ply in game.plies if ply.written.opponent_moves]
    assert shared and all(ply.play and ply.play.opponent_steps for ply in shared)
    # the comments mark the tied lead and the first shared die
    assert "Tied lead" in game.plies[0].written.comments[0]
    assert any("opponent plays the rest" in c for c in shared[0].written.comments)
    # every other play alternates sides as usual
    assert all(a != b for a, b in itertools.pairwise(sides[2:]))


def test_a_whole_turn_passes_to_the_opponent_after_the_share() -> None:
    game = replay(parse_game(OPENING))
    assert game.errors == []
    lead = game.plies[2]
    assert lead.play is not None and lead.after is not None
    assert [(s.start, s.end) for s in lead.play.opponent_steps] == [(20, 17)]
    assert lead.after.turn == "white"
    assert lead.after.men("white").get(17) == 1  # White's man moved in Black's turn


def test_white_may_lead_after_the_tie_too() -> None:
    text = OPENING.split("2... ")[0] + "2. 5-3: 20/15 + 20/17 *\n"
    assert _errors(text) == []


def test_a_second_tie_is_played_the_same_way() -> None:
    text = (
        OPENING.split("2... ")[0]
        + "2. 1-1: 20/19 2... 1-1: 20/19\n3... 5-3: 19/14 14/11\n4. 6-4: 19/13 13/9 *\n"
    )
    assert _errors(text) == []


def test_the_same_side_twice_is_refused_outside_the_lead() -> None:
    (error,) = _errors(OPENING.replace("3. 5-2: 17/15 15/10 2-1:", "3... 2-1:"))
    assert error.kind == "wrong-side" and (error.line, error.column) == (7, 6)
    assert "Black plays, but it is White's turn" in error.message


def test_a_double_lead_without_every_die_is_still_refused() -> None:
    text = OPENING.replace('[Rules "versailles"]', '[Rules "jacquet"]')
    (error,) = _errors(text)
    assert error.kind == "double-opening" and (error.line, error.column) == (5, 4)


def test_the_tied_lead_wants_the_same_double() -> None:
    (error,) = _errors(OPENING.replace("1... 2-2: 24/22 22/20", "1... 3-3: 24/21 21/18 18/15"))
    assert error.kind == "tied-lead" and (error.line, error.column) == (5, 26)
    assert "the lead dice were tied (2-2)" in error.message


def test_a_variation_of_the_tie_is_held_to_the_same_double() -> None:
    good = OPENING.replace("1... 2-2: 24/22 22/20", "1... 2-2: 24/22 22/20 (1... 2-2: 24/22/20)")
    assert _errors(good) == []
    bad = OPENING.replace("1... 2-2: 24/22 22/20", "1... 2-2: 24/22 22/20 (1... 3-3: 24/21/15)")
    (error,) = _errors(bad)
    assert error.kind == "tied-lead" and (error.line, error.column) == (5, 49)


def test_the_named_errors_at_their_turn() -> None:
    cases = [
        # a missing share
        (OPENING.replace(" + 20/17", ""), (6, 6), "White could have played the 3 (20/17)"),
        # a share played with the mover's own men: the wrong side
        (OPENING.replace("+ 10/9", "+ 13/12"), (7, 34), "Black's own men moved in the share"),
        # a share in the mover's numbering
        (OPENING.replace("+ 20/17", "+ 8/5"), (6, 19), "written in Black's numbering"),
        # a die the mover could use, played by the opponent
        (
            OPENING.replace("5-2: 17/15 15/10", "5-2: 17/15 + 24/19"),
            (7, 4),
            "the 5 was playable by White (17/15 15/10), so Black may not play it",
        ),
    ]
    for text, where, words in cases:
        (error,) = _errors(text)
        assert error.kind == "illegal-play", (text, error)
        assert (error.line, error.column) == where, (words, error.line, error.column)
        assert words in str(error), str(error)


def test_every_die_with_another_ruleset_through_its_tag() -> None:
    rules = Rules.named("jacquet").with_options({"every-die": "yes"})
    records = list(generate_records(4, 11, rules))
    assert any(play.opponent_moves for record in records for play in record.plays)
    for record in records:
        assert record.tags["Rules"] == "jacquet" and record.tags["Every-die"] == "yes"
        text = write_game(record)
        game = replay(parse_game(text))
        assert game.errors == [] and game.rules.every_die_used and game.rules.doubles == "four"
    # without the tag a share is refused: jacquet shares no dice
    (error,) = _errors('[Rules "jacquet"]\n\n1. 5-3: 24/19 + 24/21 *\n')
    assert error.kind == "illegal-play" and "no shared dice" in error.message


def test_generate_plays_shares_and_its_records_validate(tmp_path: Path) -> None:
    out = tmp_path / "v.jqt"
    result = CliRunner().invoke(
        main, ["generate", "--rules", "versailles", "-n", "5", "-s", "3", "-o", str(out)]
    )
    assert result.exit_code == 0, result.output
    records = list(read_games(out))
    assert any(play.opponent_moves for record in records for play in record.plays)
    for record in records:
        assert replay(record).errors == []


def test_generated_tied_leads_are_numbered_and_replay() -> None:
    records = list(generate_records(30, 5, Rules.named("versailles")))
    twice = [
        record
        for record in records
        if any(a.side == b.side for a, b in itertools.pairwise(record.plays))
    ]
    assert twice  # a tied lead won by its second thrower, who then plays twice in a row
    for record in twice:
        text = write_game(record)
        assert parse_game(text) == record  # the numbers say it: 1... then 2...
        assert replay(parse_game(text)).errors == []


def test_the_replayed_xml_marks_the_resolved_share() -> None:
    root = etree.fromstring(_export(OPENING))
    assert schema().validate(root), schema().error_log
    lead = root.findall(".//j:play", NS)[2]
    steps = lead.findall("j:resolved/j:step", NS)
    assert [(s.get("from"), s.get("to"), s.get("die"), s.get("by")) for s in steps] == [
        ("20", "15", "5", None),
        ("20", "17", "3", "white"),
    ]
    resolved = lead.find("j:resolved", NS)
    assert resolved is not None
    after = replay(parse_game(OPENING)).plies[2].after
    assert after is not None and resolved.get("position-after") == after.key()


# -- archive -----------------------------------------------------------------------------------


def test_turn_rows_keep_the_share_apart(tmp_path: Path) -> None:
    source = tmp_path / "v.jqt"
    source.write_text(OPENING, encoding="utf-8")
    db = tmp_path / "a.db"
    assert import_paths(db, [str(source)]).valid == 1
    found = rows(
        db,
        "SELECT ply, side, written, steps, opponent_steps, pips, key_after FROM turns ORDER BY ply",
    )
    assert [row[:6] for row in found] == [
        (1, "white", "2-2: 24/22 22/20", "24/22 22/20", None, 4),
        (2, "black", "2-2: 24/22 22/20", "24/22 22/20", None, 4),
        (3, "black", "5-3: 20/15 + 20/17", "20/15", "20/17", 5),
        (4, "white", "5-2: 17/15 15/10", "17/15 15/10", None, 7),
        (5, "black", "2-1: 15/13 + 10/9", "15/13", "10/9", 2),
    ]
    game = replay(parse_game(OPENING))
    assert [row[6] for row in found] == [ply.after.key() for ply in game.plies if ply.after]
    # the position after both parts of a turn: one game reaches it, so (version 11) it has no
    # row of its own, and the view reads its pips from the play's counts
    after = game.plies[2].after
    assert after is not None
    assert rows(
        db, "SELECT white_pips, black_pips, games FROM positions WHERE key = ?", after.key()
    ) == [(after.pips("white"), after.pips("black"), 1)]
    check_consistent(db)


def test_a_version_1_archive_gets_the_column(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    source = tmp_path / "v.jqt"
    source.write_text(OPENING, encoding="utf-8")
    import_paths(db, [str(source)])
    with sqlite3.connect(db) as conn:  # back to version 1's layout (version 4 added cube)
        as_version_10(conn)
        conn.execute("DROP VIEW player_matches")
        conn.execute("DROP TABLE matches")
        conn.execute("ALTER TABLE turns DROP COLUMN cube")
        conn.execute("ALTER TABLE turns DROP COLUMN opponent_steps")
        conn.execute("PRAGMA user_version = 1")
    open_archive(db).close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    columns = [row[1] for row in rows(db, "PRAGMA table_info(turns)")]
    assert columns == list(TURN_COLUMNS)
    assert one(db, "SELECT count(*) FROM turns WHERE opponent_steps IS NULL") == 5
    check_consistent(db)


@pytest.mark.slow
def test_the_game_page_shows_the_share(tmp_path: Path) -> None:
    source = tmp_path / "v.jqt"
    source.write_text(OPENING, encoding="utf-8")
    db = tmp_path / "a.db"
    import_paths(db, [str(source)])
    game_id = one(db, "SELECT id FROM games")
    with (
        serving([str(db)]) as base,
        urllib.request.urlopen(f"{base}/a/-/game/{game_id}?ply=3") as response,
    ):
        page: Any = lxml.html.fromstring(response.read())
    links: Any = page.xpath("//a[contains(@class, 'jacquet-sheet-ply')]")
    assert "5-3: 20/15 + 20/17" in [a.text_content() for a in links]
    # the board's caption at that ply: the mover's steps, then the opponent's share
    assert "2... Black 5-3: 20/15 + 20/17" in page.text_content()
