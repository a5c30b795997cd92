"""Read Jellyfish/GNU Backgammon match files (``.mat``) into ordinary game records.

A match file is a header (``; [Name "value"]`` lines and ``N point match``), then games, each a
``Game N`` line, a score line and numbered lines of two columns, Player 1's on the left. Each
game becomes one :class:`~jacquet_notation.record.GameRecord` with the match's tags, so that the
replay, the XML and the archive read a match as they read any record (docs/notation.md, "Match
files"). This module is the one place the syntax of a match file is written: ``decoding`` asks
it whether a stream is a match file and where its games begin; ``parsing`` hands it each game.

Layout is read from the score line: the column where the second name begins is where Player 2's
actions begin on every line below it (a play that overflows its column pushes the next action
right, never left), and the first action of a numbered line is Player 1's unless it starts there.
"""

from __future__ import annotations

import functools
import re
from typing import Literal, NamedTuple

from ..errors import NotationError
from ..record import BAR, OFF, GameRecord, Move, Side, Span, WrittenPlay
from .words import new_play

#: the ruleset every game of a match file is played under (docs/rules.md)
MAT_RULESET = "backgammon"

#: ``; [Name "value"]``: a header line of the match (names may hold spaces: ``Match ID``)
HEADER_LINE = re.compile(r'[ \t]*;[ \t]*\[[ \t]*([^"\]]*?)[ \t]+"([^"]*)"[ \t]*\][ \t]*\Z')
#: ``5 point match`` (``0 point match``: unlimited, a money session)
LENGTH_LINE = re.compile(r"[ \t]*([0-9]{1,9})[ \t]+point[ \t]+match[ \t]*\Z", re.IGNORECASE)
#: ``Game 3``: where a game begins
GAME_LINE = re.compile(r"[ \t]*Game[ \t]+([0-9]{1,9})[ \t]*\Z")
#: ``lasse : 0            yueda : 2`` (either name may be empty, either may carry ``,rating``)
SCORE_LINE = re.compile(
    r"[ \t]*(?P<n1>.*?)[ \t]?:[ \t]*(?P<s1>[0-9]{1,9})[ \t]+(?P<n2>.*?)[ \t]?(?P<c2>:)[ \t]*"
    r"(?P<s2>[0-9]{1,9})[ \t]*\Z"
)
#: a longer line is not taken for a score line (its two free names would cost quadratic time)
_LONGEST_SCORE_LINE = 1_000
_RATED = re.compile(r"(.*?)[ \t]*,[ \t]*([0-9]+(?:\.[0-9]+)?)\Z")
#: ``12)``: a numbered line
_NUMBER = re.compile(r"[ \t]*([0-9]{1,9})\)")
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

#: a header name as it stands in a record's tags: the record's own names where they mean the
#: same, else the name with each character a tag name may not hold as ``_`` (``Match_ID``)
HEADER_TAGS = {"EventDate": "Date"}
_TAG_CHARACTERS = re.compile(r"[^A-Za-z0-9_-]")
_DATE = re.compile(r"[0-9]{4}\.[0-9][0-9]\.[0-9][0-9]\Z")
#: the tags the reader makes from a game's lines rather than the header
GAME_TAGS = ("Rules", "Match", "Game", "Score", "White", "Black", "WhiteElo", "BlackElo")

Kind = Literal["ply", "wins", "losses", "number"]


def is_match_file(lines: list[str]) -> bool:
    """Whether the first lines of a text are a match file's: header lines, then its length or
    its first game. A Jacquet record never starts so (a ``;`` comment there is before tags)."""
    for line in lines:
        if not line.strip() or HEADER_LINE.match(line):
            continue
        return bool(LENGTH_LINE.match(line) or GAME_LINE.match(line))
    return False


@functools.lru_cache(maxsize=1024)
def tag_name(name: str) -> str:
    """The record's tag for a header name (``Match ID`` -> ``Match_ID``, ``EventDate`` -> Date);
    kept by name, as every match file of a source writes the same dozen names."""
    mapped = HEADER_TAGS.get(name)
    if mapped is not None:
        return mapped
    cleaned = _TAG_CHARACTERS.sub("_", name.strip())
    return cleaned if cleaned[:1].isalpha() else "Tag_" + cleaned


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


