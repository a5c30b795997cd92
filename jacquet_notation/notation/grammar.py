"""The grammar of records and what is read with it: the LALR parser, its lexer, the slips.

Every other module of the reader gets the grammar from here, so that it is read once.
"""

from __future__ import annotations

import functools
import json
import re
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from importlib import resources
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any, ClassVar

from lark import Lark, Token, Transformer
from lark.common import LexerConf
from lark.exceptions import UnexpectedCharacters, UnexpectedInput
from lark.lexer import Lexer

GRAMMAR = "jacquet.lark"
SLIPS = "syntax_errors.json"


def grammar_file(name: str = GRAMMAR) -> Traversable:
    """A file of the grammar folder: inside the installed package, else in the source tree.

    The wheel carries ``grammar/`` as ``jacquet_notation/grammar``; an editable install or a
    checkout imports the package from the source tree, where the folder sits beside it.
    """
    packaged = resources.files("jacquet_notation").joinpath("grammar", name)
    if packaged.is_file():
        return packaged
    return Path(__file__).resolve().parents[2] / "grammar" / name


class _Shape(Transformer[Token, Any]):
    """Called by the LALR parser as it reduces, so that no parse tree is ever built."""

    def start(self, children: list[Any]) -> list[Any]:
        return children

    def variation(self, children: list[Any]) -> Variation:
        # The depth is counted here, as the parser reduces, so that a game nested too deep can
        # be refused before anything walks its variations.
        depth = 1
        for child in children:
            if isinstance(child, Variation) and child.depth >= depth:
                depth = child.depth + 1
        return Variation(children[0], children[1:-1], children[-1], depth)


@dataclass(slots=True)
class Variation:
    opening: Token
    items: list[Any]
    closing: Token
    #: 1 for a variation holding none, else one more than the deepest variation it holds
    depth: int


#: the transformer the parser calls (and :func:`_nest`, which reads what Lark would have)
_SHAPE = _Shape()


class FirstCharacterLexer(Lexer):
    """Lark's lexer for this grammar, choosing the terminal to try by the token's first character.

    Lark's own lexers match one alternation of every terminal at each token; with terminals as
    large as ours (a TURN token holds a run of turns), that alternation is most of the lexing time.
    The first character of a token tells which terminals can start there (a digit: a turn, a
    play or a result; "[": a tag...), so this lexer tries only those, in the order Lark would,
    with the grammar's own regular expressions. Tokens carry their line and column as Lark's do.
    """

    #: the terminals that can start with a character; every other character may start a play
    #: ("bar/22", "pass", "--"); the grammar's terminals are all named here (a test checks)
    FIRST: ClassVar[dict[str, tuple[str, ...]]] = {
        "[": ("TAG",),
        "{": ("COMMENT",),
        ";": ("COMMENT",),
        "!": ("ANNOTATION",),
        "?": ("PLAY", "ANNOTATION"),  # "?-?: 24/18" (a roll not given) begins a play
        "$": ("NAG",),
        "(": ("LPAR",),
        ")": ("RPAR",),
        "*": ("RESULT",),
        **{digit: ("TURN", "PLAY", "RESULT") for digit in "0123456789"},
    }
    OTHERS: ClassVar[tuple[str, ...]] = ("PLAY",)

    def __init__(self, conf: LexerConf) -> None:
        flags = conf.g_regex_flags
        self.conf = conf
        patterns = {
            terminal.name: re.compile(
                _regexp(terminal.name, terminal.pattern.to_regexp()), flags
            ).match
            for terminal in conf.terminals
            if terminal.name not in conf.ignore
        }
        self.first = {c: [(n, patterns[n]) for n in names] for c, names in self.FIRST.items()}
        self.others = [(name, patterns[name]) for name in self.OTHERS]
        self.space = re.compile(r"\s+").match

    def lex(self, data: str) -> Iterator[Token]:  # type: ignore[override]
        """The tokens of ``data``: Lark's documented custom lexer is called with the text alone."""
        text = data
        position = 0
        end = len(text)
        line = column = 1
        first, others, space = self.first, self.others, self.space
        while position < end:
            name = ""
            found = None
            for name, match in first.get(text[position], others):  # noqa: B007 (used below)
                found = match(text, position)
                if found is not None:
                    break
            if found is None:
                found = space(text, position)
                if found is None:
                    raise UnexpectedCharacters(  # type: ignore[no-untyped-call]
                        text,
                        position,
                        line,
                        column,
                        terminals_by_name=self.conf.terminals_by_name,
                    )
                name = ""
            value = found.group()
            if name:
                yield Token(name, value, position, line, column)
            newlines = value.count("\n")
            if newlines:
                line += newlines
                column = len(value) - value.rfind("\n")
            else:
                column += len(value)
            position = found.end()


