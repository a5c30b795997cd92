"""The words of a play (turn numbers, dice, passes, steps), read fast.

The reader's inner loop reads most words by a dictionary look-up; what it cannot, it reads here.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Any, cast

from ..numerals import ascii_int
from ..record import BAR, OFF, Move, Side, Span, WrittenPlay, point_name
from .grammar import terminal


@dataclass(frozen=True, slots=True)
class WordPatterns:
    """The words of a play as regular expressions, built from the grammar's terminals."""

    #: a turn number, matched where it begins however it ends (resynchronising finds them so)
    turn_number: re.Pattern[str]
    #: a whole step word (``\Z`` after it)
    step: re.Pattern[str]
    #: the pieces of a TURN or PLAY token, one named group a kind; the grammar has already
    #: checked their shape, and anything else is a step with something wrong in it
    piece: re.Pattern[str]


@functools.cache
def word_patterns() -> WordPatterns:
    """The patterns of :class:`WordPatterns`, built on first use (the grammar with them)."""
    return WordPatterns(
        re.compile(terminal("_TURN_NUMBER")),
        re.compile(terminal("_STEP") + r"\Z"),
        re.compile(
            f"(?P<turn>{terminal('_TURN_NUMBER')})"
            f"|(?P<dice>{terminal('_DICE')})"
            f"|(?P<pass>{terminal('_PASS')})"
            f"|(?P<share>{terminal('_SHARE')})"
            f"|(?P<cube>{terminal('_CUBE')})"
            f"|(?P<unknown>{terminal('_UNKNOWN')})"
            r"|(?P<step>\S+)"
        ),
    )


_SPACES = re.compile(r"[ \t]")

#: the dice words met so far that were well formed and in range, by their word ("6-5:"), so that
#: the reader's inner loop reads the common ones by one look-up; filled by :func:`remember_dice`
DICE_WORDS: dict[str, tuple[int, int]] = {}
#: the words bar and off, as the record spells them
_NAMED_POINTS = {point_name(BAR): BAR, point_name(OFF): OFF}
# Longer numbers are out of every range; int() of 5,000 digits would even raise.
_MAX_DIGITS = 9
_TOO_BIG: int = 10**_MAX_DIGITS
new_tuple = tuple.__new__  # builds a NamedTuple without its Python-level __new__


def spaced_turn_number(text: str) -> bool:
    """Whether a token holds Black's turn number written apart ("12. ..."): two words, one piece.

    Its marks follow a space or a tab, so a token without " ..." or "\t..." holds none: the
    common case (a game opening with "1..." holds "..."), answered without reading every turn
    number of the token (2% of validating such a corpus)."""
    if " ..." not in text and "\t..." not in text:
        return False
    return any(_SPACES.search(m.group()) for m in word_patterns().turn_number.finditer(text))


def turn_number_digits(piece: str) -> tuple[str, bool]:
    """The digits of a turn number as written ("12.", "12...", "12. ..."), and whether Black's."""
    digits, _, marks = piece.partition(".")
    return digits, bool(marks)


def dice_numbers(piece: str) -> tuple[str, str]:
    """The two numbers of dice as written ("6-5:", "65:", "6-5 :"), as digits."""
    roll = piece.rstrip(": \t")
    if "-" in roll:
        first, _, second = roll.partition("-")
        return first, second
    return roll[0], roll[1:]


def remember_dice(word: str, dice: tuple[int, int]) -> None:
    """Note dice read from a whole word, for the inner loop's look-up (bounded, like steps)."""
    if len(DICE_WORDS) < 10_000:
        DICE_WORDS[word] = dice


def read_number(digits: str) -> int:
    """The value of ASCII digits; anything else is out of every range (never an exception)."""
    number = ascii_int(digits, most_digits=_MAX_DIGITS)
    return _TOO_BIG if number is None else number


def read_point(text: str) -> int:
    """A point as written: a number, bar or off; anything else is out of range (never raises)."""
    named = _NAMED_POINTS.get(text.lower())
    if named is not None:
        return named
    return read_number(text)


#: the moves of the step words met so far, as (start, end, count, hit, first, last character)
STEP_SHAPES: dict[str, tuple[tuple[int, int, int, bool, int, int], ...]] = {}


