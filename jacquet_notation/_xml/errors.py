"""An ``<error>`` element: what the replay or the match checks said of a play or a game, in the
words ``jacquet validate`` uses (``reporting``), with the legal plays and the slip it suggests.
Its own module, beside the exporter's inner loop, so that ``export.py`` stays one read."""

from __future__ import annotations

from typing import Any

from ..errors import JacquetError
from ..reporting import headline, slip_of, suggestions
from .format import ERROR, LEGAL_PLAY, MESSAGE, SLIP, write_text


def write_error(xf: Any, error: JacquetError, here: str, inner: str) -> None:
    """Write ``error`` through lxml's incremental writer ``xf``; ``here`` and ``inner`` are the
    newline and indentation before the element and before each of its children."""
    attributes = {"kind": error.kind}
    if error.line is not None:
        attributes["line"] = str(error.line)
        if error.column is not None:
            attributes["column"] = str(error.column)
    xf.write(here)
    with xf.element(ERROR, attributes):
        xf.write(inner)
        write_text(xf, MESSAGE, headline(error))
        for suggestion in suggestions(error):
            xf.write(inner)
            write_text(xf, LEGAL_PLAY, suggestion)
        slip = slip_of(error)
        if slip:
            xf.write(inner)
            write_text(xf, SLIP, slip)
        xf.write(here)
