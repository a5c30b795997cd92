"""``jacquet validate``: is every game of these files legal, and if not, where and why."""

from __future__ import annotations

import json
import os
import sys

import click

from ..rules import RULESET_NAMES, Rules
from ..validation import validate_paths
from ._common import EXIT_INVALID, EXIT_OK, domain_errors, game_progress


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--rules", "ruleset", type=click.Choice(RULESET_NAMES), help="Force a ruleset.")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game, for machines.")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(min=1),
    default=None,
    help="Worker processes (default: all cores). Results keep the input order.",
)
@click.option("--encoding", default="utf-8", show_default=True, help="e.g. latin-1.")
def validate(
    paths: tuple[str, ...], ruleset: str | None, as_json: bool, jobs: int | None, encoding: str
) -> None:
    """Replay every game of PATHS (files, folders, or - for stdin) and report each error.

    One line per error, then a summary. Exit 0 when every game is valid, 1 when any is invalid
    or unreadable, 2 for a usage error.

    \b
    Example:
      jacquet validate corpus/valid
      jacquet validate --json --rules bouchon games.jqt
    """
    with domain_errors():
        rules = Rules.named(ruleset) if ruleset else None
    counts = {"valid": 0, "invalid": 0, "unreadable": 0}
    games = 0
    reports = validate_paths(
        list(paths), rules, jobs=jobs or os.cpu_count() or 1, encoding=encoding
    )
    with domain_errors(), game_progress("validating") as progress:
        for report in reports:
            counts[report.status] += 1
            if report.index:
                games += 1
                if progress is not None:
                    progress(1)
            if as_json:
                click.echo(json.dumps(report.to_json(), ensure_ascii=False))
            else:
                for line in report.errors:
                    click.echo(line)
    summary = (
        f"{games} games: {counts['valid']} valid, {counts['invalid']} invalid, "
        f"{counts['unreadable']} unreadable"
    )
    click.echo(summary, err=as_json)
    bad = counts["invalid"] + counts["unreadable"]
    sys.exit(EXIT_INVALID if bad else EXIT_OK)
