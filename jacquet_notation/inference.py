"""``jacquet infer`` over files: each game's inference, in input order, or a file's problem.

The files are walked and cut as ``validate`` walks and cuts them (``sources.py``), and a file
that cannot be read is reported in validate's own words (:mod:`.validation`), so the two
commands agree on what is unreadable and on the exit code it gives.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence

from .errors import JacquetError, no_game_records
from .garbage import fewer_collections
from .notation import parse_chunk
from .replay import Inference, infer
from .sources import UnreadablePath, game_chunks, record_files, source_name
from .validation import GameReport, file_report, unreadable_report


def infer_paths(
    paths: Sequence[str], *, encoding: str = "utf-8", slips: bool = False
) -> Iterator[Inference | GameReport]:
    """Every game's :class:`Inference`, in order; a :class:`GameReport` (``index`` 0) for a path
    or a file that could not be read.

    ``slips``: an exclusion's reason also names the transcription slip that would make the
    play legal under that ruleset. Off by default: a ruleset excluded is most often simply
    not the one played, which no slip explains, and the search for one was a sixth of the
    command's time.
    """
    for entry in record_files(paths):
        if isinstance(entry, UnreadablePath):
            yield unreadable_report(entry)
            continue
        try:
            count = 0
            with fewer_collections():
                for chunk in game_chunks(entry, encoding):
                    count += 1
                    yield infer(parse_chunk(chunk), words=slips)
            if count == 0:
                name = source_name(entry)
                yield file_report(name, no_game_records(name))
        except (JacquetError, OSError) as error:
            yield file_report(entry, error)
