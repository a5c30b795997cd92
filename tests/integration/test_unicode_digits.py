"""Numbers are ASCII digits, everywhere: ``²`` (``isdigit()`` true, ``int()`` raises) and ``٣``
(``int()`` reads 3) in a record, a tag, an option or a URL are no number, never a traceback.

Each command is run as a real subprocess on each short shape; ``jacquet serve FOLDER`` with the
bad files among good ones; the desk and the board URL over real HTTP. The last test greps the
package so that the readers of Unicode digits cannot come back.
"""

from __future__ import annotations

import http.client
import json
import re
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import quote, urlsplit

import pytest
from helpers import ROOT, fetch, serving

from jacquet_notation.browse import desk
from jacquet_notation.numerals import INT_TEXT_LIMIT, MAX_DIGITS, ascii_int

PACKAGE = ROOT / "jacquet_notation"
SUPERSCRIPT, ARABIC_THREE = "\u00b2", "\u0663"

#: the short files of the issue, each with a superscript two and with an Arabic-Indic three
SHAPES: dict[str, tuple[str, str]] = {
    "mat-header": ("m.txt", '; [Match "{d}"]\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n'),
    "mat-length": ("n.txt", "{d} point match\n\n Game 1\n a : 0   b : 0\n  1) 31: 8/5 6/5\n"),
    "position": (
        "p.jqt",
        '[Rules "backgammon"]\n[Position "white 2{d}:15; black 24:15; white to move"]\n\n*\n',
    ),
    "option": ("o.jqt", '[Rules "jacquet"]\n[Midpoint-Men "{d}"]\n\n1. 6-5: 24/18 24/13 *\n'),
    "match-tag": ("t.jqt", '[Rules "backgammon"]\n[Match "{d}"]\n\n1. 3-1: 8/5 6/5 *\n'),
    "score-tag": ("s.jqt", '[Rules "backgammon"]\n[Match "3"]\n[Score "{d}-0"]\n\n*\n'),
}
DIGITS = {"superscript": SUPERSCRIPT, "arabic": ARABIC_THREE}
COMMANDS = ["validate", "fmt", "replay", "export-xml", "export-mat", "archive"]


def test_ascii_int_reads_ascii_digits_only() -> None:
    assert ascii_int("0") == 0 and ascii_int("0042") == 42 and ascii_int("9" * MAX_DIGITS)
    for text in ("", SUPERSCRIPT, ARABIC_THREE, "1" + SUPERSCRIPT, " 3", "3 ", "+3", "1_000"):
        assert ascii_int(text) is None, text
    assert ascii_int("-3") is None and ascii_int("-3", signed=True) == -3
    assert ascii_int("-", signed=True) is None and ascii_int("--3", signed=True) is None
    assert ascii_int("9" * (MAX_DIGITS + 1)) is None
    # far past int()'s own limit: None, not ValueError
    assert ascii_int("9" * 5000, most_digits=INT_TEXT_LIMIT) is None
    assert ascii_int("7" * 30, most_digits=INT_TEXT_LIMIT) == int("7" * 30)


