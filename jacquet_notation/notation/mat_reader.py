"""Read Jellyfish/GNU Backgammon match files (``.mat``) into ordinary game records.

A match file is a header (``; [Name "value"]`` lines and ``N point match``), then games, each a
``Game N`` line, a score line and numbered lines of two columns, Player 1's on the left. Each
game becomes one :class:`~jacquet_notation.record.GameRecord` with the match's tags, so that the
replay, the XML and the archive read a match as they read any record (docs/notation.md, "Match
files"). ``decoding`` cuts a match file into games (by :mod:`.mat_header`'s lines); ``parsing``
hands each game here; :mod:`.mat_pieces` reads each line's pieces.

Layout is read from the score line: the column where the second name begins is where Player 2's
actions begin on every line below it (a play that overflows its column pushes the next action
right, never left), and the first action of a numbered line is Player 1's unless it starts there.
"""

from __future__ import annotations

import re

from ..record import GameRecord, Side, Span
from .mat_header import GAME_LINE, match_header
from .mat_pieces import LineReader

#: ``lasse : 0            yueda : 2`` (either name may be empty, either may carry ``,rating``)
SCORE_LINE = re.compile(
    r"[ \t]*(?P<n1>.*?)[ \t]?:[ \t]*(?P<s1>[0-9]{1,9})[ \t]+(?P<n2>.*?)[ \t]?(?P<c2>:)[ \t]*"
    r"(?P<s2>[0-9]{1,9})[ \t]*\Z"
)
#: a longer line is not taken for a score line (its two free names would cost quadratic time)
_LONGEST_SCORE_LINE = 1_000
_RATED = re.compile(r"(.*?)[ \t]*,[ \t]*([0-9]+(?:\.[0-9]+)?)\Z")
#: ``12)``: a numbered line
MOVE_NUMBER = re.compile(r"[ \t]*([0-9]{1,9})\)")


class MatGame(LineReader):
    """Builds one game's record from its lines, collecting every error with its place."""

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
            numbered = MOVE_NUMBER.match(text)
            start = numbered.end() if numbered else 0
            if numbered is not None:
                written = int(numbered.group(1))
                if written != number + 1:
                    self.error(f"the line number {number + 1})", numbered.group().strip(), row, 0)
                    expected_turn = None  # said once: the plays go on from the number written
                number = written
            on_line = 0  # the plies of this line so far
            pieces = self.quick_pieces(row, text, start, side_of, number)  # self.pieces, inline
            if pieces is None:
                pieces = self.scan_pieces(row, text, start, side_of, number)
            for column, kind, play, points in pieces:
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


def _found(text: str, column: int) -> str:
    """What an error at ``column`` of a line found (worked out only once an error is told)."""
    return text[column:][:30].strip()


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
    tags, spans, header_errors = match_header(preamble, file, index)
    reader = MatGame(file, index, first_line, text.split("\n"))
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
