"""Match files (.mat): read as ordinary records, written back as gnubg reads them."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from helpers import SHARED_MAT

from jacquet_notation.notation import (
    is_match_file,
    parse_games,
    read_games,
    split_matches,
    write_game,
    write_match,
    write_matches,
)
from jacquet_notation.record import GameRecord, Move
from jacquet_notation.replay import replay

MATCHES = Path(__file__).resolve().parents[2] / "corpus" / "valid" / "backgammon-mat"
GALAXY = MATCHES / "galaxy-1988527.mat"
STUDIO = MATCHES / "studio-boardlord-llabba.mat"
STUDIO_TXT = MATCHES / "studio-solnze-lasse.txt"
# the shared real match files beside the checkout (../shared/data/backgammon-mat)
SHARED = SHARED_MAT

HEADER = """; [Site "Test"]
; [Player 1 "anna"]
; [Player 2 "bert"]

3 point match

"""


def _read(text: str, name: str = "m.mat") -> list[GameRecord]:
    return list(read_games(io.BytesIO(text.encode()), name))


def test_a_galaxy_match_becomes_one_record_a_game_with_the_match_tags() -> None:
    first, second = read_games(GALAXY)
    assert first.errors == [] and second.errors == []
    assert first.tags == {
        "Rules": "backgammon",
        "Site": "BackgammonGalaxy",
        "Match_ID": "1988527",
        "Player_1_Elo": "1,00/0",
        "Player_2_Elo": "5,00/0",
        "Date": "2023.09.07",
        "EventTime": "10.28",
        "Variation": "Backgammon",
        "Unrated": "Off",
        "Crawford": "On",
        "CubeLimit": "1024",
        "Match": "5",
        "Game": "1",
        "White": "lasse",
        "Black": "nicksan1111",
        "Score": "0-0",
    }
    assert first.match_header() == (5, 1, (0, 0))
    assert second.match_header() == (5, 2, (1, 0))
    # 5) 63: 8/2 5/2   22:     then   6)  Doubles => 2   Drops, and Player 1 wins 1 point
    assert [(p.side, p.turn, p.dice, p.action, p.cube) for p in first.plays[-3:]] == [
        ("black", 5, (2, 2), None, None),
        ("white", 6, None, "double", 2),
        ("black", 6, None, "drop", None),
    ]
    assert first.plays[-3].is_pass
    assert first.result == "1-0"
    # 9) 22: 25/23 25/23 6/4 24/22: the bar written 25; then Losses/Wins 5 and the match
    ninth = next(p for p in second.plays if p.turn == 9 and p.side == "white")
    assert ninth.moves == (Move(25, 23), Move(25, 23), Move(6, 4), Move(24, 22))
    assert ninth.span.line == 36 and ninth.moves[1].span.column == 16
    assert second.result == "0-5"
    take = next(p for p in second.plays if p.action == "take")
    assert (take.side, take.turn) == ("white", 8)


def test_a_studio_match_reads_words_repeats_hits_and_unknown_plays() -> None:
    records = list(read_games(STUDIO))
    assert all(r.errors == [] for r in records)
    second = records[1]
    assert second.tags["White"] == "BoardLord" and second.tags["Score"] == "4-0"
    # 2) 61: 13/7 8/7    44: 24/16* 8/4*(2)
    hits = next(p for p in second.plays if p.turn == 2 and p.side == "black")
    assert hits.moves == (Move(24, 16, hit=True), Move(8, 4, count=2, hit=True))
    # 3) 61: bar/24
    assert next(p for p in second.plays if p.turn == 3).moves == (Move(25, 24),)
    # 23)          Wins 2 point: Player 2, in the right column of a numbered line
    assert second.result == "0-2"
    first = records[0]
    assert first.result == "4-0"  # 24)  Wins 4 point, in the left column
    bear_off = next(p for p in first.plays if p.turn == 17 and p.side == "white")
    assert bear_off.moves == (Move(6, 0, count=2), Move(5, 0, count=2))
    solnze = list(read_games(STUDIO_TXT))
    assert all(r.errors == [] for r in solnze)
    plays = [p for r in solnze for p in r.plays]
    cannot = [p for p in plays if p.text.endswith("Cannot Move")]
    assert cannot and all(p.is_pass and p.dice for p in cannot)
    # ``61: ????`` (the roll, then the resignation) is read as gnubg reads it: the roll alone,
    # which the replay keeps unplayed as the game's last ply
    last = solnze[-1].plays[-1]
    assert (last.dice, last.text, last.action, last.is_bare_roll) == ((6, 1), "61:", None, True)
    assert replay(solnze[-1]).plies[-1].unplayed
    assert solnze[-1].result == "1-0"  # a resignation: the game is not over


def test_the_second_player_opens_with_the_left_column_blank() -> None:
    text = HEADER + (
        " Game 1\n anna : 0                       bert : 0\n"
        "  1)                             51: 13/8 24/23\n"
        "  2) 43: 24/20 13/10             66: 13/7(2) 7/1(2)\n"
        "                                  Wins 2 points\n"
    )
    (record,) = _read(text)
    assert record.errors == []
    assert [(p.side, p.turn) for p in record.plays] == [
        ("black", 1),
        ("white", 2),
        ("black", 2),
    ]
    assert record.result == "0-2"
    assert "1... 5-1: 13/8 24/23" in write_game(record)


def test_a_play_overflowing_its_column_still_ends_where_the_next_dice_begin() -> None:
    text = HEADER + (
        " Game 1\n anna : 0                       bert : 0\n"
        "  1) 11: 13/12 12/11 13/12 12/11 55: 8/3 8/3 6/1 6/1\n"
    )
    (record,) = _read(text)
    assert record.errors == []
    assert [(p.side, p.dice, len(p.moves)) for p in record.plays] == [
        ("white", (1, 1), 4),
        ("black", (5, 5), 4),
    ]
    assert record.result is None  # a game left unfinished


def test_a_syntax_error_is_located_and_the_other_games_are_read() -> None:
    game = " Game {n}\n anna : {s}                       bert : 0\n  1) 53: 8/3 6/3{bad}\n"
    text = HEADER + game.format(n=1, s=0, bad="") + "      Wins 1 point\n\n"
    text += game.format(n=2, s=1, bad=" 7/q") + "\n" + game.format(n=3, s=1, bad="")
    records = _read(text, "three.mat")
    assert [len(r.errors) for r in records] == [0, 1, 0]
    error = records[1].errors[0]
    assert (error.file, error.game, error.line, error.column) == ("three.mat", 2, 14, 18)
    assert str(error).startswith("three.mat:14:18: expected a move such as 24/18")
    assert records[2].plays[0].moves == (Move(8, 3), Move(6, 3))


def test_dice_out_of_range_and_lines_out_of_order_are_errors() -> None:
    text = HEADER + (
        " Game 1\n anna : 0                       bert : 0\n"
        "  1) 73: 8/1 6/3                 62: 24/18 13/11\n"
        "  3) 31: 8/5 6/5\n"
    )
    (record,) = _read(text)
    messages = [str(e).splitlines()[0] for e in record.errors]
    assert messages == [
        "m.mat:9:6: expected dice from 1 to 6, such as 53:, found 73:",
        "m.mat:10:1: expected the line number 2), found 3)",
    ]


def test_the_format_is_told_by_content_whatever_the_name() -> None:
    text = GALAXY.read_text(encoding="utf-8")
    for name in ("a.jqt", "a.txt", "a"):
        records = _read(text, name)
        assert [r.tags["Game"] for r in records] == ["1", "2"]
    assert is_match_file(text.splitlines()[:20])
    # a Jacquet record opening with a ; comment is not a match file
    assert not is_match_file(["; a note", '[Event "x"]'])
    (record,) = parse_games("; a note\n\n1. 6-5: 24/13\n")
    assert record.errors == [] and record.comments == ["a note"]


def test_a_match_written_reads_back_as_the_same_records() -> None:
    for path in (GALAXY, STUDIO, STUDIO_TXT):
        records = list(read_games(path))
        (text,) = write_matches(records)
        again = _read(text)
        assert again == records, path
        assert all(r.errors == [] for r in again)
        assert list(write_matches(again)) == [text]


def test_the_writer_lays_out_columns_as_gnubg_does() -> None:
    records = list(read_games(GALAXY))
    text = write_match(records)
    lines = text.splitlines()
    assert lines[:4] == [
        '; [Site "BackgammonGalaxy"]',
        '; [Match ID "1988527"]',
        '; [Player 1 "lasse"]',
        '; [Player 2 "nicksan1111"]',
    ]
    assert "5 point match" in lines
    assert " lasse : 0                       nicksan1111 : 0" in lines
    assert "  6)  Doubles => 2                Drops" in lines
    assert "  9) 22: bar/23 bar/23 6/4 24/22 51: bar/24 16/11" in lines
    assert "                                  Wins 5 points and the match" in lines


def test_games_of_two_matches_are_two_match_files() -> None:
    records = list(read_games(GALAXY)) + list(read_games(STUDIO))
    assert [len(m) for m in split_matches(records)] == [2, 3]


def test_only_backgammon_records_are_written_as_match_files() -> None:
    (record,) = parse_games('[Rules "jacquet"]\n\n1. 6-5: 24/13\n')
    with pytest.raises(ValueError, match=r'backgammon games only .*Rules: "jacquet"'):
        write_match([record])


@pytest.mark.skipif(not SHARED.is_dir(), reason="the shared match files are not here")
def test_every_tenth_shared_match_file_is_a_fixed_point() -> None:
    files = sorted(SHARED.glob("*/*.txt"))[::10]
    assert len(files) > 100
    for path in files:
        records = list(read_games(path))
        assert records and all(r.errors == [] for r in records), path
        (text,) = write_matches(records)
        assert _read(text) == records, path


def test_a_double_without_its_value_is_written_with_the_value_it_makes() -> None:
    (record,) = parse_games(
        '[Rules "backgammon"]\n\n1. 6-5: 24/13 double\n2. take 3-1: 8/5 6/5\n3. double 3... drop\n'
    )
    assert record.errors == []
    lines = write_match([record]).splitlines()
    first = next(line for line in lines if line.startswith("  1)"))
    assert (first[:14], first[33:]) == ("  1) 65: 24/13", " Doubles => 2")
    assert "  3)  Doubles => 4                Drops" in lines


def test_a_games_text_read_alone_is_the_same_game_at_the_same_lines() -> None:
    # what the archive's rebuild relies on: the text and its gap (the lines left out, version 6)
    from jacquet_notation.archive.rows import reread

    for record in read_games(GALAXY):
        again = reread(record.text, record.file, record.index, record.span.line, record.gap[1])
        assert again == record
        assert [p.span for p in again.plays] == [p.span for p in record.plays]
        assert record.text.splitlines()[0] == '; [Site "BackgammonGalaxy"]'
