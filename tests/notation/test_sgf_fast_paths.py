"""The SGF reader's fast paths read what its careful token loop reads: the root node read a
value at a time, and a tree of plain move nodes, node for node and place for place."""

from __future__ import annotations

import pytest

from jacquet_notation.errors import NotationError
from jacquet_notation.notation import parse_games
from jacquet_notation.notation.sgf_moves import play_moves
from jacquet_notation.notation.sgf_syntax import Node, TreeReader, sgf_games
from jacquet_notation.record import GameRecord

ROOTS = [
    "(;FF[4]GM[6]CA[UTF-8]MI[length:7][game:0][ws:0][bs:0]PW[a]PB[b]RU[Crawford];W[31hefe])",
    "(;FF[4]\nGM[6]\n  MI[length:3]\n [game:0] [ws:0]\nPW[a];W[31hefe])",
    "( ; FF [4] GM [6] ; W [31hefe] )",
    "(;FF[4]GM[6]PW[a\\]b]PB[c\\\\]GC[x\\\ny (z)];W[31hefe])",
    '(;FF[4]GM[6]GC[[Match_ID "3"\\]\n[Event "x"\\]];W[31hefe])',
    "(;GM[6](;W[31hefe])(;W[42hefe]))",
    "(;)",
]


def _places(node: Node) -> list[tuple[str, list[str], int]]:
    return [(p.name, p.values, p.offset) for p in node.properties]


@pytest.mark.unit
@pytest.mark.parametrize("text", ROOTS)
def test_the_root_read_fast_is_the_root_the_token_loop_reads(text: str) -> None:
    fast = TreeReader(text, 1, None, 1).main_line(root_only=True)[0]
    careful = TreeReader(text, 1, None, 1).main_line()[0]
    assert _places(fast) == _places(careful)
    assert fast.properties or text == "(;)"


def _root(text: str, root_only: bool) -> object:
    """The root's places as one reading gives them, or its error."""
    try:
        return _places(TreeReader(text, 1, None, 1).main_line(root_only)[0])
    except NotationError as error:
        return (error.line, error.column, str(error))


@pytest.mark.unit
@pytest.mark.parametrize(
    "text",
    ["(;FF[4]GM[6", "(;FF[4]GM;W[31hefe])", "(;[4]GM[6];W[31hefe])", "(;FF[4]gm[6];W[31hefe])"],
)
def test_a_root_not_well_formed_is_left_to_the_token_loop(text: str) -> None:
    assert _root(text, True) == _root(text, False)


@pytest.mark.unit
def test_a_root_property_refused_is_placed_at_its_name_across_a_line_break() -> None:
    (record,) = parse_games("(;FF[4]GM[6]\n  RU[Nackgammon]\n;W[31hefe])\n", "x.sgf")
    (error,) = record.errors
    assert (error.line, error.column) == (2, 3)
    assert "RU[Nackgammon]" in str(error)


@pytest.mark.unit
def test_trees_are_cut_where_they_close_whatever_their_values_hold() -> None:
    # a line ending in "]" inside a value opened above, brackets and parentheses in values,
    # an escaped "]" at a line's end: only the trees' own parentheses count
    lines = [
        "(;FF[4]GM[6]C[a comment",
        "[not a value] (nor a tree)]",
        ";W[31hefe]",
        ";B[42abcd]C[)\\]",
        "] still the comment]",
        ")",
        "(;FF[4]GM[6];W[31hefe]C[(]",
        ";B[double])",
    ]
    cut = list(sgf_games(lines))
    assert [(first, len(chunk)) for first, chunk in cut] == [(1, 6), (7, 2)]


@pytest.mark.unit
@pytest.mark.parametrize(
    ("letters", "moves"),
    [
        ("hefe", ((8, 5), (6, 5))),
        ("mgmgecec", ((13, 7, 2), (5, 3, 2))),
        ("mgmgmg", ((13, 7, 3),)),
        ("mggaga", ((13, 7), (7, 1, 2))),
        ("yxzz", ((25, 24), (0, 0))),
        ("abcdefghij", None),
        ("abc", None),
        ("a{", None),
    ],
)
def test_a_play_is_read_a_pair_of_letters_at_a_time(
    letters: str, moves: tuple[tuple[int, ...], ...] | None
) -> None:
    read = play_moves(letters, "white")
    if moves is None:
        assert read is None
        return
    assert read is not None
    assert [(m.start, m.end, m.count) for m in read] == [(*w, 1)[:3] for w in moves]
    # Black's letters count from the other end of the board; the bar and off stay themselves
    black = play_moves(letters, "black")
    assert black is not None
    assert [m.start for m in black] == [
        m.start if m.start in (0, 25) else 25 - m.start for m in read
    ]


@pytest.mark.unit
def test_plain_moves_are_placed_as_the_careful_reading_places_them() -> None:
    plain = "(;FF[4]GM[6]\n;W[31hefe]\n;B[double]\n;W[take]\n  ;B[42abcd] ;W[7]\n;B[11]\n)\n"
    # a comment on the last node: the same moves, read node by node by the careful path
    careful = plain.replace(";B[11]", ";B[11]C[why]")
    (fast,) = parse_games(plain, "x.sgf")
    (slow,) = parse_games(careful, "x.sgf")

    def places(record: GameRecord) -> list[tuple[object, ...]]:
        return [(p.side, p.turn, p.dice, p.action, p.text, p.moves, p.span) for p in record.plays]

    assert places(fast) == places(slow)
    assert [tuple(p.span)[:2] for p in fast.plays] == [(2, 2), (3, 2), (4, 2), (5, 4)]
    errors = [(e.line, e.column, str(e)) for e in fast.errors]
    assert errors == [(e.line, e.column, str(e)) for e in slow.errors]
    assert errors[0][:2] == (5, 15)


@pytest.mark.unit
@pytest.mark.parametrize("text", ["(;)\n", "(;FF[4]CA[UTF-8];W[31hefe])\n"])
def test_a_root_without_gm_is_placed_at_its_semicolon(text: str) -> None:
    (record,) = parse_games(text, "x.sgf")
    (error,) = record.errors
    assert (error.line, error.column) == (1, 2)
    assert "expected GM[6]" in str(error)


@pytest.mark.unit
def test_the_first_games_match_properties_reach_the_games_after_it() -> None:
    first = "(;FF[4]GM[6]EV[Open]DT[2024-05-11]PW[a]PB[b]\n;W[31hefe])\n"
    text = first + "(;FF[4]GM[6]PW[a]PB[b]\n;W[42hdfd])\n(;FF[4]GM[6]EV[Cup]\n;W[42hdfd])\n"
    games = parse_games(text, "x.sgf")
    assert [(g.tags.get("Event"), g.tags.get("Date")) for g in games] == [
        ("Open", "2024.05.11"),
        ("Open", "2024.05.11"),
        ("Cup", "2024.05.11"),
    ]
    # read again with another first game: nothing kept from the file before
    (alone,) = parse_games("(;FF[4]GM[6]PW[a]PB[b]\n;W[42hdfd])\n", "y.sgf")
    assert "Event" not in alone.tags