#: the terminals that run to any length (a tag section, a run of turns): sre keeps a backtracking
#: state for every repetition of a group, about 170 bytes per turn or tag character, unless the
#: repetition is possessive or atomic
RUNS = ("TAG", "TURN", "PLAY")

#: whether this Python's possessive repetitions are right. Before 3.11.5 (gh-106052) ``X++``
#: fails where ``X`` itself backtracks: Debian 12's 3.11.2 stops ``1. 6-1: 13/7 + 24/23`` at
#: the ``+``. There the same repetitions are written as atomic groups, ``(?>X+)``, which those
#: Pythons match right: a few bytes per character instead of none, still linear.
POSSESSIVE_IS_SAFE = sys.version_info >= (3, 11, 5)


def _regexp(name: str, pattern: str, possessive_ok: bool = POSSESSIVE_IS_SAFE) -> str:
    """The regular expression the lexer uses for a terminal: in RUNS, :func:`possessive`.

    ``(X)+`` matches what ``possessive`` makes of it because in these terminals what follows a
    repetition is optional or cannot begin where the repetition stopped, so a match never needs
    to give a repetition back (a test compares all three forms on the corpus).
    """
    return possessive(pattern, possessive_ok) if name in RUNS else pattern


def possessive(pattern: str, possessive_ok: bool = POSSESSIVE_IS_SAFE) -> str:
    """``pattern`` with each repeated group made never to give back: ``(X)+`` becomes ``(X)++``
    (or ``(?>(X)+)`` where ``possessive_ok`` is false), which keeps no backtracking state per
    repetition, so memory stays flat however long the match. Only for a pattern that never needs
    a repetition given back (the caller knows its grammar)."""
    out: list[str] = []
    opened: list[int] = []  # where in ``out`` each open group begins
    at = 0
    in_class = False
    while at < len(pattern):
        char = pattern[at]
        at += 1
        if char == "\\":
            out.append(char + pattern[at])
            at += 1
            continue
        out.append(char)
        if in_class:
            in_class = char != "]"
        elif char == "[":
            in_class = True
        elif char == "(":
            opened.append(len(out) - 1)
        elif char == ")":
            begins = opened.pop()
            quantifier = pattern[at : at + 1]
            if quantifier in ("+", "*", "?") and pattern[at + 1 : at + 2] not in ("+", "?"):
                at += 1  # not already lazy or possessive: made so here
                if possessive_ok:
                    out.append(quantifier + "+")
                else:
                    out.insert(begins, "(?>")
                    out.append(quantifier + ")")
    return "".join(out)


#: the grammar's two start rules: a record, and the words of a play (which no record reaches: a
#: start of its own, so that Lark keeps their terminals for :func:`terminal`)
STARTS = ["start", "words"]


@functools.cache
def parser() -> Lark:
    """The one LALR parser, built on first use (about 30 ms) and kept for the process."""
    text = grammar_file().read_text(encoding="utf-8")
    return Lark(text, parser="lalr", lexer=FirstCharacterLexer, transformer=_SHAPE, start=STARTS)


def parse(text: str) -> Any:
    """The items of one record's text (the transformer's list), or Lark's ``UnexpectedInput``.

    Read by :func:`_remembered` where it can: the same tokens, the same decision as Lark's,
    without Lark's parser; a game with an error by :func:`lark_parse`, which raises it.
    """
    try:
        tokens = list(_lexer().lex(text))
    except UnexpectedCharacters:
        return lark_parse(text)  # said by Lark, with the parser's state
    items = _remembered(tokens)
    return lark_parse(text) if items is None else items


def lark_parse(text: str) -> Any:
    """:func:`parse` through Lark's parser, always: its errors are the reader's.

    The one seam with Lark's internals: a character the lexer cannot read raises
    ``UnexpectedCharacters`` before the parser knows of it, so Lark's documented
    ``interactive_parser`` (which it attaches to every error raised while parsing) gives the
    parser's state and the terminals its ``choices()`` allow: the "expected ..." message and
    ``match_examples`` need both (tests/test_notation.py fails if Lark changes this).
    """
    try:
        return parser().parse(text, start="start")
    except UnexpectedCharacters as error:
        at = error.interactive_parser
        error.state = at.parser_state
        error.allowed = set(at.choices())  # type: ignore[no-untyped-call]
        raise


@functools.cache
def _lexer() -> FirstCharacterLexer:
    """The parser's own lexer, to lex a text before choosing how to parse it."""
    return FirstCharacterLexer(parser().lexer_conf)


