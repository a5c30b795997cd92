"""``jacquet fmt``: write records in the canonical layout.

A game with errors is written back exactly as it was found, so that formatting never loses a
transcriber's text; its errors go to stderr, one line each, and the exit code says so. A game
that reads but whose plays the rules refuse is formatted all the same (formatting is not
validation), but each illegal play is reported as ``jacquet validate`` reports it.
"""

from __future__ import annotations

import io
import os
import stat
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

import click

from ..errors import NotationError
from ..notation import read_games, write_game
from ..replay import replay, with_inferred_dice
from ..reporting import describe_error
from ..sources import STDIN, UnreadablePath, open_source, record_files, source_name
from .common import EXIT_INVALID, EXIT_OK, EXIT_USAGE, echo, with_context


@dataclass(frozen=True, slots=True)
class _Problem:
    """One line for stderr, and the record's line and column it points at (for the caret)."""

    message: str
    source: str | None = None
    column: int | None = None


def _formatted(
    stream: IO[bytes],
    name: str,
    encoding: str,
    check: bool,
    problems: list[_Problem],
    fill_dice: bool = False,
) -> Iterator[str]:
    """The canonical text of each game of a file, or its own text where it has errors."""
    for record in read_games(stream, name, encoding=encoding):
        if record.errors:
            for error in record.errors:
                source = record.text_line(error.line)
                problems.append(_Problem(str(error).splitlines()[0], source, error.column))
            yield record.text.rstrip("\n") + "\n"
            continue
        if check:
            game = replay(record)
            for illegal in game.errors:
                source = record.text_line(illegal.line)
                message = describe_error(game, record, illegal)
                problems.append(_Problem(message, source, illegal.column))
            # plays without dice: their inferred rolls shown, or with --fill-dice written in
            record = with_inferred_dice(game, fill_dice)
        yield write_game(record)


@click.command(context_settings={"help_option_names": ["-h", "--help"]})
@click.argument("files", nargs=-1, required=True)
@click.option("--write", "-w", is_flag=True, help="Rewrite each file in place.")
@click.option(
    "--encoding",
    default="utf-8",
    show_default=True,
    help="Encoding of the files (utf-8 files may start with a BOM); written back as UTF-8.",
)
@click.option(
    "--no-check",
    is_flag=True,
    help="Do not replay the games: illegal plays are then neither reported nor counted.",
)
@click.option(
    "--fill-dice",
    is_flag=True,
    help="Write the roll inferred for each play without dice in as its dice (where unique).",
)
def fmt(
    files: tuple[str, ...], write: bool, encoding: str, no_check: bool, fill_dice: bool
) -> None:
    """Write game records in the canonical layout, to stdout or (with --write) in place.

    FILES are files, folders (their .jqt, .jacquet, .txt and .mat files, as validate reads them)
    or - for stdin; a match file (.mat, told by its content) is written as .jqt records, one a
    game (export --mat writes match files). Tags in a fixed order, one turn a line, dice high
    first, one form per step. A game that cannot be read is copied unchanged and its errors are
    listed on stderr as file:line:col: message. A game whose plays are illegal is formatted all
    the same, and each illegal play is listed as validate lists it (unless --no-check). Exit
    code 1 if any game had errors or illegal plays, 2 if a file could not be read or written.
    A play written without dice (under [Dice "omitted"]) is followed by its inferred roll as a
    comment, {(6-5)}; --fill-dice writes a unique roll in as the play's dice instead.

    \b
    Example:
      jacquet fmt games.jqt
      jacquet fmt --write --encoding latin-1 old/
    """
    status = EXIT_OK
    context = sys.stderr.isatty()
    for path in record_files(files):
        if isinstance(path, UnreadablePath):
            echo(f"jacquet: {path.message()}", err=True)
            status = EXIT_USAGE
            continue
        problems: list[_Problem] = []
        try:
            if write and path == STDIN:
                echo("jacquet: -: standard input cannot be rewritten in place", err=True)
                status = EXIT_USAGE
                continue
            if write:
                _rewrite(path, encoding, not no_check, problems, fill_dice)
            else:
                with open_source(path) as stream:
                    _to_stdout(
                        stream, source_name(path), encoding, not no_check, problems, fill_dice
                    )
        except NotationError as error:  # the file as a whole: not text, an unknown encoding
            problems.append(_Problem(str(error).splitlines()[0]))
        except OSError as error:
            echo(f"jacquet: {error.filename or path}: {error.strerror or error}", err=True)
            status = EXIT_USAGE
            continue
        for problem in problems:
            lines = [problem.message]
            if context:
                lines = with_context(problem.message, problem.source, problem.column)
            for line in lines:
                echo(line, err=True)
        if problems and status == EXIT_OK:
            status = EXIT_INVALID
    raise SystemExit(status)


def _to_stdout(
    stream: IO[bytes],
    name: str,
    encoding: str,
    check: bool,
    problems: list[_Problem],
    fill_dice: bool = False,
) -> None:
    """The formatted games, as the record text they are (never escaped), on stdout."""
    out = sys.stdout.buffer
    first = True
    for text in _formatted(stream, name, encoding, check, problems, fill_dice):
        out.write((text if first else "\n" + text).encode("utf-8"))
        first = False
    out.flush()


def _rewrite(
    path: str, encoding: str, check: bool, problems: list[_Problem], fill_dice: bool = False
) -> None:
    """Format a file into a temporary file beside it, then put it in place in one step."""
    buffer = io.StringIO()
    first = True
    with open(path, "rb") as stream:
        for text in _formatted(stream, path, encoding, check, problems, fill_dice):
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
