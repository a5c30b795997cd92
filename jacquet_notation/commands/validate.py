"""``jacquet validate``: is every game of these files legal, and if not, where and why."""

from __future__ import annotations

import os
import sys

import click

from ..rules import RULESET_NAMES, Rules
from ..validation import GameReport, validate_paths
from ..wording import plural
from .common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    CleanError,
    domain_errors,
    echo,
    game_progress,
    json_line,
    with_context,
)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--rules", "ruleset", type=click.Choice(RULESET_NAMES), help="Force a ruleset.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game (--format json).")
@click.option(
    "--format",
    "output_format",
    type=click.Choice(["text", "lines", "json"]),
    help="text: each error with its line and a caret; lines: one line per error; json: as "
    "--json. Default: text on a terminal, lines otherwise.",
)
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: all cores). Results keep the input order.",
)
@click.option("--encoding", default="utf-8", show_default=True, help="e.g. latin-1.")
def validate(
    paths: tuple[str, ...],
    ruleset: str | None,
    as_json: bool,
    output_format: str | None,
    jobs: int | None,
    encoding: str,
) -> None:
    """Replay every game of PATHS (files, folders, or - for stdin) and report each error.

    One line per error (on a terminal, or with --format text, followed by the line of the
    record and a caret under the column), then a summary. Exit 0 when every game is valid, 1
    when any is invalid or unreadable, 2 for a usage error or a path that cannot be read.

    \b
    Example:
      jacquet validate corpus/valid
      jacquet validate --json --rules bouchon games.jqt
      jacquet validate --format text games.jqt | less
    """
    if output_format is None:
        output_format = "json" if as_json else ("text" if sys.stdout.isatty() else "lines")
    elif as_json and output_format != "json":
        raise CleanError(f"--json and --format {output_format} disagree: give one")
    as_json = output_format == "json"
    with domain_errors():
        rules = Rules.named(ruleset) if ruleset else None
    counts = {"valid": 0, "invalid": 0, "unreadable": 0}
    games = 0
    io_errors = 0
    reports = validate_paths(
        list(paths), rules, jobs=jobs or os.cpu_count() or 1, encoding=encoding
    )
    with domain_errors(), game_progress("validating") as progress:
        for report in reports:
            counts[report.status] += 1
            io_errors += report.io_error
            if report.index:
                games += 1
                if progress is not None:
                    progress(1)
            if as_json:
                click.echo(json_line(report.to_json()))
            else:
                for line in _lines(report, context=output_format == "text"):
                    echo(line)
    summary = (
        f"{plural(games, 'game')}: {counts['valid']} valid, {counts['invalid']} invalid, "
        f"{counts['unreadable']} unreadable"
    )
    echo(summary, err=as_json)
    bad = counts["invalid"] + counts["unreadable"]
    sys.exit(EXIT_USAGE if io_errors else EXIT_INVALID if bad else EXIT_OK)


def _lines(report: GameReport, *, context: bool) -> list[str]:
    """The report's error lines, each followed by its line of the record and a caret if asked."""
    if not context:
        return report.errors
    lines: list[str] = []
    for number, line in enumerate(report.errors):
        source = report.sources[number] if number < len(report.sources) else None
        column = report.details[number].get("column") if number < len(report.details) else None
        lines.extend(with_context(line, source, column))
    return lines
