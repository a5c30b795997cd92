"""A stream told ``.xg`` or text by its first bytes, and an ``.xg`` file's games as chunks.

Every reader of records (``sources.game_chunks``, ``read_games``) asks :func:`record_chunks`,
so that an eXtreme Gammon file is recognised by its magic before anything decodes it as text
(which would refuse it for its NUL bytes). Each game is written in the canonical form and
parsed again like any record (its plies, spans and errors those of that text, which the
archive stores and rebuilds from); the chunk carries XG's analysis, which ``parse_chunk`` puts
back on the plies. The file is read whole, and every game of it checked, before the first
chunk is given: a damaged file gives one error and no game.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import IO

from .splitting import GameChunk, split_games
from .writer import write_game
from .xg_container import MAX_UNPACKED, XgReadError, game_file, is_xg
from .xg_records import read_games


def _head(stream: IO[bytes]) -> bytes:
    """The first bytes of a binary stream, left unread (peeked, or read and sought back)."""
    peek = getattr(stream, "peek", None)
    if peek is not None:
        return bytes(peek(4)[:4])
    if stream.seekable():
        at = stream.tell()
        head = stream.read(4)
        stream.seek(at)
        return head
    return b""


def record_chunks(
    stream: IO[bytes] | IO[str], file: str | None = None, *, encoding: str = "utf-8"
) -> Iterator[GameChunk]:
    """The games of a stream as chunks: an ``.xg`` file's (by its magic), else the text's."""
    if isinstance(stream.read(0), bytes) and is_xg(_head(stream)):  # type: ignore[arg-type]
        yield from xg_chunks(stream.read(MAX_UNPACKED + 1), file)  # type: ignore[arg-type]
        return
    yield from split_games(stream, file, encoding=encoding)


def xg_chunks(data: bytes, file: str | None) -> Iterator[GameChunk]:
    """The games of an ``.xg`` file's bytes, each its canonical text with XG's analysis."""
    if len(data) > MAX_UNPACKED:
        raise XgReadError(file, MAX_UNPACKED, f"a file larger than {MAX_UNPACKED:,} bytes")
    games = read_games(game_file(data, file), file)
    for game in games:
        text = write_game(game.record).rstrip("\n")
        yield GameChunk(
            text,
            1,
            file,
            game.record.index,
            syntax="xg",
            analyses=tuple(game.analyses),
            analyser=game.record.analyser,
        )
