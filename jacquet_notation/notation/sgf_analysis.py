"""gnubg's analysis properties of a node (``A``, ``DA``, ``LU``) as :mod:`..analysis`'s shapes.

What gnubg's ``sgf.c`` writes: ``A[i][move E ver 3 p1 p2 p3 p4 p5 equity plies...]...`` (the
plays it weighed, best first, with ``i`` the one made; a rollout is ``X ver 3 Score equity ...``),
``DA[E ver 3 plies... ]`` with seven outputs for no double and seven for double, take (the last
of each the cubeful equity; double, pass is 1 in gnubg's normalised equity), ``LU[luck]``. A
value this module cannot read is left out (the analysis is the analyser's, never checked).
"""

from __future__ import annotations

from collections.abc import Callable

from ..analysis import Decision, Option
from ..numerals import ascii_int
from ..record import Move, Side

#: the cube's three options as analysis.py spells them
NO_DOUBLE, DOUBLE_TAKE, DOUBLE_PASS = "no double", "double, take", "double, pass"
#: the equity of double, pass in gnubg's normalised equity
PASS_EQUITY = 1.0


def letter_point(letter: str, side: Side) -> int | None:
    """A move letter's point in the mover's own numbering: ``a``..``x`` the 24 points (White's
    1..24, Black's 24..1), ``y`` the bar (25), ``z`` off (0); None for any other character."""
    code = ord(letter) - 97
    if 0 <= code < 24:
        return code + 1 if side == "white" else 24 - code
    return {24: 25, 25: 0}.get(code)


def moves_of(letters: str, side: Side) -> tuple[Move, ...] | None:
    """The pairs of letters of a play as moves, one a die as gnubg writes them (None: not a
    play: an odd count or a letter out of range)."""
    if len(letters) % 2:
        return None
    moves = []
    for at in range(0, len(letters), 2):
        start, end = letter_point(letters[at], side), letter_point(letters[at + 1], side)
        if start is None or end is None:
            return None
        moves.append(Move(start, end))
    return tuple(moves)


def _floats(words: list[str]) -> list[float]:
    numbers = []
    for word in words:
        try:
            numbers.append(float(word))
        except ValueError:
            break
    return numbers


def _after_version(words: list[str]) -> list[str]:
    """The words after ``ver N`` (gnubg's SGF analysis version), or all of them."""
    if len(words) >= 2 and words[0] == "ver":
        return words[2:]
    return words


def move_decision(
    values: list[str], side: Side, text: Callable[[tuple[Move, ...]], str]
) -> tuple[Decision, str] | None:
    """``A``'s values as a move decision, and the evaluation's settings (``2-ply cubeful``)."""
    if len(values) < 2:
        return None
    chosen = ascii_int(values[0])
    if chosen is None:
        return None
    options: list[Option] = []
    settings = ""
    for value in values[1:]:
        letters, _, rest = value.partition(" ")
        moves = moves_of(letters, side)
        words = rest.split()
        if moves is None or not words:
            return None
        kind, words = words[0], _after_version(words[1:])
        if kind == "E":
            numbers = _floats(words)
            if len(numbers) < 6:
                return None
            equity = numbers[5]
            if not settings and len(words) > 6:
                settings = _plies(words[6])
        elif kind in ("X", "R") and "Score" in words:
            numbers = _floats(words[words.index("Score") + 1 :])
            if not numbers:
                return None
            equity = numbers[0]
            settings = settings or "rollout"
        else:
            return None
        options.append(Option(text(moves), equity))
    if chosen is not None and not 0 <= chosen < len(options):
        chosen = None
    best = max(option.equity for option in options)
    loss = best - options[chosen].equity if chosen is not None else 0.0
    return Decision("move", tuple(options), chosen, max(loss, 0.0)), settings


def _plies(word: str) -> str:
    """``2C`` as ``2-ply cubeful`` (``0`` as ``0-ply``)."""
    cubeful = word.endswith("C")
    plies = word.removesuffix("C")
    return f"{plies}-ply" + (" cubeful" if cubeful else "") if ascii_int(plies) is not None else ""


def cube_equities(value: str) -> tuple[float, float] | None:
    """``DA``'s cubeful equities for no double and double, take (None: not readable)."""
    kind, _, rest = value.partition(" ")
    words = _after_version(rest.split())
    if kind == "E":
        numbers = _floats(words[1:]) if words else []  # the plies word first (``2C``)
        # deterministic flag, noise, prune, then 7 + 7 outputs
        outputs = numbers[3:] if len(numbers) >= 17 else []
        if len(outputs) < 14:
            return None
        return outputs[6], outputs[13]
    if kind in ("X", "R"):
        found = []
        for keyword in ("NoDouble", "DoubleTake"):
            if keyword not in words:
                return None
            after = words[words.index(keyword) + 1 :]
            if after[:1] == ["Output"]:
                after = after[1:]
            numbers = _floats(after)
            if len(numbers) < 7:
                return None
            found.append(numbers[6])
        return found[0], found[1]
    return None


def cube_decision(value: str, chosen: int) -> Decision | None:
    """A cube decision from ``DA``'s value, ``chosen`` the option the ply took (0 no double,
    1 double and take, 2 double and pass); the loss is the doubler's for 0 and for a double,
    the taker's (who gains what the doubler loses) for a take or a drop."""
    equities = cube_equities(value)
    if equities is None:
        return None
    no_double, double_take = equities
    options = (
        Option(NO_DOUBLE, no_double),
        Option(DOUBLE_TAKE, double_take),
        Option(DOUBLE_PASS, PASS_EQUITY),
    )
    doubled = min(double_take, PASS_EQUITY)  # the taker answers as is best for him
    if chosen == 0:
        loss = max(no_double, doubled) - no_double
    elif chosen == -1:  # the double itself: what the answer makes of it
        loss = max(no_double, doubled) - doubled
        chosen = 1 if double_take <= PASS_EQUITY else 2
    else:  # the answer, in the taker's equity (the negative of the doubler's)
        loss = options[chosen].equity - doubled
    return Decision("cube", options, chosen, max(loss, 0.0))
