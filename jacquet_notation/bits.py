"""The packing of a side's men into one int, named once: its fields, masks and accessors.

A side is four bits per location (a nibble holding that location's count): location 0 = borne
off, 1..24 = the side's own points, 25 = the bar. Moving a man is adding one constant, positions
compare and hash as ints, and a *flag word* (the low bit of chosen locations' nibbles) tests a
whole table with one AND. The engine's search, in hitting rulesets, carries both sides in one
int: the mover's side in the low bits, the opponent's from :data:`OPP_SHIFT` up.

Only this module knows the numbers; everything else (position, engine, replay) reads through the
names here, so a change of layout is a change of this file (python-chess names its ``BB_*``
masks the same way).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Final

from .board_terms import BAR as BAR  # men on the bar, location 25
from .board_terms import OFF as OFF  # borne-off men, location 0

LOCATIONS: Final = 26  #: off, points 1..24, bar

NIBBLE: Final = 4  #: bits per location
COUNT: Final = 15  #: one location's count, at the bottom of an int shifted down to it
#: a side's men (every ruleset plays with fifteen): all on one location still fit its nibble
MEN: Final = 15
#: where each location's nibble starts
SHIFT: Final = tuple(NIBBLE * location for location in range(LOCATIONS))
#: the low bit of each location's nibble: adding ``FLAG[p]`` puts one more man on ``p``
FLAG: Final = tuple(1 << shift for shift in SHIFT)

BAR_SHIFT: Final = SHIFT[BAR]
POINT_24_SHIFT: Final = SHIFT[24]  #: the starting point (the courier leaves from it)
MIDPOINT_SHIFT: Final = SHIFT[13]  #: the 13-point, of Murray's limit on men there
#: twelve points: a point's flag moved by this is the same point in the other side's numbering
HALF_BOARD_SHIFT: Final = SHIFT[12]

#: a search state in hitting rulesets is ``mover | opponent << OPP_SHIFT``
OPP_SHIFT: Final = NIBBLE * LOCATIONS
MOVER: Final = (1 << OPP_SHIFT) - 1  #: the mover's side of such a state


def flags(low: int, high: int) -> int:
    """The flag word of locations ``low..high``."""
    return sum(FLAG[location] for location in range(low, high + 1))


def nibbles(flag_word: int) -> int:
    """Whole nibbles (every bit of the count) of the locations of ``flag_word``."""
    return flag_word * COUNT


ONES: Final = flags(OFF, BAR)  #: every location
POINTS: Final = flags(1, 24)  #: the board
SOURCES: Final = flags(1, BAR)  #: where a man can step from (the board and the bar)
LOW12: Final = flags(1, 12)
HIGH12: Final = flags(13, 24)
START_TABLE: Final = flags(19, 24)  #: the starting table, 19-24
OWN_ONE_AND_TWO: Final = FLAG[1] | FLAG[2]  #: the five-max convention's 1- and 2-points
OFF_AND_HOME: Final = nibbles(flags(OFF, 6))  #: borne off or in the home table 1-6
OUTSIDE: Final = nibbles(flags(7, BAR))  #: not yet home: points 7..24 and the bar
COURIER_REST: Final = nibbles(flags(7, 23) | FLAG[BAR])  #: where a courier stands while out
BOARD_AND_BAR: Final = nibbles(flags(1, BAR))
#: a run of six held points in the opponent's numbering whose lowest point is its 7: the
#: mover's starting table, 24 to 19 (see :func:`runs_of_six` and :func:`rotate`)
START_TABLE_RUN: Final = FLAG[7]


# -- a side's counts ----------------------------------------------------------------------------


def pack(counts: Iterable[int]) -> int:
    """Pack 26 counts (off, 1..24, bar) into one side's int."""
    value = 0
    for location, count in enumerate(counts):
        value |= count << SHIFT[location]
    return value


def unpack(packed: int) -> tuple[int, ...]:
    """The 26 counts (off, 1..24, bar) of a packed side."""
    return tuple((packed >> shift) & COUNT for shift in SHIFT)


def men_at(packed: int, location: int) -> int:
    """Men of a packed side on ``location`` (0 = off, 25 = bar)."""
    return (packed >> SHIFT[location]) & COUNT


