"""The position key, one implementation: 14 characters of ``[A-Za-z0-9_-]`` spelling the turn,
each side's counts in unary and the direction (:meth:`.position.Position.key`).

For :class:`~.position.Position` and for the archive, which spells a key for every ply of an
import: it keeps each side's bits from play to play and computes them again only for a side
whose men moved. Beneath ``position.py``, so that the key's bits are written in one place.
"""

from __future__ import annotations

import re
from binascii import b2a_base64

from .bits import COUNT, LOCATIONS, MEN, NIBBLE
from .board_terms import Side
from .errors import PositionError
from .rules import Direction

_KEY_ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
_KEY_INDEX = {char: value for value, char in enumerate(_KEY_ALPHABET)}
#: a regular expression's class of the characters a key is made of (for routes that take keys)
KEY_CHARACTER_CLASS = "[" + re.escape(_KEY_ALPHABET) + "]"
#: the characters of a key
KEY_CHARS = 14

#: bits of one side in a key: its 26 locations' counts, each in unary then a zero (15 + 26)
_SIDE_KEY_BITS = MEN + LOCATIONS
#: the turn bit of a key with Black to move, above both sides' bits
_BLACK_TO_MOVE = 1 << 2 * _SIDE_KEY_BITS
#: zeros after the key's bits: up to 14 characters of 6 bits, then up to 12 bytes for base64
_KEY_PADDING = 6 * KEY_CHARS - (1 + 2 * _SIDE_KEY_BITS) + 12
#: the key's 84th bit (the one after the sides'), set when the sides move in opposite directions
_OPPOSITE_BIT = 1 << (_KEY_PADDING - 1)
#: base64's two characters that base64url spells otherwise
_TO_URLSAFE = bytes.maketrans(b"+/", b"-_")


def _unary_pair(byte: int) -> tuple[int, int]:
    """The key's bits for one byte of a packed side: two counts, each in unary then a zero."""
    low, high = byte & COUNT, byte >> NIBBLE
    first, second = ((1 << low) - 1) << 1, ((1 << high) - 1) << 1
    return (first << (high + 1)) | second, low + high + 2


#: the key's code and bit length for every byte of a packed side (two locations)
_UNARY_PAIRS = tuple(_unary_pair(byte) for byte in range(256))


#: sides' key bits already spelled, by packed side: a play moves one side, so the other's
#: packing (and every game's start) comes back at once. Emptied when full, so bounded.
_SPELLED: dict[int, int] = {}
_SPELLED_MOST = 1 << 16


def side_key_bits(packed: int) -> int:
    """One side's part of a position key, from its packed counts: each location's count, from
    location 0 up, in unary then a zero (41 bits; see :meth:`.position.Position.key`).

    Two locations (one byte of the packing) at a time, by table: measured faster than spelling
    the hex digits in unary by ``str.translate`` (1.8 against 4.6 us a side). A side spelled
    lately is looked up instead (an import spells a key a play: half its sides had not moved).
    """
    found = _SPELLED.get(packed)
    if found is not None:
        return found
    value = 0
    table = _UNARY_PAIRS
    for byte in packed.to_bytes(LOCATIONS // 2, "little"):
        code, length = table[byte]
        value = (value << length) | code
    if len(_SPELLED) >= _SPELLED_MOST:
        _SPELLED.clear()
    _SPELLED[packed] = value
    return value


def key_from_bits(
    turn: Side, white_bits: int, black_bits: int, direction: Direction = "same"
) -> str:
    """The key of the position with ``turn`` to move and each side's :func:`side_key_bits`
    (``direction``: how the numberings meet, the key's last bit)."""
    value = (_BLACK_TO_MOVE if turn == "black" else 0) | white_bits << _SIDE_KEY_BITS | black_bits
    value <<= _KEY_PADDING
    if direction == "opposite":
        value |= _OPPOSITE_BIT
    # base64url over 12 bytes: the first 14 characters are exactly the 84 bits of the key
    spelled = b2a_base64(value.to_bytes(12, "big"), newline=False)
    return spelled[:KEY_CHARS].translate(_TO_URLSAFE).decode("ascii")


def key_counts(key: str) -> tuple[Side, list[list[int]], Direction]:
    """The turn, each side's count at each location and the direction a key spells; raises
    :class:`PositionError` for a text that is no key."""
    if len(key) != KEY_CHARS or any(char not in _KEY_INDEX for char in key):
        raise PositionError(f"{key!r} is not a position key (14 characters of A-Z a-z 0-9 - _)")
    value = 0
    for char in key:
        value = (value << 6) | _KEY_INDEX[char]
    bits = bin(value)[2:].zfill(6 * KEY_CHARS)
    turn: Side = "black" if bits[0] == "1" else "white"
    sides: list[list[int]] = []
    rest = bits[1:]
    try:
        for _ in range(2):
            counts = []
            for _ in range(LOCATIONS):
                ones = rest.index("0")
                counts.append(ones)
                rest = rest[ones + 1 :]
            sides.append(counts)
    except ValueError:
        raise PositionError(f"{key!r} is not a position key") from None
    if rest not in ("0", "1") or any(sum(counts) != MEN for counts in sides):
        raise PositionError(f"{key!r} is not a position key")
    return turn, sides, "opposite" if rest == "1" else "same"