def _run(command: str, path: Path, out: Path) -> subprocess.CompletedProcess[str]:
    args = {
        "validate": ["validate", str(path)],
        "fmt": ["fmt", str(path)],
        "replay": ["replay", str(path)],
        "export-xml": ["export", "--xml", str(out / "out.xml"), str(path)],
        "export-mat": ["export", "--mat", str(out / "out.mat"), str(path)],
        "archive": ["archive", str(out / "out.db"), str(path)],
    }[command]
    return subprocess.run(
        [sys.executable, "-m", "jacquet_notation", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=out,
    )


@pytest.mark.parametrize("digit", DIGITS)
@pytest.mark.parametrize("shape", SHAPES)
def test_every_command_reads_each_shape_without_a_traceback(
    tmp_path: Path, shape: str, digit: str
) -> None:
    name, text = SHAPES[shape]
    path = tmp_path / name
    path.write_text(text.format(d=DIGITS[digit]), encoding="utf-8")
    assert len(path.read_bytes()) < 100
    for command in COMMANDS:
        out = tmp_path / command
        out.mkdir()
        done = _run(command, path, out)
        assert "Traceback" not in done.stderr, (command, done.stderr)
        assert done.returncode in (0, 1, 2), (command, done.returncode, done.stderr)
        for line in done.stderr.splitlines():
            # every message one line (the reader's quoted line and caret aside)
            assert line.startswith(("    ", "jacquet:", str(path))) or re.match(
                r"[0-9]+ (games?|match(es)?)|\s*\^", line
            ), (command, line)


def test_a_unicode_digit_is_no_number_the_records_mean(tmp_path: Path) -> None:
    """``٣`` read as 3 would make a match of 3 points or a limit of 3 men; it is neither."""
    for shape in ("position", "option", "match-tag"):
        name, text = SHAPES[shape]
        for digit in DIGITS.values():
            path = tmp_path / name
            path.write_text(text.format(d=digit), encoding="utf-8")
            done = _run("validate", path, tmp_path)
            assert done.returncode == 1, (shape, digit, done.stdout, done.stderr)
            assert digit in done.stdout + done.stderr, (shape, done.stdout)
    # in a match file's header the tag is the source's metadata: the same as any other word
    name, text = SHAPES["mat-header"]
    answers = set()
    for digit in (SUPERSCRIPT, ARABIC_THREE, "x"):
        path = tmp_path / name
        path.write_text(text.format(d=digit), encoding="utf-8")
        done = _run("validate", path, tmp_path)
        answers.add((done.returncode, done.stdout))
    assert len(answers) == 1, answers


def test_numbers_too_long_for_int_are_errors_not_crashes(tmp_path: Path) -> None:
    for value in ("9" * 23, "9" * 5000):
        path = tmp_path / "long.jqt"
        path.write_text(f'[Rules "backgammon"]\n[Match "{value}"]\n\n*\n', encoding="utf-8")
        for command in COMMANDS:
            out = tmp_path / f"{command}-{len(value)}"
            out.mkdir()
            done = _run(command, path, out)
            assert "Traceback" not in done.stderr, (command, done.stderr)
            assert done.returncode in (1, 2), (command, done.stderr)


# -- jacquet serve FOLDER, the desk and the board URL over real HTTP -------------------------------


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The issue's bad files, sorted among good ones (a good one after every bad one)."""
    folder = tmp_path_factory.mktemp("digits")
    good = (ROOT / "corpus" / "valid" / "backgammon.jqt").read_text(encoding="utf-8")
    (folder / "a-good.jqt").write_text(good, encoding="utf-8")
    for shape, (name, text) in SHAPES.items():
        for digit, char in DIGITS.items():
            (folder / f"b-{shape}-{digit}-{name}").write_text(text.format(d=char), encoding="utf-8")
    (folder / "z-good.jqt").write_text(good.replace("greedy bot A", "last"), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def server(folder: Path) -> Iterator[str]:
    with serving([str(folder), "--archive", str(folder / "served.db"), "--workers", "1"]) as base:
        yield base


def test_serve_imports_the_good_files_around_the_bad_ones(server: str, folder: Path) -> None:
    connection = sqlite3.connect(folder / "served.db")
    try:
        files = {row[0] for row in connection.execute("select file from games")}
    finally:
        connection.close()
    assert {Path(file).name for file in files} >= {"a-good.jqt", "z-good.jqt"}
    assert len(files) == 2 + len(SHAPES) * len(DIGITS)
    assert fetch(f"{server}/-/versions.json")[0] == 200


@pytest.mark.parametrize("cube", [SUPERSCRIPT, ARABIC_THREE, "1" + SUPERSCRIPT, "x"])
def test_the_board_url_refuses_a_cube_not_in_ascii_digits(server: str, cube: str) -> None:
    from jacquet_notation.position import Position

    key = Position.start().key()
    status, text = fetch(f"{server}/-/jacquet/board/{key}.svg?cube={quote(cube)}")
    assert status == 400, text[:300]
    assert "ASCII digits" in text
    assert fetch(f"{server}/-/jacquet/board/{key}.svg?cube=4")[0] == 200


def _desk_post(server: str, payload: object) -> tuple[int, str]:
    """A POST to the desk's check with the page's token, as the page sends it."""
    with_token = urlsplit(server)
    connection = http.client.HTTPConnection(with_token.hostname or "", with_token.port, timeout=30)
    try:
        connection.request("GET", desk.DESK_PATH)
        response = connection.getresponse()
        page = response.read().decode()
        cookie = response.getheader("set-cookie") or ""
        token = re.search(r'name="jacquet-csrftoken" content="([^"]+)"', page)
        assert token, page[:300]
        body = json.dumps(payload).encode()
        connection.request(
            "POST",
            desk.CHECK_PATH,
            body,
            {
                "content-type": "application/json",
                "x-csrftoken": token.group(1),
                "cookie": cookie.split(";")[0],
            },
        )
        answer = connection.getresponse()
        return answer.status, answer.read().decode()
    finally:
        connection.close()


@pytest.mark.parametrize("digit", [SUPERSCRIPT, ARABIC_THREE])
def test_the_desk_refuses_a_point_not_in_ascii_digits(server: str, digit: str) -> None:
    status, text = _desk_post(
        server, {"setup": {"rules": "backgammon", "white": {f"2{digit}": 15}, "black": {}}}
    )
    assert status == 400, text[:300]
    assert len(text.strip().splitlines()) == 1 and "is not a point" in text
    # a record typed with one: checked, its error named, not a failure of the server
    status, text = _desk_post(server, {"text": f'[Midpoint-Men "{digit}"]\n\n1. 6-5: 24/18'})
    assert status == 200, text[:300]
    assert "midpoint-men" in text


# -- the readers of Unicode digits cannot come back ------------------------------------------------

#: what reads a digit of any script: str methods, and ``\d`` in a pattern not made ASCII
_FORBIDDEN = re.compile(r"\.(isdigit|isdecimal|isnumeric)\(|\\d")
#: ``int()`` straight on a request's or a record's text (the URL's arguments, a tag's value)
_BARE_INT = re.compile(r"\bint\((request\.|[a-z_.]*(args|tags|headers)\.get\()")


def _sources() -> Iterator[Path]:
    yield from sorted(PACKAGE.rglob("*.py"))
    yield from sorted((ROOT / "grammar").glob("*.lark"))


def test_no_module_reads_unicode_digits() -> None:
    found = []
    for path in _sources():
        if path.name == "numerals.py":  # the one reader, which checks isascii() first
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            comment = "#" if path.suffix == ".py" else "//"
            code = (
                line.split(comment, 1)[0]
                if comment == "#" or line.lstrip()[:2] == comment
                else line
            )
            if _FORBIDDEN.search(code) and "re.ASCII" not in code:
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
            if _BARE_INT.search(code):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert found == [], "\n".join(found)


def test_the_grep_finds_what_it_forbids() -> None:
    """The patterns above are not vacuous: each catches the lines of the issue."""
    for line in (
        "if value.isdigit() and int(value) <= highest:",
        "x.isdecimal()",
        "s.isnumeric()",
        r're.compile(r"(\d+)")',
    ):
        assert _FORBIDDEN.search(line), line
    for line in (
        'page = int(request.args.get("page", 0))',
        'n = int(record.tags.get("Game"))',
        'int(headers.get("content-length"))',
    ):
        assert _BARE_INT.search(line), line
    assert not _BARE_INT.search("int(found.group(1))")
