"""Validate files of records: one report per game, in input order, optionally in parallel.

``jacquet validate`` is a thin shell over :func:`validate_paths`. A game report is plain data (no
positions, no parse tree) so that worker processes can send it back cheaply.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import Any, Literal

from .errors import JacquetError, no_game_records
from .garbage import fewer_collections
from .match import (
    GameSummary,
    check_game,
    check_next,
    outcome,
    same_match,
    summarise,
    unread_summary,
)
from .notation import GameChunk, parse_chunk
from .notation import parser as _parser
from .record import GameRecord
from .replay import ReplayedGame, replay
from .reporting import describe_error, error_detail
from .rules import Rules
from .sources import UnreadablePath, game_chunks, record_files, source_name

Status = Literal["valid", "invalid", "unreadable"]


@dataclass(slots=True)
class GameReport:
    """What ``validate`` says of one game (or of a file it could not read, with ``index`` 0)."""

    file: str
    index: int
    status: Status
    white: str = "?"
    black: str = "?"
    date: str = "?"
    plies: int = 0
    result: str | None = None
    computed_result: str | None = None
    #: who won, the points and how the game ended (match.outcome); None for an unreadable game
    winner: str | None = None
    points: int | None = None
    ending: str | None = None
    rules: str = "jacquet"
    errors: list[str] = field(default_factory=list)
    details: list[dict[str, Any]] = field(default_factory=list)
    #: the line of the record each error points at (None where there is none): the CLI shows it
    #: with a caret; not part of the JSON form, whose errors carry line and column
    sources: list[str | None] = field(default_factory=list)
    #: the game's match facts (None outside a match), for the checks across games, which
    #: :func:`validate_paths` makes as the reports come out in order; not part of the JSON
    match: GameSummary | None = None
    #: what the reading noted without refusing (a match file's line read as cp1252): in the
    #: JSON form where there is any, never an error
    notes: list[str] = field(default_factory=list)
    #: an unreadable game's place in its match (nothing else of it is known), so that the game
    #: after it is not checked as the first of the match
    unread_match: GameSummary | None = None
    #: the lines a check across games may point at (the score line, the first double), by
    #: their number in the file: kept until :func:`validate_paths` has made those checks
    lines: dict[int, str] | None = None
    #: a file or path that could not be opened or read (an I/O error, exit 2), as against one
    #: read that holds no record (exit 1); not part of the JSON, whose status says unreadable
    io_error: bool = False

    def to_json(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "game": self.index,
            "status": self.status,
            "white": self.white,
            "black": self.black,
            "date": self.date,
            "rules": self.rules,
            "plies": self.plies,
            "result": self.result,
            "computed_result": self.computed_result,
            "winner": self.winner,
            "points": self.points,
            "ending": self.ending,
            "errors": self.details,
            **({"notes": self.notes} if self.notes else {}),
        }


def report_record(record: GameRecord, rules: Rules | None = None) -> GameReport:
    """Replay one record and say what is wrong with it, if anything."""
    report = GameReport(
        file=record.file or "<stdin>",
        index=record.index,
        status="valid",
        white=record.tags.get("White", "?"),
        black=record.tags.get("Black", "?"),
        date=record.tags.get("Date", "?"),
        plies=len(record.plays),
        result=record.result,
    )
    game: ReplayedGame | None = None
    errors: Sequence[JacquetError] = record.errors
    if errors:
        report.status = "unreadable"  # a record that did not parse is not replayed
        report.unread_match = unread_summary(record)
    else:
        game = replay(record, rules)
        report.rules = game.rules.name
        ended = outcome(game)
        report.computed_result = ended.result
        report.winner, report.points, report.ending = ended.winner, ended.points, ended.ending
        errors = [*game.errors, *check_game(game)]
        if errors:
            report.status = "invalid"
        report.match = summarise(record)
    lines = record.text.split("\n") if errors or report.match else []
    if report.match is not None:
        spans = (report.match.score_span, report.match.first_double)
        rows = {span.line: record.text_row(span.line) for span in spans if span is not None}
        report.lines = {
            line: lines[row] for line, row in rows.items() if row is not None and row < len(lines)
        }
    for error in errors:
        add_error(report, game, record, error, lines)
    return report


def add_error(
    report: GameReport,
    game: ReplayedGame | None,
    record: GameRecord | None,
    error: JacquetError,
    lines: Sequence[str],
) -> None:
    """Add ``error`` to ``report``: its line, its JSON form and the line of the record it names."""
    if record is not None:
        report.errors.append(describe_error(game, record, error))
        number = record.text_row(error.line or 0)
        source = lines[number] if number is not None and number < len(lines) else None
    else:  # a check across games, made where only the report is left: its tags and lines
        tags = {"White": report.white, "Black": report.black, "Date": report.date}
        stub = GameRecord(tags=tags, file=report.file, index=report.index)
        report.errors.append(describe_error(None, stub, error))
        source = (report.lines or {}).get(error.line or 0)
    report.details.append(error_detail(error))
    report.sources.append(source)
    report.status = "invalid" if report.status == "valid" else report.status


def _match_checks(reports: Iterable[GameReport]) -> Iterator[GameReport]:
    """The reports, each game of a match also checked against the game before it in its file
    (docs/rules.md, "Matches"): in order, one game behind, whichever process replayed it."""
    previous: GameSummary | None = None
    for report in reports:
        summary = report.match
        if summary is not None:
            for error in check_next(previous if same_match(previous, summary) else None, summary):
                add_error(report, None, None, error, ())
        previous = summary if summary is not None else report.unread_match
        report.lines = None
        yield report


def file_report(file: str, error: JacquetError | OSError) -> GameReport:
    """A report for a whole file that could not be read (binary, missing, not records)."""
    if isinstance(error, OSError):
        message = f"{file}: {error.strerror or error}"
    else:
        error.file = error.file or file
        message = str(error).splitlines()[0]
    return GameReport(
        file=file,
        index=0,
        status="unreadable",
        errors=[message],
        details=[{"kind": "file", "line": getattr(error, "line", None), "message": message}],
        io_error=isinstance(error, OSError),
    )


def unreadable_report(entry: UnreadablePath) -> GameReport:
    """The report of a path the walk refused (see :class:`UnreadablePath`)."""
    message = entry.message()
    return GameReport(
        file=entry.path,
        index=0,
        status="unreadable",
        errors=[message],
        details=[{"kind": "file", "line": None, "message": message}],
        io_error=entry.io,
    )


def _chunks(file: str, encoding: str) -> Iterator[GameChunk | GameReport]:
    """The games of one file as chunks of text, or one report if the file cannot be read."""
    try:
        count = 0
        for chunk in game_chunks(file, encoding):
            count += 1
            yield chunk
        if count == 0:
            name = source_name(file)
            yield file_report(name, no_game_records(name))
    except (JacquetError, OSError) as error:
        yield file_report(file, error)


def _check_chunks(batch: list[GameChunk], rules: Rules | None) -> list[GameReport]:
    """Parse and replay a batch of games (in this process or a worker), with the collector
    looking at its youngest generation less often: the games' objects die by reference count."""
    with fewer_collections():
        reports = [report_record(parse_chunk(chunk), rules) for chunk in batch]
        for report, chunk in zip(reports, batch, strict=True):
            report.notes = [
                f"line {line}, column {column}: {text}" for line, column, text in chunk.notes
            ]
        return reports


