"""``jacquet fmt``: canonical text to stdout or in place; errors listed, other games kept."""

from __future__ import annotations

import shutil
from pathlib import Path

from click.testing import CliRunner

from jacquet_notation.cli import main
from jacquet_notation.notation import parse_games, read_games, write_games

DATA = Path(__file__).parents[1] / "data" / "notation"


def run(*args: str) -> tuple[int, str, str]:
    # the layout is tested here, on records whose plays need not be legal: no replay
    result = CliRunner().invoke(main, ["fmt", "--no-check", *args])
    return result.exit_code, result.stdout, result.stderr


def test_canonical_text_to_stdout() -> None:
    code, out, err = run(str(DATA / "club.jqt"))
    assert (code, err) == (0, "")
    assert out == (DATA / "canonical.jqt").read_text("utf-8")
    assert write_games(parse_games(out)) == out  # fmt of canonical text is the same text


def test_fmt_of_canonical_text_is_the_same_text() -> None:
    code, out, _ = run(str(DATA / "canonical.jqt"))
    assert code == 0 and out == (DATA / "canonical.jqt").read_text("utf-8")


def test_errors_are_listed_and_other_games_still_written(tmp_path: Path) -> None:
    code, out, err = run(str(DATA / "broken.jqt"))
    assert code == 1
    path = str(DATA / "broken.jqt")
    assert err.splitlines() == [
        f"{path}:12:4: expected dice from 1 to 6, such as 4-3:, found 4-7",
        f"{path}:12:29: expected a point from 1 to 24, or bar (25) or off (0), found 27",
        f"{path}:17:8: expected a colon after the dice, such as 4-3:, found 24/18",
        f"{path}:22:21: expected a }} to close the comment, found {{White thinks for a long time",
        f'{path}:25:1: expected a tag such as [Site "Paris"], closed on its line, found'
        ' [Event "Game five: unclosed ta',
    ]
    games = parse_games(out)
    assert [g.tags.get("Event", "?")[:8] for g in games] == [
        "Game one",
        "Game two",
        "Game thr",
        "Game fou",
        "?",
        "Game six",
    ]
    assert "1. 4-7: 24/20 24/17 5-3: 24/27 24/21" in out  # a bad game is copied as it was


def test_write_in_place(tmp_path: Path) -> None:
    target = tmp_path / "club.jqt"
    shutil.copy(DATA / "club.jqt", target)
    target.chmod(0o640)
    code, out, err = run("--write", str(target))
    assert (code, out, err) == (0, "", "")
    assert target.read_text("utf-8") == (DATA / "canonical.jqt").read_text("utf-8")
    assert target.stat().st_mode & 0o777 == 0o640
    assert [p.name for p in tmp_path.iterdir()] == ["club.jqt"]  # no temporary file left


def test_write_in_place_keeps_bad_games_as_they_were(tmp_path: Path) -> None:
    target = tmp_path / "broken.jqt"
    shutil.copy(DATA / "broken.jqt", target)
    code, _, err = run("-w", str(target))
    assert code == 1 and len(err.splitlines()) == 5
    before = list(read_games(DATA / "broken.jqt"))
    after = list(read_games(target))
    assert [g.text for g in after if g.errors] == [g.text for g in before if g.errors]
    assert [g for g in after if not g.errors] == [g for g in before if not g.errors]


def test_latin1_is_read_with_its_encoding_and_written_as_utf8(tmp_path: Path) -> None:
    code, _, err = run(str(DATA / "latin1.jqt"))
    assert code == 1 and "found the byte e9 at offset 109" in err
    target = tmp_path / "latin1.jqt"
    shutil.copy(DATA / "latin1.jqt", target)
    code, _, err = run("--encoding", "latin-1", "--write", str(target))
    assert (code, err) == (0, "")
    assert '[Black "Jérôme Lefèvre"]' in target.read_text("utf-8")


def test_io_errors_exit_2_and_other_files_are_still_done(tmp_path: Path) -> None:
    code, out, err = run(str(tmp_path / "missing.jqt"), str(DATA / "canonical.jqt"))
    assert code == 2
    assert err.startswith("jacquet: ") and "missing.jqt" in err
    assert out == (DATA / "canonical.jqt").read_text("utf-8")


def test_a_binary_file(tmp_path: Path) -> None:
    blob = tmp_path / "blob.jqt"
    blob.write_bytes(b"1. 6-5: 24/13\n\x00\x00")
    code, _, err = run(str(blob))
    assert code == 1
    assert err == f"{blob}:2:1: not a text file: a NUL byte at offset 14\n"


def test_help_has_an_example() -> None:
    code, out, _ = run("--help")
    assert code == 0 and "Example" in out and "--encoding" in out
