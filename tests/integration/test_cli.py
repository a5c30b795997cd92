"""The command line as a whole: every command imports, is listed, and has help with an example."""

from __future__ import annotations

import importlib

import click
from click.testing import CliRunner

from jacquet_notation.cli import COMMANDS, main

#: every command the tool offers. ``jacquet --help`` lists commands lazily and leaves out one whose
#: module is missing, so the expectation is written out here: a command that cannot be imported
#: fails these tests instead of silently disappearing from the list.
EXPECTED = [
    "archive",
    "export",
    "fmt",
    "generate",
    "import-xml",
    "plays",
    "replay",
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
