"""A record's text as the archive keeps it (``games.original``, version 7): compressed, once.

Beneath the archive and the browser both (the archive packs, the pages unpack), importing
nothing of the project but the board's words.

A record is a few hundred bytes to a few kilobytes, too little for zlib to find its repeats in
alone (measured on the shared match files: 37% of the text). Primed with a dictionary of what
every record says (tags, rolls, moves, a match file's words), the same records take 19%, and
self-play Jacquet 25% (against 42%). The dictionary is built here from the notation's own
spellings, in a fixed order: it is part of the file format, so a stored text names the
dictionary it was packed with (its first byte), and a change to it is a new byte, never an
edit of this one.

A text stored before version 7 (a ``TEXT`` cell) reads as it is.
"""

from __future__ import annotations

import zlib
from functools import cache

from .board_terms import point_name

#: the first byte of a text packed with dictionary 1 (below)
PACKED_1 = b"\x01"

#: zlib's level: the texts are small, the best compression costs little more
_LEVEL = 9
#: the most a packed cell may unpack to: far past any record the reader takes, and a bound on
#: what a damaged (or hostile) cell costs a page
MAX_TEXT = 16 * 1024 * 1024


@cache
def dictionary_1() -> bytes:
    """Dictionary 1: what records say most, the most frequent last (zlib reaches the end of a
    dictionary more cheaply). Made of the notation's spellings, never of a corpus's text."""
    parts: list[str] = [
        # a match file's header (gnubg's fields) and its words
        '; [Site "',
        '"]\n; [Match ID "',
        '"]\n; [Event "',
        '"]\n; [Round "',
        '"]\n; [Player 1 "',
        '"]\n; [Player 2 "',
        '"]\n; [EventDate "',
        '"]\n; [EventTime "',
        '"]\n; [Variation "Backgammon"]\n; [Unrated "Off"]\n; [Crawford "On"]\n',
        '; [CubeLimit "1024"]\n; [ClockType "',
        " point match\n\n Game ",
        " : 0" + " " * 26,
        " Wins 1 point",
        " Wins 2 points",
        " Doubles => 2",
        " Takes",
        " Drops",
        " " * 40,
        # a .jqt's tags, as the canonical writer spells them
        '[Event "',
        '"]\n[Site "',
        '"]\n[Date "????.??.??"]\n[Round "',
        '"]\n[White "',
        '"]\n[Black "',
        '"]\n[Result "1-0"]\n[Rules "backgammon"]\n\n',
        '"]\n[Result "0-1"]\n[Rules "jacquet"]\n\n',
        " pass ",
        "bar/",
        "/off ",
    ]
    for high in range(1, 7):
        for low in range(1, high + 1):
            parts.append(f" {high}{low}: ")
    for start in range(24, 0, -1):
        for die in (6, 5, 4, 3, 2, 1):
            end = start - die
            if end >= 0:
                parts.append(f"{point_name(start)}/{point_name(end)} ")
    for high in range(1, 7):
        for low in range(1, high + 1):
            parts.append(f" {high}-{low}: ")
    parts.extend(f"\n{turn}. " for turn in range(40, 0, -1))
    parts.extend(f"\n {turn}) " for turn in range(40, 0, -1))
    return "".join(parts).encode("utf-8")


def pack(text: str) -> bytes:
    """A record's text packed with the current dictionary, as ``games.original`` keeps it."""
    packer = zlib.compressobj(_LEVEL, zdict=dictionary_1())
    return PACKED_1 + packer.compress(text.encode("utf-8")) + packer.flush()


def unpack(stored: str | bytes | None) -> str | None:
    """The text a ``games.original`` cell holds: packed (version 7), or as it was (before).

    Raises ``ValueError`` for bytes that are not a packed text (a damaged cell), which the
    pages report rather than show.
    """
    if stored is None or isinstance(stored, str):
        return stored
    if stored[:1] != PACKED_1:
        raise ValueError("not a packed record text")
    try:
        unpacker = zlib.decompressobj(zdict=dictionary_1())
        data = unpacker.decompress(stored[1:], MAX_TEXT)
    except zlib.error as error:
        raise ValueError(f"not a packed record text: {error}") from None
    if unpacker.unconsumed_tail or not unpacker.eof:
        raise ValueError("not a packed record text: too long, or cut short")
    return data.decode("utf-8", errors="replace")