def validate_paths(
    paths: Sequence[str],
    rules: Rules | None = None,
    *,
    jobs: int = 1,
    encoding: str = "utf-8",
    batch: int = 64,
) -> Iterator[GameReport]:
    """Reports for every game of every file, in input order; ``jobs`` > 1 uses processes.

    The games of a match are also checked against one another (:func:`_match_checks`).
    """
    return _match_checks(_reports(paths, rules, jobs=jobs, encoding=encoding, batch=batch))


def _reports(
    paths: Sequence[str],
    rules: Rules | None,
    *,
    jobs: int,
    encoding: str,
    batch: int,
) -> Iterator[GameReport]:
    """Each game's report, in file order, from the worker pool or this process."""

    def items() -> Iterator[GameChunk | GameReport]:
        for entry in record_files(paths):
            if isinstance(entry, UnreadablePath):
                yield unreadable_report(entry)
            else:
                yield from _chunks(entry, encoding)

    def batches() -> Iterator[list[GameChunk] | GameReport]:
        pending: list[GameChunk] = []
        for item in items():
            if isinstance(item, GameReport):
                if pending:
                    yield pending
                    pending = []
                yield item
            else:
                pending.append(item)
                if len(pending) >= batch:
                    yield pending
                    pending = []
        if pending:
            yield pending

    if jobs <= 1:
        for unit in batches():
            if isinstance(unit, GameReport):
                yield unit
            else:
                yield from _check_chunks(unit, rules)
        return

    # Build the parser here, once: worker processes forked from this one inherit it, rather than
    # each building its own (about 0.1 s each).
    _parser()
    try:
        with ProcessPoolExecutor(max_workers=jobs) as pool:
            yield from _in_pool(pool, batches(), rules, jobs)
    except BrokenProcessPool:
        raise JacquetError(
            "a worker process died (out of memory?); run again with --jobs 1 to find the file"
        ) from None


def _in_pool(
    pool: ProcessPoolExecutor,
    units: Iterator[list[GameChunk] | GameReport],
    rules: Rules | None,
    jobs: int,
) -> Iterator[GameReport]:
    window: list[Any] = []
    for unit in units:
        if isinstance(unit, GameReport):
            window.append(unit)
        else:
            window.append(pool.submit(_check_chunks, unit, rules))
        # Keep a bounded number of batches in flight, so memory stays flat on a large corpus.
        while len(window) > 4 * jobs:
            yield from _resolve(window.pop(0))
    for unit in window:
        yield from _resolve(unit)


def _resolve(unit: Any) -> list[GameReport]:
    if isinstance(unit, GameReport):
        return [unit]
    result: list[GameReport] = unit.result()
    return result