class _Piece(NamedTuple):
    """One action of a line's columns: where it starts (0-based column) and what it is."""

    column: int
    kind: Kind
    play: WrittenPlay | None = None
    points: int = 0


class _MatGame:
    """Builds one game's record from its lines, collecting every error with its place."""

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

    def pieces(self, row: int, text: str, start: int, side_of: int, turn: int) -> list[_Piece]:
        """The actions of a line from ``start``, its plies as of ``turn``.

        ``side_of`` is where Player 2's column begins: a ply starting there, or after another
        ply of the line, is Black's; the one before, White's.
        """
        quick = self.quick_pieces(row, text, start, side_of, turn)
        if quick is not None:
            return quick
        return self.scan_pieces(row, text, start, side_of, turn)

    def scan_pieces(self, row: int, text: str, start: int, side_of: int, turn: int) -> list[_Piece]:
        """:meth:`pieces` by the pattern of every piece: any line, its errors reported."""
        found: list[_Piece] = []
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
                span = _new_tuple(Span, (line, column + 1, line, end))
                play = new_play(side, turn, dice, tuple(moves), text[column:end], span)
                found.append(_Piece(column, "ply", play))
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
    ) -> _Piece:
        """The piece of a match of ``_PIECES`` whose ``kind`` is one of ``_OTHER_PIECES``: a
        cube action (a ply of ``side``), ``Wins``, ``Losses`` or a line number."""
        column = match.start(kind)
        if kind == "wins":
            return _Piece(column, "wins", points=int(match.group("wn")))
        if kind == "losses":
            return _Piece(column, "losses", points=int(match.group("ln")))
        if kind == "number":
            return _Piece(column, "number", points=int(match.group(kind)[:-1]))
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
        return _Piece(column, "ply", play)

    def quick_pieces(
        self, row: int, text: str, start: int, side_of: int, turn: int
    ) -> list[_Piece] | None:
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
        found: list[_Piece] = []
        line = self.first_line + row
        rolls = _ROLLS
        shapes = _SHAPES
        new = _new_tuple
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
                span = new(Span, (line, where + 1, line, at))
                for move in shape:
                    moves.append(new(Move, (*move, span)))
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
    ) -> _Piece:
        """The piece of one play read by :meth:`quick_pieces`, as :meth:`pieces` builds it."""
        span = _new_tuple(Span, (line, column + 1, line, end))
        play = new_play(side, turn, dice, tuple(moves), text[column:end], span)
        return _new_tuple(_Piece, (column, "ply", play, 0))

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
            span = _new_tuple(Span, (line, start + 1, line, start + len(text)))
            for move in shape:
                moves.append(_new_tuple(Move, (*move, span)))
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

    # -- the game ---------------------------------------------------------------------------

    def read(self, tags: dict[str, str], tag_spans: dict[str, Span]) -> GameRecord:
        record = GameRecord(file=self.file, index=self.index)  # its text: parse_mat_game's
        record.tags.update(tags)
        record.tag_spans.update(tag_spans)
        lines = self.lines
        game = GAME_LINE.match(lines[0]) if lines else None
        if game is None:
            self.error("a line Game N", (lines[0] if lines else "")[:30], 0, 0)
        else:
            record.tags["Game"] = str(int(game.group(1)))
            record.tag_spans["Game"] = self.span(0, 0, len(lines[0]))
        row = 1
        while row < len(lines) and not lines[row].strip():
            row += 1
        fits = row < len(lines) and len(lines[row]) <= _LONGEST_SCORE_LINE
        score = SCORE_LINE.match(lines[row]) if fits else None
        if score is None:
            found = lines[row].strip()[:30] if row < len(lines) else "the end of the game"
            self.error("a score line such as lasse : 0    yueda : 2", found, row, 0)
            return self.finish(record)
        self.score(record, score, row)
        side_of = score.start("c2") - len(score.group("n2")) - 1
        self.plays(record, row + 1, side_of)
        return self.finish(record)

    def score(self, record: GameRecord, score: re.Match[str], row: int) -> None:
        span = self.span(row, 0, len(self.lines[row]))
        for side, name_group in (("White", "n1"), ("Black", "n2")):
            name = score.group(name_group).strip()
            rated = _RATED.match(name)
            if rated is not None:
                name = rated.group(1)
                record.tags[f"{side}Elo"] = rated.group(2)
            header = "Player_1" if side == "White" else "Player_2"
            if record.tags.get(header) == name:  # the header's name says nothing more
                del record.tags[header]
                record.tag_spans.pop(header, None)
            record.tags[side] = name
            record.tag_spans[side] = span
        record.tags["Score"] = f"{int(score.group('s1'))}-{int(score.group('s2'))}"
        record.tag_spans["Score"] = span

    def plays(self, record: GameRecord, first_row: int, side_of: int) -> None:
        """The numbered lines: plies in order (turn = the line's number), then the result."""
        lines = self.lines
        plays = record.plays
        # the next ply's turn (None: any, as at first) and side
        expected_turn: int | None = None
        expected_side: Side = "white"
        number = 0  # the last line number read
        won: tuple[Side, int] | None = None
        lost: tuple[Side, int, int] | None = None  # side, points, row
        # Player 2's column begins at side_of; a second ply is Player 2's however far the first
        # pushed it. Where "Losses" stands says nothing (Galaxy writes it in either column): the
        # winner is the side of "Wins".
        right_from = side_of - 3
        for row in range(first_row, len(lines)):
            text = lines[row]
            if not text.strip():
                continue
            numbered = _NUMBER.match(text)
            start = numbered.end() if numbered else 0
            if numbered is not None:
                written = int(numbered.group(1))
                if written != number + 1:
                    self.error(f"the line number {number + 1})", numbered.group().strip(), row, 0)
                    expected_turn = None  # said once: the plays go on from the number written
                number = written
            on_line = 0  # the plies of this line so far
            for column, kind, play, points in self.pieces(row, text, start, side_of, number):
                if kind != "ply":
                    if kind == "number":
                        if points != number:  # Galaxy repeats a line's number inside it
                            self.error(
                                f"the line's number {number})", _found(text, column), row, column
                            )
                        continue
                    if won is not None or (lost is not None and kind != "wins"):
                        self.error(
                            "nothing after the end of the game", _found(text, column), row, column
                        )
                        return
                    if kind == "wins":
                        won = ("black" if column >= right_from else "white", points)
                    else:
                        lost = ("white", points, row)
                    continue
                if won is not None or lost is not None:
                    self.error(
                        "nothing after the end of the game", _found(text, column), row, column
                    )
                    return
                side: Side = "black" if on_line or column >= right_from else "white"
                on_line += 1
                if on_line > 2:
                    self.error("at most two plays on a line", _found(text, column), row, column)
                    break
                assert play is not None
                if numbered is None:
                    self.error("a line number before the play, such as 3)", play.text, row, column)
                    continue
                if expected_turn is None:
                    expected_turn, expected_side = number, side
                elif number != expected_turn or side != expected_side:
                    who = "Player 1's (left)" if expected_side == "white" else "Player 2's (right)"
                    self.error(f"{who} play of line {expected_turn})", play.text, row, column)
                plays.append(play)
                if side == "white":
                    expected_turn, expected_side = number, "black"
                else:
                    expected_turn, expected_side = number + 1, "white"
        if won is None:
            if lost is not None:
                self.error("Wins N points beside Losses", "the end of the game", lost[2], 0)
            return
        if lost is not None and lost[1] != won[1]:
            self.error(f"Losses {won[1]} point, as many as won", f"Losses {lost[1]}", lost[2], 0)
        side, points = won
        record.result = f"{points}-0" if side == "white" else f"0-{points}"

    def finish(self, record: GameRecord) -> GameRecord:
        first = self.first_line
        last = first + max(len(self.lines) - 1, 0)
        record.span = Span(first, 1, last, max(len(self.lines[-1]) if self.lines else 1, 1))
        record.errors = self.errors
        return record


