"""Games as chunks of text, cut cheaply before parsing, so that workers can parse in parallel.

``read_games`` cuts and parses in one process; ``validate --jobs`` cuts here, in the parent, and
sends each chunk (plain text and a few numbers, cheap to pickle) to a worker that parses and
replays it. A chunk carries the decoding problems of its lines, so that a bad byte is reported
on its game whichever process parses it.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import IO

from .notation import _Decoder, _GameReader, _games, _parse_chunk, _text_lines
from .record import GameRecord


@dataclass(frozen=True, slots=True)
class GameChunk:
    """The text of one game and where it stands in its file."""

    text: str
    first_line: int
    file: str | None
    index: int
    #: undecodable bytes in the game's lines: (line in the file, column, message)
    problems: tuple[tuple[int, int, str], ...] = ()


def split_games(
    stream: IO[bytes] | IO[str], file: str | None = None, *, encoding: str = "utf-8"
) -> Iterator[GameChunk]:
    """Cut a stream into games without parsing them; raises NotationError for a binary file."""
    decoder: _Decoder | None = None
    if isinstance(stream.read(0), bytes):
        decoder = _Decoder(file, encoding)
        lines = decoder.lines(stream)  # type: ignore[arg-type]
    else:
        lines = _text_lines(stream, file)  # type: ignore[arg-type]
    for index, (first, chunk) in enumerate(_games(lines), 1):
        while chunk and (not chunk[-1] or chunk[-1].isspace()):
            chunk.pop()
        problems: tuple[tuple[int, int, str], ...] = ()
        if decoder is not None and decoder.problems:
            last = first + len(chunk) - 1
            problems = tuple(p for p in decoder.problems if p[0] <= last)
            decoder.problems = [p for p in decoder.problems if p[0] > last]
        yield GameChunk("\n".join(chunk), first, file, index, problems)


def parse_chunk(chunk: GameChunk) -> GameRecord:
    """The record of one chunk, with its syntax and decoding errors."""
    record = _parse_chunk(chunk.text, chunk.first_line, chunk.file, chunk.index)
    if chunk.problems:
        reader = _GameReader(record.text, chunk.first_line, chunk.file, chunk.index)
        for line, column, message in chunk.problems:
            record.errors.append(
                reader.make_error("expected " + message, line - chunk.first_line + 1, column)
            )
        record.errors.sort(key=lambda e: (e.line or 0, e.column or 0))
    return record