#: ``_PIP_PAIRS[j][byte]``: the pips of the men on locations 2j and 2j + 1, one byte of a packing
_PIP_PAIRS: Final = tuple(
    tuple(2 * pair * (byte & COUNT) + (2 * pair + 1) * (byte >> NIBBLE) for byte in range(256))
    for pair in range(LOCATIONS // 2)
)


def pip_count(packed: int) -> int:
    """Pips a packed side has to travel (each man its location: the bar 25, off 0), a byte
    (two locations) at a time by table: faster than the 26 counts unpacked and summed (1.4
    against 8 us), which the archive pays for every play's position."""
    pairs = packed.to_bytes(LOCATIONS // 2, "little")
    return sum([table[byte] for table, byte in zip(_PIP_PAIRS, pairs, strict=True)])


def off_count(packed: int) -> int:
    """Men a packed side has borne off."""
    return packed & COUNT


def bar_count(packed: int) -> int:
    """Men of a packed side on the bar (the highest nibble, so nothing above it to mask)."""
    return packed >> BAR_SHIFT


# -- flag words ---------------------------------------------------------------------------------


def occupied(packed: int) -> int:
    """Flags of the locations with at least one man."""
    return (packed | packed >> 1 | packed >> 2 | packed >> 3) & ONES


def two_or_more(packed: int) -> int:
    """Flags of the locations with two men or more."""
    return (packed >> 1 | packed >> 2 | packed >> 3) & ONES


def rotate(flag_word: int) -> int:
    """Flags by point in one side's numbering -> the same points in the other side's numbering."""
    return ((flag_word & LOW12) << HALF_BOARD_SHIFT) | ((flag_word & HIGH12) >> HALF_BOARD_SHIFT)


def _mirror_table(low: int) -> dict[int, int]:
    """Every flag word of points ``low..low+5`` (shifted down to bit 0) -> its mirror 25 - p."""
    table = {}
    for subset in range(64):
        word = mirrored = 0
        for index in range(6):
            if subset >> index & 1:
                point = low + index
                word |= FLAG[point]
                mirrored |= FLAG[BAR - point]
        table[word >> SHIFT[low]] = mirrored
    return table


#: the four tables of :func:`mirror`, one per six points, with each table's shift
_MIRROR_TABLES: Final = tuple((SHIFT[low], _mirror_table(low)) for low in (1, 7, 13, 19))
_SIX_FLAGS: Final = flags(0, 5)  #: six locations' flags at the bottom of a word
_M1, _M7, _M13, _M19 = (table for _, table in _MIRROR_TABLES)
assert tuple(shift for shift, _ in _MIRROR_TABLES) == (4, 28, 52, 76)


def mirror(flag_word: int) -> int:
    """Flags by point in one side's numbering -> the same points in the other side's, when the
    sides move in opposite directions (backgammon: p -> 25 - p). Points 1..24 only.

    Four look-ups of six points each: a nibble-wise bit reversal has no one-expression form the
    way :func:`rotate` has.
    """
    six = _SIX_FLAGS
    # the shifts are SHIFT[1], SHIFT[7], SHIFT[13] and SHIFT[19], as literals for speed
    return (
        _M1[(flag_word >> 4) & six]
        | _M7[(flag_word >> 28) & six]
        | _M13[(flag_word >> 52) & six]
        | _M19[(flag_word >> 76) & six]
    )


def runs_of_six(flag_word: int) -> int:
    """Flag ``j`` set when locations ``j..j+5`` are all set (each ``>> 4`` is one location)."""
    f = flag_word
    return f & f >> 4 & f >> 8 & f >> 12 & f >> 16 & f >> 20


def rotated_runs_of_six(flag_word: int) -> int:
    """``runs_of_six(rotate(flag_word))`` in one call: the quick path's block test, asked of
    most plays of a Jacquet corpus, where a call is a good part of the test's cost."""
    f = ((flag_word & LOW12) << HALF_BOARD_SHIFT) | ((flag_word & HIGH12) >> HALF_BOARD_SHIFT)
    return f & f >> 4 & f >> 8 & f >> 12 & f >> 16 & f >> 20


def highest(packed: int) -> int:
    """The highest location with a man (0 when there is none, or when only borne-off men)."""
    return (packed.bit_length() - 1) >> 2 if packed else 0


def location_of(flag: int) -> int:
    """The location of a single flag (the lowest one of a word, ``word & -word``)."""
    return flag.bit_length() >> 2


#: :func:`location_of` as a table by the flag's ``bit_length()``, for the search's hottest loop,
#: where a tuple look-up costs less than a call
LOCATION_BY_LENGTH: Final = tuple(length >> 2 for length in range(NIBBLE * LOCATIONS + 1))
