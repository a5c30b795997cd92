"""The package data of the format, read once: the RELAX NG schema and the score sheet's XSLT,
both parsed with the settings every document is read with (no entities, no DTD, no network)."""

from __future__ import annotations

import functools
import io
from importlib import resources
from typing import Any

from lxml import etree

# --------------------------------------------------------------------------------------------
# Package data: the schema and the stylesheet, read once


def _data(folder: str, name: str) -> bytes:
    return resources.files("jacquet_notation").joinpath(folder, name).read_bytes()


#: the settings of every parser this module uses: no entities, no DTD, no network, no huge trees
SAFE: dict[str, Any] = {
    "resolve_entities": False,
    "no_network": True,
    "load_dtd": False,
    "dtd_validation": False,
    "huge_tree": False,
    "remove_comments": True,
    "remove_pis": True,
    "collect_ids": False,
}


def safe_parser() -> etree.XMLParser:
    """The parser settings used for every document this module reads."""
    return etree.XMLParser(**SAFE)


def _schema_tree(start: str) -> etree._ElementTree:
    tree = etree.parse(io.BytesIO(_data("schema", "jacquet.rng")), safe_parser())
    if start != "games":
        rng = "{http://relaxng.org/ns/structure/1.0}"
        ref = tree.getroot().find(f"{rng}start/{rng}ref")
        assert ref is not None
        ref.set("name", start)
    return tree


@functools.cache
def schema() -> Any:
    """The RELAX NG schema of a whole document (``jacquet_notation/schema/jacquet.rng``)."""
    return etree.RelaxNG(_schema_tree("games"))


@functools.cache
def game_schema() -> Any:
    """The same schema with ``<game>`` as its start, to check one game at a time while streaming."""
    return etree.RelaxNG(_schema_tree("game"))


@functools.cache
def players_schema() -> Any:
    """The same schema with ``<players>`` as its start (an archive's merged players)."""
    return etree.RelaxNG(_schema_tree("players"))


@functools.cache
def stylesheet() -> etree.XSLT:
    """The score sheet stylesheet (``jacquet_notation/xslt/scoresheet.xsl``), denied all I/O."""
    tree = etree.parse(io.BytesIO(_data("xslt", "scoresheet.xsl")), safe_parser())
    deny: Any = etree.XSLTAccessControl.DENY_ALL  # type: ignore[attr-defined]
    return etree.XSLT(tree, access_control=deny)


def scoresheet(document: etree._ElementTree | etree._Element) -> bytes:
    """The HTML score sheet of a document (tags, turns in two columns, comments, the result)."""
    result = stylesheet()(document)
    return bytes(result)
