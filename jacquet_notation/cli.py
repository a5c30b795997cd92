"""The ``jacquet`` command.

The CLI is thin: each sub-command lives in its own module of ``jacquet_notation.commands``,
imported only when that command runs. ``jacquet --help`` imports none of them: it reads each
command's one-line help from its function's docstring in the module's source, so that listing the
commands pays for neither Lark nor lxml nor Datasette. A command module that cannot be imported
is an error naming it, never a command silently left out. Domain errors
(:class:`~jacquet_notation.errors.JacquetError`) become one-line messages and exit codes in the
command layer (``commands/common.py``, ``domain_errors``) and nowhere else.
"""

from __future__ import annotations

import ast
import importlib
from importlib import resources
from typing import Any

import click

from . import __version__

#: command name -> "module:attribute" under jacquet_notation.commands
COMMANDS: dict[str, str] = {
    "plays": "plays:plays",
    "position": "position:position",
    "fmt": "fmt:fmt",
    "collate": "collate:collate",
    "validate": "validate:validate",
    "infer": "infer:infer",
    "replay": "replay:replay",
    "generate": "generate:generate",
    "archive": "archive:archive",
    "players": "players:players",
    "search": "search:search",
    "serve": "serve:serve",
    "export": "export:export",
    "import-xml": "export:import_xml",
}

PACKAGE = "jacquet_notation.commands"


class CommandUnavailable(click.ClickException):
    """A command of :data:`COMMANDS` whose module or function cannot be loaded: a broken install."""


def load_command(name: str) -> click.Command | None:
    """The command ``name`` (None if there is none by that name), its module imported now."""
    target = COMMANDS.get(name)
    if target is None:
        return None
    module_name, attribute = target.split(":")
    try:
        module = importlib.import_module(f"{PACKAGE}.{module_name}")
    except ImportError as error:
        raise CommandUnavailable(f"the command {name} cannot be imported: {error}") from error
    command: Any = getattr(module, attribute, None)
    if not isinstance(command, click.Command):
        raise CommandUnavailable(f"the command {name} is not defined by {module.__name__}")
    return command


def listed_command(name: str) -> click.Command:
    """A stand-in for the command ``name`` with its help, read from its module's source.

    ``jacquet --help`` needs only each command's docstring; reading it with :mod:`ast` costs a
    few milliseconds where importing the modules costs a second. Click's decorator takes the same
    docstring as the command's help, so the line listed is the one ``jacquet NAME --help`` shows.
    """
    module_name, attribute = COMMANDS[name].split(":")
    try:
        source = resources.files(PACKAGE).joinpath(f"{module_name}.py").read_text("utf-8")
    except OSError as error:
        raise CommandUnavailable(f"the command {name} cannot be read: {error}") from error
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and node.name == attribute:
            return click.Command(name, help=ast.get_docstring(node))
    raise CommandUnavailable(f"the command {name} is not defined by {PACKAGE}.{module_name}")


class LazyGroup(click.Group):
    """A group whose commands are imported on first use, and listed without importing them."""

    listing = False

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted(COMMANDS)

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if self.listing and cmd_name in COMMANDS:
            return listed_command(cmd_name)
        return load_command(cmd_name)

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        # Click's own layout of the list, fed with stand-ins rather than imported commands.
        self.listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self.listing = False


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="jacquet")
def main() -> None:
    """Read, validate, archive and browse records of the board game Jacquet.

    \b
    Example:
      jacquet plays --dice 5-5
    """
