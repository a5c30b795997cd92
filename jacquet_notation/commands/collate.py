"""``jacquet collate``: transcriptions of one game compared ply by ply, and merged."""

from __future__ import annotations

from pathlib import Path

import click

from ..board_terms import side_name
from ..notation import read_games, write_game
from ..numerals import ascii_int
from ..record import GameRecord
from ..replay.collate import Collation, Transcription
from ..replay.collate import collate as collate_game
from ..rules import RULESET_NAMES, Rules
from ..sources import unreadable_reason
from ..wording import plural
from .common import CleanError, InvalidInputError, domain_errors, echo, json_line


def _numbers(text: str | None) -> list[int] | None:
    """``--games 1,3`` as game numbers (None: not given)."""
    if text is None:
        return None
    numbers = [ascii_int(part.strip()) for part in text.split(",")]
    if not numbers or any(number is None or number < 1 for number in numbers):
        raise CleanError(f"--games {text}: give game numbers from 1, as in --games 1,3")
    return [number for number in numbers if number is not None]


def _transcriptions(
    files: tuple[str, ...], games: list[int] | None, encoding: str
) -> list[Transcription]:
    """The games named: ``--games`` of each file, else every game of a lone file, else the
    first game of each file; each named ``FILE`` or, where a file gives several, ``FILE#N``."""
    found: list[Transcription] = []
    for file in files:
        reason = unreadable_reason(file)
        if reason is not None:
            raise CleanError(f"{file}: {reason}")
        wanted = games if games is not None else (None if len(files) == 1 else [1])
        records: dict[int, GameRecord] = {}
        with domain_errors():
            for record in read_games(Path(file), file, encoding=encoding):
                if wanted is None or record.index in wanted:
                    records[record.index] = record
                if wanted is not None and len(records) == len(set(wanted)):
                    break
        for number in wanted or sorted(records):
            if number not in records:
                raise CleanError(f"{file}: has no game {number}")
            record = records[number]
            if record.errors:
                # a game that cannot be read is invalid input (exit 1), as validate says
                raise InvalidInputError(str(record.errors[0]).splitlines()[0])
            several = len(wanted or records) > 1
            found.append(Transcription(f"{file}#{number}" if several else file, record))
    if len(found) < 2:
        raise CleanError("collate needs two transcriptions or more: name two files, or --games")
    return found


@click.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(dir_okay=False))
@click.option("--games", "games_text", help="The games to collate, as in 1,3 (of each FILE).")
@click.option(
    "--output",
    "-o",
    type=click.Path(dir_okay=False, allow_dash=True),
    help="Write the merged record here (- for stdout): the readings chosen in the main line, "
    "every other one a variation naming its transcription.",
)
@click.option("--json", "as_json", is_flag=True, help="The differences as one JSON object.")
@click.option("--rules", "ruleset", type=click.Choice(RULESET_NAMES), help="Force a ruleset.")
@click.option("--encoding", default="utf-8", show_default=True, help="e.g. latin-1.")
def collate(
    files: tuple[str, ...],
    games_text: str | None,
    output: str | None,
    as_json: bool,
    ruleset: str | None,
    encoding: str,
) -> None:
    """Compare transcriptions of one game ply by ply, and choose among their readings.

    Each ply where they differ is shown with each reading, its transcriptions, whether it is
    legal where the agreed line stands, the slip that explains an illegal one, and the reading
    chosen: legal first, then the one more transcriptions give, then the one the next plays
    go on from. Exit 0 when collated (differences or none), 1 for a game that cannot be read,
    2 for a usage error.

    \b
    Example:
      jacquet collate book1.jqt book2.jqt book3.jqt --output merged.jqt
      jacquet collate games.jqt --games 2,5 --json
      jacquet collate a.jqt b.jqt --output - > merged.jqt
    """
    with domain_errors():
        rules = Rules.named(ruleset) if ruleset else None
    transcriptions = _transcriptions(files, _numbers(games_text), encoding)
    with domain_errors():
        collation = collate_game(transcriptions, rules)
    # the merged record on stdout (--output -) sends the report, text or JSON, to stderr
    if as_json:
        click.echo(json_line(collation.to_json()), err=output == "-")
    else:
        for line in _lines(collation):
            echo(line, err=output == "-")
    if output is not None:
        text = write_game(collation.merged)
        if output == "-":
            click.echo(text, nl=False)
        else:
            with domain_errors():
                Path(output).write_text(text, encoding="utf-8")


def _lines(collation: Collation) -> list[str]:
    """The differences as a person reads them, one block a ply, then a summary."""
    lines: list[str] = []
    for difference in collation.differences:
        lines.append(
            f"ply {difference.ply} (turn {difference.turn}, {side_name(difference.side)}):"
        )
        for reading in difference.readings:
            mark = "*" if reading is difference.chosen else " "
            text = reading.text if reading.text is not None else "(no play)"
            judged = "legal" if reading.legal else "illegal"
            slip = f"; probably {reading.slip}" if reading.slip else ""
            sources = ", ".join(reading.sources)
            lines.append(f"  {mark} {text}  [{sources}] {judged}{slip}")
    count = len(collation.differences)
    names = plural(len(collation.transcriptions), "transcription")
    lines.append(f"{names}, {plural(count, 'ply')} differing")
    return lines
