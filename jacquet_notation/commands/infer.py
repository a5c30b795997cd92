"""``jacquet infer``: which of the named rulesets could these games have been played under."""

from __future__ import annotations

import sys

import click

from ..wording import plural
from .common import EXIT_INVALID, EXIT_OK, EXIT_USAGE, domain_errors, echo, json_line


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option("--json", "as_json", is_flag=True, help="One JSON object per game.")
@click.option("--encoding", default="utf-8", show_default=True, help="e.g. latin-1.")
@click.option(
    "--slips",
    is_flag=True,
    help="Also name, after the rule an excluded ruleset breaks, the transcription slip that "
    "would make the play legal under it (as validate --rules NAME does).",
)
def infer(paths: tuple[str, ...], as_json: bool, encoding: str, slips: bool) -> None:
    """Say, for every game of PATHS, each named ruleset under which all its plays are legal,
    and where each other ruleset is first broken (ply, line, column, rule).

    The record's own [Rules] tag is shown as declared, never trusted. An exclusion's reason
    is the rule broken; --slips adds the slip that would explain it (that costs a search).
    Rulesets that differ only in scoring (jacquet, spanish) are told apart by the written
    result alone. Exit 0 when every game was read and fits some ruleset, 1 when a game is
    unreadable or fits none, 2 for a usage error or a path that cannot be read.

    \b
    Example:
      jacquet infer transcribed.jqt
      jacquet infer --json corpus/
    """
    from ..inference import infer_paths
    from ..replay import Inference

    games = fitting = unfit = unreadable = io_errors = 0
    with domain_errors():
        for item in infer_paths(list(paths), encoding=encoding, slips=slips):
            if not isinstance(item, Inference):  # a path or file that could not be read
                unreadable += 1
                io_errors += item.io_error
                for line in item.errors:
                    echo(line, err=as_json)
                continue
            games += 1
            if item.errors:
                unreadable += 1
            elif item.consistent:
                fitting += 1
            else:
                unfit += 1
            if as_json:
                click.echo(json_line(item.to_json()))
            else:
                for line in _block(item):
                    echo(line)
    echo(
        f"{plural(games, 'game')}: {fitting} fit some ruleset, {unfit} fit none, "
        f"{unreadable} unreadable",
        err=as_json,
    )
    sys.exit(EXIT_USAGE if io_errors else EXIT_INVALID if unfit or unreadable else EXIT_OK)


def _block(item: object) -> list[str]:
    """One game's inference for a person: its name, then one line a verdict."""
    from ..replay import Inference

    assert isinstance(item, Inference)
    declared = f"declared {item.declared}" if item.declared else "no [Rules] tag"
    lines = [f"{item.file}: game {item.game} ({item.label}): {declared}"]
    if item.errors:
        lines.extend(f"  not read: {str(error).splitlines()[0]}" for error in item.errors)
        return lines
    lines.append(f"  consistent with: {', '.join(item.consistent) or 'none'}")
    for twins in item.scoring_only:
        lines.append(
            f"  {' and '.join(twins)} differ only in scoring: the result alone tells them apart"
        )
    for exclusion in item.excluded:
        where = f"ply {exclusion.ply}" if exclusion.ply is not None else "the result"
        if exclusion.ply is None and exclusion.kind not in ("wrong-result", "ends-early"):
            where = "the record"
        place = (
            f" (line {exclusion.line}, column {exclusion.column})"
            if exclusion.line is not None
            else ""
        )
        lines.append(f"  {exclusion.rules} excluded at {where}{place}: {exclusion.reason}")
    return lines
