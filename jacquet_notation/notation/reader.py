"""Build one record from the parser's tokens, collecting every error of the game.

The tags are read by :mod:`.tags`, the errors made by :mod:`.messages`; this module reads the
plays: turn numbers, dice, steps, passes, cube actions, annotations, glyphs and variations.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, cast

from lark import Token

from ..record import BAR, UNKNOWN_ROLL, Action, GameRecord, Move, Side, Span, WrittenPlay
from .grammar import Variation
from .messages import TERMINAL_WORDS, ErrorCollector, token_at
from .tags import comment_text, read_result, read_tags
from .words import (
    DICE_WORDS,
    STEP_SHAPES,
    dice_numbers,
    new_play,
    new_tuple,
    read_number,
    read_point,
    remember_dice,
    spaced_turn_number,
    step_shape,
    turn_number_digits,
    word_patterns,
)


class Numbering:
    """Whose play comes next, and in which turn: plays alternate, turn numbers are checked."""

    __slots__ = ("free", "pending", "side", "turn")

    def __init__(self, turn: int, side: Side) -> None:
        self.turn = turn
        self.side = side
        #: a turn number that no play has followed yet (its token and offset in it), so that a
        #: number standing alone ("1." as a whole game, "2... 3.") is reported, not dropped
        self.pending: tuple[Token, int] | None = None
        #: the first turn number may be any (a game from a set position); False once read
        self.free = False

    def accepts(self) -> list[str]:
        if self.side == "white":
            return [f"{self.turn}.", f"{self.turn}..."]
        return [f"{self.turn}...", f"{self.turn + 1}.", f"{self.turn + 1}..."]


class GameReader(ErrorCollector):
    """Builds one record from the parser's flat list of tokens, collecting every error."""

    def __init__(self, text: str, first_line: int, file: str | None, index: int) -> None:
        super().__init__(text, first_line, file, index)
        #: plays may be written without dice (the record's [Dice "omitted"])
        self.dice_omitted = False

    # -- building ------------------------------------------------------------------------------

    def build(self, items: list[Any], numbering: Numbering | None = None) -> GameRecord:
        """The record of the parser's items; ``numbering``: where a resumed stretch starts."""
        record = GameRecord(file=self.file, index=self.index, text=self.text)
        position = 0
        while position < len(items):
            item = items[position]
            if not isinstance(item, Token) or item.type not in ("TAG", "COMMENT"):
                break
            if item.type == "TAG":
                read_tags(self, record, item)
            else:
                record.comments.append(comment_text(item))
            position += 1
        rest = items[position:]
        # A game from a set position may begin at any turn; its plays may leave their dice out
        # when its tags say so (docs/notation.md, "Set positions", "Plays without dice").
        self.dice_omitted = record.dice_omitted
        if numbering is None and record.starts_elsewhere:
            numbering = Numbering(1, "white")
            numbering.free = True
        result_at = next(
            (i for i, it in enumerate(rest) if isinstance(it, Token) and it.type == "RESULT"),
            len(rest),
        )
        plays: list[WrittenPlay] = []
        closing = str(rest[result_at]).strip() if result_at < len(rest) else TERMINAL_WORDS["$END"]
        numbering = numbering or Numbering(1, "white")
        record.comments.extend(self.line(rest[:result_at], numbering, plays, False, closing))
        if result_at < len(rest):
            read_result(self, record, rest[result_at])
            after = tuple(comment_text(it) for it in rest[result_at + 1 :])
            if plays and after:
                plays[-1] = replace(plays[-1], comments=plays[-1].comments + after)
            else:
                record.comments.extend(after)
        record.plays = plays
        end_line, end_column = self.end_position()
        record.span = Span(1 + self.offset, 1, end_line + self.offset, max(end_column - 1, 1))
        record.errors = self.errors
        return record

    def line(
        self,
        items: list[Any],
        numbering: Numbering,
        plays: list[WrittenPlay],
        in_variation: bool,
        closing: str,
    ) -> list[str]:
        """Read a line of play (the main line or a variation) into ``plays``.

        A comment goes with the play before it; the comments before the first play are
        returned, for the caller to place (game comments, or the variation's opening words).
        Annotations, comments and variations are rare enough that the play they follow is
        simply rebuilt with them. ``closing`` is what ends the line (a result, ")", the end of
        the game), named if a turn number is left without its play.
        """
        leading: list[str] = []
        # What the last token was, for annotations and glyphs, which the grammar lets through
        # anywhere: "play" (a play ended it), "annotation", "glyph", or "" (anything else).
        after = ""
        for item in items:
            if isinstance(item, Token):
                kind = item.type
                if kind == "TURN" or kind == "PLAY":
                    after = "play" if self.plays(item, numbering, plays, in_variation) else ""
                    continue
                if kind == "COMMENT":
                    if plays:
                        last = plays[-1]
                        plays[-1] = replace(last, comments=(*last.comments, comment_text(item)))
                    else:
                        leading.append(comment_text(item))
                elif kind == "ANNOTATION":
                    text = str(item).strip()
                    if after == "play":
                        plays[-1] = replace(plays[-1], annotation=text)
                        after = "annotation"
                        continue
                    if after:
                        self.error("the annotation right after the play", text, *token_at(item))
                    else:
                        self.error("a play before the annotation", text, *token_at(item))
                        numbering.pending = None  # that error says it
                elif kind == "NAG":
                    if not after:
                        numbering.pending = None  # the error on the glyph says it
                    self.nag(item, plays if after else None)
                    after = "glyph" if after else ""
                    continue
            else:
                if numbering.pending is not None:
                    self.lone_turn_number(numbering, "(")
                self.variation(item, plays)
            after = ""
        if numbering.pending is not None:
            if in_variation and not plays:
                numbering.pending = None  # "a play in the variation" is reported instead
            else:
                self.lone_turn_number(numbering, closing)
        return leading

    def lone_turn_number(self, numbering: Numbering, found: str) -> None:
        """Report a turn number that no play followed: nothing written may vanish silently."""
        assert numbering.pending is not None
        token, at = numbering.pending
        numbering.pending = None
        piece = word_patterns().piece.match(str(token), at)
        written = piece.group() if piece is not None else str(token)[at:].split()[0]
        self.error(f"a play after the turn number {written}", found, *self.where(token, at))

    def nag(self, token: Token, plays: list[WrittenPlay] | None) -> None:
        text = str(token).strip()
        if plays is None:
            self.error("a play before the glyph", text, *token_at(token))
            return
        value = read_number(text[1:])
        if value > 255:
            self.error("a glyph from $0 to $255", text, *token_at(token))
        plays[-1] = replace(plays[-1], nags=(*plays[-1].nags, value))

    def variation(self, variation: Variation, plays: list[WrittenPlay]) -> None:
        if not plays:
            self.error("a play before the variation", "(", *token_at(variation.opening))
            return
        replaced = plays[-1]
        alternative: list[WrittenPlay] = []
        numbering = Numbering(replaced.turn, replaced.side)
        leading = self.line(variation.items, numbering, alternative, True, ")")
        if not alternative:
            self.error("a play in the variation", ")", *token_at(variation.closing))
            return
        if leading:
            alternative[0] = replace(alternative[0], comments_before=tuple(leading))
        plays[-1] = replace(replaced, variations=(*replaced.variations, tuple(alternative)))

    def plays(
        self, token: Token, numbering: Numbering, plays: list[WrittenPlay], in_variation: bool
    ) -> bool:
        """Read the turn numbers and plays of one token; True if its last word ended a play.

        This is the reader's inner loop: a token holds every play up to the next comment,
        annotation or variation. It is split into lines, then words; the common words (dice such
        as ``6-5:``, steps such as ``24/18``, the expected turn number such as ``12.`` or
        ``12...``) are read with a dictionary look-up or one comparison, anything else by
        the piece pattern (``word_patterns().piece``) and the general code below. The open play
        and the numbering are kept in local variables rather than objects, which this loop would
        otherwise build for every play.
        """
        text = str(token)
        # "12. ..." (Black's number written apart): two words that only the piece pattern reads
        # as one.
        spaced_marks = "..." in text and spaced_turn_number(text)
        line, left = token_at(token)  # the column of offset ``at`` on the current line is at + left
        line += self.offset - 1  # the loop below adds one at every line, the first included
        # The open play: its moves (None when no play is open), side, turn, dice and start.
        moves: list[Move] | None = None
        side: Side = "white"
        turn = 0
        dice: tuple[int, int] | None = None
        begin = begin_line = begin_column = 0
        end = end_line = end_column = 0  # where the open play ends so far
        had_play = False
        open_pass = False  # the open play already has its "pass" (or its "unknown")
        # The mover's moves once a " + " has opened the opponent's share (Versailles), whose
        # steps then go to ``moves``; None while no share is open.
        shared: list[Move] | None = None
        unknown = False  # the open play is a roll whose play is not given
        search = consumed = 0
        row_start = 0
        # Whose play comes next, synchronised with ``numbering`` around the slow paths.
        next_side, next_turn = numbering.side, numbering.turn
        # The last turn number no play has followed yet: its token and offset (-1: none).
        pending_token, pending = numbering.pending or (token, -1)
        # Globals as locals: this loop runs for every word of every play.
        dice_words, step_shapes, tuple_of, play_of = DICE_WORDS, STEP_SHAPES, new_tuple, new_play
        piece_of = word_patterns().piece.match
        find = text.find
        for row in text.split("\n"):
            line += 1
            if row_start:
                left = 1 - row_start
            row_start += len(row) + 1
            for word in row.split():
                at = find(word, search)
                search = at + len(word)
                if at < consumed:
                    continue  # already read as part of the piece before ("12. ...", "6-5 :")
                rolled = dice_words.get(word)
                if rolled is None and moves is not None and word[-1] != ".":
                    shape = step_shapes.get(word)
                    if shape is None:
                        shape = step_shape(word)
                    if shape:
                        column = at + left
                        for start, stop, repeat, hit, first, last in shape:
                            span = tuple_of(Span, (line, column + first, line, column + last))
                            moves.append(tuple_of(Move, (start, stop, repeat, hit, span)))
                        end, end_line, end_column = search, line, search - 1 + left
                        continue
                    piece = piece_of(text, at)
                    assert piece is not None  # every word matches the catch-all step
                    kind = piece.lastgroup
                    if kind == "share" and shared is None:
                        # The opponent's share begins: the steps after it are the opponent's.
                        shared, moves = moves, []
                        open_pass = True
                        consumed = piece.end()
                        end, end_line, end_column = consumed, line, consumed - 1 + left
                        continue
                    if kind == "unknown" and not moves and not open_pass:
                        # "6-3: unknown": the roll stands, its play is not given
                        consumed = piece.end()
                        open_pass = unknown = True
                        end, end_line, end_column = consumed, line, consumed - 1 + left
                        continue
                    if kind == "step" or (kind == "pass" and not moves and not open_pass):
                        # A step with something wrong in it (the reader says what), or the pass
                        # of "6-6: pass": both belong to the open play (one pass only: in
                        # "6-6: pass pass" the second is the next play).
                        consumed = piece.end()
                        if kind == "step":
                            self.step(token, at, word, moves)
                        else:
                            open_pass = True
                        end, end_line, end_column = consumed, line, consumed - 1 + left
                        continue
                if moves is not None:
                    span = tuple_of(Span, (begin_line, begin_column, end_line, end_column))
                    if shared is None:
                        played = tuple(moves)
                        plays.append(play_of(side, turn, dice, played, text[begin:end], span))
                    else:
                        played = tuple(shared)
                        plays.append(
                            play_of(side, turn, dice, played, text[begin:end], span, tuple(moves))
                        )
                        shared = None
                    if unknown:
                        plays[-1] = replace(plays[-1], action="unknown")
                    moves = None
                if rolled is not None:
                    pending = -1
                    side, turn, dice = next_side, next_turn, rolled
                    begin, begin_line, begin_column = at, line, at + left
                    if next_side == "white":
                        next_side = "black"
                    else:
                        next_side = "white"
                        next_turn += 1
                    end, end_line, end_column = search, line, search - 1 + left
                    moves = []
                    open_pass = unknown = False
                    had_play = True
                    continue
                had_play = False
                if word[-1] == "." and not spaced_marks and not (in_variation and not plays):
                    # The turn number expected: nothing to check; "12..." says Black plays next.
                    if next_side == "white" and word == f"{next_turn}.":
                        if pending >= 0:
                            self.lone_turn_number_at(pending_token, pending, word)
                        pending_token, pending = token, at
                        continue
                    if word == f"{next_turn}...":
                        if pending >= 0:
                            self.lone_turn_number_at(pending_token, pending, word)
                        pending_token, pending = token, at
                        next_side = "black"
                        continue
                piece = piece_of(text, at)
                assert piece is not None
                consumed = piece.end()
                kind = piece.lastgroup
                end, end_line, end_column = consumed, line, consumed - 1 + left
                if kind == "turn":
                    if pending >= 0:
                        self.lone_turn_number_at(pending_token, pending, piece.group())
                    pending_token, pending = token, at
                    numbering.side, numbering.turn = next_side, next_turn
                    self.turn_number(token, piece, numbering, in_variation and not plays)
                    next_side, next_turn = numbering.side, numbering.turn
                    continue
                had_play = True
                pending = -1
                side, turn = next_side, next_turn
                if next_side == "white":
                    next_side = "black"
                else:
                    next_side = "white"
                    next_turn += 1
                if kind == "pass":
                    span = tuple_of(Span, (line, at + left, end_line, end_column))
                    plays.append(play_of(side, turn, None, (), text[at:end], span))
                    continue
                if kind == "cube":
                    span = tuple_of(Span, (line, at + left, end_line, end_column))
                    plays.append(self.cube_action(side, turn, piece.group(), span))
                    continue
                begin, begin_line, begin_column = at, line, at + left
                moves = []
                open_pass = unknown = False
                if kind == "dice":
                    dice = self.dice(token, piece)
                else:
                    # Steps with no dice before them: the grammar lets them through, so that the
                    # message can say what is missing.
                    if not self.dice_omitted:
                        self.slip("steps-without-dice", word, *self.where(token, at))
                    dice = None
                    self.step(token, at, word, moves)
        if moves is not None:
            span = tuple_of(Span, (begin_line, begin_column, end_line, end_column))
            if shared is None:
                plays.append(play_of(side, turn, dice, tuple(moves), text[begin:end], span))
            else:
                played, shares = tuple(shared), tuple(moves)
                plays.append(play_of(side, turn, dice, played, text[begin:end], span, shares))
            if unknown:
                plays[-1] = replace(plays[-1], action="unknown")
        numbering.side, numbering.turn = next_side, next_turn
        numbering.pending = (pending_token, pending) if pending >= 0 else None
        return had_play

    @staticmethod
    def cube_action(side: Side, turn: int, written: str, span: Span) -> WrittenPlay:
        """The ply of a cube action as written: ``double 2``, ``take``, ``drop``, ``beaver``."""
        words = written.split()
        action = cast(Action, words[0].lower())
        value = read_number(words[1]) if len(words) > 1 else None
        text = written.rstrip()
        return WrittenPlay(side, turn, None, action=action, cube=value, text=text, span=span)

    def lone_turn_number_at(self, token: Token, at: int, found: str) -> None:
        numbering = Numbering(0, "white")
        numbering.pending = (token, at)
        self.lone_turn_number(numbering, found)

    def dice(self, token: Token, piece: re.Match[str]) -> tuple[int, int] | None:
        if piece.group().startswith(UNKNOWN_ROLL):
            return None  # "?-?:": the roll not given, the replay infers it from the steps
        first, second = dice_numbers(piece.group())
        high, low = read_number(first), read_number(second)
        if not (1 <= high <= 6 and 1 <= low <= 6):
            self.slip("dice-range", piece.group().rstrip(": \t"), *self.where(token, piece.start()))
            return (high, low) if high >= low else (low, high)
        dice = (high, low) if high >= low else (low, high)
        if " " not in piece.group() and "\t" not in piece.group():
            remember_dice(piece.group(), dice)  # a word as the inner loop meets it
        return dice

    def turn_number(
        self, token: Token, piece: re.Match[str], numbering: Numbering, variation_start: bool
    ) -> None:
        digits, black = turn_number_digits(piece.group())
        number = read_number(digits)
        if numbering.free and (numbering.turn, numbering.side) == (1, "white"):
            # nothing played yet: the fragment's first number is whatever it is
            numbering.free = False
            numbering.turn, numbering.side = number, "black" if black else "white"
            return
        if (
            number == numbering.turn
            and not variation_start
            and (black or numbering.side == "white")
        ):
            numbering.side = "black" if black else "white"
            return  # the usual case, checked without building the message
        written = f"{number}..." if black else f"{number}."
        if variation_start:
            # A variation replaces the play before it: it starts with that play's number.
            accepted = [
                f"{numbering.turn}..." if numbering.side == "black" else f"{numbering.turn}."
            ]
        else:
            accepted = numbering.accepts()
        if written not in accepted:
            shown = accepted[0] if len(accepted) == 1 else ", ".join(accepted[:-1])
            if len(accepted) > 1:
                shown += " or " + accepted[-1]
            self.error(f"turn {shown}", piece.group(), *self.where(token, piece.start()))
        numbering.turn = number
        numbering.side = "black" if black else "white"

    def step(self, token: Token, start: int, text: str, moves: list[Move]) -> None:
        """Read ``24/18``, ``24/18/13``, ``13/7*(2)``, ``bar/22``, ``6/off`` into moves."""
        count = 1
        tail_hit = False
        body = text
        paren = text.find("(")
        if paren >= 0:
            close = text.index(")", paren)
            count = read_number(text[paren + 1 : close])
            tail_hit = text.endswith("*")
            body = text[:paren]
            if not 1 <= count <= 15:
                where = self.where(token, start + paren)
                self.error("a repeat count from 1 to 15", text[paren : close + 1], *where)
        parts = body.split("/")
        points: list[int] = []
        hits: list[bool] = []
        offsets: list[int] = []
        at = start
        for part in parts:
            hit = part.endswith("*")
            name = part[:-1] if hit else part
            point = read_point(name)
            if point > BAR:
                self.slip("point-range", name, *self.where(token, at))
            points.append(point)
            hits.append(hit)
            offsets.append(at)
            at += len(part) + 1
        if hits[0]:
            where = self.where(token, start + len(parts[0]) - 1)
            self.error("the hit mark * after the point landed on", body, *where)
        if tail_hit:
            hits[-1] = True
        last = len(parts) - 1
        for k in range(last):
            end = start + len(text) if k + 1 == last else offsets[k + 1] + len(parts[k + 1])
            span = self.span(token, offsets[k], end)
            moves.append(Move(points[k], points[k + 1], count, hits[k + 1], span))
