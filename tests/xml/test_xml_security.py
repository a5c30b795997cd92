"""Hostile documents are refused: external entities, entity bombs, deep nesting, DTDs.

Each attack is checked twice: in process, through the Python API (the refusal and its message),
and through ``jacquet import-xml`` in a subprocess run with ``timeout=10``. The subprocess is the
"within a second" harness without a timing assertion that could flake: a reader that expanded
the bomb or recursed 10,000 deep would blow the timeout or the memory and fail the test, while
a refusal returns at once (a few hundred milliseconds, most of it starting Python).
"""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest
from lxml import etree

from jacquet_notation.xml import MAX_DEPTH, NAMESPACE, XmlError, parse_document, read_xml

ROOT = Path(__file__).resolve().parents[2]
HEAD = '<?xml version="1.0" encoding="UTF-8"?>\n'

XXE = (
    HEAD
    + '<!DOCTYPE games [<!ENTITY secret SYSTEM "file:///etc/passwd">]>\n'
    + f'<games xmlns="{NAMESPACE}" version="1"><game number="1" status="valid">'
    + '<tags><tag name="White">&secret;</tag></tags></game></games>\n'
)

_LOLS = "".join(
    f'<!ENTITY lol{i} "{f"&lol{i - 1};" * 10 if i > 1 else "lol" * 10}">' for i in range(1, 10)
)
BILLION_LAUGHS = (
    HEAD
    + f"<!DOCTYPE games [{_LOLS}]>\n"
    + f'<games xmlns="{NAMESPACE}" version="1"><game number="1" status="valid">'
    + '<tags><tag name="White">&lol9;</tag></tags></game></games>\n'
)

DEEP = (
    HEAD
    + f'<games xmlns="{NAMESPACE}" version="1">\n'
    + "<game>" * 10_000
    + "</game>" * 10_000
    + "\n</games>\n"
)

EXTERNAL_DTD = (
    HEAD
    + '<!DOCTYPE games SYSTEM "http://example.invalid/jacquet.dtd">\n'
    + f'<games xmlns="{NAMESPACE}" version="1"/>\n'
)


def refusal(document: str | bytes) -> XmlError:
    data = document.encode("utf-8") if isinstance(document, str) else document
    with pytest.raises(XmlError) as caught:
        for _ in read_xml(io.BytesIO(data), "attack.xml"):
            pass
    return caught.value


def run_import(tmp_path: Path, document: str | bytes) -> subprocess.CompletedProcess[str]:
    source = tmp_path / "attack.xml"
    source.write_bytes(document.encode("utf-8") if isinstance(document, str) else document)
    return subprocess.run(
        [
            sys.executable,
            "-m",
            "jacquet_notation",
            "import-xml",
            str(source),
            "-o",
            str(tmp_path / "out.jqt"),
        ],
        capture_output=True,
        text=True,
        timeout=10,
        cwd=ROOT,
    )


def assert_refused_by_cli(tmp_path: Path, document: str | bytes, words: str) -> None:
    result = run_import(tmp_path, document)
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert f"{tmp_path / 'attack.xml'}:" in lines[0]
    assert words in lines[0]
    assert not (tmp_path / "out.jqt").exists()


def test_external_entity_is_refused(tmp_path: Path) -> None:
    error = refusal(XXE)
    assert "DOCTYPE" in error.message
    assert (error.file, error.line, error.column) == ("attack.xml", 2, 1)
    assert "root:" not in str(error)
    assert_refused_by_cli(tmp_path, XXE, "attack.xml:2:1: a document type declaration")


def test_billion_laughs_is_refused(tmp_path: Path) -> None:
    error = refusal(BILLION_LAUGHS)
    assert "DOCTYPE" in error.message and (error.line, error.column) == (2, 1)
    assert_refused_by_cli(tmp_path, BILLION_LAUGHS, "attack.xml:2:1: a document type declaration")


def test_ten_thousand_deep_nesting_is_refused(tmp_path: Path) -> None:
    error = refusal(DEEP)
    assert f"nested more than {MAX_DEPTH} deep" in error.message
    assert error.line == 3 and error.column is not None
    assert_refused_by_cli(tmp_path, DEEP, f"nested more than {MAX_DEPTH} deep")


def test_an_external_dtd_is_refused_and_never_fetched(tmp_path: Path) -> None:
    error = refusal(EXTERNAL_DTD)
    assert "DOCTYPE" in error.message
    assert_refused_by_cli(tmp_path, EXTERNAL_DTD, "a document type declaration")


@pytest.mark.parametrize(
    "prefix",
    [
        "",
        "\ufeff",
        '<?xml version="1.0"?>\n<!-- a comment -->\n<?pi x?>\n',
        '<?xml version="1.0"?>\n<!-- <games> -->  ',
    ],
)
def test_a_doctype_anywhere_in_the_prolog_is_refused(prefix: str) -> None:
    document = prefix + f'<!DOCTYPE games>\n<games xmlns="{NAMESPACE}" version="1"/>'
    error = refusal(document)
    assert "DOCTYPE" in error.message
    assert error.line == prefix.count("\n") + 1


def test_a_doctype_in_utf16_is_refused() -> None:
    document = (
        '<?xml version="1.0" encoding="UTF-16"?>\n<!DOCTYPE g>\n'
        f'<games xmlns="{NAMESPACE}" version="1"/>'
    )
    error = refusal(document.encode("utf-16"))
    assert "DOCTYPE" in error.message and error.line == 2


def test_an_undeclared_entity_is_an_error_not_an_expansion() -> None:
    document = (
        HEAD + f'<games xmlns="{NAMESPACE}" version="1"><game number="1" status="valid">'
        '<tags><tag name="White">&lol9;</tag></tags></game></games>'
    )
    error = refusal(document)
    assert "lol9" in error.message
    assert error.line == 2


def test_xinclude_is_not_processed() -> None:
    document = (
        HEAD + f'<games xmlns="{NAMESPACE}" version="1"><game number="1" status="valid">'
        '<xi:include xmlns:xi="http://www.w3.org/2001/XInclude" href="/etc/passwd"/>'
        "</game></games>"
    )
    error = refusal(document)
    assert "schema" in error.message


def test_the_whole_document_parser_refuses_too() -> None:
    for document in (XXE, BILLION_LAUGHS, EXTERNAL_DTD):
        with pytest.raises(XmlError, match="document type declaration"):
            parse_document(io.BytesIO(document.encode()), "attack.xml")
    with pytest.raises(XmlError, match="nested more than"):
        parse_document(io.BytesIO(DEEP.encode()), "attack.xml")


def test_the_parser_settings_would_not_resolve_entities_either() -> None:
    """Defence in depth: even past the DOCTYPE check, lxml is told not to expand anything."""
    from jacquet_notation.xml import safe_parser

    parser = safe_parser()
    root = etree.fromstring(XXE.encode(), parser)
    assert "root:" not in etree.tostring(root, encoding="unicode")
