"""``jacquet export`` (records to XML and an HTML score sheet) and ``jacquet import-xml``.

Both write to a temporary file beside the target and rename it only when everything has been
written, so that an error (a malformed document, a file that cannot be read) leaves nothing
half-written; ``-`` (stdout) gets the output only once it is complete.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import shutil
import sys
import tempfile
import unicodedata
from collections import Counter
from collections.abc import Iterator, Sequence
from typing import IO

import click

from ..errors import JacquetError, NotationError, no_game_records
from ..notation import read_games
from ..numerals import ascii_int
from ..record import GameRecord
from ..rules import RULESET_NAMES, Rules
from ..wording import plural
from .common import (
    EXIT_INVALID,
    EXIT_OK,
    EXIT_USAGE,
    CleanError,
    InvalidInputError,
    domain_errors,
    echo,
)


@contextlib.contextmanager
def atomic_output(target: str) -> Iterator[IO[bytes]]:
    """A binary file that becomes ``target`` (or goes to stdout for ``-``) only on success."""
    if target == "-":
        with tempfile.TemporaryFile() as spool:
            yield spool
            spool.seek(0)
            shutil.copyfileobj(spool, sys.stdout.buffer)
            sys.stdout.buffer.flush()
        return
    folder = os.path.dirname(os.path.abspath(target))
    handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 - renamed or removed below
        dir=folder, prefix=f".{os.path.basename(target)}.", suffix=".part", delete=False
    )
    try:
        with handle:
            yield handle
        # A temporary file is private (0600); the result gets the mode any new file would get.
        os.chmod(handle.name, _new_file_mode(target))
        os.replace(handle.name, target)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)
        raise


def _new_file_mode(target: str) -> int:
    try:
        return os.stat(target).st_mode & 0o7777
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def _records(paths: Sequence[str], encoding: str) -> Iterator[GameRecord]:
    """Every game of every file named (folders read as ``jacquet validate`` reads them)."""
    from ..sources import STDIN, open_source, record_files, source_name

    for entry in record_files(paths):
        if not isinstance(entry, str):  # nothing is written when a path cannot be read
            raise JacquetError(entry.reason, file=entry.path)
        count = 0
        with open_source(entry) as stream:
            for record in read_games(stream, source_name(entry), encoding=encoding):
                count += 1
                yield record
        if count == 0 and entry != STDIN:
            raise no_game_records(entry)


@click.command()
@click.argument("paths", nargs=-1, required=True)
@click.option(
    "--xml", "xml_out", metavar="OUT.xml", help="Write the XML document here (- for stdout)."
)
@click.option("--html", "html_out", metavar="OUT.html", help="Write the HTML score sheet here.")
@click.option(
    "--mat",
    "mat_out",
    metavar="OUT",
    help="Write the backgammon games as a match file (.mat, as gnubg reads it); OUT an existing"
    " folder: one file a match, named by the match.",
)
@click.option(
    "--sgf",
    "sgf_out",
    metavar="OUT",
    help="Write the backgammon games as gnubg's SGF (as gnubg's load match reads it); OUT an"
    " existing folder: one file a match, named by the match.",
)
@click.option("--rules", "ruleset", type=click.Choice(RULESET_NAMES), help="Force a ruleset.")
@click.option("--encoding", default="utf-8", show_default=True, help="e.g. latin-1.")
@click.option(
    "--players",
    "players_db",
    metavar="DB",
    help="Name in the XML the players the archive DB merged from several spellings.",
)
@click.option(
    "--no-source-text",
    is_flag=True,
    help="Leave out each game's text as found (an unreadable game keeps it).",
)
def export(
    paths: tuple[str, ...],
    xml_out: str | None,
    html_out: str | None,
    mat_out: str | None,
    sgf_out: str | None,
    ruleset: str | None,
    encoding: str,
    no_source_text: bool,
    players_db: str | None,
) -> None:
    """Export every game of PATHS (files, folders, or - for stdin) as XML, HTML or a match file.

    The XML follows the schema shipped in the package (namespace urn:jacquet-notation:games:1,
    see docs/xml.md); every game is exported, invalid and unreadable ones with their errors.
    The HTML is the score sheet made from it by the shipped XSLT stylesheet. --mat writes
    backgammon games in the match file format (docs/notation.md, "Match files"): one match to
    a file, or each match to its own file in a folder, named by its players, length and date.
    Exit 0 when every game is valid, 1 when any is invalid or unreadable (the export is written
    all the same, but --mat writes nothing when a game cannot be a match file's), 2 for a usage
    or I/O error (nothing is written). --sgf is --mat's twin for gnubg's SGF (docs/notation.md,
    "gnubg's SGF"), with the same names (ending .sgf) and exit codes.

    \b
    Example:
      jacquet export --xml games.xml corpus/valid
      jacquet export --xml - --html sheet.html --rules murray games.jqt
      jacquet export --mat match.mat match.jqt
      jacquet export --xml games.xml --players games.db corpus/valid
      jacquet export --sgf matches/ match.mat
    """
    from .. import xml as xmlio

    if xml_out is None and html_out is None and mat_out is None and sgf_out is None:
        raise CleanError(
            "nothing to do: give --xml OUT.xml, --html OUT.html, --mat OUT.mat and/or --sgf OUT.sgf"
        )
    mat_code = EXIT_OK
    for target, suffix in ((mat_out, ".mat"), (sgf_out, ".sgf")):
        if target is not None:
            with domain_errors(EXIT_USAGE):
                mat_code = max(mat_code, _export_mat(paths, encoding, target, suffix))
    if xml_out is None and html_out is None:
        sys.exit(mat_code)
    if xml_out == "-" and html_out == "-":
        raise CleanError("--xml and --html cannot both go to stdout")
    with domain_errors(EXIT_USAGE):
        rules = Rules.named(ruleset) if ruleset else None
        players = _merged_players(players_db) if players_db is not None else []
        with contextlib.ExitStack() as stack:
            if xml_out is not None:
                xml_file = stack.enter_context(atomic_output(xml_out))
            else:
                xml_file = stack.enter_context(tempfile.TemporaryFile())
            counts = xmlio.write_xml(
                _records(paths, encoding),
                xml_file,
                rules=rules,
                source_text=not no_source_text,
                players=players,
            )
            if html_out is not None:
                xml_file.flush()
                xml_file.seek(0)
                document = xmlio.parse_document(xml_file)
                html = stack.enter_context(atomic_output(html_out))
                html.write(xmlio.scoresheet(document))
    echo(
        f"{plural(counts.games, 'game')} exported: {counts.valid} valid, {counts.invalid} invalid, "
        f"{counts.unreadable} unreadable",
        err=True,
    )
    invalid = counts.invalid or counts.unreadable
    sys.exit(EXIT_INVALID if invalid or mat_code == EXIT_INVALID else EXIT_OK)


def _merged_players(db: str) -> list[tuple[str, list[str]]]:
    """The archive's merged players (``jacquet players --merge``), for ``<players>``."""
    from ..archive.aliases import merged_players

    return merged_players(db)


def _export_mat(paths: Sequence[str], encoding: str, target: str, suffix: str = ".mat") -> int:
    """Every match of the games named, to ``target`` (a file), or a file each in a folder; as
    match files, or for ``suffix`` ``.sgf`` as gnubg's SGF.

    A game that cannot be written (unreadable, another ruleset...) stops the export before
    anything is written (exit 1); a game written but invalid by the rules is told, exit 1.
    """
    from ..notation import split_matches, write_match
    from ..validation import report_record

    if suffix == ".sgf":
        from ..sgf_writer import write_sgf_match as write_match

    matches: list[tuple[list[GameRecord], str]] = []
    invalid = 0
    for match in split_matches(_records(paths, encoding)):
        try:
            text = write_match(match)
        except NotationError as error:
            raise InvalidInputError(str(error).splitlines()[0]) from error
        for record in match:
            report = report_record(record)
            if report.status != "valid":
                invalid += 1
                echo(report.errors[0].splitlines()[0] if report.errors else report.file, err=True)
        matches.append((match, text))
    texts = [text for _, text in matches]
    if os.path.isdir(target):
        for name, text in zip(match_file_names(matches, suffix), texts, strict=True):
            with atomic_output(os.path.join(target, name)) as out:
                out.write(text.encode("utf-8"))
    elif len(texts) > 1:
        raise CleanError(
            f"{target}: the games make {plural(len(texts), 'match')}: give a folder to write one "
            "file each"
        )
    else:
        with atomic_output(target) as out:
            out.write("".join(texts).encode("utf-8"))
    written = f"{plural(len(texts), 'match')} written"
    among = f", {plural(invalid, 'invalid game')} among them" if invalid else ""
    echo(written + among, err=True)
    return EXIT_INVALID if invalid else EXIT_OK


#: the characters a match file's name keeps (any other run becomes one ``_``)
_UNSAFE = re.compile(r"[^A-Za-z0-9.-]+")


def _name_part(value: str, longest: int = 40) -> str:
    """A tag's value as part of a file name: accents dropped, safe characters only."""
    plain = unicodedata.normalize("NFKD", value).encode("ascii", "ignore").decode("ascii")
    return _UNSAFE.sub("_", plain).strip("._-")[:longest].strip("._-")


def match_file_name(match: list[GameRecord], suffix: str = ".mat") -> str:
    """A match's file name from its identity: ``Ann_Lee-v-Bob-5pt-2024.05.11.mat`` (players,
    length or ``money``, then the date, or else the event or the match's id, where known)."""
    tags = match[0].tags
    length = ascii_int(tags.get("Match", ""))
    parts = [
        _name_part(tags.get("White", "")) or "white",
        "v",
        _name_part(tags.get("Black", "")) or "black",
        f"{length}pt" if length else "money",
    ]
    for key in ("Date", "EventDate", "Event", "Match_ID"):
        when = _name_part(tags.get(key, ""))
        if when:
            parts.append(when)
            break
    return "-".join(parts) + suffix


def match_file_names(
    matches: Sequence[tuple[list[GameRecord], str]], suffix: str = ".mat"
) -> list[str]:
    """Each match's :func:`match_file_name`; where two would be the same, each of them gets a
    short id from its text (stable: the same match, the same name)."""
    names = [match_file_name(match, suffix) for match, _ in matches]
    seen = Counter(names)
    return [
        name.removesuffix(suffix)
        + "-"
        + hashlib.sha1(text.encode("utf-8")).hexdigest()[:8]
        + suffix
        if seen[name] > 1
        else name
        for name, (_, text) in zip(names, matches, strict=True)
    ]


@click.command("import-xml")
@click.argument("document", metavar="FILE.xml")
@click.option("-o", "--output", default="-", show_default=True, help="Where to write the records.")
@click.option("--no-validate", is_flag=True, help="Skip the schema check (not the safety checks).")
def import_xml(document: str, output: str, no_validate: bool) -> None:
    """Read a jacquet-notation XML document back into records, in canonical notation.

    A game that could not be read when it was exported is written back as its original text.
    A malformed document, one refused for safety (a DTD, an entity, too deep), or one that does
    not follow the schema stops with file:line:col and exit 1, and nothing is written; exit 2
    for a usage or I/O error.

    \b
    Example:
      jacquet import-xml games.xml -o games.jqt
    """
    from .. import xml as xmlio
    from ..sources import STDIN, source_name, unreadable_reason

    reason = None if document == STDIN else unreadable_reason(document)
    if reason is not None:  # a FIFO is refused, not opened: opening it would wait
        raise CleanError(f"{document}: {reason}")
    with domain_errors(EXIT_USAGE), atomic_output(output) as out:
        source = sys.stdin.buffer if document == STDIN else document
        name = source_name(document)
        first = True
        try:
            for record in xmlio.read_xml(source, name, validate=not no_validate):
                if not first:
                    out.write(b"\n")
                first = False
                out.write(xmlio.record_text(record).encode("utf-8"))
        except xmlio.XmlError as error:
            raise InvalidInputError(str(error).splitlines()[0]) from error
