"""``jacquet plays``: every distinct legal play of a roll, to check the engine from outside."""

from __future__ import annotations

import json
import re

import click

from ..board_terms import side_name
from ..engine import Play, legal_plays
from ..position import Position
from ..position_specs import read_spec
from ..rules import Rules
from .common import CleanError, domain_errors


def parse_dice(text: str) -> tuple[int, int]:
    """``5-3`` or ``53`` -> (5, 3); raises CleanError on anything else."""
    match = re.fullmatch(r"\s*([1-6])\s*-?\s*([1-6])\s*", text)
    if not match:
        raise CleanError(f"--dice {text!r}: two dice from 1 to 6 expected, as 5-3")
    return int(match.group(1)), int(match.group(2))


def parse_settings(settings: tuple[str, ...]) -> dict[str, str]:
    """``option=value`` strings -> a dict; raises CleanError on a missing ``=``."""
    options: dict[str, str] = {}
    for setting in settings:
        name, equals, value = setting.partition("=")
        if not equals or not name.strip():
            raise CleanError(f"--set {setting!r}: option=value expected, as blocks=variable-1")
        options[name.strip()] = value.strip()
    return options


def read_position(text: str | None, rules: Rules) -> Position:
    """The SPEC given on the command line (or ``@file``): JSON, a key, a gnubg ID or an XGID
    (``position_specs``); the rules' start when not given."""
    if text is None:
        return Position.start(rules)
    if text.startswith("@"):
        try:
            with open(text[1:], encoding="utf-8") as handle:
                text = handle.read()
        except OSError as error:
            raise CleanError(f"{text[1:]}: {error.strerror or error}") from error
    with domain_errors():
        return read_spec(text, rules).position


def _first(row: tuple[str, str, Play]) -> str:
    return row[0]


@click.command("plays")
@click.option(
    "--position",
    "position_text",
    metavar="SPEC",
    help="The position: JSON, a key, a gnubg Position ID or an XGID (or @FILE); default: the "
    "start, White to move.",
)
@click.option("--dice", required=True, metavar="A-B", help="The roll, as 5-5 or 6-1.")
@click.option(
    "--rules", "rules_name", default="jacquet", show_default=True, help="A named ruleset."
)
@click.option(
    "--set",
    "settings",
    multiple=True,
    metavar="OPTION=VALUE",
    help="Override one option of the ruleset (repeatable), as blocks=variable-1.",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON list instead of text.")
def plays(
    position_text: str | None,
    dice: str,
    rules_name: str,
    settings: tuple[str, ...],
    as_json: bool,
) -> None:
    """Print every distinct legal play of a roll, sorted by resulting position key.

    Each play is given by its steps in notation and the position it leads to (turn passed to the
    opponent). A roll with no legal step gives one empty play (a pass). Options and their values
    are listed in docs/rules.md. Under every-die (versailles) each play is the whole turn: the
    opponent's share of the dice the mover could not use follows " + ", in the opponent's own
    numbering (JSON: "opponent_steps", a list of steps, [] when none).

    \b
    Example:
      jacquet plays --dice 5-5
      jacquet plays --dice 6-6 --rules versailles --json
      jacquet plays --dice 3-1 --rules backgammon
      jacquet plays --dice 6-1 --rules murray --json \\
        --position '{"white": {"24": 14, "19": 1}, "black": {"24": 15}, "turn": "white"}'
    """
    roll = parse_dice(dice)
    with domain_errors():
        rules = Rules.named(rules_name).with_options(parse_settings(settings))
    position = read_position(position_text, rules)
    with domain_errors():
        found = legal_plays(position, roll, rules)
    # distinct plays reach distinct positions, so their keys are distinct
    rows = sorted(((play.position.key(), play.notation(), play) for play in found), key=_first)
    if as_json:
        listing = [
            {
                "steps": " ".join(step.notation() for step in play.steps),
                "opponent_steps": [step.notation() for step in play.opponent_steps],
                "key": key,
                "position": play.position.to_json(),
            }
            for key, _, play in rows
        ]
        click.echo(json.dumps(listing, indent=1))
        return
    mover = side_name(position.turn)
    if not rows:
        click.echo("The game is over: no plays.")
        return
    count = len(rows)
    click.echo(
        f"{count} distinct legal play{'s' if count != 1 else ''} of "
        f"{roll[0]}-{roll[1]} for {mover} ({rules_name}):"
    )
    for key, steps, _ in rows:
        click.echo(f"  {steps or 'pass':<32} {key}")
