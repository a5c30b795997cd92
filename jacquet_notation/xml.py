"""Games as XML: a streaming exporter, a secure streaming importer, the schema and the score sheet.

The format (``docs/xml.md``, schema ``schema/jacquet.rng``, namespace :data:`NAMESPACE`) keeps
each record whole, so that it can be rebuilt exactly, and beside it what the replay derived: the
rules, the resolved steps, the position after each play, the outcome and every error. An
invalid or unreadable game is exported like any other; none is dropped.

Both directions stream: the exporter writes one ``<game>`` at a time through lxml's incremental
writer, the importer reads one at a time with ``iterparse`` and frees it, so memory stays flat on
any number of games. The importer trusts nothing: a DTD (and so any entity) is refused before
lxml sees it, entities are never resolved, nothing is fetched from the network, depth is bounded,
and every game is checked against the schema.

This module is ``jacquet_notation.xml``, the format's one public door; its parts live in
``jacquet_notation._xml``, one concern each (names and escaping, schema and stylesheet, export,
secure reading). It imports lxml absolutely and never the standard library's ``xml`` package,
which it does not shadow for any other module.
"""

from __future__ import annotations

from ._xml.export import ExportCounts, game_element, replayed_element, status_of, write_xml
from ._xml.format import FORMAT_VERSION, MAX_DEPTH, MAX_VARIATION_DEPTH, NAMESPACE, XmlError
from ._xml.reading import parse_document, read_xml, record_from_element, record_text
from ._xml.schema import safe_parser, schema, scoresheet, stylesheet

__all__ = [
    "FORMAT_VERSION",
    "MAX_DEPTH",
    "MAX_VARIATION_DEPTH",
    "NAMESPACE",
    "ExportCounts",
    "XmlError",
    "game_element",
    "parse_document",
    "read_xml",
    "record_from_element",
    "record_text",
    "replayed_element",
    "safe_parser",
    "schema",
    "scoresheet",
    "status_of",
    "stylesheet",
    "write_xml",
]