_new_tuple = tuple.__new__  # a NamedTuple built without its Python-level __new__
#: the dice of every well-formed roll word, high first: ``53:`` and ``35:`` are ``(5, 3)``
_ROLLS = {f"{a}{b}:": (max(a, b), min(a, b)) for a in range(1, 7) for b in range(1, 7)}
#: the moves of each well-formed move word met so far (start, end, count, hit); () for a word
#: with something wrong in it, which :meth:`_MatGame.bad_move` then reports
_SHAPES: dict[str, tuple[tuple[int, int, int, bool], ...]] = {}


def _found(text: str, column: int) -> str:
    """What an error at ``column`` of a line found (worked out only once an error is told)."""
    return text[column:][:30].strip()


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


def read_header(
    preamble: str, file: str | None, index: int
) -> tuple[dict[str, str], dict[str, Span], list[NotationError]]:
    """The match's tags from its header lines (line 1 on): every ``; [Name "value"]`` kept, the
    length as ``Match`` (none for 0, unlimited), ``Rules`` the backgammon ruleset."""
    tags: dict[str, str] = {"Rules": MAT_RULESET}
    spans: dict[str, Span] = {}
    errors: list[NotationError] = []
    for number, line in enumerate(preamble.split("\n"), 1):
        if not line.strip():
            continue
        header = HEADER_LINE.match(line)
        if header is not None:
            name = tag_name(header.group(1))
            value = header.group(2)
            if name == "Date" and not _DATE.match(value):
                name = "EventDate"
            tags.setdefault(name, value)
            if name not in spans:
                spans[name] = _new_tuple(Span, (number, 1, number, len(line)))
            continue
        length = LENGTH_LINE.match(line)
        if length is not None:
            if int(length.group(1)) > 0:
                tags["Match"] = str(int(length.group(1)))
                spans["Match"] = Span(number, 1, number, len(line))
            continue
        if index == 1:  # the header's errors are told once, with the first game
            caret = (
                "    "
                + "".join(
                    "\t" if c == "\t" else " " for c in line[: len(line) - len(line.lstrip())]
                )
                + "^"
            )
            errors.append(
                NotationError(
                    f'expected a header line such as ; [Site "x"] or 5 point match, found'
                    f" {line.strip()[:30]}\n    {line}\n{caret}",
                    file=file,
                    game=index,
                    line=number,
                    column=len(line) - len(line.lstrip()) + 1,
                )
            )
    return tags, spans, errors


