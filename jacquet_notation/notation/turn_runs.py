"""The common run of turns read a play at a time: the reader's fast path, exact or declined.

Most TURN and PLAY tokens are nothing but turn numbers and plays of dice and steps
(``1. 6-5: 24/18 18/13 5-3: 24/21 24/19\\n2. 4-4: 13/9(2) ...``). :func:`read_run` reads such a
token by one regular expression that cuts it into items (a turn number, a play, the spaces
after each) and one look-up per play of what its text holds (:data:`PLAY_SHAPES`: the dice and
each move with its place in the play), where the word loop of :meth:`.reader.GameReader.plays`
reads it word by word. Nothing here decides the syntax: the token is one the grammar's lexer
made, its dice are those the word loop has read and remembered (``DICE_WORDS``) and its steps are
read by :func:`.words.step_shape`, from the grammar's ``_STEP``. Anything else (a word not known
so, a turn number not the one expected, a pass, a share, a play across lines, unusual spaces)
declines the whole token, which the word loop then reads as before; the records are the same,
spans and errors included (``tests/notation/test_turn_runs.py`` reads the corpus and hypothesis
records both ways).
"""

from __future__ import annotations

import functools
import re
from typing import Any

from ..record import Move, Side, Span, WrittenPlay
from .grammar import terminal
from .words import DICE_WORDS, STEP_SHAPES, OpenPlay, new_tuple, step_shape

#: one item of a run: a turn number and its spaces (optional), a play (dice, then steps, each
#: with a "/", or one other word: a pass), and the spaces after it. Only a cut into words (each
#: word whole: what follows it cannot continue it): each is read by the reader's own tables
#: below, and a word of any other shape leaves a gap in the cut, which declines the token.
_ITEM = re.compile(
    r"(?:([0-9]+\.(?:\.\.)?)([ \t\n]+))?"
    r"([0-9]-?[0-9]:(?:(?: +[^\s/:]*/[^\s:]*)+| +[^\s/:]+))([ \t\n]*)"
)
_WORD = re.compile(r"\S+")


@functools.cache
def _pass_word() -> re.Pattern[str]:
    """The steps of a pass with its dice (" pass", " --"): the grammar's word, alone."""
    return re.compile(rf" +(?:{terminal('_PASS_WORD')})\Z")


#: a play's text (``6-5: 24/18 18/13``) -> its dice and its moves as (start, end, count, hit,
#: first and last character in the text); None for a text the fast path declines
Shape = tuple[tuple[int, int], tuple[tuple[int, int, int, bool, int, int], ...]]
PLAY_SHAPES: dict[str, Shape | None] = {}
_MOST_SHAPES = 20_000  # bounded, whatever the input
#: set False to read every token word by word (the tests compare the two)
ENABLED = True


def play_shape(written: str) -> Shape | None:
    """What the play ``written`` holds, remembered; None if a word of it is not the
    well-formed dice, step or pass the word loop would read at once (then it reads the token)."""
    colon = written.index(":") + 1
    dice = DICE_WORDS.get(written[:colon])
    if dice is None:
        return None  # not met yet, or not dice in range: the word loop reads (and notes) them
    if _pass_word().match(written, colon) is not None:
        shape: Shape = (dice, ())  # "6-6: pass": the dice, no moves
    else:
        moves = []
        for word in _WORD.finditer(written, colon):
            found = STEP_SHAPES.get(word.group())
            if found is None:
                found = step_shape(word.group())
            if not found:
                return None
            at = word.start()
            moves += [(a, b, n, hit, at + first, at + last) for a, b, n, hit, first, last in found]
        shape = (dice, tuple(moves))
    if len(PLAY_SHAPES) < _MOST_SHAPES:
        PLAY_SHAPES[written] = shape
    return shape


def read_run(
    text: str,
    line: int,
    column: int,
    side: Side,
    turn: int,
    plays: list[WrittenPlay],
    pending: bool,
) -> tuple[Side, int] | None:
    """The plays of a token's ``text`` added to ``plays``, the token beginning at ``line`` and
    ``column``, ``side`` of ``turn`` to play first; who plays next then. None (and ``plays``
    untouched) if the token is not a plain run of expected turn numbers and plays; ``pending``:
    a turn number before the token is still without its play (then the token must begin with
    a play, which the number is then the number of)."""
    items = _ITEM.findall(text)
    if not items or (pending and items[0][0]):
        return None  # (a number left alone: the word loop reports it)
    built: list[Any] = []
    used = 0  # characters of the text in items: all of them, or a word of another shape
    tuple_of, shapes = new_tuple, PLAY_SHAPES
    for number, spaces, written, after in items:
        if number:
            # the one the word loop reads at once; any other is its to check
            if not ((side == "white" and number == f"{turn}.") or number == f"{turn}..."):
                return None
            if number[-2] == ".":
                side = "black"
            used += len(number) + len(spaces)
            if "\n" in spaces:
                line += spaces.count("\n")
                column = len(spaces) - spaces.rfind("\n")
            else:
                column += len(number) + len(spaces)
        shape = shapes.get(written)
        if shape is None:
            shape = play_shape(written)
            if shape is None:
                return None
        moves = [
            tuple_of(
                Move, (a, b, n, hit, tuple_of(Span, (line, column + first, line, column + last)))
            )
            for a, b, n, hit, first, last in shape[1]
        ]
        last = column + len(written) - 1
        span = tuple_of(Span, (line, column, line, last))
        play: Any = OpenPlay(side, turn, shape[0], tuple(moves), written, span, ())
        play.__class__ = WrittenPlay
        built.append(play)
        if side == "black":
            side, turn = "white", turn + 1
        else:
            side = "black"
        used += len(written) + len(after)
        if after == " ":
            column = last + 2
        elif "\n" in after:
            line += after.count("\n")
            column = len(after) - after.rfind("\n")
        else:
            column = last + 1 + len(after)
    if used != len(text):
        return None
    plays += built
    return side, turn
