"""Game records as written: tags, plays and steps, with where each was found in the text.

This layer knows no rule of the game. A :class:`Move` is one ``a/b`` as a transcriber wrote it,
which the replay (``replay/``) later checks against the dice and the position. Spans, the
original text, the file and the index are kept so that any later error can point at the text;
they take no part in equality, so that a record parsed from its canonical form equals the record
it was written from.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Literal, NamedTuple

# the board's words are board_terms'; offered here too, as the record layer's contract says
from .board_terms import BAR as BAR
from .board_terms import OFF as OFF
from .board_terms import Side as Side
from .board_terms import move_text
from .board_terms import point_name as point_name

if TYPE_CHECKING:
    from .analysis import Analyser, PlyAnalysis
    from .errors import NotationError


class Span(NamedTuple):
    """Where something was written: 1-based line and column of its first and last character."""

    line: int
    column: int
    end_line: int
    end_column: int


#: the span of something that was not read from a text (a record built in code)
NO_SPAN = Span(0, 0, 0, 0)


#: ``MOVE_TEXTS[hit][start][end]``: the text of a single move between two points (0 to 25),
#: ``24/18``, ``bar/22``, ``13/7*``: looked up by the canonical writer and by the archive's rows
MOVE_TEXTS = [
    [[move_text(a, b, bool(hit)) for b in range(BAR + 1)] for a in range(BAR + 1)] for hit in (0, 1)
]


class _MoveFields(NamedTuple):
    """A :class:`Move`'s items: its span is kept as four numbers, not a tuple of its own."""

    start: int
    end: int
    count: int = 1  # type: ignore[assignment]  # shadows tuple.count, on purpose
    hit: bool = False
    line: int = 0
    column: int = 0
    end_line: int = 0
    end_column: int = 0


class Move(_MoveFields):
    """One ``a/b`` as written, in the mover's numbering (25 = bar, 0 = off).

    A chain ``24/18/13`` is read as two moves, ``24/18`` and ``18/13``; ``13/7(2)`` is one move with
    ``count=2``; a combined ``24/13`` stays one move, whose intermediate point only the replay,
    knowing the dice, can work out.

    A tuple rather than a dataclass because a corpus holds millions of them and a tuple is built
    four times faster; its span's four numbers are items of the move itself (``line`` to
    ``end_column``), so that a reader builds one tuple a move rather than two, and :attr:`span`
    spells them as a :class:`Span` when asked. Equality and hashing leave the span out, as for
    every record value.
    """

    __slots__ = ()

    def __new__(
        cls, start: int, end: int, count: int = 1, hit: bool = False, span: Span = NO_SPAN
    ) -> Move:
        return tuple.__new__(cls, (start, end, count, hit, *span))

    def __getnewargs__(self) -> tuple[int, int, int, bool, Span]:
        # pickled (a batch crossing to the writer) and copied as __new__ takes it
        return (self[0], self[1], self[2], self[3], self.span)

    @property
    def span(self) -> Span:
        """Where the move was written."""
        return tuple.__new__(Span, self[4:])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self[:4] == other[:4]

    def __ne__(self, other: object) -> bool:
        if not isinstance(other, Move):
            return NotImplemented
        return self[:4] != other[:4]

    def __hash__(self) -> int:
        return hash(self[:4])

    def __repr__(self) -> str:
        return f"Move({self.start}, {self.end}, count={self.count}, hit={self.hit})"

    def notation(self) -> str:
        """The canonical text: ``13/7``, ``bar/22``, ``6/off``, ``13/7*``, ``13/7(2)``."""
        start, end = self.start, self.end
        if self.count == 1 and 0 <= start <= BAR and 0 <= end <= BAR:
            # the common case, looked up: the canonical writer spells every move of a corpus
            return MOVE_TEXTS[1 if self.hit else 0][start][end]
        return move_text(start, end, self.hit, self.count)


#: what a ply is when it is not a play of men: the cube's actions, or a roll whose play is unknown
Action = Literal["double", "take", "drop", "beaver", "unknown"]
#: the actions, in the order the record's words are listed (docs/notation.md)
ACTIONS: tuple[Action, ...] = ("double", "take", "drop", "beaver", "unknown")


