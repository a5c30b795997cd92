"""``jacquet replay``: the board after each play of a game, as text, and as SVG on request."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from ..board import render_text
from ..board_terms import side_name
from ..match import ending_text, outcome
from ..match.states import score_of, states_after
from ..notation import read_games
from ..position import Position
from ..position_ids import ids_line
from ..replay import ReplayedPly, inferred_text
from ..replay import replay as replay_game
from ..rules import RULESET_NAMES, Rules
from ..sources import unreadable_reason
from ..svg import board_svg
from .common import EXIT_INVALID, CleanError, domain_errors, echo


def _heading(ply: ReplayedPly) -> str:
    written = ply.written
    side = side_name(written.side)
    number = f"{written.turn}." if written.side == "white" else f"{written.turn}..."
    if written.is_cube_action:
        return f"{number} {side}: {written.cube_words}"
    if written.dice:
        dice = f"{written.dice[0]}-{written.dice[1]}"
    else:  # left out: the roll inferred, or its candidates (docs/notation.md)
        dice = inferred_text(ply.rolls) if ply.rolls else "-"
    played = ply.play.notation() if ply.play is not None else ""
    as_written = " ".join(m.notation() for m in written.moves)
    if written.action == "unknown":
        as_written = "unknown (the record does not give the play)"
    as_written = as_written or ("(no play written)" if written.is_bare_roll else "pass")
    resolved = f"  (as played: {played})" if played and played != as_written else ""
    noted = f"  [{ply.note}]" if ply.note else ""  # a blank read as gnubg reads it
    return f"{number} {side} {dice}: {as_written}{resolved}{noted}"


@click.command()
@click.argument("file", type=click.Path(dir_okay=False, allow_dash=True))
@click.option("--game", "-g", "number", type=click.IntRange(min=1), default=1, show_default=True)
@click.option(
    "--turn", "-t", type=click.IntRange(min=0), help="Show only this turn (0: the start)."
)
@click.option("--rules", "ruleset", type=click.Choice(RULESET_NAMES), help="Force a ruleset.")
@click.option(
    "--svg", "svg_out", type=click.Path(dir_okay=False), help="Write the last board shown as SVG."
)
@click.option("--encoding", default="utf-8", show_default=True)
@click.option(
    "--ids",
    is_flag=True,
    help="After each board, its gnubg Position ID (with the Match ID where the record says "
    "the match) and XGID.",
)
def replay(
    file: str,
    number: int,
    turn: int | None,
    ruleset: str | None,
    svg_out: str | None,
    encoding: str,
    ids: bool = False,
) -> None:
    """Show the board after each play of game N of FILE, from White's side.

    \b
    Example:
      jacquet replay corpus/valid/jacquet.jqt --game 1 --turn 3 --svg turn3.svg
      jacquet replay match.mat --game 2 --ids
    """
    with domain_errors():
        rules = Rules.named(ruleset) if ruleset else None
        reason = None if file == "-" else unreadable_reason(file)
        if reason is not None:  # a FIFO is refused, not opened: opening it would wait
            raise CleanError(f"{file}: {reason}")
        stream = sys.stdin.buffer if file == "-" else Path(file)
        record = None
        previous = None  # the score of the game before it: the Crawford game is the first
        for record in read_games(stream, file, encoding=encoding):
            if record.index == number:
                break
            previous = score_of(record.tags.get("Score", ""))
        else:
            raise CleanError(f"{file}: has no game {number}")
    if record.errors:
        # a game that cannot be read (validate's "unreadable": a text with no record, a syntax
        # error) has no board to show: its errors, exit 1, no start board, no SVG written
        for unread in record.errors:
            echo(str(unread).splitlines()[0], err=True)
        sys.exit(EXIT_INVALID)
    with domain_errors():
        game = replay_game(record, rules)
    # the Match ID after each play, where the record says the match (docs/notation.md)
    states = states_after(game, previous) if ids else None
    shown: Position = game.plies[0].before if game.plies else game.final
    if turn is None or turn == 0:
        start = "set by the [Position] tag, " if game.set_position is not None else ""
        echo(f"Start ({start}{game.rules.name})")
        click.echo(render_text(shown))
        if ids:
            echo(ids_line(shown, states[0] if states else None))
    for index, ply in enumerate(game.plies):
        if turn is not None and ply.written.turn != turn:
            continue
        echo("")
        echo(_heading(ply))
        if ply.after is None:
            reason = ply.error.message if ply.error is not None else "not replayed"
            echo(f"  cannot be played: {reason}")
            break
        if ply.error is not None:  # a missing play: the game goes on from the one that fits
            echo(f"  {ply.error.message}")
        shown = ply.after
        click.echo(render_text(shown))
        if ids:
            echo(ids_line(shown, states[index + 1] if states else None))
    if turn is None:
        echo("")
        written = game.record.result or "-"
        echo(f"Result by the rules: {ending_text(outcome(game))}; as written: {written}")
    if svg_out:
        with domain_errors():
            Path(svg_out).write_text(board_svg(shown), encoding="utf-8")
    if game.errors:
        for error in game.errors:
            echo(str(error).splitlines()[0], err=True)
        sys.exit(EXIT_INVALID)
