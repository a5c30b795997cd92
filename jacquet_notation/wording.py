"""Counts in words: ``1 game``, ``2 games``, ``1 ply``, ``3 plies``.

Beneath every layer (it imports nothing of the project), so that the commands' summaries, the
archive's import line and the browser's pages (a Jinja filter, ``browse/hooks.py``) all say a
count the one way: a count of one takes the singular, every other count (zero too) the plural.
"""

from __future__ import annotations

#: the nouns counted whose plural is not the noun and an ``s``
_IRREGULAR = {"ply": "plies", "match": "matches", "man": "men", "entry": "entries"}


def plural_of(noun: str) -> str:
    """``noun``'s plural: an irregular one from :data:`_IRREGULAR`, else ``noun + "s"``."""
    return _IRREGULAR.get(noun, noun + "s")


def plural(count: int, noun: str, *, thousands: bool = False) -> str:
    """``count`` and ``noun``, the noun in the plural unless the count is one.

    ``thousands`` writes the count with commas (``1,204 games``), as the browser's pages do.
    """
    number = f"{count:,}" if thousands else str(count)
    return f"{number} {noun if count == 1 else plural_of(noun)}"
