"""``jacquet fmt``: write records in the canonical layout.

A game with errors is written back exactly as it was found, so that formatting never loses a
transcriber's text; its errors go to stderr, one line each, and the exit code says so.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import click

from ..errors import NotationError
from ..notation import read_games, write_game
from ._common import EXIT_INVALID, EXIT_OK, EXIT_USAGE


def _formatted(path: str, encoding: str, problems: list[NotationError]) -> Iterator[str]:
    """The canonical text of each game of a file, or its own text where it has errors."""
    with open(path, "rb") as stream:
        for record in read_games(stream, path, encoding=encoding):
            if record.errors:
                problems.extend(record.errors)
                yield record.text.rstrip("\n") + "\n"
            else:
                yield write_game(record)


def _report(error: NotationError) -> None:
    click.echo(str(error).splitlines()[0], err=True)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--write", "-w", is_flag=True, help="Rewrite each file in place.")
@click.option(
    "--encoding",
    default="utf-8",
    show_default=True,
    help="Encoding of the files (utf-8 files may start with a BOM); written back as UTF-8.",
)
def fmt(files: tuple[str, ...], write: bool, encoding: str) -> None:
    """Write game records in the canonical layout, to stdout or (with --write) in place.

    Tags in a fixed order, one turn a line, dice high first, one form per step. A game with
    errors is copied unchanged and its errors are listed on stderr as file:line:col: message.
    Exit code 1 if any game had errors, 2 if a file could not be read or written.

    \b
    Example:
      jacquet fmt games.jqt
      jacquet fmt --write --encoding latin-1 old/*.jqt
    """
    status = EXIT_OK
    for path in files:
        problems: list[NotationError] = []
        try:
            if write:
                _rewrite(path, encoding, problems)
            else:
                out = sys.stdout.buffer
                first = True
                for text in _formatted(path, encoding, problems):
                    out.write((text if first else "\n" + text).encode("utf-8"))
                    first = False
                out.flush()
        except NotationError as error:  # the file as a whole: not text, an unknown encoding
            problems.append(error)
        except OSError as error:
            click.echo(f"jacquet: {error.filename or path}: {error.strerror or error}", err=True)
            status = EXIT_USAGE
            continue
        for problem in problems:
            _report(problem)
        if problems and status == EXIT_OK:
            status = EXIT_INVALID
    raise SystemExit(status)


def _rewrite(path: str, encoding: str, problems: list[NotationError]) -> None:
    """Format a file into a temporary file beside it, then put it in place in one step."""
    buffer = io.StringIO()
    first = True
    for text in _formatted(path, encoding, problems):
        buffer.write(text if first else "\n" + text)
        first = False
    target = Path(path)
    data = buffer.getvalue().encode("utf-8")
    if data == target.read_bytes():
        return
    handle, temporary = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    try:
        with os.fdopen(handle, "wb") as out:
            out.write(data)
        os.chmod(temporary, stat.S_IMODE(target.stat().st_mode))
        os.replace(temporary, target)
    except BaseException:
        os.unlink(temporary)
        raise
