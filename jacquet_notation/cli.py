"""The ``jacquet`` command.

The CLI is thin: each sub-command lives in its own module of ``jacquet_notation.commands``, imported
when that command is run (``jacquet --help`` imports them all, to list them); a command imports
what is heavy (Datasette, lxml, the archive) inside its function, so that ``jacquet plays`` does not
pay for importing Datasette. Domain errors (:class:`~jacquet_notation.errors.JacquetError`) become
one-line messages and exit codes in the command layer (``commands/_common.py``,
``domain_errors``) and nowhere else.
"""

from __future__ import annotations

import importlib
from typing import Any

import click

from . import __version__

#: command name -> "module:attribute" under jacquet_notation.commands
COMMANDS: dict[str, str] = {
    "plays": "plays:plays",
    "fmt": "fmt:fmt",
    "validate": "validate:validate",
    "replay": "replay:replay",
    "generate": "generate:generate",
    "archive": "archive:archive",
    "serve": "serve:serve",
    "export": "export:export",
    "import-xml": "export:import_xml",
}


class LazyGroup(click.Group):
    """A group whose commands are imported on first use."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(name for name in COMMANDS if self._load(name) is not None)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return self._load(cmd_name)

    @staticmethod
    def _load(name: str) -> click.Command | None:
        target = COMMANDS.get(name)
        if target is None:
            return None
        module_name, attribute = target.split(":")
        try:
            module = importlib.import_module(f"jacquet_notation.commands.{module_name}")
        except ModuleNotFoundError as error:
            # A command whose module is not written yet is simply not offered.
            if error.name == f"jacquet_notation.commands.{module_name}":
                return None
            raise
        command: Any = getattr(module, attribute, None)
        return command if isinstance(command, click.Command) else None


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="jacquet")
def main() -> None:
    """Read, validate, archive and browse records of the board game Jacquet.

    \b
    Example:
      jacquet plays --dice 5-5
    """
