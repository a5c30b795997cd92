"""The one exception family of the project.

Every error a user can cause is a :class:`JacquetError`, a ``ValueError``, so that callers catch one
class and the CLI turns it into a one-line message. Where the error comes from a text, it carries
the file, game, line and column, so that a transcriber can go straight to the mistake.

Each class names its ``kind``, the word machines see (``validate --json``, the archive's stored
errors, the XML's ``<error kind>``): said here once, every exporter says the same of one error.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypedDict, Unpack


class Where(TypedDict, total=False):
    """Where in a text an error was found: the keywords every error of the family takes."""

    file: str | None
    game: int | None
    line: int | None
    column: int | None


class JacquetError(ValueError):
    """Base of every error the project raises on bad input."""

    #: the error's kind for machines; a class attribute, which ``ReplayError`` (one class for
    #: the replay's several kinds) sets per error
    kind: str = "error"

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        game: int | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.game = game
        self.line = line
        self.column = column

    def location(self) -> str:
        """``file:line:col`` as far as it is known (empty when nothing is)."""
        parts = [self.file or "<input>"] if (self.file or self.line) else []
        if self.line is not None:
            parts.append(str(self.line))
            if self.column is not None:
                parts.append(str(self.column))
        return ":".join(parts)

    def __str__(self) -> str:
        where = self.location()
        return f"{where}: {self.message}" if where else self.message


class RulesError(JacquetError):
    """An unknown ruleset or option, or an option value out of range."""

    #: "error", as ``jacquet validate`` and the archive have always called it
    kind = "error"


class PositionError(JacquetError):
    """A position that cannot occur: wrong number of men, both sides on one point, a bad key."""

    kind = "error"


class IllegalPlayError(JacquetError):
    """A play the rules do not allow; the message says which rule, in a player's words.

    ``move`` is the index, among the moves given to the engine, of the move a reader should
    point at: the first one that cannot be played; 0, the play's first move, for a rule about the
    play as a whole (a block, too few men borne off, an ambiguous combined move); None when the
    dice themselves are the issue (a die left unplayed, the lower die played, the game over).
    """

    kind = "illegal-play"

    def __init__(
        self,
        message: str,
        *,
        move: int | None = None,
        file: str | None = None,
        game: int | None = None,
        line: int | None = None,
        column: int | None = None,
    ) -> None:
        super().__init__(message, file=file, game=game, line=line, column=column)
        self.move = move


class AmbiguousPlayError(IllegalPlayError):
    """A combined move (``8/1`` with 4-3) that hits on one way and not on the other, both legal.

    A subclass, so that a reader which kept the written hit marks (the replay) can settle it by
    them (docs/notation.md, "Match files"); to everyone else it is an illegal play like any other.
    """


class KindedError(JacquetError):
    """An error whose kind is said per error rather than by its class: the match's and the
    replay's checks each find several kinds of mistake, one class apiece would say nothing more.
    """

    def __init__(self, kind: str, message: str, **where: Unpack[Where]) -> None:
        super().__init__(message, **where)
        self.kind = kind


class MatchError(KindedError):
    """A match that breaks its own rules: the cube, a game's points, the scores from game to game,
    the Crawford game, or a game after the match was won (docs/rules.md, "Matches").

    ``kind`` is one word per broken rule (``cube``, ``points``, ``score``, ``crawford``,
    ``match-over``).
    """


class ReplayError(KindedError):
    """An error found while replaying a record: an illegal play, a wrong result, a wrong side.

    ``kind`` names the error for machines and for the corpus of broken records; ``ply`` is the
    play's index in its line, ``suggestions`` lists the legal plays closest to what was written,
    and ``slip`` names a common transcription slip when one explains the play.
    """

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        ply: int | None = None,
        suggestions: Sequence[str] = (),
        slip: str | None = None,
        **where: Unpack[Where],
    ) -> None:
        super().__init__(kind, message, **where)
        self.ply = ply
        self.suggestions = tuple(suggestions)
        self.slip = slip


class NotationError(JacquetError):
    """A record that cannot be read: syntax, encoding, a bad tag."""

    kind = "syntax"


def no_game_records(file: str | None) -> NotationError:
    """A file with no game in it (empty, or only blank lines and comments), placed at 1:1.

    Every command that reads records says this one sentence, at the file's first place, so
    that an empty file's line reads like any other error's (``file:1:1: ...``).
    """
    return NotationError("no game records in this file", file=file, line=1, column=1)
