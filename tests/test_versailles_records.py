"""Jacquet de Versailles in records: the opponent's share of the dice after `` + ``.

The notation, the canonical writer and ``fmt``, the XML round trip and the score sheet; the
replay, the archive and the corpus of Versailles records (docs/notation.md, docs/rules.md).
"""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import lxml.html
from click.testing import CliRunner
from lxml import etree

from jacquet_notation.cli import main
from jacquet_notation.notation import parse_game, parse_games, write_game
from jacquet_notation.record import Move, Span
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
