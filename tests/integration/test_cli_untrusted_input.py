"""What commands print and which files they open: records from the world may hold terminal
control characters, and folders may hold broken links and FIFOs (issue 14)."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from jacquet_notation.cli import main

#: ESC sequences (clear the screen, set the window title), BEL and a one-character CSI
NASTY = "\x1b[2J\x1b]0;owned\x07\x9b31m"
#: a game whose second play is illegal, with control characters in a tag and a comment
ILLEGAL = (
    f'[Event "club"]\n[White "Ann{NASTY}"]\n[Black "Bob"]\n\n'
    f"1. 6-5: 24/13 {{{NASTY}}} 4-3: 24/17\n2. 6-1: 13/7 24/23 *\n"
)
#: a game that cannot be read: an unclosed comment quoted in the message
UNCLOSED = f'[Event "x"]\n\n1. 6-5: 24/18 24/19 {{{NASTY} a long think\n'
GOOD = '[Event "ok"]\n[White "Ann"]\n[Black "Bob"]\n\n1. 6-5: 24/13 4-3: 24/17 *\n'
RAW_CONTROLS = ("\x1b", "\x07", "\x9b")


def cli(*args: str, input: str | None = None) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, list(args), input=input)
    return result.exit_code, result.stdout, result.stderr


def run(*args: str, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real command in a subprocess, with a timeout: a FIFO opened for reading would hang."""
    return subprocess.run(
        [sys.executable, "-m", "jacquet_notation", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
    )


def assert_no_raw_controls(text: str) -> None:
    for control in RAW_CONTROLS:
        assert control not in text, repr(text)


def write(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


# --------------------------------------------------------------------------------------------
# Control characters


def test_validate_escapes_control_characters_in_its_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "nasty.jqt", ILLEGAL + "\n" + UNCLOSED)
    code, out, err = cli("validate", "-j1", "--format", "lines", str(path))
    assert code == 1
    assert_no_raw_controls(out + err)
    assert "Ann\\x1b[2J\\x1b]0;owned\\x07\\x9b31m v Bob" in out  # the tag, in the illegal play
    assert "found {\\x1b[2J" in out  # the comment, quoted by the syntax error


def test_validate_text_format_escapes_the_source_line_and_keeps_the_caret_under_it(
    tmp_path: Path,
) -> None:
    path = write(tmp_path / "nasty.jqt", UNCLOSED)
    code, out, _ = cli("validate", "-j1", "--format", "text", str(path))
    assert code == 1
    assert_no_raw_controls(out)
    message, source, caret = out.splitlines()[:3]
    assert message.startswith(f"{path}:3:21: ")
    assert source == "    1. 6-5: 24/18 24/19 {\\x1b[2J\\x1b]0;owned\\x07\\x9b31m a long think"
    assert source[caret.index("^")] == "{"


def test_validate_json_has_no_raw_control_and_reads_back_the_same(tmp_path: Path) -> None:
    path = write(tmp_path / "nasty.jqt", ILLEGAL)
    code, out, _ = cli("validate", "-j1", "--json", str(path))
    assert code == 1
    assert_no_raw_controls(out)
    assert json.loads(out.splitlines()[0])["white"] == f"Ann{NASTY}"


def test_fmt_escapes_its_messages_but_writes_the_record_as_it_is(tmp_path: Path) -> None:
    path = write(tmp_path / "nasty.jqt", UNCLOSED)
    code, out, err = cli("fmt", str(path))
    assert code == 1
    assert out == UNCLOSED  # the record's own characters: fmt must round-trip it
    assert_no_raw_controls(err)
    assert "found {\\x1b[2J" in err


def test_archive_escapes_the_error_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "nasty.jqt", ILLEGAL)
    code, out, err = cli("archive", str(tmp_path / "games.db"), str(path))
    assert code == 1
    assert_no_raw_controls(out + err)
    assert "Ann\\x1b[2J" in out