@dataclass(frozen=True, slots=True)
class WrittenPlay:
    """One player's play of one turn as written: the dice and the moves, a pass, or an action.

    ``dice`` are kept high first (the order of two dice carries no meaning) and are ``None`` for
    a pass written without them and for a cube action. ``variations`` are the alternatives an
    annotator gave to this play, each a line of plays starting with the same side and turn.

    ``action`` is what the ply is when it moves no man by a play of its dice: a cube action
    (``double``, ``take``, ``drop``, ``beaver``: no dice, no moves; ``cube`` the value a
    ``double`` or ``beaver`` states, as written) or ``unknown``, a roll whose play the record
    does not give (a .mat file's ``63: ????``, the last roll of a game ended by time or
    resignation): dice, no moves. The record keeps them as written; the replay judges them.

    ``opponent_moves`` is the opponent's share of the dice under "every die is used" (Jacquet de
    Versailles, docs/rules.md): the dice the mover could not use, played by the opponent in the
    same turn, written after `` + `` and kept in the opponent's own numbering, as written.
    """

    side: Side
    turn: int
    dice: tuple[int, int] | None
    moves: tuple[Move, ...] = ()
    annotation: str | None = None
    nags: tuple[int, ...] = ()
    comments: tuple[str, ...] = ()
    comments_before: tuple[str, ...] = ()
    variations: tuple[tuple[WrittenPlay, ...], ...] = ()
    opponent_moves: tuple[Move, ...] = ()
    text: str = field(default="", compare=False, repr=False)
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    action: Action | None = None
    cube: int | None = None
    #: what an analyser wrote of this ply (gnubg's SGF, an ``.xg`` file), if any (analysis.py)
    analysis: PlyAnalysis | None = field(default=None, compare=False, repr=False)

    @property
    def is_pass(self) -> bool:
        """True when none of the mover's men moves by a known play: ``6-6: pass``, ``6-6: --``,
        ``6-6:``, ``pass``, ``6-1: + 24/18``.

        A cube action or an ``unknown`` roll is not a pass.
        """
        return not self.moves and self.action is None

    @property
    def is_cube_action(self) -> bool:
        """True for ``double``, ``take``, ``drop`` and ``beaver``: a ply of the cube, not of men."""
        return self.action is not None and self.action != "unknown"

    @property
    def cube_words(self) -> str:
        """A cube action as written canonically (``double 2``, ``take``); empty for a play."""
        if not self.is_cube_action:
            return ""
        return f"{self.action} {self.cube}" if self.cube is not None else str(self.action)

    @property
    def is_bare_roll(self) -> bool:
        """True for a roll written with nothing after it (``6-5:``): no step, no pass word.

        The record cannot tell a forgotten play from a pass (``6-6:`` where 6-6 cannot be
        played); the replay can, and names the forgotten one "missing" (docs/notation.md). The
        canonical writer keeps it bare, so that writing a record never turns one into the other.
        """
        return (
            self.dice is not None
            and not self.moves
            and not self.opponent_moves
            and self.action is None
            and self.text.endswith(":")
        )

    @property
    def has_share(self) -> bool:
        """True when the opponent played a share of the dice (`` + `` in the record)."""
        return bool(self.opponent_moves)

    @property
    def is_double(self) -> bool:
        """True for a double throw (``4-4``)."""
        return self.dice is not None and self.dice[0] == self.dice[1]

    def moves_as_pairs(self) -> list[tuple[int, int]]:
        """The moves as ``(start, end)`` pairs, a repeated move repeated: what the engine checks."""
        return _pairs(self.moves)

    def opponent_moves_as_pairs(self) -> list[tuple[int, int]]:
        """The opponent's share as ``(start, end)`` pairs, in the opponent's numbering."""
        return _pairs(self.opponent_moves) if self.opponent_moves else []


def _pairs(moves: tuple[Move, ...]) -> list[tuple[int, int]]:
    # A loop rather than a nested comprehension: the replay calls this for every play.
    pairs: list[tuple[int, int]] = []
    for move in moves:
        count = move[2]
        if count == 1:
            pairs.append(move[:2])
        else:
            pairs += [move[:2]] * count
    return pairs


class MatchHeader(NamedTuple):
    """The match a game belongs to: its length in points, the game's number, the score before it.

    ``score`` is ``(white, black)``. Read from the ``Match``, ``Game`` and ``Score`` tags.
    """

    length: int | None
    game: int | None
    score: tuple[int, int] | None


