"""What every command shares: turning domain errors into one clean line and an exit code."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import click

from ..errors import JacquetError

#: exit codes shared by every command
EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


class CleanError(click.ClickException):
    """A one-line message on stderr, never a traceback; exit code 2 (usage or I/O).

    Click declares ``exit_code`` a class variable, so each exit code is a class of its own.
    """

    exit_code = EXIT_USAGE

    def show(self, file: object = None) -> None:
        click.echo(f"jacquet: {self.format_message()}", err=True)


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
        item_show_func=lambda games: f"{games} games" if games is not None else None,
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
