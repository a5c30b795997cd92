"""The XML format's vocabulary: its namespace and version, element names, limits, the
error a document raises, and how text XML 1.0 cannot carry is escaped rather than dropped."""

from __future__ import annotations

import re
from typing import Any, Literal

from lxml import etree

from ..errors import NotationError

#: the namespace of every element of the format; the trailing 1 is the format's major version
NAMESPACE = "urn:jacquet-notation:games:1"
#: the ``version`` attribute of ``<games>``
FORMAT_VERSION = "1"
#: the deepest element nesting the importer accepts (libxml2's own limit is 256)
MAX_DEPTH = 200
#: the deepest nesting of variations the exporter writes as elements: 90 variations inside one
#: another make a document about 190 elements deep, under :data:`MAX_DEPTH`. A deeper game is
#: exported as unreadable, with its text, rather than as a document no importer would accept.
MAX_VARIATION_DEPTH = 90
#: the most bytes read before the root element (declaration, comments) before giving up
MAX_PROLOG = 1 << 20

Status = Literal["valid", "invalid", "unreadable"]


class XmlError(NotationError):
    """A document that cannot be read: malformed, refused for safety, or not of the schema."""


def _q(name: str) -> str:
    return f"{{{NAMESPACE}}}{name}"


GAMES = _q("games")
GAME = _q("game")
TAGS = _q("tags")
TAG = _q("tag")
RULES = _q("rules")
OPTION = _q("option")
COMMENT = _q("comment")
COMMENT_BEFORE = _q("comment-before")
PLAYS = _q("plays")
PLAY = _q("play")
WRITTEN = _q("written")
MOVE = _q("move")
RESOLVED = _q("resolved")
STEP = _q("step")
GLYPH = _q("glyph")
VARIATION = _q("variation")
RESULT = _q("result")
OUTCOME = _q("outcome")
ERRORS = _q("errors")
ERROR = _q("error")
MESSAGE = _q("message")
LEGAL_PLAY = _q("legal-play")
SLIP = _q("slip")
SOURCE_TEXT = _q("source-text")
PLAYERS = _q("players")
PLAYER = _q("player")
NAME = _q("name")
SPELLING = _q("spelling")

#: the default namespace, declared on <games> (or on a <game> standing alone)
NSMAP: Any = {None: NAMESPACE}


# --------------------------------------------------------------------------------------------
# Text XML cannot carry: escaped, never dropped

#: characters XML 1.0 cannot hold (most C0 controls, lone surrogates, U+FFFE, U+FFFF)
UNSAFE = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")
_ESCAPE = re.compile(r"\\(\\|x[0-9A-F]{2}|u[0-9A-F]{4})")


def _escape_char(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02X}" if code < 0x100 else f"\\u{code:04X}"


def escape(value: str) -> str:
    """``value`` with what XML cannot carry spelled ``\\xHH``/``\\uHHHH`` (and ``\\`` doubled),
    for an element marked ``escaped="yes"``: text is escaped, never dropped."""
    return UNSAFE.sub(_escape_char, value.replace("\\", "\\\\"))


def _unescape_one(match: re.Match[str]) -> str:
    code = match.group(1)
    return "\\" if code == "\\" else chr(int(code[1:], 16))


def unescape(value: str) -> str:
    """The text :func:`escape` spelled, as it was."""
    return _ESCAPE.sub(_unescape_one, value)


def text_of(element: etree._Element) -> str:
    """An element's text as written, unescaped when it is marked ``escaped="yes"``."""
    text = element.text or ""
    return unescape(text) if element.get("escaped") == "yes" else text


def write_text(xf: Any, tag: str, value: str, attributes: dict[str, str] | None = None) -> None:
    """An element holding text, through lxml's incremental writer ``xf``; text XML cannot carry
    is escaped and the element says so."""
    if UNSAFE.search(value) is not None:
        attributes = {**(attributes or {}), "escaped": "yes"}
        value = escape(value)
    with xf.element(tag, attributes):
        xf.write(value)