def test_a_clean_error_is_escaped(tmp_path: Path) -> None:
    missing = tmp_path / "missing\x1b[2J.jqt"
    code, _, err = cli("export", "--xml", str(tmp_path / "out.xml"), str(missing))
    assert code == 2
    assert_no_raw_controls(err)
    assert "missing\\x1b[2J.jqt" in err


def test_replay_escapes_its_error_lines(tmp_path: Path) -> None:
    path = write(tmp_path / "nasty.jqt", UNCLOSED)
    code, out, err = cli("replay", str(path))
    assert code != 0
    assert_no_raw_controls(out + err)


# --------------------------------------------------------------------------------------------
# Paths that cannot be read


def test_a_broken_link_in_a_folder_is_reported_as_unreadable(tmp_path: Path) -> None:
    write(tmp_path / "a.jqt", GOOD)
    write(tmp_path / "b.jqt", GOOD)
    (tmp_path / "c.jqt").symlink_to(tmp_path / "gone.jqt")
    code, out, _ = cli("validate", "-j1", str(tmp_path))
    assert code == 2  # an I/O error, once the other files are read
    assert out.splitlines() == [
        f"{tmp_path / 'c.jqt'}: a broken symbolic link (its target does not exist)",
        "2 games: 2 valid, 0 invalid, 1 unreadable",
    ]


def test_a_fifo_in_a_folder_is_reported_and_not_opened(tmp_path: Path) -> None:
    write(tmp_path / "a.jqt", GOOD)
    os.mkfifo(tmp_path / "pipe.jqt")
    result = run("validate", "-j1", str(tmp_path))
    assert result.returncode == 2
    assert result.stdout.splitlines() == [
        f"{tmp_path / 'pipe.jqt'}: a FIFO, not a regular file: not read",
        "1 game: 1 valid, 0 invalid, 1 unreadable",
    ]


@pytest.mark.parametrize(
    ("command", "code"),
    [
        (["validate", "-j1"], 2),
        (["archive", "{db}"], 2),
        (["fmt"], 2),
        (["fmt", "--write"], 2),
        (["export", "--xml", "{xml}"], 2),
        (["replay"], 2),
        (["import-xml"], 2),
    ],
)
def test_a_fifo_named_on_the_command_line_does_not_hang(
    tmp_path: Path, command: list[str], code: int
) -> None:
    fifo = tmp_path / "pipe.jqt"
    os.mkfifo(fifo)
    args = [a.format(db=tmp_path / "g.db", xml=tmp_path / "o.xml") for a in command]
    result = run(*args, str(fifo), timeout=30)
    assert result.returncode == code, result.stderr
    assert f"{fifo}: a FIFO, not a regular file: not read" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "o.xml").exists()


@pytest.mark.parametrize(
    "command",
    [
        ["validate", "-j1"],
        ["archive", "{db}"],
        ["fmt"],
        ["export", "--xml", "{xml}"],
        ["export", "--mat", "{mat}"],
        ["replay"],
        ["import-xml"],
    ],
)
def test_a_missing_path_is_an_io_error_exit_2_for_every_command(
    tmp_path: Path, command: list[str]
) -> None:
    args = [
        a.format(db=tmp_path / "g.db", xml=tmp_path / "o.xml", mat=tmp_path / "o.mat")
        for a in command
    ]
    missing = tmp_path / "nosuchfile.jqt"
    result = run(*args, str(missing))
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"{missing}: No such file or directory" in result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    assert not (tmp_path / "o.xml").exists() and not (tmp_path / "o.mat").exists()


def test_validate_and_archive_read_the_other_files_then_exit_2(tmp_path: Path) -> None:
    good = write(tmp_path / "good.jqt", GOOD)
    missing = tmp_path / "nosuchfile.jqt"
    code, out, _ = cli("validate", "-j1", str(good), str(missing))
    assert code == 2
    assert out.splitlines() == [
        f"{missing}: No such file or directory",
        "1 game: 1 valid, 0 invalid, 1 unreadable",
    ]
    code, out, _ = cli("archive", str(tmp_path / "g.db"), str(good), str(missing))
    assert code == 2
    assert out.splitlines()[-1].endswith("1 new in the archive")


