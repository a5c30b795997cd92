"""The words of a play (turn numbers, dice, passes, steps), read fast.

The reader's inner loop reads most words by a dictionary look-up; what it cannot, it reads here.
"""

from __future__ import annotations

import re
from typing import Any

from ..record import BAR, OFF, Move, Side, Span, WrittenPlay

# Pieces of a TURN or PLAY token; the grammar has already checked their shape.
_PIECE = re.compile(
    r"(?P<turn>([0-9]+)\.(\.\.|[ \t]*\.\.\.)?)"
    r"|(?P<dice>(?:([0-9]+)-([0-9]+)|([0-9])([0-9]))[ \t]*:)"
    r"|(?P<pass>(?i:pass)\b|--)"
    r"|(?P<step>\S+)"
)

#: the dice as usually written, read without a regular expression's groups
_DICE = {
    f"{a}{sep}{b}:": (max(a, b), min(a, b))
    for a in range(1, 7)
    for b in range(1, 7)
    for sep in ("-", "")
}
#: the points as usually written
_POINTS = {str(point): point for point in range(BAR + 1)} | {"bar": BAR, "off": OFF}
# Longer numbers are out of every range; int() of 5,000 digits would even raise.
_MAX_DIGITS = 9
_TOO_BIG: int = 10**_MAX_DIGITS
_new_tuple = tuple.__new__  # builds a NamedTuple without its Python-level __new__
#: Black's turn number written apart ("12. ..."): two words, one piece
_SPACED_MARKS = re.compile(r"\.[ \t]+\.\.\.")


def _number(digits: str) -> int:
    """The value of ASCII digits; anything else is out of every range (never an exception)."""
    if len(digits) <= _MAX_DIGITS and digits.isascii() and digits.isdigit():
        return int(digits)
    return _TOO_BIG


def _point(text: str) -> int:
    """A point as written: a number, bar or off; anything else is out of range (never raises)."""
    lowered = text.lower()
    if lowered == "bar":
        return BAR
    if lowered == "off":
        return OFF
    return _number(text)


#: the moves of the step words met so far, as (start, end, count, hit, first, last character)
_STEP_SHAPES: dict[str, tuple[tuple[int, int, int, bool, int, int], ...]] = {}
_STEP = re.compile(
    r"((?:[0-9]+|(?i:bar|off))\*?(?:/(?:[0-9]+|(?i:bar|off))\*?)++)(?:\(([0-9]+)\)(\*?))?\Z"
)


def _step_shape(word: str) -> tuple[tuple[int, int, int, bool, int, int], ...]:
    """The moves of a well-formed step word (empty if it is not one), remembered.

    A corpus uses few distinct step words (``24/18``, ``13/9(2)``, ``24/18/13``...), so each is
    split once; a word with anything wrong is left to :meth:`_GameReader.step`, which reports it.
    """
    shape = _read_step(word)
    if len(_STEP_SHAPES) < 10_000:  # bounded, whatever the input
        _STEP_SHAPES[word] = shape
    return shape


def _read_step(word: str) -> tuple[tuple[int, int, int, bool, int, int], ...]:
    match = _STEP.match(word)
    if match is None:
        return ()
    count = _number(match.group(2)) if match.group(2) else 1
    parts = match.group(1).split("/")
    if not 1 <= count <= 15 or parts[0].endswith("*"):
        return ()
    points = []
    offsets = []
    at = 0
    for part in parts:
        point = _POINTS.get(part.rstrip("*").lower())
        if point is None:
            return ()
        points.append((point, part.endswith("*")))
        offsets.append((at, at + len(part) - 1))
        at += len(part) + 1
    if match.group(3):
        points[-1] = (points[-1][0], True)
    moves = []
    for k in range(len(parts) - 1):
        last = len(word) - 1 if k == len(parts) - 2 else offsets[k + 1][1]
        moves.append((points[k][0], points[k + 1][0], count, points[k + 1][1], offsets[k][0], last))
    return tuple(moves)


# WrittenPlay is a frozen dataclass, whose __init__ sets its eleven fields through
# object.__setattr__; the reader builds one per play, so it sets the slots directly, which
# makes the same object three times faster (tests/test_record.py checks they are equal).
_SET = {name: getattr(WrittenPlay, name).__set__ for name in WrittenPlay.__slots__}
_SETTERS = tuple(_SET.values())  # in the order of the slots


def _new_play(
    side: Side,
    turn: int,
    dice: tuple[int, int] | None,
    moves: tuple[Move, ...],
    text: str,
    span: Span,
    _setters: tuple[Any, ...] = _SETTERS,
) -> WrittenPlay:
    """``WrittenPlay(side, turn, dice, moves, text=text, span=span)``, built faster."""
    play: WrittenPlay = object.__new__(WrittenPlay)
    # The setters as locals (a default argument, bound once), in the order of the slots.
    (
        set_side,
        set_turn,
        set_dice,
        set_moves,
        set_annotation,
        set_nags,
        set_comments,
        set_comments_before,
        set_variations,
        set_text,
        set_span,
    ) = _setters
    set_side(play, side)
    set_turn(play, turn)
    set_dice(play, dice)
    set_moves(play, moves)
    set_annotation(play, None)
    set_nags(play, ())
    set_comments(play, ())
    set_comments_before(play, ())
    set_variations(play, ())
    set_text(play, text)
    set_span(play, span)
    return play
