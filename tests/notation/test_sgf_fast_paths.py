"""The SGF reader's fast paths read what its careful token loop reads: the root node read a
value at a time, and a tree of plain move nodes, node for node and place for place."""

from __future__ import annotations

import pytest

from jacquet_notation.errors import NotationError
from jacquet_notation.notation import parse_games
from jacquet_notation.notation.sgf_syntax import Node, TreeReader

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
