"""The one reader of numbers written as text, for the whole project: ASCII digits only.

``str.isdigit()`` is true of ``²`` and of ``٣``, and ``int()`` raises on the first and reads the
second as 3 (it also takes ``" 3 "``, ``"+3"`` and ``"1_000"``). No record, tag, option or URL of
this project means any of these, so every number read from text goes through :func:`ascii_int`,
which answers ``None`` for anything but plain ASCII digits; each caller then says in its own
words (and its own error class) what it expected. A test greps the package so that ``isdigit``
and Unicode ``\\d`` cannot come back. This module sits beneath every layer, beside
``errors.py`` and ``board_terms.py``, and imports nothing of the project.
"""

from __future__ import annotations

#: the most digits read; a longer number is out of every range the project has (SQLite's largest
#: integer has 19 digits), and Python refuses ``int()`` of more than 4,300 digits outright
MAX_DIGITS = 19
#: the most digits ``int()`` reads (Python's default limit): for a caller that tells a number too
#: long for any range (a ``?page=`` of 30 nines: 400) from one that is no number at all
INT_TEXT_LIMIT = 4300


def ascii_int(text: str, *, signed: bool = False, most_digits: int = MAX_DIGITS) -> int | None:
    """The value of ``text`` if it is one to ``most_digits`` ASCII digits (after one ``-`` when
    ``signed``), else None: never an exception, never a digit of another script."""
    negative = signed and text[:1] == "-"
    body = text[1:] if negative else text
    # isascii() first: among ASCII characters isdigit() is true of 0-9 alone.
    if not body or len(body) > most_digits or not body.isascii() or not body.isdigit():
        return None
    return -int(body) if negative else int(body)