class _Decisions:
    """Lark's LALR decisions on the games it has read, remembered for the games that follow.

    An LALR parser decides by the types of the tokens alone, and a record's start rule keeps
    its stack of states short, so the parser is a finite machine over those stacks: each stack
    met is numbered, and a token's type from a stack leads to one next stack, or to an error.
    A game whose every step is one Lark has taken before, ending on a stack Lark accepted the
    end of the text from, is accepted without Lark's parser (its items are then its tokens, in
    order, each variation nested by :func:`_nest`); a step not met yet goes to Lark's parser,
    token by token, and is remembered if the game is accepted; an error goes to Lark
    (:func:`lark_parse`), whose errors and messages are thus the same. The steps are few (some
    thirty for the corpus, the stacks a dozen: more with deeper variations), bounded whatever
    the input.
    """

    #: the most stacks and steps remembered, and the deepest stack (a variation's nesting makes
    #: it deeper): so that the table, and the cost of a game's learning, stay bounded
    MOST: ClassVar[int] = 20_000
    DEEPEST: ClassVar[int] = 64

    def __init__(self) -> None:
        self.stacks: dict[tuple[int, ...], int] = {}
        self.steps: dict[tuple[int, str], int] = {}
        self.accepting: set[int] = set()
        interactive = parser().parse_interactive("", start="start")
        self.first = self.number(interactive.parser_state.state_stack)

    def number(self, stack: list[int]) -> int:
        return self.stacks.setdefault(tuple(stack), len(self.stacks))

    def learn(self, tokens: list[Token]) -> Any:
        """Lark's items of a game's tokens, each step it takes remembered; None on an error
        (for :func:`lark_parse` to raise) or beyond the bounds (for it to read)."""
        interactive = parser().parse_interactive("", start="start")
        state = interactive.parser_state
        stack = self.first
        learned = []
        try:
            for token in tokens:
                interactive.feed_token(token)
                if len(state.state_stack) > self.DEEPEST or len(self.stacks) >= self.MOST:
                    return None  # not remembered (variations nested deep): Lark reads it all
                following = self.number(state.state_stack)
                learned.append(((stack, token.type), following))
                stack = following
            items = interactive.feed_eof(tokens[-1] if tokens else None)  # type: ignore[no-untyped-call]
        except UnexpectedInput:
            return None
        if len(self.steps) < self.MOST and len(self.stacks) < self.MOST:
            self.steps.update(learned)
            self.accepting.add(stack)
        return items


@functools.cache
def _decisions() -> _Decisions:
    return _Decisions()


def _remembered(tokens: list[Token]) -> list[Any] | None:
    """The items of a game's tokens by Lark's remembered decisions, else learned from Lark; None
    on an error or beyond the table's bounds (the caller asks Lark)."""
    decisions = _decisions()
    steps = decisions.steps
    stack = decisions.first
    nested = False
    for token in tokens:
        kind = token.type
        nested = nested or kind == "LPAR"
        stack = steps.get((stack, kind), -1)
        if stack < 0:
            break
    else:
        if stack in decisions.accepting:
            return _nest(tokens) if nested else tokens
    items: list[Any] | None = decisions.learn(tokens)
    return items


def _nest(tokens: list[Token]) -> list[Any]:
    """The items of an accepted game with variations: its tokens, each parenthesis and what it
    holds made a :class:`Variation` by the transformer's own ``variation``, as Lark does as it
    reduces the rule (the grammar's only rule that nests)."""
    shape = _SHAPE
    levels: list[list[Any]] = [[]]
    for token in tokens:
        kind = token.type
        if kind == "LPAR":
            levels.append([token])
        elif kind == "RPAR":
            held = levels.pop()
            held.append(token)
            levels[-1].append(shape.variation(held))
        else:
            levels[-1].append(token)
    return levels[0]


def terminal(name: str) -> str:
    """The regular expression of a terminal of the grammar (``_STEP``, ``_DICE``, ``RESULT``...).

    The reader builds every regular expression for the words of a play from these, so that the
    grammar is the one place their syntax is written.
    """
    return parser().get_terminal(name).pattern.to_regexp()


#: a terminal named in a slip's ``found``, as ``{_STEP}``
_NAMED_TERMINAL = re.compile(r"\{(_?[A-Z][A-Z_]*)\}")


@dataclass(frozen=True, slots=True)
class Slip:
    """A common mistake with a friendly message, from ``grammar/syntax_errors.json``."""

    name: str
    expected: str
    match: str  # "found", "state" or "reader"
    found: re.Pattern[str] | None
    examples: tuple[str, ...]


@functools.cache
def slips() -> dict[str, Slip]:
    """The friendly messages, by name, in the order they are tried."""
    data = json.loads(grammar_file(SLIPS).read_text(encoding="utf-8"))
    table: dict[str, Slip] = {}
    for entry in data["slips"]:
        found = entry.get("found")
        table[entry["name"]] = Slip(
            entry["name"],
            entry["expected"],
            entry["match"],
            re.compile(_NAMED_TERMINAL.sub(_group, found)) if found else None,
            tuple(entry["examples"]),
        )
    return table


def _group(named: re.Match[str]) -> str:
    return f"(?:{terminal(named.group(1))})"
