"""``jacquet position``: a position given in any form, shown with its key, pips and IDs."""

from __future__ import annotations

import json
from typing import Any

import click

from ..board import render_text
from ..position import SIDES
from ..position_ids import gnubg_id, match_id, state_words, xgid
from ..position_specs import Spec, read_spec
from ..rules import Rules
from .common import domain_errors


def _ids(spec: Spec) -> dict[str, str | None]:
    """The gnubg Position ID (with ``:`` and the Match ID where the SPEC gave the match) and
    the XGID; None for a Jacquet position, which has only its key."""
    position = spec.position
    if position.direction != "opposite":
        return {"gnubg_id": None, "xgid": None}
    gnubg = gnubg_id(position)
    if spec.state is not None:
        gnubg += ":" + match_id(spec.state)
    return {"gnubg_id": gnubg, "xgid": xgid(position, spec.state)}


@click.command("position")
@click.argument("spec")
@click.option(
    "--rules",
    "rules_name",
    default=None,
    help="A named ruleset (default: backgammon for a "
    "gnubg ID or XGID, the key's own direction for a key, else jacquet).",
)
@click.option(
    "--turn",
    type=click.Choice(SIDES),
    default=None,
    help="The side on roll of a gnubg Position ID given alone (default: white).",
)
@click.option("--json", "as_json", is_flag=True, help="Print a JSON object instead of text.")
def position(spec: str, rules_name: str | None, turn: str | None, as_json: bool) -> None:
    """Show a position given as a key, JSON, a gnubg Position ID or an XGID, with its IDs.

    SPEC is a position key, the JSON form plays --position takes, the readable form of a
    [Position] tag, a gnubg Position ID (optionally ":" and a Match ID) or an XGID. Prints the
    board, both pip counts, the key, the gnubg Position ID and the XGID (a Jacquet position has
    neither: only its key), and the match state a Match ID or XGID carries (length, score, cube
    and owner, Crawford, the side on roll, dice). White is gnubg's X and XG's bottom (upper
    case) player.

    \b
    Example:
      jacquet position 4HPwATDgc/ABMA --turn black
      jacquet position 'XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10' --json
    """
    with domain_errors():
        rules = Rules.named(rules_name) if rules_name else None
        read = read_spec(spec, rules, "black" if turn == "black" else "white")
        ids = _ids(read)
    board = read.position
    pips = {side: board.pips(side) for side in SIDES}
    if as_json:
        answer: dict[str, Any] = {"key": board.key(), **ids, "position": board.to_json()}
        answer["pips"] = pips
        click.echo(json.dumps(answer, indent=1))
        return
    click.echo(render_text(board))  # the board with both pip counts and the side on roll
    click.echo(f"Key:      {board.key()}")
    if ids["gnubg_id"] is None:
        click.echo("gnubg ID: none (a Jacquet position: gnubg IDs and XGIDs are backgammon's)")
        click.echo("XGID:     none")
        return
    click.echo(f"gnubg ID: {ids['gnubg_id']}")
    click.echo(f"XGID:     {ids['xgid']}")
    if read.state is not None:
        click.echo(f"Match:    {state_words(read.state)}")
