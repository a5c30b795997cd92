"""Two lines of plies aligned, as two printings of one game are: a small edit-distance alignment
over keys (turn, side, play text), so that a play one book leaves out or adds is a gap, and a
play two books print differently is one column.

Texts of one game are nearly the same, so the work is kept near linear: the common head and
tail are matched directly, and only the middle is aligned, inside a band around the diagonal
that is widened until the cost found fits it (an alignment of cost ``d`` never leaves the band
of width ``d``, so a cost within the band is the least).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import TypeAlias

#: a ply's key: its turn and side as written, and its text; compared in parts
Key: TypeAlias = tuple[int, str, str]
#: one column of an alignment: the index in each line, None where the line has no ply there
Pair: TypeAlias = tuple[int | None, int | None]

#: a ply in one line that the other lacks
GAP = 1
#: two readings of one ply: the same turn and side, other text; or the same play renumbered
REREAD = 1
#: two unrelated plies are never one column (two gaps cost less)
UNRELATED = 3


def cost(a: Key, b: Key) -> int:
    """What putting ``a`` and ``b`` in one column costs."""
    if a == b:
        return 0
    if a[:2] == b[:2] or a[2] == b[2]:
        return REREAD
    return UNRELATED


def align(a: Sequence[Key], b: Sequence[Key]) -> list[Pair]:
    """The least-cost alignment of ``a`` and ``b``, in order, every ply of each in one pair."""
    head = 0
    while head < min(len(a), len(b)) and a[head] == b[head]:
        head += 1
    tail = 0
    while tail < min(len(a), len(b)) - head and a[-1 - tail] == b[-1 - tail]:
        tail += 1
    middle = _banded(a[head : len(a) - tail], b[head : len(b) - tail])
    pairs: list[Pair] = [(i, i) for i in range(head)]
    pairs += [(None if i is None else i + head, None if j is None else j + head) for i, j in middle]
    pairs += [(len(a) - tail + k, len(b) - tail + k) for k in range(tail)]
    return pairs


def _banded(a: Sequence[Key], b: Sequence[Key]) -> list[Pair]:
    """The alignment of two middles, the band doubled until the cost found lies within it."""
    band = abs(len(a) - len(b)) + 8
    while True:
        found, total = _within(a, b, band)
        if total <= band or band >= max(len(a), len(b)):
            return found
        band *= 2


def _within(a: Sequence[Key], b: Sequence[Key], band: int) -> tuple[list[Pair], int]:
    """The least-cost alignment whose cells keep ``|i - j| <= band``, and its cost."""
    best: dict[tuple[int, int], int] = {(0, 0): 0}
    back: dict[tuple[int, int], Hashable] = {}
    for i in range(len(a) + 1):
        for j in range(max(0, i - band), min(len(b), i + band) + 1):
            if i == j == 0:
                continue
            options = []
            if i and j and (i - 1, j - 1) in best:
                options.append((best[i - 1, j - 1] + cost(a[i - 1], b[j - 1]), "both"))
            if i and (i - 1, j) in best:
                options.append((best[i - 1, j] + GAP, "a"))
            if j and (i, j - 1) in best:
                options.append((best[i, j - 1] + GAP, "b"))
            best[i, j], back[i, j] = min(options, key=lambda option: option[0])
    pairs: list[Pair] = []
    i, j = len(a), len(b)
    while i or j:
        step = back[i, j]
        if step == "both":
            i, j = i - 1, j - 1
            pairs.append((i, j))
        elif step == "a":
            i -= 1
            pairs.append((i, None))
        else:
            j -= 1
            pairs.append((None, j))
    pairs.reverse()
    return pairs, best[len(a), len(b)]
