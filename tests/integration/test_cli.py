"""The command line as a whole: every command imports, is listed, and has help with an example."""

from __future__ import annotations

import importlib
import subprocess
import sys

import click
import pytest
from click.testing import CliRunner

from jacquet_notation.cli import COMMANDS, main

#: every command the tool offers, written out here so that a command dropped from the table fails
#: these tests.
EXPECTED = [
    "archive",
    "collate",
    "export",
    "fmt",
    "generate",
    "import-xml",
    "infer",
    "players",
    "plays",
    "position",
    "replay",
    "search",
    "serve",
    "validate",
]


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert "jacquet" in result.output


def test_every_command_imports_and_is_listed() -> None:
    assert sorted(COMMANDS) == EXPECTED
    for name, target in COMMANDS.items():
        module_name, attribute = target.split(":")
        module = importlib.import_module(f"jacquet_notation.commands.{module_name}")
        assert isinstance(getattr(module, attribute, None), click.Command), name
    assert main.list_commands(click.Context(main)) == EXPECTED


def test_every_command_has_help_with_an_example() -> None:
    runner = CliRunner()
    for name in EXPECTED:
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "Example" in result.output, name


def test_help_lists_each_command_with_its_own_short_help() -> None:
    # --help reads the docstrings from the source; the line must be the command's own.
    result = CliRunner().invoke(main, ["--help"], terminal_width=80)
    assert result.exit_code == 0, result.output
    rows = result.output.split("Commands:\n", 1)[1].splitlines()
    width = max(len(name) for name in EXPECTED)
    for name, row in zip(EXPECTED, rows, strict=True):
        command = main.get_command(click.Context(main), name)
        assert command is not None
        assert row == f"  {name:<{width}}  {command.get_short_help_str(80 - 6 - width)}"


def test_help_imports_no_command_and_nothing_heavy() -> None:
    code = (
        "import sys\n"
        "from jacquet_notation.cli import main\n"
        "try:\n"
        "    main(['--help'])\n"
        "except SystemExit:\n"
        "    pass\n"
        "print(' '.join(sorted(sys.modules)), file=sys.stderr)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert "import-xml" in done.stdout
    loaded = done.stderr.split()
    heavy = ("lark", "lxml", "datasette", "sqlite_utils", "jacquet_notation.notation")
    assert [m for m in loaded if m.split(".")[0] in heavy or m.startswith(heavy)] == []
    assert [m for m in loaded if m.startswith("jacquet_notation.commands.")] == []


def test_a_command_that_cannot_be_imported_is_an_error(monkeypatch: pytest.MonkeyPatch) -> None:
    # None in sys.modules makes the import fail as a missing module would.
    monkeypatch.setitem(sys.modules, "jacquet_notation.commands.broken", None)
    monkeypatch.setitem(COMMANDS, "broken", "broken:broken")
    result = CliRunner().invoke(main, ["broken"])
    assert result.exit_code == 1
    assert "Error: the command broken cannot be imported" in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_a_command_missing_from_its_source_is_an_error_in_the_help(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(COMMANDS, "ghost", "plays:ghost")
    result = CliRunner().invoke(main, ["--help"])
    assert result.exit_code == 1
    assert "Error: the command ghost is not defined by jacquet_notation.commands.plays" in (
        result.output
    )
