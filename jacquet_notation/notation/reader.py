"""Build one record from the parser's tokens, collecting every error of the game.

The tags are read by :mod:`.tags`, the errors made by :mod:`.messages`; this module reads the
plays: turn numbers, dice, steps, passes, cube actions, annotations, glyphs and variations.

The inner loop, :meth:`GameReader.plays`, runs for every word of a corpus: a token holds every
play up to the next comment, annotation or variation; it is split into lines, then words; the
common words (dice such as ``6-5:``, steps such as ``24/18``, the expected turn number such as
``12.`` or ``12...``) are read with a dictionary look-up or one comparison, anything else by the
piece pattern (``word_patterns().piece``) in :meth:`GameReader.other_word` and the readers of
:mod:`.play_words`. The open play and the numbering are kept in local variables rather than
objects, which the loop would otherwise build for every play.
"""

from __future__ import annotations

from typing import Any

from lark import Token

from ..record import GameRecord, Move, Side, Span, WrittenPlay
from .grammar import Variation
from .messages import TERMINAL_WORDS, token_at
from .play_words import Numbering, PlayWords, closed_play
from .tags import comment_text, read_result, read_tags
from .words import (
    DICE_WORDS,
    STEP_SHAPES,
    OpenPlay,
    new_play,
    new_tuple,
    read_number,
    replaced,
    spaced_turn_number,
    step_shape,
    word_patterns,
)

#: how the reader's open play began: its side, turn and dice, where it starts in the token's
#: text, and its line and column
Opened = tuple[Side, int, "tuple[int, int] | None", int, int, int]
_NONE_OPEN: Opened = ("white", 0, None, 0, 0, 0)


def open_play(
    opened: Opened,
    moves: list[Move],
    shared: list[Move] | None,
    unknown: bool,
    text: str,
    end: int,
    end_line: int,
    end_column: int,
) -> WrittenPlay:
    """The play the reader had open, ending at ``end`` of the token's ``text`` (at ``end_line``,
    ``end_column``): :func:`.play_words.closed_play`, the common play built at once."""
    side, turn, dice, begin, line, column = opened
    span = new_tuple(Span, (line, column, end_line, end_column))
    if shared is None and not unknown:
        return new_play(side, turn, dice, tuple(moves), text[begin:end], span)
    return closed_play(side, turn, dice, moves, shared, unknown, text[begin:end], span)


