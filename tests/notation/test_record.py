"""The record values: what equality means, the canonical step, the match header."""

from __future__ import annotations

import copy
import dataclasses
import pickle

import pytest

from jacquet_notation.notation import parse_game
from jacquet_notation.record import (
    NO_SPAN,
    GameRecord,
    MatchHeader,
    Move,
    Span,
    WrittenPlay,
    point_name,
)


def test_equality_leaves_out_where_and_how_things_were_written() -> None:
    a = parse_game('[Event "x"]\n1. 6-5: 24/18/13 2-0', "a.jqt")
    b = parse_game('[Event "x"]\n\n\n1.   5-6:   24/18   18/13\n2-0', "b.jqt", index=7)
    assert a == b
    assert a.plays[0].span != b.plays[0].span and a.plays[0].text != b.plays[0].text
    assert a.plays[0].moves[0].span != b.plays[0].moves[0].span
    assert hash(a.plays[0].moves[0]) == hash(b.plays[0].moves[0])
    assert a != parse_game('[Event "x"]\n1. 6-5: 24/13 2-0')  # combined is not chained


def test_a_moves_span_survives_what_a_move_goes_through() -> None:
    """A move keeps its span as four of its items (record.Move): pickled (a batch crossing to
    the writer process), copied and replaced, it still says where it was written."""
    span = Span(3, 9, 3, 13)
    move = Move(24, 18, 1, False, span)
    for again in (pickle.loads(pickle.dumps(move)), copy.deepcopy(move), move._replace(hit=True)):
        assert again.span == span and isinstance(again, Move)
    assert move._replace(hit=True) == Move(24, 18, 1, True)
    read = parse_game("1. 6-5: 24/18 18/13", "a.jqt").plays[0].moves
    assert [m.span for m in pickle.loads(pickle.dumps(read))] == [m.span for m in read]
    assert read[0].span == Span(1, 9, 1, 13)


def test_move_values() -> None:
    move = Move(13, 7, count=2, hit=True, span=Span(1, 2, 1, 9))
    assert (move.start, move.end, move.count, move.hit) == (13, 7, 2, True)
    assert move == Move(13, 7, 2, True) and move != Move(13, 7, 2, False)
    assert Move(24, 18).span == NO_SPAN
    assert eval(repr(move)) == move  # a repr to paste back
    assert [Move(25, 22).notation(), Move(6, 0).notation(), move.notation()] == [
        "bar/22",
        "6/off",
        "13/7*(2)",
    ]
    assert [point_name(p) for p in (0, 1, 24, 25)] == ["off", "1", "24", "bar"]


def test_move_notation_of_every_single_move_is_spelled_from_its_points() -> None:
    # single moves come from a table; each must read as its two points spelled, then the hit
    for start in range(26):
        for end in range(26):
            for hit in (False, True):
                spelled = f"{point_name(start)}/{point_name(end)}" + ("*" if hit else "")
                assert Move(start, end, hit=hit).notation() == spelled
                assert Move(start, end, 3, hit).notation() == spelled + "(3)"
    # points no board has (a transcription slip) are spelled too, not looked up
    assert Move(30, 26).notation() == "30/26"


def test_written_play_is_frozen_and_knows_a_pass() -> None:
    play = WrittenPlay("white", 1, (4, 4), (Move(13, 9, 2), Move(24, 20)))
    with pytest.raises(dataclasses.FrozenInstanceError):
        play.turn = 2  # type: ignore[misc]
    assert not play.is_pass and play.is_double
    assert play.moves_as_pairs() == [(13, 9), (13, 9), (24, 20)]
    assert WrittenPlay("black", 3, (6, 5)).is_pass
    assert WrittenPlay("black", 3, None).is_pass


def test_match_header_from_tags() -> None:
    record = GameRecord(tags={"Match": "7", "Game": "3", "Score": "2-1"})
    assert record.match_header() == MatchHeader(7, 3, (2, 1))
    assert GameRecord(tags={"Match": "x"}).match_header() == MatchHeader(None, None, None)
    assert GameRecord().match_header() is None
    assert GameRecord().is_valid


def test_the_readers_fast_constructor_makes_the_same_play() -> None:
    from jacquet_notation.notation.words import new_play

    moves = (Move(24, 18, span=Span(1, 9, 1, 13)),)
    fast = new_play("black", 4, (6, 5), moves, "6-5: 24/18", Span(1, 4, 1, 13))
    slow = WrittenPlay("black", 4, (6, 5), moves, text="6-5: 24/18", span=Span(1, 4, 1, 13))
    assert fast == slow
    for field in dataclasses.fields(WrittenPlay):
        assert getattr(fast, field.name) == getattr(slow, field.name), field.name
    with pytest.raises(dataclasses.FrozenInstanceError):
        fast.turn = 5  # type: ignore[misc]


def test_the_readers_fast_replace_is_dataclasses_replace() -> None:
    from jacquet_notation.notation.words import new_play, replaced

    moves = (Move(24, 18, span=Span(1, 9, 1, 13)),)
    play = dataclasses.replace(
        new_play("white", 2, (6, 5), moves, "6-5: 24/18", Span(1, 4, 1, 13)),
        nags=(3,),
        comments=("a",),
        action="unknown",
    )
    for changes in ({}, {"annotation": "!?"}, {"comments": ("a", "b"), "cube": 2}):
        fast = replaced(play, **changes)
        slow = dataclasses.replace(play, **changes)
        assert type(fast) is WrittenPlay and fast == slow
        for field in dataclasses.fields(WrittenPlay):
            assert getattr(fast, field.name) == getattr(slow, field.name), field.name
    with pytest.raises(AttributeError):
        replaced(play, colour="red")
    with pytest.raises(dataclasses.FrozenInstanceError):
        replaced(play).turn = 5  # type: ignore[misc]
