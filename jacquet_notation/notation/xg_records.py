"""An eXtreme Gammon game file (``temp.xg``) to game records, with XG's analysis on each ply.

The game file is a run of 2,560-byte records (the vendor's TSaveRec, docs/notation.md, "eXtreme
Gammon files"): a match header, then each game's header, its cube and move records and its
footer, then the match footer. Fields are read at their offsets in the Delphi record (little
endian, each on its natural boundary). A position (PositionEngine) is 26 signed bytes from the
mover's side: index 1..24 its points in its own numbering, 25 its bar, 0 the opponent's bar,
the opponent's men negative. A move record's moves are ``from, to`` pairs one below the
mover's points (``23, 17`` is ``24/18``; 24 the bar, -1 off), ended by -1.

Player 1 is White and Player 2 Black, as in a match file (:mod:`.mat_reader`), so that a game
read from ``.xg`` carries the tags a ``.mat`` export of it carries.
"""

from __future__ import annotations

import datetime
import math
import struct
from dataclasses import dataclass, field

from ..analysis import Analyser, Decision, Option, PlyAnalysis
from ..board_terms import BAR, OFF
from ..errors import NotationError
from ..record import POSITION_TAG, Action, GameRecord, Move, Side, WrittenPlay

#: one record's size, and the kinds of record (TSaveRec's EntryType)
RECORD = 2560
HEADER_MATCH, HEADER_GAME, CUBE, MOVE, FOOTER_GAME, FOOTER_MATCH = range(6)
#: the match header's magic ($494C4D44) at its offset, and the newest version described
_MAGIC_AT, _MAGIC = 556, 0x494C4D44
MAX_VERSION = 40
#: XG's mark of a value not analysed
_NOT_ANALYSED = -999.0
#: XG's analysis levels (the vendor's PLAYERLEVEL table); 998 is the opening book
LEVELS = {
    0: "1-ply", 1: "2-ply", 2: "3-ply", 3: "4-ply", 4: "5-ply", 5: "6-ply", 6: "7-ply",
    12: "3-ply red", 100: "rollout", 998: "book", 1000: "XG Roller", 1001: "XG Roller+",
    1002: "XG Roller++",
}  # fmt: skip
#: the standard start from a side's view, point: men
_START = {24: 2, 13: 5, 8: 3, 6: 5}
#: unlimited, as XG writes a money session's length
_UNLIMITED = 99999
ANALYSER_NAME = "eXtreme Gammon"


def level_name(level: int) -> str:
    """XG's name of an analysis level (``4-ply``), or ``level N`` for one the table lacks."""
    return LEVELS.get(level, f"level {level}")


@dataclass(slots=True)
class XgGame:
    """One game read: its record (tags, plies, result) and each ply's analysis, in order."""

    record: GameRecord
    analyses: list[PlyAnalysis | None] = field(default_factory=list)
    levels: set[str] = field(default_factory=set)


def _i32(data: bytes, at: int) -> int:
    return int(struct.unpack_from("<i", data, at)[0])


def _f64(data: bytes, at: int) -> float:
    return float(struct.unpack_from("<d", data, at)[0])


def _f32(data: bytes, at: int, count: int) -> tuple[float, ...]:
    # singles, rounded to the digits a single holds (0.16, not 0.1599999964)
    return tuple(round(float(x), 6) for x in struct.unpack_from(f"<{count}f", data, at))


def _board(data: bytes, at: int) -> tuple[int, ...]:
    return tuple(struct.unpack_from("<26b", data, at))


def _one_line(text: str) -> str:
    """A name as a tag holds it: on one line (a tag value ends at its line)."""
    return " ".join(text.split())


def _ansi(data: bytes, at: int, size: int) -> str:
    length = min(data[at], size - 1)
    return _one_line(data[at + 1 : at + 1 + length].decode("cp1252", "replace"))


def _unicode(data: bytes, at: int) -> str:
    raw = data[at : at + 258]
    end = next((i for i in range(0, 258, 2) if raw[i : i + 2] == b"\0\0"), 258)
    return _one_line(raw[:end].decode("utf-16-le", "replace"))


def _date(days: float) -> str | None:
    """A Delphi TDateTime (days since 1899-12-30) as ``YYYY.MM.DD``; None where it is none."""
    if not math.isfinite(days) or not 1 <= days < 2_958_466:
        return None
    day = datetime.date(1899, 12, 30) + datetime.timedelta(days=int(days))
    return f"{day.year:04}.{day.month:02}.{day.day:02}"


