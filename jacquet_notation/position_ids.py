"""The backgammon family's exchange IDs for a position: gnubg's Position ID and Match ID, and
eXtreme Gammon's XGID, to and from :class:`~jacquet_notation.position.Position`.

Players paste these into forums and programs; reading and writing them lets a position travel
between jacquet and gnubg or XG. Both describe backgammon's board (the sides moving in opposite
directions), so a Jacquet position (``direction="same"``) has none: :class:`PositionError`.

Sides (docs/notation.md, "Position IDs"): White is gnubg's X (its player 1) and XG's bottom
player, written in upper case; Black is gnubg's O (player 0) and XG's top player, lower case.
Points are each side's own (1..24, 25 the bar), as :meth:`Position.counts` gives them.
"""

from __future__ import annotations

import base64
import binascii
import re
from dataclasses import dataclass

from .board_terms import BAR, OFF, Side
from .errors import PositionError
from .numerals import ascii_int
from .position import LOCATIONS, MEN, Position, other

GNUBG_ID_CHARS = 14
MATCH_ID_CHARS = 12
XGID_PREFIX = "XGID="
#: a gnubg Position ID, alone or followed by ``:`` and a Match ID
GNUBG_ID_PATTERN = re.compile(r"[A-Za-z0-9+/]{14}(?::[A-Za-z0-9+/]{12})?")
#: gnubg's player numbers: O (player 0) is Black, X (player 1) White
_PLAYER: dict[Side, int] = {"black": 0, "white": 1}
_SIDE_OF: tuple[Side, Side] = ("black", "white")
#: XG's sign of a side (turn, cube owner): the bottom player (White) 1, the top player -1
_XG_SIGN: dict[Side, int] = {"white": 1, "black": -1}
#: the Match ID's fields, least significant bit first: (name, width)
_MATCH_FIELDS = (
    ("cube", 4),
    ("owner", 2),
    ("mover", 1),
    ("crawford", 1),
    ("state", 3),
    ("decider", 1),
    ("doubled", 1),
    ("resigned", 2),
    ("die1", 3),
    ("die2", 3),
    ("length", 15),
    ("score0", 15),
    ("score1", 15),
    ("no_jacoby", 1),
)
_CENTRED = 3
_PLAYING = 1
#: XGID's last field, the cube's limit as a power of two, when nothing says otherwise
_XG_MAX_CUBE = 10


@dataclass(frozen=True, slots=True)
class MatchState:
    """What a Match ID or an XGID says beside the board: the cube, the score and the dice.

    ``score`` is (White's, Black's); ``length`` 0 is a money game; ``owner`` None a centred cube;
    ``dice`` None a roll still to come; ``mover`` the side on roll; ``jacoby`` the Jacoby rule
    of a money game (gnubg's Match ID keeps a bit set when it is *not* in effect, matches too).
    """

    mover: Side = "white"
    cube: int = 1
    owner: Side | None = None
    crawford: bool = False
    score: tuple[int, int] = (0, 0)
    length: int = 0
    dice: tuple[int, int] | None = None
    doubled: bool = False
    jacoby: bool = False

    def score_of(self, side: Side) -> int:
        """The points ``side`` has in the match."""
        return self.score[0] if side == "white" else self.score[1]


def _backgammon(position: Position) -> None:
    """Refuse a position the IDs cannot describe: one whose sides move the same way round."""
    if position.direction != "opposite":
        raise PositionError(
            "gnubg IDs and XGIDs describe backgammon boards (direction=opposite); "
            "a Jacquet position has only its key"
        )


def _pack_bits(bits: list[int], nbytes: int) -> bytes:
    """Bits, least significant first in each byte, as gnubg packs its keys."""
    bits = bits + [0] * (8 * nbytes - len(bits))
    return bytes(sum(bits[8 * i + j] << j for j in range(8)) for i in range(nbytes))


def _unpack_bits(data: bytes) -> list[int]:
    return [(byte >> j) & 1 for byte in data for j in range(8)]


def _b64(data: bytes, chars: int) -> str:
    return base64.b64encode(data).decode("ascii")[:chars]


