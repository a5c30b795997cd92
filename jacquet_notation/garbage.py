"""A gentler rhythm for Python's cyclic garbage collector while a collection is read."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

#: allocations between two collections of the youngest generation (Python's default is 700)
YOUNG_THRESHOLD = 100_000


@contextmanager
def fewer_collections(young: int = YOUNG_THRESHOLD) -> Iterator[None]:
    """Collect the youngest generation every ``young`` allocations inside the block.

    Reading and replaying games allocates a few small objects a play (records, positions,
    rows), almost none of them in reference cycles: reference counting frees them, and the
    collector's default rhythm spends about a tenth of an import scanning them for nothing.
    The previous thresholds come back when the block ends, even on an error.
    """
    previous = gc.get_threshold()
    gc.set_threshold(max(young, previous[0]), *previous[1:])
    try:
        yield
    finally:
        gc.set_threshold(*previous)
