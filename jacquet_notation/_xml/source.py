"""A document's bytes on their way to lxml: what comes before the root scanned (a DTD refused
before lxml sees it), the last chunks kept to give a schema error its column, and libxml2's
complaints made one-line errors. Apart from the reader, which rebuilds records from elements."""

from __future__ import annotations

import collections
import re
from typing import IO, Any

from lxml import etree

from .format import MAX_DEPTH, MAX_PROLOG, XmlError


class Source:
    """The bytes of a document as lxml reads them, checked before the root and kept for errors.

    Everything before the root element is scanned first: a ``<!DOCTYPE`` (the only place a DTD
    or an entity can be declared) is refused before lxml sees a byte of it. The last chunks read
    (256 KiB) are kept, so that an error reported by line only (the schema validator gives no
    column) can be given a column while memory stays bounded.
    """

    _CHUNK = 64 << 10
    _KEPT = 4  # chunks

    def __init__(self, raw: IO[bytes], file: str) -> None:
        self.raw = raw
        self.file = file
        self.pending = b""
        self.kept: collections.deque[tuple[int, bytes]] = collections.deque(maxlen=self._KEPT)
        self.next_line = 1  # the line number of the next byte read
        self.read_chunks = 0
        self._check_prolog()

    def _check_prolog(self) -> None:
        data = b""
        while True:
            chunk = self.raw.read(self._CHUNK)
            data += chunk
            verdict = _scan_prolog(data, final=not chunk)
            if verdict is not None:
                break
            if len(data) > MAX_PROLOG:
                raise XmlError(
                    "more than 1 MiB before the root element; refused", file=self.file, line=1
                )
        if not data.strip():
            raise XmlError("the document is empty", file=self.file, line=1, column=1)
        if isinstance(verdict, tuple):
            line, column = verdict
            raise XmlError(
                "a document type declaration (<!DOCTYPE ...>) is refused: this reader never reads"
                " a DTD or an entity (see docs/xml.md)",
                file=self.file,
                line=line,
                column=column,
            )
        self.pending = data

    def read(self, size: int = -1) -> bytes:
        if self.pending:
            data, self.pending = self.pending, b""
        else:
            data = self.raw.read(size if size and size > 0 else self._CHUNK)
        if data:
            self.read_chunks += 1
            self.kept.append((self.next_line, data))
            self.next_line += data.count(b"\n")
        return data

    def line_text(self, line: int) -> str | None:
        """The text of a line whose start is still kept, or None."""
        chunks = list(self.kept)
        # The chunk holding the line's start: the last one that starts on an earlier line (or
        # the document's first chunk, for line 1).
        first = next((i for i in range(len(chunks) - 1, -1, -1) if chunks[i][0] < line), None)
        if first is None:
            if line != 1 or not chunks or chunks[0][0] != 1 or self.read_chunks > len(chunks):
                return None
            first = 0
        start_line = chunks[first][0]
        text = b"".join(chunk for _, chunk in chunks[first:])
        at = 0
        for _ in range(line - start_line):
            at = text.find(b"\n", at) + 1
            if at == 0:
                return None
        end = text.find(b"\n", at)
        return text[at : end if end >= 0 else len(text)].decode("utf-8", "replace")

    def column_of(self, line: int, name: str | None) -> int:
        """The column of ``<name`` on ``line`` (else of its first non-blank character), 1-based."""
        text = self.line_text(line)
        if text is None:
            return 1
        if name:
            found = re.search(rf"<(?:[\w.-]+:)?{re.escape(name)}(?=[\s/>])", text)
            if found is not None:
                return found.start() + 1
        return len(text) - len(text.lstrip()) + 1


def _scan_prolog(data: bytes, final: bool) -> tuple[int, int] | bool | None:
    """Walk what comes before the root element: the declaration, comments, processing
    instructions, blanks. Returns the (line, column) of a ``<!DOCTYPE`` (or any other ``<!``
    declaration), True when the root is reached without one, None when more bytes are needed."""
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        text = data[: len(data) - len(data) % 2].decode("utf-16", "replace")
    elif data[:2] in (b"<\x00", b"\x00<"):
        encoding = "utf-16-le" if data[:1] == b"<" else "utf-16-be"
        text = data[: len(data) - len(data) % 2].decode(encoding, "replace")
    else:
        text = data.decode("utf-8", "replace")
    at = 1 if text.startswith("\ufeff") else 0
    length = len(text)
    while True:
        while at < length and text[at] in " \t\r\n":
            at += 1
        if length - at < 4 and not final:
            return None  # too few characters to tell "<!--" from "<!D"
        if at >= length:
            return True
        if text.startswith("<?", at):
            close = "?>"
        elif text.startswith("<!--", at):
            close = "-->"
        elif text.startswith("<!", at):
            line = text.count("\n", 0, at) + 1
            return line, at - (text.rfind("\n", 0, at) + 1) + 1
        else:
            return True  # the root element, or something lxml will call malformed
        end = text.find(close, at + 2)
        if end < 0:
            return True if final else None
        at = end + len(close)


def syntax_error(error: etree.XMLSyntaxError, file: str) -> XmlError:
    """libxml2's complaint as a one-line XmlError.

    When the exception has no position (iterparse says "no element found" after an undefined
    entity), the last logged error that has one says what went wrong.
    """
    line, column = getattr(error, "position", (0, 0)) or (0, 0)
    message = str(getattr(error, "msg", "") or error)
    if not line:
        log: Any = error.error_log
        for entry in reversed(list(log)):
            if entry.line:
                line, column, message = entry.line, entry.column, str(entry.message)
                break
    message = re.sub(r", line [0-9]+, column [0-9]+.*\Z", "", message.strip())
    if message.startswith("Excessive depth in document"):
        message = f"elements nested more than {MAX_DEPTH} deep; refused"
    elif "amplification" in message or "entity" in message.lower():
        message = f"{message}; entities are refused"
    return XmlError(message, file=file, line=line or None, column=column or None)
