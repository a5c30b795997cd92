"""``jacquet generate``: legal games by seeded self-play, in canonical notation."""

from __future__ import annotations

from typing import IO

import click

from ..generate import generate_records
from ..notation import write_game
from ..rules import RULESET_NAMES, Rules
from .common import domain_errors


@click.command()
@click.option("--games", "-n", type=click.IntRange(min=0), default=10, show_default=True)
@click.option("--seed", "-s", type=int, default=0, show_default=True)
@click.option("--rules", "ruleset", type=click.Choice(RULESET_NAMES), default="jacquet")
@click.option(
    "--bot",
    type=click.Choice(["random", "greedy"]),
    default="random",
    show_default=True,
    help="random: any legal play; greedy: prefers pip gain and making points.",
)
@click.option("-o", "--output", type=click.File("w", encoding="utf-8"), default="-")
def generate(games: int, seed: int, ruleset: str, bot: str, output: IO[str]) -> None:
    """Write legal games played by seeded self-play, in canonical notation.

    The same seed gives the same games. Large generated files are for benchmarks and tests and
    are not kept in the repository.

    \b
    Example:
      jacquet generate --games 100 --seed 7 --rules bouchon -o games.jqt
    """
    with domain_errors():
        rules = Rules.named(ruleset)
        for record in generate_records(games, seed, rules, bot):  # type: ignore[arg-type]
            output.write(write_game(record))
            output.write("\n")
