"""Small eXtreme Gammon ``.xg`` files built from the vendor's format description, for tests.

No ``.xg`` sample could be kept in the repository (the public ones found were either synthetic
and invalid or of unclear licence), so the tests write their own: each record laid out at the
offsets of the vendor's Delphi records (https://www.extremegammon.com/xgformat.aspx), packed in
a ZLibArchive as XG packs it. Positions are PositionEngine arrays from the mover's side.
"""

from __future__ import annotations

import struct
import zlib

RECORD = 2560
START = (0, -2, 0, 0, 0, 0, 5, 0, 3, 0, 0, 0, -5, 5, 0, 0, 0, -3, 0, -5, 0, 0, 0, 0, 2, 0)


def _record(kind: int) -> bytearray:
    data = bytearray(RECORD)
    data[8] = kind
    return data


def _put(data: bytearray, at: int, fmt: str, *values: object) -> None:
    struct.pack_into("<" + fmt, data, at, *values)


def _unicode(data: bytearray, at: int, text: str) -> None:
    raw = text.encode("utf-16-le")[:256]
    data[at : at + len(raw)] = raw


def _ansi(data: bytearray, at: int, text: str) -> None:
    raw = text.encode("cp1252")
    data[at] = len(raw)
    data[at + 1 : at + 1 + len(raw)] = raw


def match_header(
    white: str = "Alice",
    black: str = "Bob",
    length: int = 5,
    *,
    crawford: bool = True,
    date: float = 45000.5,  # 2023.03.15 in Delphi's days since 1899-12-30
    event: str = "Club night",
    place: str = "Oslo",
    version: int = 30,
) -> bytes:
    data = _record(0)
    _ansi(data, 9, white[:40])
    _ansi(data, 50, black[:40])
    _put(data, 92, "i", length)
    data[100], data[101], data[102] = int(crawford), 0, 0
    _put(data, 128, "d", date)
    _put(data, 552, "ii", version, 0x494C4D44)
    if version >= 24:
        _unicode(data, 622, event)
        _unicode(data, 880, white)
        _unicode(data, 1138, black)
        _unicode(data, 1396, place)
    else:
        _ansi(data, 136, event)
        _ansi(data, 283, place)
    return bytes(data)


def game_header(
    number: int, score: tuple[int, int] = (0, 0), start: tuple[int, ...] = START
) -> bytes:
    data = _record(1)
    _put(data, 12, "ii?", score[0], score[1], False)
    _put(data, 21, "26b", *start)
    _put(data, 48, "i", number)
    return bytes(data)


def cube(
    side: int,
    doubled: int,
    take: int = -1,
    *,
    position: tuple[int, ...] = START,
    equities: tuple[float, float, float] | None = None,
    errors: tuple[float, float] = (-1000.0, -1000.0),
    level: int = 3,
) -> bytes:
    """A cube record: ``side`` 1 or -1; ``doubled`` 1 yes, 0 no; ``take`` 1, 0 (drop), 2."""
    data = _record(2)
    _put(data, 12, "6i", side, doubled, take, 0, 0, 0)
    _put(data, 36, "26b", *position)
    if equities is not None:
        _put(data, 92, "i", level)
        _put(data, 152, "3f", *equities)
    _put(data, 200, "d", errors[0])
    _put(data, 216, "d", errors[1])
    return bytes(data)


def _pairs(moves: list[tuple[int, int]]) -> list[int]:
    """Points as a record writes them: one below (bar 25 -> 24, off 0 -> -1), -1 ending."""
    flat = [p for move in moves for p in (move[0] - 1, move[1] - 1)]
    return (flat + [-1] * 8)[:8]


def move(
    side: int,
    before: tuple[int, ...],
    dice: tuple[int, int],
    played: list[tuple[int, int]],
    *,
    options: list[tuple[list[tuple[int, int]], float, int]] | None = None,
    error: float = -1000.0,
    luck: float = -1000.0,
) -> bytes:
    """A move record; ``options`` XG's plays weighed, (moves, equity, level), best first."""
    data = _record(3)
    _put(data, 9, "26b", *before)
    _put(data, 64, "i", side)
    _put(data, 68, "8i", *_pairs(played))
    _put(data, 100, "2i", *dice)
    options = options or []
    _put(data, 124, "26b", *before)
    _put(data, 124 + 64, "i", len(options))
    for number, (moves, equity, level) in enumerate(options):
        _put(data, 124 + 68 + 832 + 8 * number, "8b", *_pairs(moves))
        _put(data, 124 + 68 + 832 + 256 + 4 * number, "h", level)
        _put(data, 124 + 68 + 832 + 256 + 128 + 28 * number + 24, "f", equity)
    _put(data, 2312, "dd", error, luck)
    return bytes(data)


def game_footer(winner: int, points: int, termination: int = 1) -> bytes:
    data = _record(4)
    _put(data, 24, "iii", winner, points, termination)
    return bytes(data)


def match_footer() -> bytes:
    return bytes(_record(5))


