"""What every command shares: turning domain errors into one clean line and an exit code, and
printing messages so that a record's text cannot drive the terminal.

Every message and report line a command prints goes through :func:`echo` (or :func:`json_line`
for machines), which escapes the control characters a record may hold; record text that a
command writes as its product (``fmt``, ``generate``, ``import-xml``) is written as it is.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import click

from ..errors import JacquetError
from ..wording import plural

#: exit codes shared by every command
EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


#: C0 controls but the tab, DEL and the C1 controls: ESC starts a terminal's commands (clear the
#: screen, set the title), BEL rings, U+009B is a one-character CSI to many terminals
_CONTROLS = [code for code in [*range(0x20), *range(0x7F, 0xA0)] if code != 0x09]
_ESCAPED = {code: f"\\x{code:02x}" for code in _CONTROLS}
#: the same characters in JSON's own escape (json.dumps escapes C0 itself, but not DEL or C1)
_JSON_ESCAPED = {code: f"\\u{code:04x}" for code in _CONTROLS if code >= 0x7F}


def escape_controls(text: str) -> str:
    """``text`` with each control character written as ``\\x1b``: safe to show on a terminal.

    A backslash is left as it is: the escaped form is for a reader, not to be read back.
    """
    return text.translate(_ESCAPED)


def echo(message: str = "", *, err: bool = False) -> None:
    """Print one message or report line, escaped (see :func:`escape_controls`): a newline or a
    carriage return from a record cannot start a line that looks like another message."""
    click.echo(escape_controls(message), err=err)


def json_line(value: Any) -> str:
    """One JSON document on one line, with no raw control character a terminal would obey."""
    return json.dumps(value, ensure_ascii=False).translate(_JSON_ESCAPED)


def with_context(message: str, source: str | None, column: int | None) -> list[str]:
    """``message``, then the offending line and a caret under ``column`` (as docs/notation.md
    shows): lines for :func:`echo`, the caret placed under the line as it will be printed."""
    if source is None or column is None or column < 1:
        return [message]
    shown = escape_controls(source[: column - 1])
    caret = "".join("\t" if c == "\t" else " " for c in shown) + "^"
    return [message, f"    {source}", f"    {caret}"]


class CleanError(click.ClickException):
    """A one-line message on stderr, never a traceback; exit code 2 (usage or I/O).

    Click declares ``exit_code`` a class variable, so each exit code is a class of its own.
    """

    exit_code = EXIT_USAGE

    def show(self, file: object = None) -> None:
        echo(f"jacquet: {self.format_message()}", err=True)


class InvalidInputError(CleanError):
    """A CleanError for input that was read but is invalid: exit code 1."""

    exit_code = EXIT_INVALID


def _error_class(exit_code: int) -> type[CleanError]:
    return InvalidInputError if exit_code == EXIT_INVALID else CleanError


@contextmanager
def domain_errors(exit_code: int = EXIT_USAGE) -> Iterator[None]:
    """Turn a JacquetError (or an OSError) raised inside the block into a CleanError."""
    try:
        yield
    except JacquetError as error:
        raise _error_class(exit_code)(str(error).splitlines()[0]) from error
    except OSError as error:
        name = f"{error.filename}: " if error.filename else ""
        raise _error_class(exit_code)(f"{name}{error.strerror or error}") from error


def show_progress() -> bool:
    """A progress bar only for a person at a terminal: never in a pipe or a CI log."""
    return sys.stderr.isatty() and not os.environ.get("CI")


def _unknown_length() -> Iterator[int]:
    yield from ()


@contextmanager
def game_progress(label: str) -> Iterator[Callable[[int], None] | None]:
    """A moving bar with a count of games (their number is not known before they are read).

    Yields ``update(games)``, or None where no bar is shown (see :func:`show_progress`).
    """
    if not show_progress():
        yield None
        return
    bar = click.progressbar(
        _unknown_length(),
        label=label,
        file=sys.stderr,
        item_show_func=lambda games: plural(games, "game") if games is not None else None,
    )
    done = 0

    def update(games: int) -> None:
        nonlocal done
        done += games
        bar.update(games, done)

    try:
        yield update
    finally:
        bar.render_finish()
