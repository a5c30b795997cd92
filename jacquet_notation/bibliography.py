"""A game's place in its source, as the bibliographic tags give it (docs/notation.md, "Sources"):
the tags' names, the source's citation, and a page's place in the book's order.

Beneath every layer: the writer orders the tags by these names, the archive names a source by
:func:`source_name`, the browser sorts a source's games by :func:`page_order` and cites a
source by :func:`citation`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping

from .numerals import ascii_int

SOURCE = "Source"
SOURCE_AUTHOR = "SourceAuthor"
SOURCE_TITLE = "SourceTitle"
SOURCE_YEAR = "SourceYear"
#: a page or a plate as the source numbers it: ``42``, ``p. 42``, ``pl. III``, ``12-13``
SOURCE_PAGE = "SourcePage"
#: the bibliographic tags, in the order the writer puts them
SOURCE_TAGS = (SOURCE, SOURCE_AUTHOR, SOURCE_TITLE, SOURCE_YEAR, SOURCE_PAGE)

_NUMBER = re.compile(r"[0-9]+")
_ROMAN = re.compile(r"(?<![a-z])([ivxlcdm]+)\.?\s*\Z", re.IGNORECASE)
_ROMAN_VALUES = {"i": 1, "v": 5, "x": 10, "l": 50, "c": 100, "d": 500, "m": 1000}


def _clean(value: str | None) -> str | None:
    stripped = (value or "").strip()
    return stripped if stripped and stripped != "?" else None


def citation(author: str | None, title: str | None, year: str | None) -> str | None:
    """``Author, Title (Year)``, each part left out where unknown; None when all are."""
    author, title, year = _clean(author), _clean(title), _clean(year)
    head = ", ".join(part for part in (author, title) if part)
    if year:
        return f"{head} ({year})" if head else year
    return head or None


def source_name(tags: Mapping[str, str]) -> str | None:
    """The source a game is filed under: its ``[Source]`` as written, else the citation its
    ``[SourceAuthor]``, ``[SourceTitle]`` and ``[SourceYear]`` make; None without either."""
    return _clean(tags.get(SOURCE)) or citation(
        tags.get(SOURCE_AUTHOR), tags.get(SOURCE_TITLE), tags.get(SOURCE_YEAR)
    )


def _roman(text: str) -> int | None:
    total, previous = 0, 0
    for char in reversed(text.lower()):
        value = _ROMAN_VALUES[char]
        total = total - value if value < previous else total + value
        previous = max(previous, value)
    return total or None


def page_order(page: str | None) -> int | None:
    """The number a page or plate is sorted by: its first run of ASCII digits (``p. 42`` and
    ``42-43`` are 42), else a roman numeral ending it (``pl. III`` is 3); None when it has
    neither (such a game is listed after the numbered ones)."""
    if not page:
        return None
    found = _NUMBER.search(page)
    if found is not None:
        return ascii_int(found.group())
    roman = _ROMAN.search(page.strip())
    return _roman(roman.group(1)) if roman is not None and len(roman.group(1)) <= 12 else None
