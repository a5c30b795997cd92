"""An error described for a person and for a machine: one place, so that every command and
every exporter says the same of the same error.

``describe_error`` is the line ``jacquet validate`` prints (and the archive stores);
``error_detail`` its JSON form. An error's kind is its class's ``kind`` (``errors.py``).
"""

from __future__ import annotations

from typing import Any

from .board_terms import side_name
from .errors import JacquetError
from .record import GameRecord
from .replay import ReplayedGame, ReplayError


def describe_error(game: ReplayedGame | None, record: GameRecord, error: JacquetError) -> str:
    """One line: ``file:line:col: game N (White v Black, date), turn T, White 6-5 13/7: reason``."""
    where = error.location() or f"{record.file or '<stdin>'}"
    white = record.tags.get("White", "?")
    black = record.tags.get("Black", "?")
    date = record.tags.get("Date", "?")
    context = f"game {record.index} ({white} v {black}, {date})"
    message = headline(error)
    if isinstance(error, ReplayError) and error.ply is not None and game is not None:
        ply = _find_ply(game, error)
        if ply is not None:
            written = ply.written
            dice = f"{written.dice[0]}-{written.dice[1]}" if written.dice else "no dice"
            text = " ".join(m.notation() for m in written.moves)
            text = text or ("(no play written)" if written.is_bare_roll else "pass")
            if written.opponent_moves:  # Versailles: the opponent's share, as written
                share = " ".join(m.notation() for m in written.opponent_moves)
                text = f"{text} + {share}" if written.moves else f"+ {share}"
            context += f", turn {written.turn}, {side_name(written.side)} {dice} {text}"
        if error.suggestions:
            message += "; legal here: " + ", ".join(suggestions(error))
    return f"{where}: {context}: {message}"


def _find_ply(game: ReplayedGame, error: ReplayError) -> Any:
    stack = list(game.plies)
    while stack:
        ply = stack.pop()
        if ply.error is error:
            return ply
        for variation in ply.variations:
            stack.extend(variation)
    return None


def error_detail(error: JacquetError) -> dict[str, Any]:
    """An error as data, for ``validate --json``: its kind, where, its message, what was legal."""
    detail: dict[str, Any] = {
        "kind": error.kind,
        "line": error.line,
        "column": error.column,
        "message": headline(error),
    }
    if isinstance(error, ReplayError):
        detail["suggestions"] = list(suggestions(error))
        slip = slip_of(error)
        if slip:
            detail["slip"] = slip
    return detail


def headline(error: JacquetError) -> str:
    """The first line of the error's message: what every report shows of it."""
    lines = error.message.splitlines()
    return lines[0] if lines else ""


def suggestions(error: JacquetError) -> tuple[str, ...]:
    """The legal plays closest to an illegal play as written (none for any other error)."""
    return error.suggestions if isinstance(error, ReplayError) else ()


def slip_of(error: JacquetError) -> str | None:
    """The common transcription slip that explains an illegal play, when one does."""
    return error.slip if isinstance(error, ReplayError) else None