def test_a_file_read_that_holds_no_record_is_exit_1_not_2(tmp_path: Path) -> None:
    binary = tmp_path / "binary.jqt"
    binary.write_bytes(b"\x00\x01\x02 not text")
    empty = write(tmp_path / "empty.jqt", "")
    folder = tmp_path / "notes"
    folder.mkdir()
    write(folder / "notes.md", "no records here")
    for path in (binary, empty, folder):
        assert cli("validate", "-j1", str(path))[0] == 1, path
        assert cli("archive", str(tmp_path / "g.db"), str(path))[0] == 1, path


def test_archive_counts_a_broken_link_as_unreadable(tmp_path: Path) -> None:
    folder = tmp_path / "records"
    folder.mkdir()
    write(folder / "a.jqt", GOOD)
    (folder / "b.jqt").symlink_to(folder / "gone.jqt")
    code, out, _ = cli("archive", str(tmp_path / "g.db"), str(folder))
    assert code == 2
    assert f"{folder / 'b.jqt'}: a broken symbolic link (its target does not exist)" in out
    assert "1 unreadable" in out.splitlines()[-1]


def test_serve_does_not_open_a_fifo_to_look_for_an_archive(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.db"
    os.mkfifo(fifo)
    probe = (
        "from jacquet_notation.commands.serve import is_sqlite_file; "
        f"print(is_sqlite_file({str(fifo)!r}))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=30
    )
    assert result.stdout.strip() == "False"


def test_fmt_reads_folders_through_the_same_walk(tmp_path: Path) -> None:
    write(tmp_path / "a.jqt", GOOD)
    (tmp_path / "b.jqt").symlink_to(tmp_path / "gone.jqt")
    code, out, err = cli("fmt", str(tmp_path))
    assert code == 2
    assert out.startswith('[Event "ok"]')
    assert (
        err
        == f"jacquet: {tmp_path / 'b.jqt'}: a broken symbolic link (its target does not exist)\n"
    )


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads a folder whatever its mode")
def test_a_folder_that_cannot_be_listed_is_reported(tmp_path: Path) -> None:
    write(tmp_path / "a.jqt", GOOD)
    locked = tmp_path / "locked"
    locked.mkdir()
    write(locked / "b.jqt", GOOD)
    locked.chmod(0)
    try:
        code, out, _ = cli("validate", "-j1", str(tmp_path))
    finally:
        locked.chmod(0o755)
    assert code == 1
    assert f"{locked}: Permission denied" in out


# --------------------------------------------------------------------------------------------
# fmt and illegal plays


def test_fmt_writes_a_game_with_illegal_plays_but_says_so(tmp_path: Path) -> None:
    path = write(tmp_path / "illegal.jqt", ILLEGAL)
    code, out, err = cli("fmt", str(path))
    assert code == 1
    assert "2. 6-1: 13/7 24/23" in out  # still formatted and written
    lines = err.splitlines()
    assert len(lines) == 1
    assert lines[0].startswith(f"{path}:6:")  # the column is the offending step's
    assert ": game 1 (Ann" in lines[0]
    assert "24/23: the courier (on 7) must reach the home table" in lines[0]


def test_fmt_write_rewrites_a_game_with_illegal_plays_and_exits_1(tmp_path: Path) -> None:
    path = write(tmp_path / "illegal.jqt", ILLEGAL.replace("24/13 ", "24/13  "))
    code, _, err = cli("fmt", "--write", str(path))
    assert code == 1 and len(err.splitlines()) == 1
    assert "24/13  " not in path.read_text("utf-8")


def test_fmt_no_check_does_not_replay(tmp_path: Path) -> None:
    path = write(tmp_path / "illegal.jqt", ILLEGAL)
    assert cli("fmt", "--no-check", str(path))[0::2] == (0, "")


# --------------------------------------------------------------------------------------------
# The offending line and a caret


def test_format_text_shows_the_line_and_a_caret_under_the_column(tmp_path: Path) -> None:
    path = write(tmp_path / "slip.jqt", '[Event "x"]\n\n1. 6-5: 24/18 24/27\n')
    code, out, _ = cli("validate", "-j1", "--format", "text", str(path))
    assert code == 1
    assert out.splitlines()[:3] == [
        f"{path}:3:18: game 1 (? v ?, ?): expected a point from 1 to 24, or bar (25) or off (0), "
        "found 27",
        "    1. 6-5: 24/18 24/27",
        "                     ^",
    ]


def test_the_caret_follows_the_column_of_an_illegal_play(tmp_path: Path) -> None:
    path = write(tmp_path / "illegal.jqt", ILLEGAL)
    _, out, _ = cli("validate", "-j1", "--format", "text", str(path))
    first, source, caret = out.splitlines()[:3]
    column = int(first.split(":")[2])
    assert source == "    2. 6-1: 13/7 24/23 *"
    assert caret == " " * (4 + column - 1) + "^"


def test_no_caret_in_a_pipe_or_in_json(tmp_path: Path) -> None:
    path = write(tmp_path / "slip.jqt", '[Event "x"]\n\n1. 6-5: 24/18 24/27\n')
    piped = run("validate", "-j1", str(path))
    assert len(piped.stdout.splitlines()) == 2  # the error and the summary
    with_json = run("validate", "-j1", "--json", str(path))
    assert [json.loads(line)["status"] for line in with_json.stdout.splitlines()] == ["unreadable"]
    assert run("validate", "--json", "--format", "text", str(path)).returncode == 2


def test_a_terminal_gets_the_caret(tmp_path: Path) -> None:
    path = write(tmp_path / "slip.jqt", '[Event "x"]\n\n1. 6-5: 24/18 24/27\n')
    leader, follower = pty.openpty()
    try:
        process = subprocess.run(
            [sys.executable, "-m", "jacquet_notation", "validate", "-j1", str(path)],
            stdout=follower,
            stderr=subprocess.DEVNULL,
            stdin=subprocess.DEVNULL,
            timeout=60,
            env={**os.environ, "CI": "1"},
        )
        os.close(follower)
        follower = -1
        shown = b""
        while True:
            try:
                data = os.read(leader, 4096)
            except OSError:  # the terminal is closed once everything is read
                break
            if not data:
                break
            shown += data
    finally:
        if follower != -1:
            os.close(follower)
        os.close(leader)
    assert process.returncode == 1
    lines = shown.decode().splitlines()
    assert lines[1:3] == ["    1. 6-5: 24/18 24/27", "                     ^"]


# --------------------------------------------------------------------------------------------
# Counts in words


def test_a_count_of_one_takes_the_singular_in_every_summary(tmp_path: Path) -> None:
    good = write(tmp_path / "good.jqt", GOOD)
    _, out, _ = cli("validate", "-j1", str(good))
    assert out.splitlines()[-1] == "1 game: 1 valid, 0 invalid, 0 unreadable"
    _, out, _ = cli("archive", str(tmp_path / "g.db"), str(good))
    assert out.splitlines()[-1].startswith("1 file: 1 game: 1 valid")
    _, out, _ = cli("archive", str(tmp_path / "g.db"), "--rebuild")
    assert out.splitlines()[-1].startswith("rebuilt 1 game: 1 valid")
    _, _, err = cli("export", "--xml", str(tmp_path / "o.xml"), str(good))
    assert err.splitlines()[-1].startswith("1 game exported: 1 valid")
    _, out, _ = cli("validate", "-j1", str(good), str(good))
    assert out.splitlines()[-1].startswith("2 games: 2 valid")


def test_plural_says_one_and_many_and_the_irregular_nouns() -> None:
    from jacquet_notation.wording import plural

    assert [plural(n, "game") for n in (0, 1, 2)] == ["0 games", "1 game", "2 games"]
    assert plural(1, "ply") == "1 ply" and plural(3, "ply") == "3 plies"
    assert plural(1, "match") == "1 match" and plural(2, "match") == "2 matches"
    assert plural(1204, "event", thousands=True) == "1,204 events"
