"""``jacquet validate``: output format, exit codes, JSON, parallel order, and bad input."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jacquet_notation.cli import main
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import Rules

GOOD = '[Event "ok"]\n[White "Ann"]\n[Black "Bob"]\n\n1. 6-5: 24/13 4-3: 24/17 *\n'
BAD = (
    '[Event "bad"]\n[White "Cy"]\n[Black "Di"]\n[Date "1902.03.??"]\n\n'
    "1. 6-5: 24/13 4-3: 24/17\n2. 6-1: 13/7 24/23 *\n"
)


def run(*args: str, input: bytes | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess: exit codes and stderr as a user sees them."""
    return subprocess.run(
        [sys.executable, "-m", "jacquet_notation", *args],
        input=input.decode() if input else None,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_error_line_names_file_game_turn_play_and_legal_plays(tmp_path: Path) -> None:
    path = tmp_path / "two.jqt"
    path.write_text(GOOD + "\n" + BAD, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--jobs", "1", str(path)])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines == [
        f"{path}:13:14: game 2 (Cy v Di, 1902.03.??), turn 2, White 6-1 13/7 24/23: 24/23: the "
        "courier (on 7) must reach the home table before any other man moves; legal here: 13/7 7/6",
        "2 games: 1 valid, 1 invalid, 0 unreadable",
    ]


def test_json_one_object_per_game(tmp_path: Path) -> None:
    path = tmp_path / "two.jqt"
    path.write_text(GOOD + "\n" + BAD, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--json", "--jobs", "1", str(path)])
    objects = [json.loads(line) for line in result.stdout.splitlines()]
    assert [o["status"] for o in objects] == ["valid", "invalid"]
    assert objects[1]["errors"][0]["kind"] == "illegal-play"
    assert objects[1]["errors"][0]["suggestions"] == ["13/7 7/6"]
    assert (objects[1]["errors"][0]["line"], objects[1]["errors"][0]["column"]) == (13, 14)


def test_parallel_results_keep_input_order(tmp_path: Path) -> None:
    records = list(generate_records(150, 3, Rules.named("jacquet")))
    texts = [write_game(r) for r in records]
    # break every seventh game (a wrong result) so that the order of errors is visible
    swap = {"1-0": "2-0", "2-0": "1-0", "0-1": "0-2", "0-2": "0-1"}
    for i in range(0, len(texts), 7):
        body, result = texts[i].rstrip().rsplit("\n", 1)
        texts[i] = f"{body}\n{swap[result]}\n"
    path = tmp_path / "many.jqt"
    path.write_text("\n".join(texts), encoding="utf-8")
    serial = CliRunner().invoke(main, ["validate", "--json", "--jobs", "1", str(path)])
    parallel = CliRunner().invoke(main, ["validate", "--json", "--jobs", "2", str(path)])
    assert serial.stdout == parallel.stdout
    statuses = [json.loads(line)["status"] for line in serial.stdout.splitlines()]
    assert len(statuses) == 150
    assert [i for i, s in enumerate(statuses) if s != "valid"] == list(range(0, 150, 7))


def test_stdin() -> None:
    result = run("validate", "-", input=GOOD.encode())
    assert result.returncode == 0
    assert result.stdout.strip() == "1 game: 1 valid, 0 invalid, 0 unreadable"


@pytest.mark.parametrize(
    ("content", "expected", "summary"),
    [
        (b"", "no game records in this file", "1 game: 1 valid"),
        (
            b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR",
            "not a text file: a NUL byte at",
            "1 game: 1 valid",
        ),
        (
            '[Event "Caf\u00e9"]\n1. 6-5: 24/13 *\n'.encode("latin-1"),
            "found the byte e9 at offset 11",
            "2 games: 1 valid",
        ),
    ],
    ids=["empty", "binary", "latin-1 read as utf-8"],
)
def test_bad_files_get_one_line_and_the_others_are_still_read(
    tmp_path: Path, content: bytes, expected: str, summary: str
) -> None:
    bad = tmp_path / "bad.jqt"
    bad.write_bytes(content)
    good = tmp_path / "good.jqt"
    good.write_text(GOOD, encoding="utf-8")
    result = run("validate", str(bad), str(good))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert len(lines) == 2, lines
    assert lines[0].startswith(f"{bad}:") and expected in lines[0]
    assert re.match(rf"{re.escape(str(bad))}:\d+:\d+: ", lines[0]), lines[0]  # line and column
    assert lines[1].endswith("0 invalid, 1 unreadable")
    assert lines[1].startswith(summary)


def test_latin1_with_encoding_option(tmp_path: Path) -> None:
    path = tmp_path / "latin.jqt"
    path.write_bytes('[Event "Café"]\n\n1. 6-5: 24/13 *\n'.encode("latin-1"))
    assert run("validate", "--encoding", "latin-1", str(path)).returncode == 0


def test_folder_without_records_and_missing_file(tmp_path: Path) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "notes.md").write_text("nothing here")
    result = run("validate", str(empty), str(tmp_path / "missing.jqt"))
    assert result.returncode == 2  # the missing file: an I/O error (the empty folder alone is 1)
    assert "Traceback" not in result.stderr
    assert result.stdout.splitlines() == [
        f"{empty}: no record files (.jqt, .jacquet, .txt, .mat, .sgf, .xg) in this folder",
        f"{tmp_path / 'missing.jqt'}: No such file or directory",
        "0 games: 0 valid, 0 invalid, 2 unreadable",
    ]


def test_folders_are_read_recursively_in_order(tmp_path: Path) -> None:
    (tmp_path / "b").mkdir()
    (tmp_path / "a.jqt").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b" / "c.jqt").write_text(BAD, encoding="utf-8")
    result = run("validate", "--json", str(tmp_path))
    files = [json.loads(line)["file"] for line in result.stdout.splitlines()]
    assert files == [str(tmp_path / "a.jqt"), str(tmp_path / "b" / "c.jqt")]


def test_a_huge_single_line_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "huge.jqt"
    with path.open("w") as handle:
        handle.write("1. 6-5: 24/13 " * (50 * 1024 * 1024 // 14))
    good = tmp_path / "good.jqt"
    good.write_text(GOOD, encoding="utf-8")
    result = run("validate", str(path), str(good))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{path}:1:") and "is longer than" in lines[0]
    assert lines[-1] == "1 game: 1 valid, 0 invalid, 1 unreadable"


def test_usage_error_exit_code() -> None:
    assert run("validate").returncode == 2
    assert run("validate", "--rules", "nonsense", "x.jqt").returncode == 2


def test_no_progress_bar_in_a_pipe(tmp_path: Path) -> None:
    path = tmp_path / "good.jqt"
    path.write_text(GOOD, encoding="utf-8")
    result = run("validate", str(path))
    assert result.stderr == ""
    assert os.environ.get("CI") is None or result.stderr == ""
