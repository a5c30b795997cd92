"""The command line as a whole: every command has help with an example."""

from __future__ import annotations

from click.testing import CliRunner

from jacquet_notation.cli import main


def test_version() -> None:
    result = CliRunner().invoke(main, ["--version"])
    assert result.exit_code == 0
    assert "jacquet" in result.output


def test_every_command_has_help_with_an_example() -> None:
    runner = CliRunner()
    names = main.list_commands(None)  # type: ignore[arg-type]
    for name in names:
        result = runner.invoke(main, [name, "--help"])
        assert result.exit_code == 0, (name, result.output)
        assert "Example" in result.output, name
