"""What every command shares: turning domain errors into one clean line and an exit code."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import click

from ..errors import JacquetError

#: exit codes shared by every command
EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2


class CleanError(click.ClickException):
    """A one-line message on stderr with a chosen exit code, never a traceback."""

    def __init__(self, message: str, exit_code: int = EXIT_USAGE) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def show(self, file: object = None) -> None:
        click.echo(f"jacquet: {self.format_message()}", err=True)


@contextmanager
def domain_errors(exit_code: int = EXIT_USAGE) -> Iterator[None]:
    """Turn a JacquetError (or an OSError) raised inside the block into a CleanError."""
    try:
        yield
    except JacquetError as error:
        raise CleanError(str(error).splitlines()[0], exit_code) from error
    except OSError as error:
        name = f"{error.filename}: " if error.filename else ""
        raise CleanError(f"{name}{error.strerror or error}", exit_code) from error
