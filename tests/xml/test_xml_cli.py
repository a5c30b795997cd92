"""``jacquet export`` and ``jacquet import-xml``: exit codes, atomic output, the score sheet."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any

import lxml.html
import pytest
from click.testing import CliRunner
from lxml import etree

from jacquet_notation.cli import main
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_games, write_game
from jacquet_notation.rules import Rules
from jacquet_notation.xml import NAMESPACE, read_xml, schema

NS = {"j": NAMESPACE}

SHEET_GAME = """[Event "Soirée"]
[White "<script>alert(1)</script>"]
[Black "Bob & \\"Co\\""]
[Result "*"]

{Played by candlelight.}
1. 6-5: 24/13 {bold} 4-3: 24/20 20/17
2. 6-1: 13/7 7/6 (2. 6-1: 24/18 18/17 {also fine}) 5-2: 17/12 12/10
*
"""


def runner() -> CliRunner:
    return CliRunner()


def valid_file(tmp_path: Path, games: int = 3) -> Path:
    path = tmp_path / "games.jqt"
    records = generate_records(games, 4, Rules.named("jacquet"))
    path.write_text("\n".join(write_game(r) for r in records), encoding="utf-8")
    return path


def mixed_file(tmp_path: Path) -> Path:
    path = tmp_path / "mixed.jqt"
    path.write_text(
        valid_file(tmp_path, 1).read_text(encoding="utf-8")
        + '\n[Event "illegal"]\n\n1. 6-5: 24/18 24/19 *\n'
        + '\n[Event "unreadable"]\n\n1. 6-5 24/18 24/19 *\n',
        encoding="utf-8",
    )
    return path


def test_export_valid_games_exits_0_and_validates(tmp_path: Path) -> None:
    out = tmp_path / "out.xml"
    result = runner().invoke(main, ["export", "--xml", str(out), str(valid_file(tmp_path))])
    assert result.exit_code == 0, result.output
    assert "3 games exported: 3 valid, 0 invalid, 0 unreadable" in result.output
    root = etree.parse(str(out)).getroot()
    assert schema().validate(root), schema().error_log
    assert len(root) == 3
    assert oct(out.stat().st_mode & 0o777) != oct(0o600)  # not left private like a temp file


def test_invalid_and_unreadable_games_are_exported_with_exit_1(tmp_path: Path) -> None:
    out = tmp_path / "out.xml"
    result = runner().invoke(main, ["export", "--xml", str(out), str(mixed_file(tmp_path))])
    assert result.exit_code == 1, result.output
    assert "3 games exported: 1 valid, 1 invalid, 1 unreadable" in result.output
    root = etree.parse(str(out)).getroot()
    assert schema().validate(root)
    assert [g.get("status") for g in root] == ["valid", "invalid", "unreadable"]


def test_export_to_stdout(tmp_path: Path) -> None:
    result = runner().invoke(main, ["export", "--xml", "-", str(valid_file(tmp_path, 1))])
    assert result.exit_code == 0
    document = result.stdout_bytes
    assert document.startswith(b"<?xml")
    assert schema().validate(etree.fromstring(document))


def test_export_reads_stdin_and_folders(tmp_path: Path) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    valid_file(folder, 2)
    text = valid_file(tmp_path, 1).read_text(encoding="utf-8")
    result = runner().invoke(main, ["export", "--xml", "-", str(folder), "-"], input=text)
    assert result.exit_code == 0, result.output
    files = [g.get("file") for g in etree.fromstring(result.stdout_bytes)]
    assert files == [str(folder / "games.jqt")] * 2 + ["<stdin>"]


@pytest.mark.parametrize(
    "arguments, words",
    [
        (["export", "games.jqt"], "nothing to do"),
        (["export", "--xml", "-", "--html", "-", "games.jqt"], "cannot both"),
        (["export", "--xml", "OUT", "missing.jqt"], "missing.jqt"),
    ],
)
def test_usage_and_io_errors_exit_2_and_write_nothing(
    tmp_path: Path, arguments: list[str], words: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    valid_file(tmp_path)
    result = runner().invoke(main, arguments)
    assert result.exit_code == 2, result.output
    assert words in result.output
    assert "Traceback" not in result.output
    assert not (tmp_path / "OUT").exists()
    assert [p.name for p in tmp_path.iterdir()] == ["games.jqt"]  # no temporary file left


def test_a_failed_export_leaves_an_existing_target_untouched(tmp_path: Path) -> None:
    out = tmp_path / "out.xml"
    out.write_bytes(b"previous")
    good = valid_file(tmp_path)
    result = runner().invoke(main, ["export", "--xml", str(out), str(good), "missing.jqt"])
    assert result.exit_code == 2
    assert out.read_bytes() == b"previous"


def test_import_gives_canonical_notation_and_round_trips(tmp_path: Path) -> None:
    source = mixed_file(tmp_path)
    document = tmp_path / "out.xml"
    runner().invoke(main, ["export", "--xml", str(document), str(source)])
    result = runner().invoke(main, ["import-xml", str(document)])
    assert result.exit_code == 0, result.output
    records = parse_games(source.read_text(encoding="utf-8"))
    # readable games come back canonical; the unreadable one as it was written
    expected = "\n".join(write_game(r) if not r.errors else r.text + "\n" for r in records)
    assert result.output == expected
    # and the notation read back exports to the same document, but for where it was read from
    again = tmp_path / "again.jqt"
    runner().invoke(main, ["import-xml", str(document), "-o", str(again)])
    assert again.read_text(encoding="utf-8") == expected


def _document(body: str) -> bytes:
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f'<games xmlns="{NAMESPACE}" version="1">\n{body}\n</games>\n'
    ).encode()


GOOD_GAME = """  <game number="1" status="valid">
    <tags><tag name="White">Ann</tag></tags>
    <rules name="jacquet"></rules>
    <plays>
      <play turn="1" side="white" dice="6-5"><move from="24" to="13"></move></play>
    </plays>
  </game>"""


@pytest.mark.parametrize(
    "body, where, words",
    [
        (GOOD_GAME + '\n  <game number="2" status="valid"><tags>', "11:9:", "tag mismatch"),
        (GOOD_GAME.replace('side="white"', 'side="green"'), "7:7:", "attribute side"),
        (GOOD_GAME.replace("<tags>", "<tags><colour/>"), "4:11:", "element colour"),
        (GOOD_GAME.replace("<move", "\n<move").replace("></move>", " count='x'/>"), "8:1:", "move"),
        (GOOD_GAME + "\n  <notagame/>", "10:3:", "expected a <game>"),
        (GOOD_GAME.replace('dice="6-5"', 'dice="6-5" dice="1-1"'), "7:", "dice redefined"),
        (GOOD_GAME.replace('number="1"', 'number="one"'), "3:3:", "'one'"),
    ],
)
def test_malformed_or_invalid_xml_is_one_line_with_line_and_column(
    tmp_path: Path, body: str, where: str, words: str
) -> None:
    document = tmp_path / "bad.xml"
    document.write_bytes(_document(body))
    out = tmp_path / "out.jqt"
    out.write_text("keep me", encoding="utf-8")
    result = runner().invoke(main, ["import-xml", str(document), "-o", str(out)])
    assert result.exit_code == 1, result.output
    lines = result.output.strip().splitlines()
    assert len(lines) == 1, result.output
    assert lines[0].startswith(f"jacquet: {document}:{where}"), lines[0]
    assert words in lines[0]
    assert out.read_text(encoding="utf-8") == "keep me"  # nothing half-written
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.xml", "out.jqt"]


def test_a_good_game_before_an_error_is_not_written_to_stdout_either(tmp_path: Path) -> None:
    document = tmp_path / "bad.xml"
    document.write_bytes(_document(GOOD_GAME + '\n  <game number="2"'))
    result = runner().invoke(main, ["import-xml", str(document)])
    assert result.exit_code == 1
    assert result.stdout == ""


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        (
            "svg.xml",
            b'<svg xmlns="http://www.w3.org/2000/svg"/>',
            "1:1: not a jacquet-notation document",
        ),
        (
            "v2.xml",
            _document(GOOD_GAME).replace(b'version="1"', b'version="2"'),
            "2:1: format version '2' is not known",
        ),
        ("empty.xml", b"\n", "1:1: the document is empty"),
    ],
)
def test_a_document_that_cannot_be_read_is_named(
    tmp_path: Path, name: str, content: bytes, message: str
) -> None:
    """Another kind of XML, an unknown format version, an empty file: each named, with where."""
    document = tmp_path / name
    document.write_bytes(content)
    result = runner().invoke(main, ["import-xml", str(document)])
    assert result.exit_code == 1
    assert f"{document}:{message}" in result.output


def test_import_missing_file_exits_2(tmp_path: Path) -> None:
    result = runner().invoke(main, ["import-xml", str(tmp_path / "nope.xml")])
    assert result.exit_code == 2
    assert "nope.xml" in result.output


def css(element: lxml.html.HtmlElement, tag: str, cls: str | None = None) -> list[Any]:
    """Descendants by tag and class (XPath: cssselect is not a dependency)."""
    if cls is None:
        return element.xpath(f".//{tag}")  # type: ignore[no-any-return]
    test = f"contains(concat(' ', normalize-space(@class), ' '), ' {cls} ')"
    return element.xpath(f".//{tag}[{test}]")  # type: ignore[no-any-return]


def _sheet(tmp_path: Path, text: str) -> lxml.html.HtmlElement:
    source = tmp_path / "sheet.jqt"
    source.write_text(text, encoding="utf-8")
    html = tmp_path / "sheet.html"
    result = runner().invoke(main, ["export", "--html", str(html), str(source)])
    assert result.exit_code in (0, 1), result.output
    return lxml.html.parse(str(html)).getroot()


def test_html_score_sheet(tmp_path: Path) -> None:
    page = _sheet(tmp_path, SHEET_GAME)
    (section,) = css(page, "section", "game")
    tags = {
        row.findtext("th"): row.findtext("td")
        for row in css(section, "table", "tags")[0].xpath("tr")
    }
    assert tags["Event"] == "Soirée"
    assert tags["Black"] == 'Bob & "Co"'
    # the player named like a script is text, and no script element exists
    assert tags["White"] == "<script>alert(1)</script>"
    assert css(page, "script") == []
    assert "<script>alert(1)</script>" in section.findtext("h2")
    raw = (tmp_path / "sheet.html").read_text(encoding="utf-8")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in raw
    # turns in two columns: White's and Black's plays of a turn side by side
    rows = css(section, "table", "turns")[0].xpath("tbody/tr")
    cells = [[td.text_content().strip() for td in row.findall("td")] for row in rows]
    assert [row[0] for row in cells] == ["1", "2"]
    assert cells[0][1] == "6-5: 24/13 bold"
    assert cells[0][2] == "4-3: 24/20 20/17"
    assert cells[1][1].startswith("6-1: 13/7 7/6")
    assert "(2. 6-1: 24/18 18/17 also fine)" in cells[1][1]
    assert cells[1][2] == "5-2: 17/12 12/10"
    header = [th.text_content() for th in css(section, "table", "turns")[0].xpath("thead/tr/th")]
    assert header == ["Turn", "White", "Black"]
    assert [c.text_content() for c in css(section, "p", "comment")] == ["Played by candlelight."]
    assert css(section, "span", "comment")[0].text_content() == "bold"
    assert css(section, "p", "result")[0].text_content().strip() == "Result: *"


def test_html_marks_an_illegal_play_and_lists_errors(tmp_path: Path) -> None:
    page = _sheet(tmp_path, '[Event "x"]\n\n1. 6-5: 24/18 24/19 *\n')
    illegal = css(page, "span", "illegal")
    assert len(illegal) == 1 and "courier" in illegal[0].get("title", "")
    errors = css(page, "ul", "errors")[0].xpath("li")
    assert errors and errors[0].text_content().startswith("line 3, column 15: ")


def test_html_black_first_gets_an_empty_white_cell(tmp_path: Path) -> None:
    page = _sheet(tmp_path, '[Event "x"]\n\n1... 6-5: 24/13 2. 4-3: 24/20 20/17 *\n')
    rows = css(page, "table", "turns")[0].xpath("tbody/tr")
    cells = [[td.text_content().strip() for td in row.findall("td")] for row in rows]
    assert cells == [["1", "", "6-5: 24/13"], ["2", "4-3: 24/20 20/17", ""]]


def test_both_outputs_in_one_run(tmp_path: Path) -> None:
    source = valid_file(tmp_path, 2)
    out, html = tmp_path / "a.xml", tmp_path / "a.html"
    result = runner().invoke(main, ["export", "--xml", str(out), "--html", str(html), str(source)])
    assert result.exit_code == 0
    assert len(list(read_xml(out))) == 2
    page = lxml.html.parse(str(html)).getroot()
    assert len(css(page, "section", "game")) == 2
    assert io.BytesIO(out.read_bytes()).read(5) == b"<?xml"
    assert NS["j"] in out.read_text(encoding="utf-8")
