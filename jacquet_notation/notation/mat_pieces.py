"""The pieces of a match file's numbered line: rolls, moves, cube actions, ``Wins``, the
dialects' words (gnubg's, Jellyfish's, Galaxy's, Snowie's), each read to a play or reported.

:class:`LineReader` reads one line's columns, quickly where the line holds no error, by the
pattern of every piece otherwise; :class:`~.mat_reader.MatGame` builds on it a game's record.
"""

from __future__ import annotations

import re
from typing import Literal, NamedTuple

from ..errors import NotationError
from ..record import BAR, OFF, Move, Side, Span, WrittenPlay
from .words import new_play, new_tuple

#: the pieces of a line's columns, in the order tried, each with the spaces before it (so that
#: a scan does not try every alternative at every space of a column's padding)
_PIECES = re.compile(
    r"[ \t]*(?:(?P<noroll>00:(?:[ \t]*\?+)?)"
    r"|(?P<roll>[0-9]{2}:)"
    r"|(?P<move>(?:[0-9]{1,2}|bar|off)\*?/\S*)"
    r"|(?P<double>Doubles[ \t]*=>[ \t]*(?P<dv>[0-9]{1,9}))"
    r"|(?P<beaver>Beavers(?:[ \t]*=>[ \t]*(?P<bv>[0-9]{1,9}))?)"
    r"|(?P<take>Takes)"
    r"|(?P<drop>Drops)"
    r"|(?P<wins>Wins[ \t]+(?P<wn>[0-9]{1,9})[ \t]+points?(?P<match>[ \t]+and[ \t]+the[ \t]+match)?)"
    r"|(?P<losses>Losses[ \t]+(?P<ln>[0-9]{1,9})[ \t]+points?)"
    r"|(?P<cannot>Cannot[ \t]+Move)"
    r"|(?P<unknown>\?+)"
    r"|(?P<concede>Concedes)"
    r"|(?P<illegal>Illegal[ \t]+play\b[^)]*\)?)"
    r"|(?P<number>[0-9]{1,9}\))"
    r"|(?P<other>\S+))",
    re.IGNORECASE,
)
#: a move as written: ``24/18``, ``25/20``, ``bar/20``, ``6/0``, ``6/off``, ``24/16*``,
#: ``8/4*(2)``, ``24/18/13`` (a chain)
_POINT = r"(?:[0-9]{1,2}|bar|off)"
MOVE_WORD = re.compile(rf"{_POINT}\*?(?:/{_POINT}\*?)+(?:\((?P<count>[0-9]{{1,2}})\)\*?)?\Z", re.I)
_NAMED = {"bar": BAR, "off": OFF}

Kind = Literal["ply", "wins", "losses", "number"]

#: the pieces that belong to the roll before them (anything unknown is a move, refused as one)
_IN_A_PLAY = frozenset(("move", "other", "cannot", "unknown", "concede", "illegal"))
#: the pieces read as gnubg reads them, as nothing: ``00: ????`` (resigned before rolling),
#: ``????`` without dice, ``Concedes`` (the ``Wins`` after it is the resignation)
_NOTHING = frozenset(("noroll", "unknown", "concede"))
#: the pieces that stand alone (any other is an error where a roll's play cannot hold it)
_OTHER_PIECES = frozenset(("double", "beaver", "take", "drop", "wins", "losses", "number"))
#: the pieces besides rolls and moves that the quick path reads: none can be an error there
#: but "Cannot Move", which it checks (a line number inside a line is Galaxy's, rare)
_QUICK_PIECES = frozenset(("double", "beaver", "take", "drop", "wins", "losses", "cannot"))


class Piece(NamedTuple):
    """One action of a line's columns: where it starts (0-based column) and what it is."""

    column: int
    kind: Kind
    play: WrittenPlay | None = None
    points: int = 0


