"""A match file's header, and how a stream is told to be one.

The header is ``; [Name "value"]`` lines and ``N point match``; every game of the match carries
its tags (docs/notation.md, "Match files"). ``decoding`` asks :func:`is_match_file` whether a
stream is a match file and cuts it at :data:`GAME_LINE`; :mod:`.mat_reader` reads each game's
lines, :mod:`.mat_writer` writes the same names back.
"""

from __future__ import annotations

import functools
import re

from ..errors import NotationError
from ..record import Span
from .words import new_tuple

#: the ruleset every game of a match file is played under (docs/rules.md)
MAT_RULESET = "backgammon"

#: ``; [Name "value"]``: a header line of the match (names may hold spaces: ``Match ID``)
HEADER_LINE = re.compile(r'[ \t]*;[ \t]*\[[ \t]*([^"\]]*?)[ \t]+"([^"]*)"[ \t]*\][ \t]*\Z')
#: ``5 point match`` (``0 point match``: unlimited, a money session)
LENGTH_LINE = re.compile(r"[ \t]*([0-9]{1,9})[ \t]+point[ \t]+match[ \t]*\Z", re.IGNORECASE)
#: ``Game 3``: where a game begins
GAME_LINE = re.compile(r"[ \t]*Game[ \t]+([0-9]{1,9})[ \t]*\Z")
#: how every line that :data:`GAME_LINE`, :data:`HEADER_LINE` or :data:`LENGTH_LINE` matches
#: begins (and few others do): the one pattern a game's own lines are tried by, as a match file
#: is cut into games, rather than those three
MAYBE_NOT_PLAY = re.compile(r"[ \t]*(?:Game[ \t]|;|[0-9]{1,9}[ \t]+point)", re.IGNORECASE)
#: a header name as it stands in a record's tags: the record's own names where they mean the
#: same, else the name with each character a tag name may not hold as ``_`` (``Match_ID``)
HEADER_TAGS = {"EventDate": "Date"}
_TAG_CHARACTERS = re.compile(r"[^A-Za-z0-9_-]")
_DATE = re.compile(r"[0-9]{4}\.[0-9][0-9]\.[0-9][0-9]\Z")
#: the tags the reader makes from a game's lines rather than the header
GAME_TAGS = ("Rules", "Match", "Game", "Score", "White", "Black", "WhiteElo", "BlackElo")


def is_match_file(lines: list[str]) -> bool:
    """Whether the first lines of a text are a match file's: header lines, then its length or
    its first game. A Jacquet record never starts so (a ``;`` comment there is before tags)."""
    for line in lines:
        if not line.strip() or HEADER_LINE.match(line):
            continue
        return bool(LENGTH_LINE.match(line) or GAME_LINE.match(line))
    return False


@functools.lru_cache(maxsize=1024)
def tag_name(name: str) -> str:
    """The record's tag for a header name (``Match ID`` -> ``Match_ID``, ``EventDate`` -> Date);
    kept by name, as every match file of a source writes the same dozen names."""
    mapped = HEADER_TAGS.get(name)
    if mapped is not None:
        return mapped
    cleaned = _TAG_CHARACTERS.sub("_", name.strip())
    return cleaned if cleaned[:1].isalpha() else "Tag_" + cleaned


def read_header(
    preamble: str, file: str | None, index: int
) -> tuple[dict[str, str], dict[str, Span], list[NotationError]]:
    """The match's tags from its header lines (line 1 on): every ``; [Name "value"]`` kept, the
    length as ``Match`` (none for 0, unlimited), ``Rules`` the backgammon ruleset."""
    tags: dict[str, str] = {"Rules": MAT_RULESET}
    spans: dict[str, Span] = {}
    errors: list[NotationError] = []
    for number, line in enumerate(preamble.split("\n"), 1):
        if not line.strip():
            continue
        header = HEADER_LINE.match(line)
        if header is not None:
            name = tag_name(header.group(1))
            value = header.group(2)
            if name == "Date" and not _DATE.match(value):
                name = "EventDate"
            tags.setdefault(name, value)
            if name not in spans:
                spans[name] = new_tuple(Span, (number, 1, number, len(line)))
            continue
        length = LENGTH_LINE.match(line)
        if length is not None:
            if int(length.group(1)) > 0:
                tags["Match"] = str(int(length.group(1)))
                spans["Match"] = Span(number, 1, number, len(line))
            continue
        if index == 1:  # the header's errors are told once, with the first game
            caret = (
                "    "
                + "".join(
                    "\t" if c == "\t" else " " for c in line[: len(line) - len(line.lstrip())]
                )
                + "^"
            )
            errors.append(
                NotationError(
                    f'expected a header line such as ; [Site "x"] or 5 point match, found'
                    f" {line.strip()[:30]}\n    {line}\n{caret}",
                    file=file,
                    game=index,
                    line=number,
                    column=len(line) - len(line.lstrip()) + 1,
                )
            )
    return tags, spans, errors


#: the tags and spans of the last header read, by its text: every game of a match file has the
#: same header, read once (the reader copies them into each record, never changes them)
_LAST_HEADER: dict[str, tuple[dict[str, str], dict[str, Span]]] = {}


def match_header(
    preamble: str, file: str | None, index: int
) -> tuple[dict[str, str], dict[str, Span], list[NotationError]]:
    """:func:`read_header` of game ``index``'s ``preamble``, read once for all the games of a
    match (they come one after another); the header's errors are told with game 1 only."""
    cached = _LAST_HEADER.get(preamble) if index > 1 else None
    if cached is not None:
        return cached[0], cached[1], []
    tags, spans, errors = read_header(preamble, file, index)
    _LAST_HEADER.clear()  # one match's header: its games come one after another
    _LAST_HEADER[preamble] = (tags, spans)
    return tags, spans, errors