def _unb64(text: str, nbytes: int, what: str) -> bytes:
    padded = text + "=" * (-len(text) % 4)
    try:
        data = base64.b64decode(padded, validate=True)
    except (binascii.Error, ValueError) as error:
        raise PositionError(f"{text!r} is not a {what} (base64 expected)") from error
    if len(data) != nbytes:
        raise PositionError(f"{text!r} is not a {what} ({nbytes} bytes expected)")
    return data


# -- gnubg's Position ID ------------------------------------------------------------------------


def gnubg_id(position: Position) -> str:
    """gnubg's Position ID: 14 characters of base64 over an 80-bit key.

    The side not on roll first, then the side on roll; for each, points 1..24 then the bar in
    its own numbering, one bit set per man and a zero closing each point.
    """
    _backgammon(position)
    bits: list[int] = []
    for side in (other(position.turn), position.turn):
        counts = position.counts(side)
        for location in range(1, BAR + 1):
            bits += [1] * counts[location] + [0]
    return _b64(_pack_bits(bits, 10), GNUBG_ID_CHARS)


def from_gnubg_id(text: str, turn: Side = "white") -> Position:
    """The position of a gnubg Position ID, ``turn`` on roll (the ID does not say who is).

    Men missing from a side's 15 are borne off; raises PositionError on a malformed ID.
    """
    if len(text) != GNUBG_ID_CHARS:
        raise PositionError(f"{text!r} is not a gnubg Position ID (14 characters expected)")
    bits = _unpack_bits(_unb64(text, 10, "gnubg Position ID"))
    sides: list[list[int]] = []
    index = 0
    for _ in range(2):
        counts = [0] * LOCATIONS
        for location in range(1, BAR + 1):
            while index < len(bits) and bits[index]:
                counts[location] += 1
                index += 1
            if index >= len(bits):
                raise PositionError(f"{text!r} is not a gnubg Position ID (it runs out of bits)")
            index += 1
        placed = sum(counts)
        if placed > MEN:
            raise PositionError(f"{text!r}: a side of the gnubg Position ID has {placed} men")
        counts[OFF] = MEN - placed
        sides.append(counts)
    if any(bits[index:]):
        raise PositionError(f"{text!r} is not a gnubg Position ID (bits after both sides)")
    mover, waiting = sides[1], sides[0]
    white, black = (mover, waiting) if turn == "white" else (waiting, mover)
    return Position.from_counts(white, black, turn, "opposite")


# -- gnubg's Match ID ---------------------------------------------------------------------------


def match_id(state: MatchState) -> str:
    """gnubg's Match ID: 12 characters of base64 over a 66-bit key (the cube, its owner, the
    side on roll, Crawford, the score, the length and the dice)."""
    if state.cube < 1 or state.cube & (state.cube - 1) or state.cube > 1 << 15:
        raise PositionError(f"a cube of {state.cube} is no power of two a Match ID holds")
    mover = _PLAYER[state.mover]
    values = {
        "cube": state.cube.bit_length() - 1,
        "owner": _CENTRED if state.owner is None else _PLAYER[state.owner],
        "mover": mover,
        "crawford": int(state.crawford),
        "state": _PLAYING,
        "decider": 1 - mover if state.doubled else mover,
        "doubled": int(state.doubled),
        "resigned": 0,
        "die1": state.dice[0] if state.dice else 0,
        "die2": state.dice[1] if state.dice else 0,
        "length": state.length,
        "score0": state.score_of("black"),
        "score1": state.score_of("white"),
        "no_jacoby": int(not state.jacoby),
    }
    bits: list[int] = []
    for name, width in _MATCH_FIELDS:
        value = values[name]
        if not 0 <= value < 1 << width:
            raise PositionError(f"a Match ID holds no {name} of {value}")
        bits += [(value >> j) & 1 for j in range(width)]
    return _b64(_pack_bits(bits, 9), MATCH_ID_CHARS)