def _error(file: str | None, number: int, reason: str) -> NotationError:
    """A damaged record of the unpacked game file: placed at the file's line 1, column 1.

    The record's bytes are inside the compressed stream and have no place of their own in
    the file; the record and its byte in the unpacked ``temp.xg`` are said in words.
    """
    return NotationError(
        f"not a readable eXtreme Gammon file: {reason} (record {number + 1} of {GAME_NAME},"
        f" at its byte {number * RECORD})",
        file=file,
        line=1,
        column=1,
    )


GAME_NAME = "temp.xg"


def match_tags(data: bytes, file: str | None) -> tuple[dict[str, str], int]:
    """The match header's tags (the first record) and the file's version."""
    if len(data) < RECORD or data[8] != HEADER_MATCH:
        raise _error(file, 0, "the first record is not a match header")
    version = _i32(data, 552)
    if _i32(data, _MAGIC_AT) != _MAGIC or not 0 <= version <= MAX_VERSION:
        raise _error(file, 0, f"a match header of version {version} without XG's magic")
    if version >= 24:
        event, white, black = _unicode(data, 622), _unicode(data, 880), _unicode(data, 1138)
        place, round_ = _unicode(data, 1396), _unicode(data, 1654)
    else:
        event, white, black = _ansi(data, 136, 129), _ansi(data, 9, 41), _ansi(data, 50, 41)
        place, round_ = _ansi(data, 283, 129), _ansi(data, 417, 129)
    tags: dict[str, str] = {}
    for name, value in (("Event", event), ("Site", place), ("Date", _date(_f64(data, 128)))):
        if value:
            tags[name] = value
    if round_:
        tags["Round"] = round_
    tags["Rules"] = "backgammon"
    length = _i32(data, 92)
    if 0 < length < _UNLIMITED:
        tags["Match"] = str(length)
    tags["White"], tags["Black"] = white or "Player 1", black or "Player 2"
    for name, at in (("Crawford", 100), ("Jacoby", 101), ("Beaver", 102)):
        tags[name] = "On" if data[at] else "Off"
    return tags, version