def pack(records: list[bytes], *, thumbnail: bytes = b"\xff\xd8\xff\xd9") -> bytes:
    """An ``.xg`` file: the RGMH header, a thumbnail, and the ZLibArchive of the records."""
    game = b"".join(records)
    files = [("temp.xgi", game[:RECORD] + game[-RECORD:]), ("temp.xg", game)]
    body = bytearray()
    registry = bytearray()
    for name, content in files:
        packed = zlib.compress(content)
        entry = bytearray(532)
        entry[0] = len(name)
        entry[1 : 1 + len(name)] = name.encode()
        struct.pack_into(
            "<iiiIBB", entry, 512, len(content), len(packed), len(body), zlib.crc32(content), 0, 6
        )
        body += packed
        registry += entry
    packed_registry = zlib.compress(bytes(registry))
    archive = bytes(body) + packed_registry
    trailer = struct.pack(
        "<IiiiiI12x", zlib.crc32(archive), len(files), 1, len(packed_registry), len(body), 1
    )
    header = bytearray(8232)
    struct.pack_into("<4sIIqI", header, 0, b"RGMH", 1, 8232, 0, len(thumbnail))
    return bytes(header) + thumbnail + archive + trailer


def played(before: tuple[int, ...], moves: list[tuple[int, int]]) -> tuple[int, ...]:
    """The board after ``moves`` (hits sent to the opponent's bar), from the next mover's side."""
    board = list(before)
    for start, end in moves:
        board[start] -= 1
        if 1 <= end <= 24:
            if board[end] == -1:
                board[end] = 0
                board[0] -= 1
            board[end] += 1
    return tuple(-board[25 - i] for i in range(26))


# --------------------------------------------------------------------------------------------
# An analysed match with losses and luck chosen, so that its figures are known by hand

#: each analysed play of :func:`analysed_match`, in order: (game, side, dice, played, options
#: as (moves, equity) best first, XG's error (negative, as XG writes it), luck). A single option
#: is a forced play, which no error rate counts.
ANALYSED_PLAYS: list[
    tuple[
        int,
        int,
        tuple[int, int],
        list[tuple[int, int]],
        list[tuple[list[tuple[int, int]], float]],
        float,
        float,
    ]
] = [
    (
        1,
        1,
        (3, 1),
        [(24, 21), (6, 5)],
        [([(8, 5), (6, 5)], 0.16), ([(24, 21), (6, 5)], 0.05)],
        -0.11,
        0.2,
    ),
    (
        1,
        -1,
        (6, 3),
        [(24, 18), (13, 10)],
        [([(24, 18), (18, 15)], 0.02), ([(24, 18), (13, 10)], -0.01)],
        -0.03,
        -0.1,
    ),
    (
        1,
        1,
        (6, 4),
        [(24, 18), (13, 9)],
        [([(24, 18), (18, 14)], 0.25), ([(24, 18), (13, 9)], 0.10)],
        -0.15,
        0.05,
    ),
    (1, -1, (5, 2), [(13, 8), (13, 11)], [([(13, 8), (13, 11)], 0.0)], 0.0, 0.3),
    (
        2,
        -1,
        (6, 3),
        [(24, 18), (13, 10)],
        [([(24, 18), (18, 15)], 0.05), ([(24, 18), (13, 10)], 0.01)],
        -0.04,
        0.3,
    ),
    (
        2,
        1,
        (2, 1),
        [(13, 11), (6, 5)],
        [([(13, 11), (6, 5)], -0.02), ([(24, 23), (13, 11)], -0.05)],
        0.0,
        -0.15,
    ),
]
#: game 1's cube decisions: White's no double before its second roll (ErrCube 0.02), then its
#: double (0.0) and Black's drop (ErrTake 0.05), as (side, loss)
ANALYSED_CUBES: list[tuple[int, int, float]] = [(1, 1, 0.02), (1, 1, 0.0), (1, -1, 0.05)]


def analysed_match(white: str = "Alice", black: str = "Bob") -> bytes:
    """Two games of a 5-point match analysed by XG (:data:`ANALYSED_PLAYS`, :data:`ANALYSED_CUBES`):
    game 1 ends in a dropped double, game 2 is left unfinished."""
    records = [match_header(white, black), game_header(1)]
    board: tuple[int, ...] = START
    current = 1
    cube_at = 2  # White's no double comes before the third play of game 1
    for number, (game, side, dice, moves, options, error, luck) in enumerate(ANALYSED_PLAYS):
        if game != current:
            records += [game_footer(1, 1, 0), game_header(game, (1, 0))]
            board, current = START, game
        if number == cube_at:
            records.append(cube(1, 0, equities=(0.3, 0.1, 1.0), errors=(-0.02, -1000.0)))
        weighed = [(option, equity, 3) for option, equity in options]
        records.append(move(side, board, dice, moves, options=weighed, error=error, luck=luck))
        board = played(board, moves)
        if number == 3:  # after Black's forced play, White doubles and Black drops
            records.append(cube(1, 1, 0, equities=(0.5, 1.25, 1.0), errors=(0.0, -0.05)))
    return pack([*records, match_footer()])