def from_match_id(text: str) -> MatchState:
    """The match state of a gnubg Match ID; raises PositionError on a malformed one."""
    if len(text) != MATCH_ID_CHARS:
        raise PositionError(f"{text!r} is not a gnubg Match ID (12 characters expected)")
    bits = _unpack_bits(_unb64(text, 9, "gnubg Match ID"))
    values: dict[str, int] = {}
    index = 0
    for name, width in _MATCH_FIELDS:
        values[name] = sum(bits[index + j] << j for j in range(width))
        index += width
    dice = (values["die1"], values["die2"])
    if not (dice == (0, 0) or all(1 <= die <= 6 for die in dice)):
        raise PositionError(f"{text!r}: the Match ID's dice {dice[0]}-{dice[1]} are no roll")
    if values["owner"] == 2:
        raise PositionError(f"{text!r}: the Match ID's cube has no owner gnubg knows")
    return MatchState(
        mover=_SIDE_OF[values["mover"]],
        cube=1 << values["cube"],
        owner=None if values["owner"] == _CENTRED else _SIDE_OF[values["owner"]],
        crawford=bool(values["crawford"]),
        score=(values["score1"], values["score0"]),
        length=values["length"],
        dice=None if dice == (0, 0) else dice,
        doubled=bool(values["doubled"]),
        jacoby=not values["no_jacoby"],
    )


# -- XGID ---------------------------------------------------------------------------------------


def xgid(position: Position, state: MatchState | None = None) -> str:
    """eXtreme Gammon's XGID: ``XGID=`` then 26 characters of board and nine fields.

    Character i (0..25) is White's point i (25 its bar) in upper case, ``A`` one man, or Black's
    point 25 - i (0 its bar) in lower case, ``-`` empty; then the cube's power of two, its
    owner (1 White, -1 Black, 0 centred), the side on roll (1, -1), the dice (``00`` to roll,
    ``D`` doubled), White's score, Black's, the Crawford flag, the match length (0 money) and
    the cube's limit. The flag is Crawford in a match, Jacoby in a money game. Without
    ``state``: centred cube, to roll, a money game at 0-0 without Jacoby.
    """
    _backgammon(position)
    state = state or MatchState(mover=position.turn)
    white, black = position.counts("white"), position.counts("black")
    board = []
    for index in range(BAR + 1):
        if white[index] and index:
            board.append(chr(ord("A") + white[index] - 1))
        elif black[BAR - index] and index < BAR:
            board.append(chr(ord("a") + black[BAR - index] - 1))
        else:
            board.append("-")
    dice = "D" if state.doubled else f"{state.dice[0]}{state.dice[1]}" if state.dice else "00"
    fields = [
        "".join(board),
        str(state.cube.bit_length() - 1),
        str(0 if state.owner is None else _XG_SIGN[state.owner]),
        str(_XG_SIGN[position.turn]),
        dice,
        str(state.score_of("white")),
        str(state.score_of("black")),
        str(int(state.crawford if state.length else state.jacoby)),
        str(state.length),
        str(_XG_MAX_CUBE),
    ]
    return XGID_PREFIX + ":".join(fields)


def _xg_int(text: str, what: str, low: int, high: int) -> int:
    negative = text.startswith("-")
    number = ascii_int(text[1:] if negative else text)
    if number is None or not low <= (-number if negative else number) <= high:
        raise PositionError(f"the XGID's {what} {text!r} is not a number from {low} to {high}")
    return -number if negative else number


def _xg_side(text: str, what: str, centred: bool) -> Side | None:
    sign = _xg_int(text, what, -1, 1)
    if sign == 0 and not centred:
        raise PositionError(f"the XGID's {what} must be 1 or -1, not 0")
    return None if sign == 0 else "white" if sign == 1 else "black"