class GameReader(PlayWords):
    """Builds one record from the parser's flat list of tokens, collecting every error."""

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
                plays[-1] = replaced(plays[-1], comments=plays[-1].comments + after)
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
                        plays[-1] = replaced(last, comments=(*last.comments, comment_text(item)))
                    else:
                        leading.append(comment_text(item))
                elif kind == "ANNOTATION":
                    text = str(item).strip()
                    if after == "play":
                        plays[-1] = replaced(plays[-1], annotation=text)
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

    def nag(self, token: Token, plays: list[WrittenPlay] | None) -> None:
        text = str(token).strip()
        if plays is None:
            self.error("a play before the glyph", text, *token_at(token))
            return
        value = read_number(text[1:])
        if value > 255:
            self.error("a glyph from $0 to $255", text, *token_at(token))
        plays[-1] = replaced(plays[-1], nags=(*plays[-1].nags, value))

    def variation(self, variation: Variation, plays: list[WrittenPlay]) -> None:
        if not plays:
            self.error("a play before the variation", "(", *token_at(variation.opening))
            return
        alternated = plays[-1]
        alternative: list[WrittenPlay] = []
        numbering = Numbering(alternated.turn, alternated.side)
        leading = self.line(variation.items, numbering, alternative, True, ")")
        if not alternative:
            self.error("a play in the variation", ")", *token_at(variation.closing))
            return
        if leading:
            alternative[0] = replaced(alternative[0], comments_before=tuple(leading))
        plays[-1] = replaced(alternated, variations=(*alternated.variations, tuple(alternative)))

    def plays(
        self, token: Token, numbering: Numbering, plays: list[WrittenPlay], in_variation: bool
    ) -> bool:
        """Read the turn numbers and plays of one token; True if its last word ended a play. The
        inner loop (the module's docstring): dice, steps and the expected turn number read here,
        any other word by :meth:`word_in_play` or :meth:`other_word`."""
        text = str(token)
        # "12. ..." (Black's number written apart): two words only the piece pattern reads as one
        spaced_marks = "..." in text and spaced_turn_number(text)
        line, left = token_at(token)  # the column of offset ``at`` on the current line is at + left
        line += self.offset - 1  # the loop below adds one at every line, the first included
        moves: list[Move] | None = None  # the open play's moves (None when no play is open)
        ended: Any  # a play closed: an OpenPlay made a WrittenPlay, as words.new_play does
        opened = _NONE_OPEN  # the open play's side, turn, dice and start
        end = end_line = end_column = 0  # where the open play ends so far
        had_play = open_pass = unknown = False  # the open play has its "pass", its "unknown"
        shared: list[Move] | None = None  # the mover's moves once " + " opens the share
        search = consumed = row_start = 0
        next_side, next_turn = numbering.side, numbering.turn  # synchronised around slow paths
        dice_words, step_shapes, tuple_of, find = DICE_WORDS, STEP_SHAPES, new_tuple, text.find
        for row in text.split("\n"):
            line += 1
            if row_start:
                left = 1 - row_start
            words = row.split()
            joined = " ".join(words)
            plain = row[: len(joined)] == joined  # the usual row: offsets counted, not found
            next_at = row_start
            row_start += len(row) + 1
            for word in words:
                at = next_at if plain else find(word, search)
                search = at + len(word)
                next_at = search + 1
                if at < consumed:
                    continue  # already read as part of the piece before ("12. ...", "6-5 :")
                rolled = dice_words.get(word)
                if rolled is None and moves is not None and word[-1] != ".":
                    shape = step_shapes.get(word)
                    if shape is None:
                        shape = step_shape(word)
                    if shape:
                        column = at + left
                        for a, b, n, hit, first, last in shape:
                            # its span's four numbers are the move's last items (record.Move)
                            move = (a, b, n, hit, line, column + first, line, column + last)
                            moves.append(tuple_of(Move, move))
                        end, end_line, end_column = search, line, search - 1 + left
                        continue
                    taken = self.word_in_play(token, at, word, moves, shared, open_pass, unknown)
                    if taken is not None:
                        consumed, moves, shared, open_pass, unknown = taken
                        end, end_line, end_column = consumed, line, consumed - 1 + left
                        continue
                if moves is not None:
                    if shared is None and not unknown:  # open_play's common case, inline
                        side, turn, dice, begin, first_line, first_column = opened
                        span = tuple_of(Span, (first_line, first_column, end_line, end_column))
                        ended = OpenPlay(side, turn, dice, tuple(moves), text[begin:end], span, ())
                        ended.__class__ = WrittenPlay
                    else:
                        ended = open_play(
                            opened, moves, shared, unknown, text, end, end_line, end_column
                        )
                    plays.append(ended)
                    moves = shared = None
                if rolled is not None:
                    numbering.pending = None
                    opened = (next_side, next_turn, rolled, at, line, at + left)
                    next_turn += next_side == "black"
                    next_side = "black" if next_side == "white" else "white"
                    end, end_line, end_column = search, line, search - 1 + left
                    moves = []
                    had_play = True
                    open_pass = unknown = False
                    continue
                had_play = False
                # The turn number expected: nothing to check; "12..." says Black plays next.
                if (
                    word[-1] == "."
                    and not spaced_marks
                    and not (in_variation and not plays)
                    and self.expected_number(token, at, word, numbering, next_side, next_turn)
                ):
                    if word[-2] == ".":
                        next_side = "black"
                    continue
                numbering.side, numbering.turn = next_side, next_turn
                consumed, begun = self.other_word(
                    token, at, word, numbering, plays, in_variation and not plays, line, left
                )
                next_side, next_turn = numbering.side, numbering.turn
                end, end_line, end_column = consumed, line, consumed - 1 + left
                if begun is not None:
                    had_play = True
                    moves, opened = begun
                    open_pass = unknown = False
        if moves is not None:
            plays.append(open_play(opened, moves, shared, unknown, text, end, end_line, end_column))
        numbering.side, numbering.turn = next_side, next_turn
        return had_play

    def expected_number(
        self, token: Token, at: int, word: str, numbering: Numbering, side: str, turn: int
    ) -> bool:
        """True, and the number held as pending, if ``word`` is the turn number the play to come
        expects ("12." for White, "12..." for either): then it has nothing to check."""
        if not ((side == "white" and word == f"{turn}.") or word == f"{turn}..."):
            return False
        if numbering.pending is not None:
            self.lone_turn_number(numbering, word)
        numbering.pending = (token, at)
        return True

    def word_in_play(
        self,
        token: Token,
        at: int,
        word: str,
        moves: list[Move],
        shared: list[Move] | None,
        open_pass: bool,
        unknown: bool,
    ) -> tuple[int, list[Move], list[Move] | None, bool, bool] | None:
        """A word at ``at`` of the open play that is neither dice nor a well-formed step, if
        :meth:`piece_of_play` finds it belongs to the play (None if it ends it): where its piece
        ends, then the play's ``moves``, ``shared``, ``open_pass`` and ``unknown`` after it."""
        piece = word_patterns().piece.match(token, at)
        assert piece is not None  # every word matches the catch-all step
        if not self.piece_of_play(token, piece, at, word, moves, shared, open_pass):
            return None
        kind = piece.lastgroup
        if kind == "share":
            shared, moves = moves, []  # the steps after it are the opponent's
        return piece.end(), moves, shared, open_pass or kind != "step", unknown or kind == "unknown"

    def other_word(
        self,
        token: Token,
        at: int,
        word: str,
        numbering: Numbering,
        plays: list[WrittenPlay],
        variation_start: bool,
        line: int,
        left: int,
    ) -> tuple[int, tuple[list[Move] | None, Opened] | None]:
        """A word at ``at`` that :meth:`plays` does not read itself, with no play open: a turn
        number (checked, ``numbering`` moved on) or a word that begins a play (a pass, a cube
        action, dice not met before, steps without dice), read by :meth:`begun_play`; ``line``
        and ``left`` place it as in :meth:`plays`.

        Returns where the word's piece ends and, for a play, its moves so far (None for a whole
        ply, already added to ``plays``) and how it opened.
        """
        piece = word_patterns().piece.match(token, at)
        assert piece is not None  # every word matches the catch-all step
        consumed = piece.end()
        if piece.lastgroup == "turn":
            if numbering.pending is not None:
                self.lone_turn_number(numbering, piece.group())
            numbering.pending = (token, at)
            self.turn_number(token, piece, numbering, variation_start)
            return consumed, None
        numbering.pending = None
        side, turn = numbering.side, numbering.turn
        if side == "white":
            numbering.side = "black"
        else:
            numbering.side, numbering.turn = "white", turn + 1
        span = new_tuple(Span, (line, at + left, line, consumed - 1 + left))
        moves, dice = self.begun_play(token, piece, at, word, plays, side, turn, span)
        return consumed, (moves, (side, turn, dice, at, line, at + left))