def read_games(data: bytes, file: str | None) -> list[XgGame]:
    """Every game of a game file; raises NotationError (the record, its byte) on a damaged one.

    The whole file is read before any game is given, so that a file cut or damaged anywhere
    gives no game at all (an import adds nothing of it).
    """
    if len(data) % RECORD:
        number = len(data) // RECORD
        raise _error(file, number, f"a record cut short ({len(data) % RECORD} of {RECORD} bytes)")
    tags, _version = match_tags(data, file)
    games: list[XgGame] = []
    game: _Game | None = None
    for number in range(1, len(data) // RECORD):
        record = data[number * RECORD : (number + 1) * RECORD]
        kind = record[8]
        if kind == HEADER_GAME:
            if game is not None:
                raise _error(file, number, "a game header inside a game")
            game = _Game(tags, record, file, len(games) + 1)
        elif kind in (CUBE, MOVE, FOOTER_GAME):
            if game is None:
                raise _error(file, number, "a game's record before its header")
            if kind == CUBE:
                game.cube(record)
            elif kind == MOVE:
                if not game.move(record):
                    raise _error(file, number, "a move that is not one of XG's points")
            else:
                game.footer(record)
                games.append(game.finish())
                game = None
        elif kind == FOOTER_MATCH:
            break
        elif kind > 7:
            raise _error(file, number, f"a record of unknown kind {kind}")
    if game is not None:  # a game left in progress: kept, without a result
        games.append(game.finish())
    return games


class _Game:
    """One game's plies built as its records come (a cube record, a move, the footer)."""

    def __init__(self, tags: dict[str, str], header: bytes, file: str | None, index: int) -> None:
        self.game = XgGame(GameRecord(tags=dict(tags), file=file, index=index))
        record = self.game.record
        record.tags["Game"] = str(_i32(header, 48))
        record.tags["Score"] = f"{_i32(header, 12)}-{_i32(header, 16)}"
        start = _board(header, 21)
        if start != _standard():
            record.tags[POSITION_TAG] = ""  # set by the first ply, who is to move
            self.start: tuple[int, ...] | None = start
        else:
            self.start = None
        self.side: Side = "white"
        self.turn = 1
        self.plies = 0
        self.cube_value = 1
        #: the cube decision made before a roll (no double), for that roll's ply
        self.pending: Decision | None = None

    def add(
        self,
        side: Side,
        analysis: PlyAnalysis | None,
        *,
        dice: tuple[int, int] | None = None,
        moves: tuple[Move, ...] = (),
        action: Action | None = None,
        cube: int | None = None,
    ) -> None:
        """One ply in its slot: the sides alternate, Black's slot ending a turn."""
        record = self.game.record
        if self.plies == 0:
            self.side = side
            if self.start is not None:
                record.tags[POSITION_TAG] = readable(self.start, side)
        elif side != self.side:
            # the other side's slot is empty (XG writes no record for it): it passed
            record.plays.append(WrittenPlay(self.side, self.turn, None))
            self.game.analyses.append(None)
            self._advance()
        record.plays.append(WrittenPlay(side, self.turn, dice, moves, action=action, cube=cube))
        self.game.analyses.append(analysis)
        self.plies += 1
        self._advance()

    def _advance(self) -> None:
        if self.side == "black":
            self.turn += 1
        self.side = "black" if self.side == "white" else "white"

    def cube(self, record: bytes) -> None:
        """A cube record: a double and its answer as two plies; no double, a decision kept
        for the roll that follows."""
        side: Side = "white" if _i32(record, 12) == 1 else "black"
        doubled, take = _i32(record, 16), _i32(record, 20)
        doubler, taker = cube_decisions(record, take)
        if doubled != 1:
            self.pending = doubler
            return
        self.cube_value *= 2
        self.add(side, _ply(doubler), action="double", cube=self.cube_value)
        other: Side = "black" if side == "white" else "white"
        if take == 2:
            self.cube_value *= 2
            self.add(other, _ply(taker), action="beaver", cube=self.cube_value)
        else:
            self.add(other, _ply(taker), action="take" if take == 1 else "drop")

    def move(self, record: bytes) -> bool:
        """A move record: the roll and its play (None of XG's points: False)."""
        side: Side = "white" if _i32(record, 64) == 1 else "black"
        before = _board(record, 9)
        pairs = struct.unpack_from("<8i", record, 68)
        moves = _moves(before, pairs)
        if moves is None:
            return False
        low, high = sorted(struct.unpack_from("<2i", record, 100))
        if not 1 <= low <= high <= 6:
            return False
        decisions = [] if self.pending is None else [self.pending]
        self.pending = None
        decision = move_decision(record, before, pairs)
        if decision is not None:
            decisions.append(decision)
            self.game.levels.add(decision.level)
        analysis = PlyAnalysis(tuple(decisions)) if decisions else None
        self.add(side, analysis, dice=(high, low), moves=moves)
        return True

    def footer(self, record: bytes) -> None:
        winner, points = _i32(record, 24), _i32(record, 28)
        if points > 0 and winner in (1, -1):
            self.game.record.result = f"{points}-0" if winner == 1 else f"0-{points}"

    def finish(self) -> XgGame:
        game = self.game
        if self.start is not None and self.plies == 0:  # a set position and no ply yet
            game.record.tags[POSITION_TAG] = readable(self.start, "white")
        if game.levels:
            game.record.analyser = Analyser(ANALYSER_NAME, ", ".join(sorted(game.levels)))
        return game


def _ply(decision: Decision | None) -> PlyAnalysis | None:
    return PlyAnalysis((decision,)) if decision is not None else None


def _standard() -> tuple[int, ...]:
    board = [0] * 26
    for point, men in _START.items():
        board[point] = men
        board[25 - point] = -men
    return tuple(board)


def readable(board: tuple[int, ...], mover: Side) -> str:
    """A PositionEngine from Player 1's side as the ``[Position]`` tag's readable form."""
    white: list[str] = []
    black: list[str] = []
    for index in range(1, 25):
        if board[index] > 0:
            white.append(f"{index}:{board[index]}")
        elif board[index] < 0:
            black.append(f"{25 - index}:{-board[index]}")
    if board[25] > 0:
        white.append(f"bar:{board[25]}")
    if board[0] < 0:
        black.append(f"bar:{-board[0]}")
    white_off = 15 - sum(x for x in board if x > 0)
    black_off = 15 - sum(-x for x in board if x < 0)
    if white_off:
        white.append(f"off:{white_off}")
    if black_off:
        black.append(f"off:{black_off}")
    return f"white {' '.join(white)}; black {' '.join(black)}; {mover} to move"


def _moves(before: tuple[int, ...], pairs: tuple[int, ...]) -> tuple[Move, ...] | None:
    """A move list (``from, to`` one below the points, -1 ending it) as moves with their hits,
    found by playing them on the board before; None for a point out of the board."""
    board = list(before)
    moves: list[Move] = []
    for at in range(0, 8, 2):
        start, end = pairs[at], pairs[at + 1]
        if start == -1:
            break
        start, end = start + 1, end + 1
        if not (1 <= start <= BAR and OFF <= end < start):
            return None
        hit = 1 <= end <= 24 and board[end] == -1
        board[start] -= 1
        if 1 <= end <= 24:
            board[end] = 1 if hit else board[end] + 1
        moves.append(Move(start, end, hit=hit))
    return tuple(moves)


def move_decision(
    record: bytes, before: tuple[int, ...], played: tuple[int, ...]
) -> Decision | None:
    """XG's analysis of a move record's play: each play it weighed with its equity (best
    first), the one chosen, the loss (``ErrMove``), the roll's luck (``ErrLuck``)."""
    count = min(max(_i32(record, 124 + 64), 0), 32)
    err_move, err_luck = _f64(record, 2312), _f64(record, 2320)
    if count == 0 or err_move < _NOT_ANALYSED:
        return None
    options: list[Option] = []
    chosen: int | None = None
    wanted = _pair_set(played)
    level = ""
    for number in range(count):
        pairs = struct.unpack_from("<8b", record, 124 + 68 + 832 + 8 * number)
        moves = _moves(before, tuple(pairs))
        equity = _f32(record, 124 + 68 + 832 + 256 + 128 + 28 * number, 7)[6]
        text = " ".join(m.notation() for m in moves) if moves is not None else "?"
        options.append(Option(text or "pass", equity))
        if chosen is None and _pair_set(tuple(pairs)) == wanted:
            chosen = number
            level = level_name(
                struct.unpack_from("<h", record, 124 + 68 + 832 + 256 + 4 * number)[0]
            )
    if not level:
        level = level_name(struct.unpack_from("<h", record, 124 + 68 + 832 + 256)[0])
    luck = err_luck if err_luck > _NOT_ANALYSED else None
    return Decision("move", tuple(options), chosen, abs(err_move), luck, level)


def _pair_set(pairs: tuple[int, ...]) -> tuple[tuple[int, int], ...]:
    found = []
    for at in range(0, 8, 2):
        if pairs[at] == -1:
            break
        found.append((pairs[at], pairs[at + 1]))
    return tuple(sorted(found))


def cube_decisions(record: bytes, take: int) -> tuple[Decision | None, Decision | None]:
    """XG's analysis of a cube record: the doubler's decision (no double, double/take,
    double/pass, at XG's equities from the doubler's side, ``ErrCube`` its loss) and the
    taker's (take or pass, the same equities from the taker's side, ``ErrTake``)."""
    err_cube, err_take = _f64(record, 200), _f64(record, 216)
    no_double, double_take, double_pass = _f32(record, 152, 3)
    level = level_name(_i32(record, 92))
    doubled = _i32(record, 16) == 1
    doubler = None
    if err_cube > _NOT_ANALYSED:
        answered = 1 if take in (1, 2) else 2
        options = [
            ("no double", no_double),
            ("double, take", double_take),
            ("double, pass", double_pass),
        ]
        ranked = sorted(range(3), key=lambda i: -options[i][1])
        chosen = ranked.index(answered if doubled else 0)
        doubler = Decision(
            "cube", tuple(Option(*options[i]) for i in ranked), chosen, abs(err_cube), None, level
        )
    taker = None
    if doubled and err_take > _NOT_ANALYSED:
        answers = [("take", -double_take), ("pass", -double_pass)]
        ranked = sorted(range(2), key=lambda i: -answers[i][1])
        chosen = ranked.index(0 if take in (1, 2) else 1)
        taker = Decision(
            "cube", tuple(Option(*answers[i]) for i in ranked), chosen, abs(err_take), None, level
        )
    return doubler, taker
