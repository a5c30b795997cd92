"""Streaming: one game in memory at a time, whatever the size of the stream."""

from __future__ import annotations

import io
import tracemalloc
from collections.abc import Iterator

from jacquet_notation.notation import read_games

# Long comments make the stream large without making the test slow (tracemalloc is).
GAME = (
    '[Event "Stream NUMBER"]\n[White "A"]\n[Black "B"]\n\n{'
    + "An annotator's long introduction. " * 150
    + "}\n"
    + "\n".join(f"{t}. 6-5: 24/18 24/19 {{c}} 4-3: 13/9 13/10" for t in range(1, 11))
    + "\n2-0\n\n"
)


class GeneratedStream(io.RawIOBase):
    """A binary stream of ``games`` games, made as it is read: the test holds no corpus."""

    def __init__(self, games: int) -> None:
        self.chunks: Iterator[bytes] = (
            GAME.replace("NUMBER", str(n)).encode() for n in range(games)
        )
        self.pending = b""
        self.size = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while len(self.pending) < len(buffer):
            chunk = next(self.chunks, None)
            if chunk is None:
                break
            self.pending += chunk
        count = min(len(buffer), len(self.pending))
        buffer[:count] = self.pending[:count]
        self.pending = self.pending[count:]
        self.size += count
        return count


def peak_while_reading(games: int) -> tuple[int, int, int]:
    list(read_games(io.BytesIO(GAME.encode())))  # build the parser before measuring
    stream = GeneratedStream(games)
    tracemalloc.start()
    try:
        count = plays = 0
        for record in read_games(io.BufferedReader(stream)):
            count += 1
            plays += len(record.plays)
            assert not record.errors
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert count == games and plays == games * 20
    return peak, stream.size, count


def test_memory_stays_flat_as_the_stream_grows() -> None:
    small_peak, _, _ = peak_while_reading(60)
    large_peak, large_size, _ = peak_while_reading(1200)
    assert large_size > 6_000_000
    # Ten times the games, not ten times the memory, and far below the size of the stream.
    assert large_peak < small_peak * 1.2 + 20_000, (small_peak, large_peak)
    assert large_peak < large_size / 20, (large_peak, large_size)