class LineReader:
    """Reads the pieces of one game's lines, collecting every error with its place."""

    def __init__(self, file: str | None, index: int, first_line: int, lines: list[str]) -> None:
        self.file = file
        self.index = index
        self.first_line = first_line
        self.lines = lines
        self.errors: list[NotationError] = []

    def error(self, expected: str, found: str, row: int, column: int) -> None:
        """``expected <what>, found <what>`` at a row of the game and a column (both 0-based)."""
        source = self.lines[row] if 0 <= row < len(self.lines) else ""
        caret = "".join("\t" if c == "\t" else " " for c in source[:column]) + "^"
        self.errors.append(
            NotationError(
                f"expected {expected}, found {found}\n    {source}\n    {caret}",
                file=self.file,
                game=self.index,
                line=self.first_line + row,
                column=column + 1,
            )
        )

    def span(self, row: int, start: int, end: int) -> Span:
        line = self.first_line + row
        return Span(line, start + 1, line, max(end, start + 1))

    # -- a line's pieces -----------------------------------------------------------------

    def pieces(self, row: int, text: str, start: int, side_of: int, turn: int) -> list[Piece]:
        """The actions of a line from ``start``, its plies as of ``turn``.

        ``side_of`` is where Player 2's column begins: a ply starting there, or after another
        ply of the line, is Black's; the one before, White's.
        """
        quick = self.quick_pieces(row, text, start, side_of, turn)
        if quick is not None:
            return quick
        return self.scan_pieces(row, text, start, side_of, turn)

    def scan_pieces(self, row: int, text: str, start: int, side_of: int, turn: int) -> list[Piece]:
        """:meth:`pieces` by the pattern of every piece: any line, its errors reported."""
        found: list[Piece] = []
        matches = list(_PIECES.finditer(text, start))
        at = 0
        line = self.first_line + row
        plies = 0
        while at < len(matches):
            match = matches[at]
            kind = match.lastgroup or "move"  # every piece is one group
            at += 1
            column = match.start(kind)  # after the spaces before it
            side: Side = "black" if plies or column >= side_of - 3 else "white"
            if kind in _NOTHING:
                continue
            if kind == "roll":
                plies += 1
                moves: list[Move] = []
                end = match.end()
                ending = "pass"
                seen = False  # the ``????`` after the roll
                while at < len(matches) and matches[at].lastgroup in _IN_A_PLAY:
                    word = matches[at]
                    at += 1
                    which = word.lastgroup or "move"
                    if which == "concede":
                        break  # the play ends: the roll's, its moves (if any) as written
                    if which == "illegal":
                        self.error(
                            "a play, not Snowie's Illegal play (the position an illegal play led"
                            " to, which gnubg sets the board to: a board set mid-game has no"
                            " place in a record, so the game is refused)",
                            word.group(which)[:30],
                            row,
                            word.start(which),
                        )
                        continue
                    if which == "unknown" and not moves and ending == "pass" and not seen:
                        seen = True  # ``43: ????``: gnubg reads the roll as if bare
                        continue  # (and so does the play's text: ``43:``)
                    end = word.end()
                    if (which == "move" or which == "other") and ending == "pass":
                        self.moves(row, word.start(which), word.group(which), moves)
                    elif ending == "cannot" and which in ("move", "other"):
                        found_word = word.group(which)[:30]
                        self.error("nothing after Cannot Move", found_word, row, word.start(which))
                    elif moves or ending != "pass" or which == "unknown":
                        found_word = word.group(which)
                        self.error("a move such as 24/18", found_word, row, word.start(which))
                    else:
                        ending = "cannot"
                rolled = match.group(kind)
                dice = _ROLLS.get(rolled)
                if dice is None:
                    dice = self.dice(row, column, rolled)
                span = new_tuple(Span, (line, column + 1, line, end))
                play = new_play(side, turn, dice, tuple(moves), text[column:end], span)
                found.append(Piece(column, "ply", play))
            elif kind in _OTHER_PIECES:
                piece = self.other_piece(row, match, kind, side, turn)
                if piece.kind == "ply":
                    plies += 1
                found.append(piece)
            else:
                expected = "dice such as 53:, Doubles => 2, Takes, Drops or Wins 1 point"
                self.error(expected, match.group(kind)[:30], row, column)
        return found

    def other_piece(
        self, row: int, match: re.Match[str], kind: str, side: Side, turn: int
    ) -> Piece:
        """The piece of a match of ``_PIECES`` whose ``kind`` is one of ``_OTHER_PIECES``: a
        cube action (a ply of ``side``), ``Wins``, ``Losses`` or a line number."""
        column = match.start(kind)
        if kind == "wins":
            return Piece(column, "wins", points=int(match.group("wn")))
        if kind == "losses":
            return Piece(column, "losses", points=int(match.group("ln")))
        if kind == "number":
            return Piece(column, "number", points=int(match.group(kind)[:-1]))
        value = match.group("dv") if kind == "double" else match.group("bv")
        play = WrittenPlay(
            side,
            turn,
            None,
            action=kind,  # type: ignore[arg-type]  # one of the four, by the group
            cube=int(value) if value else None,
            text=match.group(kind),
            span=self.span(row, column, match.end()),
        )
        return Piece(column, "ply", play)

    def quick_pieces(
        self, row: int, text: str, start: int, side_of: int, turn: int
    ) -> list[Piece] | None:
        """The pieces of a line that holds no error (nearly every line: ``12) 53: 8/3 6/3
        64: 24/18 13/9``, ``9) 41: 9/5 7/6   Doubles => 2``), as :meth:`pieces` would read
        them; None for any other line, which :meth:`pieces` then scans in full.

        Words split at whitespace, as the scan skips it; a roll of ``_ROLLS`` or a move word
        whose shape ``_shape`` accepts is read inline, so that neither can be read as anything
        else. Any other word is matched by the pattern of every piece where it stands, as the
        scan would match it there (the words before it being rolls and moves, each read to its
        end), and taken when it is a cube action, ``Wins``, ``Losses`` or ``Cannot Move`` in its
        place that ends at the end of a word: so no error can arise. This skips the scan of the
        whole line, which most of the reading time went to (bench/mat.py).
        """
        found: list[Piece] = []
        line = self.first_line + row
        rolls = _ROLLS
        shapes = _SHAPES
        new = new_tuple
        at = start
        column = -1  # where the roll of the play being read starts (-1: none yet)
        side: Side = "white"
        dice: tuple[int, int] = (0, 0)
        moves: list[Move] = []
        end = 0
        plies = 0  # the plies of the line so far (its rolls and cube actions)
        cannot = False  # whether the play being read says "Cannot Move"
        words = iter(text[start:].split())
        for word in words:
            where = text.find(word, at)
            at = where + len(word)
            rolled = rolls.get(word)
            if rolled is not None:
                if column >= 0:
                    found.append(self.quick_play(line, text, column, end, side, turn, dice, moves))
                side = "black" if plies or where >= side_of - 3 else "white"
                plies += 1
                column, dice, moves, end, cannot = where, rolled, [], at, False
                continue
            shape = shapes.get(word)
            if shape is None:
                shape = _shape(word)
            if shape:
                if column < 0 or cannot:
                    return None  # (after "Cannot Move": the scan's error)
                for move in shape:  # the span's four numbers are the move's last items
                    moves.append(new(Move, (*move, line, where + 1, line, at)))
                end = at
                continue
            match = _PIECES.match(text, where)  # never None: "other" takes any word
            if match is None or match.lastgroup not in _QUICK_PIECES:
                return None
            kind, last = match.lastgroup, match.end()
            if last < len(text) and not text[last].isspace():
                return None  # the piece ends inside a word, whose rest the scan reads apart
            for _ in range(len(text[where:last].split()) - 1):
                next(words)  # the piece's other words (spaces or tabs apart, by the pattern)
            at = last
            if kind == "cannot":
                if column < 0 or moves or cannot:
                    return None  # the scan's error: "expected a move such as 24/18"
                cannot, end = True, last
                continue
            if column >= 0:
                found.append(self.quick_play(line, text, column, end, side, turn, dice, moves))
                column = -1
            side = "black" if plies or where >= side_of - 3 else "white"
            piece = self.other_piece(row, match, kind, side, turn)
            if piece.kind == "ply":
                plies += 1
            found.append(piece)
        if column >= 0:
            found.append(self.quick_play(line, text, column, end, side, turn, dice, moves))
        return found

    @staticmethod
    def quick_play(
        line: int,
        text: str,
        column: int,
        end: int,
        side: Side,
        turn: int,
        dice: tuple[int, int],
        moves: list[Move],
    ) -> Piece:
        """The piece of one play read by :meth:`quick_pieces`, as :meth:`pieces` builds it."""
        span = new_tuple(Span, (line, column + 1, line, end))
        play = new_play(side, turn, dice, tuple(moves), text[column:end], span)
        return new_tuple(Piece, (column, "ply", play, 0))

    def dice(self, row: int, column: int, rolled: str) -> tuple[int, int]:
        """The dice of a roll word that is not two dice from 1 to 6 (an error, reported)."""
        first, second = int(rolled[0]), int(rolled[1])
        self.error("dice from 1 to 6, such as 53:", rolled, row, column)
        return (first, second) if first >= second else (second, first)

    def moves(self, row: int, start: int, text: str, moves: list[Move]) -> None:
        """``24/18``, ``bar/20``, ``6/0``, ``24/18/13``, ``8/4*(2)`` (at ``start``) into moves."""
        shape = _SHAPES.get(text)
        if shape is None:
            shape = _shape(text)
        if shape:
            line = self.first_line + row
            for move in shape:  # the span's four numbers are the move's last items
                moves.append(new_tuple(Move, (*move, line, start + 1, line, start + len(text))))
            return
        self.bad_move(row, start, text, moves)

    def bad_move(self, row: int, start: int, text: str, moves: list[Move]) -> None:
        """A move word with something wrong in it: each error reported, what can be read kept."""
        shape = MOVE_WORD.match(text)
        if shape is None:
            self.error("a move such as 24/18, bar/20 or 6/off", text[:30], row, start)
            return
        count = int(shape.group("count")) if shape.group("count") else 1
        body = text[: text.index("(")] if "(" in text else text
        tail_hit = "(" in text and text.endswith("*")
        parts = body.split("/")
        points = []
        for part in parts:
            name = part.rstrip("*")
            point = _point(name)
            if point > BAR:
                self.error("a point from 0 (off) to 25 (bar)", name, row, start)
            points.append((point, part.endswith("*")))
        if points[0][1]:
            self.error("the hit mark * after the point landed on", text, row, start)
        if not 1 <= count <= 15:
            self.error("a repeat count from 1 to 15", f"({count})", row, start)
        span = self.span(row, start, start + len(text))
        for k in range(len(points) - 1):
            hit = points[k + 1][1] or (tail_hit and k == len(points) - 2)
            moves.append(Move(points[k][0], points[k + 1][0], count, hit, span))