def step_shape(word: str) -> tuple[tuple[int, int, int, bool, int, int], ...]:
    """The moves of a well-formed step word (empty if it is not one), remembered.

    A corpus uses few distinct step words (``24/18``, ``13/9(2)``, ``24/18/13``...), so each is
    split once; a word with anything wrong is left to :meth:`GameReader.step`, which reports it.
    """
    shape = _read_step(word)
    if len(STEP_SHAPES) < 10_000:  # bounded, whatever the input
        STEP_SHAPES[word] = shape
    return shape


def _read_step(word: str) -> tuple[tuple[int, int, int, bool, int, int], ...]:
    if word_patterns().step.match(word) is None:
        return ()
    count = 1
    body = word
    paren = word.find("(")
    if paren >= 0:
        count = read_number(word[paren + 1 : word.index(")", paren)])
        body = word[:paren]
    parts = body.split("/")
    if not 1 <= count <= 15 or parts[0].endswith("*"):
        return ()
    points = []
    offsets = []
    at = 0
    for part in parts:
        point = read_point(part.rstrip("*"))
        if point > BAR:
            return ()
        points.append((point, part.endswith("*")))
        offsets.append((at, at + len(part) - 1))
        at += len(part) + 1
    if paren >= 0 and word.endswith("*"):
        points[-1] = (points[-1][0], True)
    moves = []
    for k in range(len(parts) - 1):
        last = len(word) - 1 if k == len(parts) - 2 else offsets[k + 1][1]
        moves.append((points[k][0], points[k + 1][0], count, points[k + 1][1], offsets[k][0], last))
    return tuple(moves)


# WrittenPlay is a frozen dataclass, whose __init__ sets its fields through
# object.__setattr__; the reader builds one per play. So it builds a plain twin instead (a class
# of the same slots, in the same order, whose attributes are set as fast as any), then gives it
# WrittenPlay's class: CPython allows that between classes of the same layout, and the object
# is then a WrittenPlay in every way, frozen included; twice as fast as setting the slots
# through their descriptors (tests/notation/test_record.py checks the two are equal).


class OpenPlay:
    """A WrittenPlay under construction: WrittenPlay's slots, writable (the reader's inner loop
    builds its common play so, inline, as :func:`new_play` does)."""

    __slots__ = WrittenPlay.__slots__

    def __init__(
        self,
        side: Side,
        turn: int,
        dice: tuple[int, int] | None,
        moves: tuple[Move, ...],
        text: str,
        span: Span,
        opponent_moves: tuple[Move, ...],
    ) -> None:
        self.side = side
        self.turn = turn
        self.dice = dice
        self.moves = moves
        self.annotation = None
        self.nags = ()
        self.comments = ()
        self.comments_before = ()
        self.variations = ()
        self.opponent_moves = opponent_moves
        self.text = text
        self.span = span
        self.action = None
        self.cube = None
        self.analysis = None


def new_play(
    side: Side,
    turn: int,
    dice: tuple[int, int] | None,
    moves: tuple[Move, ...],
    text: str,
    span: Span,
    opponent_moves: tuple[Move, ...] = (),
) -> WrittenPlay:
    """``WrittenPlay(side, turn, dice, moves, text=..., span=..., opponent_moves=...)``, faster."""
    play: Any = OpenPlay(side, turn, dice, moves, text, span, opponent_moves)
    play.__class__ = WrittenPlay
    return cast(WrittenPlay, play)


def replaced(play: WrittenPlay, **changes: Any) -> WrittenPlay:
    """``dataclasses.replace(play, **changes)``, faster: the reader adds an annotation, a glyph
    or a comment to the play before it by rebuilding it, and ``replace`` goes through
    ``__init__`` and every field's definition (a name not of WrittenPlay raises AttributeError)."""
    twin: Any = OpenPlay(
        play.side, play.turn, play.dice, play.moves, play.text, play.span, play.opponent_moves
    )
    twin.annotation = play.annotation
    twin.nags = play.nags
    twin.comments = play.comments
    twin.comments_before = play.comments_before
    twin.variations = play.variations
    twin.action = play.action
    twin.cube = play.cube
    twin.analysis = play.analysis
    for name, value in changes.items():
        setattr(twin, name, value)
    twin.__class__ = WrittenPlay
    return cast(WrittenPlay, twin)
