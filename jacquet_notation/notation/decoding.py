"""Bytes to lines: UTF-8 with or without a BOM (or the encoding asked for), CRLF, LF or CR.

A line too long or a NUL byte stops the reading (not a record); a byte that does not decode is
noted for the game it falls in, or, in a match file, read as cp1252 (:mod:`.splitting` tells
the file's kind and cuts the lines into games).
"""

from __future__ import annotations

import codecs
from collections.abc import Iterator
from typing import IO, Any

from ..errors import NotationError


class Decoder:
    """Decodes a binary stream line by line, noting undecodable bytes for the game they fall in."""

    def __init__(self, file: str | None, encoding: str) -> None:
        try:
            info = codecs.lookup(encoding)
        except LookupError:
            raise NotationError(f"unknown encoding {encoding!r}", file=file) from None
        if "\n".encode(info.name, "replace") != b"\n" or "A".encode(info.name) != b"A":
            raise NotationError(
                f"encoding {encoding!r} is not supported: records are read in an"
                " ASCII-compatible encoding such as utf-8 or latin-1",
                file=file,
            )
        self.file = file
        self.encoding = info.name
        self.problems: list[tuple[int, int, str]] = []  # line, column, message
        #: a match file's lines that are not UTF-8 are read as cp1252 (``fallback``), each
        #: noted (line, column, message) rather than refused: gnubg reads them so
        self.fallback = False
        self.notes: list[tuple[int, int, str]] = []
        #: the bytes of each line that did not decode, by number, until the file's kind is known
        self.raw: dict[int, tuple[bytes, int, str]] = {}

    def lines(self, stream: IO[bytes]) -> Iterator[str]:
        """The lines of the stream, decoded a block at a time (much cheaper than line by line).

        A block that does not decode is decoded again line by line, to note each bad byte with
        its offset, line and column; a NUL byte or an overlong line stops the reading.
        """
        offset = 0  # of the first byte of ``data`` in the stream
        number = 0  # lines yielded so far
        carry = b""  # the start of a line whose end is in the next block
        first = True
        while True:
            block = stream.read(_BLOCK)
            data = carry + block
            if not data:
                return
            if block:
                cut = data.rfind(b"\n") + 1
                if cut == 0 or len(data) - cut > MAX_LINE:
                    if len(data) - cut > MAX_LINE:
                        self.too_long(number + data.count(b"\n", 0, cut) + 1)
                    carry = data
                    continue
                data, carry = data[:cut], data[cut:]
            else:
                carry = b""  # the last line, without its newline
            if first:
                first = False
                if self.encoding == "utf-8" and data.startswith(codecs.BOM_UTF8):
                    data = data[len(codecs.BOM_UTF8) :]
                    offset = len(codecs.BOM_UTF8)
            if b"\x00" in data:
                self.nul(data, offset, number)
            try:
                text = data.decode(self.encoding)
            except UnicodeDecodeError:
                text = self.decode_lines(data, offset, number)
            if "\r" in text and text.count("\r") != text.count("\r\n"):
                # a CR alone ends a line too (old Mac files): read as one line, a CR-only
                # file would be one empty game, its real games silently gone
                text = text.replace("\r\n", "\n").replace("\r", "\n")
            lines = text.split("\n")
            if text.endswith("\n"):
                lines.pop()
            if len(text) > MAX_LINE:  # only then may one of its lines be too long
                for line in lines:
                    number += 1
                    if len(line) > MAX_LINE:
                        self.too_long(number)
                    yield line[:-1] if line.endswith("\r") else line
            else:
                if "\r" in text:
                    lines = [line[:-1] if line.endswith("\r") else line for line in lines]
                number += len(lines)
                yield from lines
            offset += len(data)

    def decode_lines(self, data: bytes, offset: int, number: int) -> str:
        """Decode a block line by line, noting every byte that does not decode."""
        texts = []
        for raw in data.splitlines(keepends=True):
            number += 1
            try:
                texts.append(raw.decode(self.encoding))
            except UnicodeDecodeError as error:
                column = len(raw[: error.start].decode(self.encoding, "replace")) + 1
                bad = raw[error.start : error.end].hex(" ")
                if self.fallback:
                    self.notes.append((number, column, _note(bad)))
                    texts.append(_cp1252(raw))
                    offset += len(raw)
                    continue
                if self.encoding == "utf-8" and len(self.raw) < 1_000:
                    self.raw[number] = (raw, column, bad)
                self.problems.append(
                    (
                        number,
                        column,
                        f"text in {self.encoding}, found the byte {bad} at offset"
                        f" {offset + error.start} (try --encoding latin-1)",
                    )
                )
                texts.append(raw.decode(self.encoding, "replace"))
            offset += len(raw)
        return "".join(texts)

    def read_as_match_file(self, head: list[str]) -> None:
        """The stream is a match file: its lines that are not UTF-8 are cp1252 (gnubg reads a
        Latin-1 ``Sahlén`` in a header), noted; ``head``'s lines (read already) decoded again,
        and the others as they come (:meth:`recode`)."""
        if self.encoding != "utf-8":
            return  # an encoding asked for is the encoding
        self.fallback = True
        self.recode(head, 1)

    def recode(self, lines: list[str], first: int) -> None:
        """Lines ``first``... of a match file decoded again as cp1252 where they were not
        UTF-8 (decoded before the file's kind was known): each a note, not a problem."""
        if not self.raw:
            return
        for number in [n for n in self.raw if first <= n < first + len(lines)]:
            raw, column, bad = self.raw.pop(number)
            lines[number - first] = _cp1252(raw).removesuffix("\n").removesuffix("\r")
            self.notes.append((number, column, _note(bad)))
            self.problems = [p for p in self.problems if p[0] != number]

    def nul(self, data: bytes, offset: int, number: int) -> None:
        at = data.index(b"\x00")
        line_start = data.rfind(b"\n", 0, at) + 1
        raise NotationError(
            f"not a text file: a NUL byte at offset {offset + at}",
            file=self.file,
            line=number + data.count(b"\n", 0, at) + 1,
            column=len(data[line_start:at].decode(self.encoding, "replace")) + 1,
        )

    def too_long(self, number: int) -> None:
        raise NotationError(
            f"line {number} is longer than {MAX_LINE:,} characters: not a game record",
            file=self.file,
            line=number,
            column=MAX_LINE + 1,
        )


