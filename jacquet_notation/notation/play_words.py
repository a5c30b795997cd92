"""The words of a play read one by one, each checked: turn numbers, dice, steps, passes, cube
actions; what the reader's inner loop (:meth:`~.reader.GameReader.plays`) does not read inline."""

from __future__ import annotations

import re
from dataclasses import replace
from typing import cast

from lark import Token

from ..record import BAR, UNKNOWN_ROLL, Action, Move, Side, Span, WrittenPlay
from .messages import ErrorCollector
from .words import (
    dice_numbers,
    new_play,
    read_number,
    read_point,
    remember_dice,
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


class PlayWords(ErrorCollector):
    """The readers of a play's words, each reporting what is wrong with its word."""

    def __init__(self, text: str, first_line: int, file: str | None, index: int) -> None:
        super().__init__(text, first_line, file, index)
        #: plays may be written without dice (the record's [Dice "omitted"])
        self.dice_omitted = False

    # -- building ------------------------------------------------------------------------------

    def lone_turn_number(self, numbering: Numbering, found: str) -> None:
        """Report a turn number that no play followed: nothing written may vanish silently."""
        assert numbering.pending is not None
        token, at = numbering.pending
        numbering.pending = None
        piece = word_patterns().piece.match(str(token), at)
        written = piece.group() if piece is not None else str(token)[at:].split()[0]
        self.error(f"a play after the turn number {written}", found, *self.where(token, at))

    def piece_of_play(
        self,
        token: Token,
        piece: re.Match[str],
        at: int,
        word: str,
        moves: list[Move],
        shared: list[Move] | None,
        open_pass: bool,
    ) -> bool:
        """Whether a piece the inner loop does not read itself belongs to the open play.

        It does if it is the " + " that begins the opponent's share (Versailles), "unknown" after
        a roll ("6-3: unknown": the roll stands, its play is not given), a step with something
        wrong in it (read here, the reader says what), or the pass of "6-6: pass" (one pass only:
        in "6-6: pass pass" the second is the next play). Anything else ends the open play.
        """
        kind = piece.lastgroup
        if kind == "share":
            return shared is None
        if kind == "step":
            self.step(token, at, word, moves)
            return True
        return (kind == "unknown" or kind == "pass") and not moves and not open_pass

    def begun_play(
        self,
        token: Token,
        piece: re.Match[str],
        at: int,
        word: str,
        plays: list[WrittenPlay],
        side: Side,
        turn: int,
        span: Span,
    ) -> tuple[list[Move] | None, tuple[int, int] | None]:
        """A play begun by a piece the inner loop does not read itself: its moves so far and dice.

        A pass or a cube action is a whole ply, added to ``plays`` (no moves: None); dice not met
        before are read and checked; steps with no dice before them are let through by the
        grammar, so that the message can say what is missing.
        """
        kind = piece.lastgroup
        if kind == "pass":
            plays.append(new_play(side, turn, None, (), piece.group(), span))
            return None, None
        if kind == "cube":
            plays.append(self.cube_action(side, turn, piece.group(), span))
            return None, None
        moves: list[Move] = []
        if kind == "dice":
            return moves, self.dice(token, piece)
        if not self.dice_omitted:
            self.slip("steps-without-dice", word, *self.where(token, at))
        self.step(token, at, word, moves)
        return moves, None

    @staticmethod
    def cube_action(side: Side, turn: int, written: str, span: Span) -> WrittenPlay:
        """The ply of a cube action as written: ``double 2``, ``take``, ``drop``, ``beaver``."""
        words = written.split()
        action = cast(Action, words[0].lower())
        value = read_number(words[1]) if len(words) > 1 else None
        text = written.rstrip()
        return WrittenPlay(side, turn, None, action=action, cube=value, text=text, span=span)

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


def closed_play(
    side: Side,
    turn: int,
    dice: tuple[int, int] | None,
    moves: list[Move],
    shared: list[Move] | None,
    unknown: bool,
    text: str,
    span: Span,
) -> WrittenPlay:
    """The play the reader had open: ``moves`` are the opponent's share once ``shared`` holds
    the mover's (Versailles); ``unknown``: a roll whose play the record does not give."""
    if shared is None:
        play = new_play(side, turn, dice, tuple(moves), text, span)
    else:
        play = new_play(side, turn, dice, tuple(shared), text, span, tuple(moves))
    return replace(play, action="unknown") if unknown else play