#: the tags and spans of the last header read, by its text: every game of a match file has the
#: same header, read once (the reader copies them into each record, never changes them)
_LAST_HEADER: dict[str, tuple[dict[str, str], dict[str, Span]]] = {}


def parse_mat_game(
    text: str, first_line: int, file: str | None, index: int, preamble: str
) -> GameRecord:
    """The record of one game of a match file (its lines from ``Game N`` on, starting at
    ``first_line`` of the file), with the match's tags from ``preamble``, the header's lines.

    The record's text is the header, then the game's lines (its span starts at line 1), and its
    ``gap`` the lines of the file between them that it leaves out (the earlier games): read
    again alone with that gap (the archive's rebuild, fmt's copy of a game with errors), it is
    the same game of a match file, at the same lines.
    """
    cached = _LAST_HEADER.get(preamble) if index > 1 else None
    if cached is None:
        tags, spans, header_errors = read_header(preamble, file, index)
        _LAST_HEADER.clear()  # one match's header: its games come one after another
        _LAST_HEADER[preamble] = (tags, spans)
    else:  # the header's errors are told with game 1 only, so a later game has none
        tags, spans, header_errors = cached[0], cached[1], []
    reader = _MatGame(file, index, first_line, text.split("\n"))
    reader.errors.extend(header_errors)
    return with_text(reader.read(tags, spans), text, first_line, preamble)


def with_text(record: GameRecord, text: str, first_line: int, preamble: str) -> GameRecord:
    """``record`` given its text: the header then the game's ``text`` (from ``first_line`` of
    the file), the lines between left out as its ``gap``, its span from line 1."""
    if preamble:
        rows = preamble.count("\n") + 1
        record.text = preamble + "\n" + text
        record.gap = (rows, max(first_line - 1 - rows, 0))
        record.span = record.span._replace(line=1, column=1)
    else:
        record.text = text
    return record
