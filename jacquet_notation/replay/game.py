"""A replayed game as data, and what every check of one replay reads (:class:`Context`).

Beneath the rest of the package: the line walk fills these in, and the checks (the dice
inferred, an illegal play diagnosed, a bare roll, the result) read the context and write errors
that point at the record's text.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engine import Play
from ..errors import JacquetError, ReplayError
from ..position import Position, Side
from ..record import GameRecord, Span, WrittenPlay
from ..rules import Rules


@dataclass(slots=True)
class ReplayedPly:
    """One play of the record, with the position it was played from and the one it reached."""

    index: int
    written: WrittenPlay
    before: Position
    after: Position | None = None
    play: Play | None = None
    error: ReplayError | None = None
    variations: list[list[ReplayedPly]] = field(default_factory=list)
    #: the rolls a play written without dice fits (docs/notation.md): one when the roll is
    #: inferred, several when the steps leave it open; empty for a play with its dice
    rolls: tuple[tuple[int, int], ...] = ()
    #: what the replay read into a play the record leaves blank (docs/notation.md)
    note: str | None = None
    #: a roll kept without a play: the game ended after it was rolled (gnubg's set dice)
    unplayed: bool = False

    @property
    def side(self) -> Side:
        return self.written.side


@dataclass(slots=True)
class ReplayedGame:
    """A record replayed: every position, the result by the rules, and every error found."""

    record: GameRecord
    rules: Rules
    plies: list[ReplayedPly]
    errors: list[JacquetError]
    final: Position
    winner: Side | None
    points: int
    prime_seen: dict[Side, bool]
    #: the position a ``[Position]`` tag set, None for a game from its rules' start
    set_position: Position | None = None

    @property
    def computed_result(self) -> str | None:
        """``white-black`` points, as a record writes them; None while the game is unfinished."""
        if self.winner is None:
            return None
        return f"{self.points}-0" if self.winner == "white" else f"0-{self.points}"

    @property
    def is_valid(self) -> bool:
        return not self.errors

    @property
    def complete(self) -> bool:
        """Every written play was replayed (no line stopped early).

        A line stops at its first error and replays nothing after it, so the last ply tells.
        """
        return not self.plies or self.plies[-1].after is not None


@dataclass(frozen=True, slots=True)
class Context:
    """What the checks of one replay read: the record (an error's place), the rules, and
    whether the game is from its start (the opening's and the lead's rules apply only then),
    and whether a refused play's words name the slip that explains it (infer's, for the archive,
    do without: it keeps only which rulesets fit)."""

    record: GameRecord
    rules: Rules
    from_start: bool
    slips: bool = True

    def error(
        self,
        kind: str,
        message: str,
        span: Span | None,
        ply: int | None = None,
        suggestions: Sequence[str] = (),
        slip: str | None = None,
    ) -> ReplayError:
        """A replay error of this record, at ``span`` (None: the record as a whole)."""
        return ReplayError(
            kind,
            message,
            file=self.record.file,
            game=self.record.index,
            line=span.line if span else None,
            column=span.column if span else None,
            ply=ply,
            suggestions=suggestions,
            slip=slip,
        )