def _cp1252(raw: bytes) -> str:
    """A line read as cp1252; one holding a byte cp1252 leaves undefined, as Latin-1 (every
    byte reads)."""
    try:
        return raw.decode("cp1252")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def _note(bad: str) -> str:
    """The note of a line read as cp1252 (a match file's bytes that are not UTF-8)."""
    return f"not UTF-8 (the byte {bad}): read as cp1252"


#: how much of a binary stream is read and decoded at a time
_BLOCK = 1 << 14

#: the longest line a record may have; a longer one is not a record (and would fill memory)
MAX_LINE = 1_000_000


def _bounded_lines(stream: IO[Any], file: str | None) -> Iterator[Any]:
    """The lines of a stream, refusing one longer than :data:`MAX_LINE` before reading it all."""
    number = 0
    while True:
        line = stream.readline(MAX_LINE + 1)
        if not line:
            return
        number += 1
        if len(line) > MAX_LINE:
            raise NotationError(
                f"line {number} is longer than {MAX_LINE:,} characters: not a game record",
                file=file,
                line=number,
                column=MAX_LINE + 1,
            )
        yield line


def text_lines(stream: IO[str], file: str | None) -> Iterator[str]:
    """The lines of a text stream, as :meth:`Decoder.lines` gives a binary one's: without
    their ends or a BOM, a NUL or an overlong line refused."""
    for number, line in enumerate(_bounded_lines(stream, file), 1):
        if number == 1 and line.startswith("\ufeff"):
            line = line[1:]
        if "\x00" in line:
            raise NotationError(
                "not a text file: a NUL character",
                file=file,
                line=number,
                column=line.index("\x00") + 1,
            )
        if line.endswith("\n"):
            line = line[:-2] if line.endswith("\r\n") else line[:-1]
        yield line
