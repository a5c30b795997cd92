"""The XML carries an archive's merged players: ``jacquet export --players DB`` writes
``<players>`` before the games, valid against the shipped schema and read past by
``import-xml`` (docs/xml.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from helpers import alias_records, run
from lxml import etree

from jacquet_notation.archive import import_paths
from jacquet_notation.archive.aliases import merge
from jacquet_notation.notation import read_games
from jacquet_notation.xml import NAMESPACE, XmlError, read_xml, schema, write_xml

NS = {"j": NAMESPACE}


@pytest.fixture
def merged(tmp_path: Path) -> tuple[Path, Path]:
    records = alias_records(tmp_path / "aliases.jqt")
    db = tmp_path / "a.db"
    import_paths(db, [str(records)])
    merge(db, "Jean Dupré", "J. Dupré")
    merge(db, "Jean Dupré", "Dupré, Jean")
    return db, records


@pytest.mark.integration
def test_the_export_names_the_merged_players(merged: tuple[Path, Path], tmp_path: Path) -> None:
    db, records = merged
    out = tmp_path / "games.xml"
    done = run("export", "--xml", str(out), "--players", str(db), str(records))
    assert done.returncode == 0, done.stderr
    document = etree.parse(str(out))
    assert schema().validate(document), schema().error_log
    (player,) = document.findall("j:players/j:player", NS)
    assert player.findtext("j:name", namespaces=NS) == "Jean Dupré"
    spellings = [e.text for e in player.findall("j:spelling", NS)]
    assert spellings == ["Dupré, Jean", "J. Dupré"]
    assert document.getroot()[0].tag == f"{{{NAMESPACE}}}players"  # before the games
    assert len(document.findall("j:game", NS)) == 6
    # import-xml reads the games past it, checked against the schema
    back = run("import-xml", str(out), "-o", str(tmp_path / "back.jqt"))
    assert back.returncode == 0, back.stderr
    assert (tmp_path / "back.jqt").read_text("utf-8").count("[White ") == 6
    # an archive that is not there: exit 2, nothing written
    missing = run("export", "--xml", str(tmp_path / "x.xml"), "--players", "nope.db", str(records))
    assert missing.returncode == 2 and "no such archive" in missing.stderr
    assert not (tmp_path / "x.xml").exists()


def test_a_spelling_xml_cannot_carry_is_escaped(tmp_path: Path) -> None:
    out = tmp_path / "p.xml"
    write_xml([], str(out), players=[("Jean Dupré", ["J.\x07Dupré"])])
    document = etree.parse(str(out))
    assert schema().validate(document), schema().error_log
    (spelling,) = document.findall("j:players/j:player/j:spelling", NS)
    assert (spelling.text, spelling.get("escaped")) == ("J.\\x07Dupré", "yes")
    assert list(read_xml(str(out))) == []


def test_players_after_a_game_are_refused(tmp_path: Path) -> None:
    records = alias_records(tmp_path / "aliases.jqt")
    out = tmp_path / "p.xml"
    write_xml(read_games(records), str(out), players=[("A", ["B"])])
    tree = etree.parse(str(out))
    root = tree.getroot()
    root.append(root[0])  # <players> moved after the games
    tree.write(str(out))
    assert not schema().validate(etree.parse(str(out)))
    with pytest.raises(XmlError, match="expected a <game>"):
        list(read_xml(str(out)))


def test_a_players_list_off_the_schema_is_refused_where_it_is(tmp_path: Path) -> None:
    out = tmp_path / "p.xml"
    write_xml([], str(out), players=[("A", ["B"])])
    text = out.read_text("utf-8").replace("<spelling>B</spelling>", "<alias>B</alias>")
    out.write_text(text, "utf-8")
    with pytest.raises(XmlError) as caught:
        list(read_xml(str(out)))
    assert caught.value.line == 6 and "alias" in str(caught.value)  # the <alias> line
    assert list(read_xml(str(out), validate=False)) == []