#: the dice of every well-formed roll word, high first: ``53:`` and ``35:`` are ``(5, 3)``
_ROLLS = {f"{a}{b}:": (max(a, b), min(a, b)) for a in range(1, 7) for b in range(1, 7)}
#: the moves of each well-formed move word met so far (start, end, count, hit); () for a word
#: with something wrong in it, which :meth:`LineReader.bad_move` then reports
_SHAPES: dict[str, tuple[tuple[int, int, int, bool], ...]] = {}


def _point(name: str) -> int:
    """A point as a match file writes it: a number, ``bar`` or ``off``."""
    named = _NAMED.get(name.lower())
    return int(name) if named is None else named


def _shape(text: str) -> tuple[tuple[int, int, int, bool], ...]:
    """The moves of a move word, remembered (a match uses few distinct words), bounded."""
    shape: tuple[tuple[int, int, int, bool], ...] = ()
    match = MOVE_WORD.match(text)
    if match is not None:
        count = int(match.group("count")) if match.group("count") else 1
        body = text[: text.index("(")] if "(" in text else text
        parts = body.split("/")
        points = [(_point(part.rstrip("*")), part.endswith("*")) for part in parts]
        tail_hit = "(" in text and text.endswith("*")
        if 1 <= count <= 15 and not points[0][1] and all(p <= BAR for p, _ in points):
            shape = tuple(
                (
                    points[k][0],
                    points[k + 1][0],
                    count,
                    points[k + 1][1] or (tail_hit and k == len(points) - 2),
                )
                for k in range(len(points) - 1)
            )
    if len(_SHAPES) < 10_000:
        _SHAPES[text] = shape
    return shape