def from_xgid(text: str) -> tuple[Position, MatchState]:
    """The position and match state of an XGID (see :func:`xgid`); PositionError if malformed."""
    body = text.strip()
    if body[: len(XGID_PREFIX)].upper() == XGID_PREFIX:
        body = body[len(XGID_PREFIX) :]
    fields = body.split(":")
    if len(fields) not in (9, 10) or len(fields[0]) != BAR + 1:
        raise PositionError(
            f"{text!r} is not an XGID (XGID=, 26 characters of board, then 9 fields by ':')"
        )
    white, black = [0] * LOCATIONS, [0] * LOCATIONS
    for index, char in enumerate(fields[0]):
        if char == "-":
            continue
        if "A" <= char <= "O" and index > 0:
            white[index] = ord(char) - ord("A") + 1
        elif "a" <= char <= "o" and index < BAR:
            black[BAR - index] = ord(char) - ord("a") + 1
        else:
            raise PositionError(f"{text!r}: {char!r} at {index} of the XGID's board is no men")
    for counts in (white, black):
        placed = sum(counts)
        if placed > MEN:
            raise PositionError(f"{text!r}: a side of the XGID's board has {placed} men")
        counts[OFF] = MEN - placed
    turn = _xg_side(fields[3], "side on roll", centred=False)
    assert turn is not None  # _xg_side refuses 0 here
    dice_text = fields[4]
    doubled = dice_text.upper() in ("D", "B", "R")
    dice: tuple[int, int] | None = None
    if not doubled and dice_text != "00":
        if not re.fullmatch(r"[1-6][1-6]", dice_text):
            raise PositionError(f"the XGID's dice {dice_text!r} are no roll (00, D or 31)")
        dice = (int(dice_text[0]), int(dice_text[1]))
    flag = bool(_xg_int(fields[7], "Crawford or Jacoby flag", 0, 1))
    length = _xg_int(fields[8], "match length", 0, 32767)
    state = MatchState(
        mover=turn,
        cube=1 << _xg_int(fields[1], "cube", 0, 15),
        owner=_xg_side(fields[2], "cube owner", centred=True),
        crawford=flag and length > 0,
        score=(_xg_int(fields[5], "score", 0, 32767), _xg_int(fields[6], "score", 0, 32767)),
        length=length,
        dice=dice,
        doubled=doubled,
        jacoby=flag and length == 0,
    )
    return Position.from_counts(white, black, turn, "opposite"), state


def exchange_ids(position: Position, state: MatchState | None = None) -> dict[str, str]:
    """``gnubg-id`` and ``xgid`` of a backgammon position, as the XML's ``<resolved>`` carries
    them, with ``state`` (the match, where the record says it) ``gnubg-match-id`` too and the
    XGID's cube and score (as :func:`ids_line`); nothing for a Jacquet position."""
    if position.direction != "opposite":
        return {}
    ids = {"gnubg-id": gnubg_id(position), "xgid": xgid(position, state)}
    if state is not None:
        ids["gnubg-match-id"] = match_id(state)
    return ids


def ids_line(position: Position, state: MatchState | None = None) -> str:
    """Both IDs of a position on one line, as ``replay --ids`` prints them after each play:
    with ``state`` (the match, where the record says it) the gnubg ID in gnubg's own
    ``POSITIONID:MATCHID`` form and the XGID's cube and score; else the board only (the XGID's
    cube and score at their defaults). A Jacquet position says it has none."""
    if position.direction != "opposite":
        return "IDs: none (a Jacquet position has only its key)"
    gnubg = gnubg_id(position) + (":" + match_id(state) if state is not None else "")
    return f"gnubg ID: {gnubg}   {xgid(position, state)}"


def state_words(state: MatchState) -> str:
    """What a Match ID says, in words: ``jacquet position`` prints it beside the IDs."""
    match = f"{state.length}-point match" if state.length else "money game"
    score = f"score {state.score[0]}-{state.score[1]} (White-Black)"
    owner = f"owned by {state.owner.capitalize()}" if state.owner else "centred"
    parts = [match, score, f"cube {state.cube} {owner}"]
    if state.crawford:
        parts.append("Crawford game")
    if state.jacoby:
        parts.append("Jacoby")
    on_roll = state.mover.capitalize()
    if state.doubled:
        waiting = "Black" if state.mover == "white" else "White"
        parts.append(f"{on_roll} has doubled, {waiting} to take or pass")
    elif state.dice:
        parts.append(f"{on_roll} on roll with {state.dice[0]}-{state.dice[1]}")
    else:
        parts.append(f"{on_roll} to roll")
    return ", ".join(parts)
