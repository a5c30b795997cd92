"""Names and dates as the archive keys them: a name's lookup key (one player however his name
is accented, cased or spaced) and a date's ISO form; pure, for the rows and the store alike."""

from __future__ import annotations

import re
import unicodedata

_SPACES = re.compile(r"\s+")


def normalise_name(name: str) -> str:
    """The lookup key of a name: accents removed, case folded, whitespace collapsed.

    ``"  Jean  DUPRÉ "`` and ``"jean dupre"`` are one player; the display name is kept apart.
    """
    decomposed = unicodedata.normalize("NFKD", name)
    bare = "".join(char for char in decomposed if not unicodedata.combining(char))
    return _SPACES.sub(" ", bare.casefold()).strip()


_DATE = re.compile(
    r"\s*([0-9]{4}|\?{4})(?:[.\-/]([0-9]{2}|\?{2})(?:[.\-/]([0-9]{2}|\?{2}))?)?\s*\Z"
)


def iso_date(text: str | None) -> tuple[str | None, int | None]:
    """``(ISO date with unknown parts kept, year)``: ``1818.??.??`` -> ``("1818-??-??", 1818)``.

    A wholly unknown date or a text that is not a date gives ``(None, None)``; the tag as written
    stays in ``games.date_written``.
    """
    if not text:
        return None, None
    match = _DATE.match(text)
    if match is None:
        return None, None
    year, month, day = match.group(1), match.group(2) or "??", match.group(3) or "??"
    if year == "????":
        return None, None
    if month != "??" and not 1 <= int(month) <= 12:
        return None, int(year)
    if day != "??" and not 1 <= int(day) <= 31:
        return None, int(year)
    return f"{year}-{month}-{day}", int(year)
