"""An analyser's decisions (gnubg's SGF) reach the XML export, validate against the shipped
schema and read back as the same shapes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest
from lxml import etree

from jacquet_notation import xml
from jacquet_notation.notation import read_games

FIXTURE = Path(__file__).resolve().parent.parent / "data" / "sgf" / "gnubg-analysed-3pt.sgf"


@pytest.mark.unit
def test_a_plys_analysis_is_exported_and_read_back() -> None:
    games = list(read_games(FIXTURE))
    out = io.BytesIO()
    xml.write_xml(games, out)
    document = out.getvalue()
    tree = etree.fromstring(document)
    namespace = {"j": "urn:jacquet-notation:games:1"}
    decisions = tree.findall(".//j:play/j:analysis/j:decision", namespace)
    written = [d for g in games for p in g.plays if p.analysis for d in p.analysis.decisions]
    assert len(decisions) == len(written) > 0
    assert {d.get("kind") for d in decisions} == {"move", "cube"}
    back = list(xml.read_xml(io.BytesIO(document), "games.xml"))  # validated by the schema
    assert games[0].analyser is not None
    assert [g.analyser for g in back] == [g.analyser for g in games]
    assert [p.analysis for g in back for p in g.plays] == [
        p.analysis for g in games for p in g.plays
    ]
