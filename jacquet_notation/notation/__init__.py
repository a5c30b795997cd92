"""Read Jacquet records into :class:`~jacquet_notation.record.GameRecord` values, and write them.

The reader works in two passes, so that one bad game costs nothing but itself and memory stays
flat on a corpus of any size: a cheap line scanner cuts the byte stream into games (a game ends at
its result, or where a new tag section begins), then each game is parsed by the LALR parser of
``grammar/jacquet.lark``. Syntax errors come back on the record (``record.errors``) rather than
as exceptions, unless the caller asks for ``strict=True``.

The writer gives every record one canonical layout (see ``docs/notation.md``), so that
``write_game(parse_game(write_game(r))) == write_game(r)`` and ``parse_game(write_game(r)) == r``.
"""

from .. import __version__
from .grammar import grammar_file, parser, slips, terminal
from .mat_header import is_match_file
from .mat_writer import split_matches, write_match, write_matches
from .parsing import (
    MAX_PLAYS_TEXT,
    MAX_VARIATION_DEPTH,
    parse_chunk,
    parse_game,
    parse_games,
    read_games,
)
from .splitting import GameChunk, split_games
from .writer import TAG_ORDER, play_text, write_game, write_games
from .xg_reader import record_chunks

#: Raised whenever a change makes some text read, replayed or scored differently (2: the fix for
#: Python 3.11.2's possessive repetitions; 3: every ending scored, the cube's points included):
#: an archive notes :data:`READER` with each import, so that its games are derived again from
#: their texts by the next import (docs/archive.md).
READER_REVISION = 3

#: what the archive's ``imports.reader`` holds for a file read by this reader
READER = f"jacquet-notation {__version__}, reader {READER_REVISION}"

__all__ = [
    "MAX_PLAYS_TEXT",
    "MAX_VARIATION_DEPTH",
    "READER",
    "READER_REVISION",
    "TAG_ORDER",
    "GameChunk",
    "grammar_file",
    "is_match_file",
    "parse_chunk",
    "parse_game",
    "parse_games",
    "parser",
    "play_text",
    "read_games",
    "record_chunks",
    "slips",
    "split_games",
    "split_matches",
    "terminal",
    "write_game",
    "write_games",
    "write_match",
    "write_matches",
]