#: the tag that sets the position a game starts from (docs/notation.md, "Set positions")
POSITION_TAG = "Position"
#: the tag, and its value, that let plays be written without their dice
DICE_TAG, DICE_OMITTED = "Dice", "omitted"
#: the dice of one play whose roll its source does not give (``?-?: 24/18 18/13``): the
#: per-play form of ``[Dice "omitted"]`` (the grammar's ``_ROLL`` reads it)
UNKNOWN_ROLL = "?-?"

_INT = re.compile(r"[1-9][0-9]{0,8}\Z")
_SCORE = re.compile(r"([0-9]{1,9})-([0-9]{1,9})\Z")


@dataclass(slots=True, eq=True)
class GameRecord:
    """One game as read from a text (or built in code), errors included.

    A record with a syntax error is still a record: ``errors`` is then non-empty and ``text`` holds
    the game exactly as it was found, so that nothing is lost when it is written back.

    ``text`` begins at line ``span.line`` of its file. A game of a match file holds the match's
    header and then its own lines: ``gap`` is ``(rows, lines)``, the ``lines`` lines of the file
    (the earlier games) that stand after the text's first ``rows`` rows and are left out of it,
    so that each game keeps its own text once while its spans name the file's real lines (a
    text padded to them grew with the square of a match's games). Read lines through
    :meth:`text_line`.
    """

    tags: dict[str, str] = field(default_factory=dict)
    plays: list[WrittenPlay] = field(default_factory=list)
    result: str | None = None
    comments: list[str] = field(default_factory=list)
    tag_spans: dict[str, Span] = field(default_factory=dict, compare=False, repr=False)
    errors: list[NotationError] = field(default_factory=list, compare=False, repr=False)
    file: str | None = field(default=None, compare=False)
    index: int = field(default=1, compare=False)
    span: Span = field(default=NO_SPAN, compare=False, repr=False)
    text: str = field(default="", compare=False, repr=False)
    gap: tuple[int, int] = field(default=(0, 0), compare=False, repr=False)
    #: the program whose analysis the plays carry, if any (analysis.py)
    analyser: Analyser | None = field(default=None, compare=False, repr=False)

    @property
    def own_line(self) -> int:
        """The file's line where the game's own lines begin: after a match file's header (which
        every game of the match holds from line 1), else the text's first line."""
        rows, left_out = self.gap
        return (self.span.line or 1) + rows + left_out if rows else self.span.line

    def text_row(self, line: int | None) -> int | None:
        """The 0-based row of :attr:`text` that holds line ``line`` of the file, or None."""
        if line is None:
            return None
        row = line - (self.span.line or 1)
        rows, left_out = self.gap
        if row >= rows:
            if row < rows + left_out:
                return None  # a line of another game
            row -= left_out
        return row if row >= 0 else None

    def text_line(self, line: int | None) -> str | None:
        """Line ``line`` of the file, as the record's text holds it; None outside the text."""
        row = self.text_row(line)
        if row is None:
            return None
        start = 0
        for _ in range(row):  # no split of the whole text for one line
            start = self.text.find("\n", start) + 1
            if start == 0:
                return None
        end = self.text.find("\n", start)
        return self.text[start:] if end < 0 else self.text[start:end]

    @property
    def is_valid(self) -> bool:
        """True when the record was read without any notation error."""
        return not self.errors

    @property
    def starts_elsewhere(self) -> bool:
        """True when a ``[Position]`` tag sets the position the game starts from."""
        return POSITION_TAG in self.tags

    @property
    def dice_omitted(self) -> bool:
        """True when the tags let plays be written without their dice (``[Dice "omitted"]``)."""
        return self.tags.get(DICE_TAG, "").strip().lower() == DICE_OMITTED

    def match_header(self) -> MatchHeader | None:
        """The match header from the ``Match``, ``Game`` and ``Score`` tags, if any is present.

        A malformed value reads as ``None`` here; the reader has already reported it.
        """
        if not any(name in self.tags for name in ("Match", "Game", "Score")):
            return None
        length = self.tags.get("Match", "")
        game = self.tags.get("Game", "")
        score = _SCORE.match(self.tags.get("Score", ""))
        return MatchHeader(
            int(length) if _INT.match(length) else None,
            int(game) if _INT.match(game) else None,
            (int(score.group(1)), int(score.group(2))) if score else None,
        )
