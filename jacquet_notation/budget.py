"""A time budget that long work checks itself, so that work whose answer is given up ends.

A thread cannot be stopped from outside; a computation that may run long (a record replayed, the
rolls tried for a play written without dice) instead calls :func:`check_time` between its
steps, and raises :class:`OutOfTime` once the deadline set by :func:`time_budget` has passed.
The deadline is a context variable: it belongs to the thread (or task) that set it, so a check
made elsewhere, validate or an import, never has one and pays one lookup a step.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar

#: the monotonic time past which the work of this context gives up; None: no budget
_DEADLINE: ContextVar[float | None] = ContextVar("jacquet_deadline", default=None)


class OutOfTime(Exception):
    """The time budget is spent. Not a ``JacquetError`` (nor a ``ValueError``): the code that
    turns a bad record into an error must not catch it; only the one that set the budget."""


@contextmanager
def time_budget(deadline: float) -> Iterator[None]:
    """Work inside gives up at ``deadline`` (a ``time.monotonic()`` value)."""
    token = _DEADLINE.set(deadline)
    try:
        yield
    finally:
        _DEADLINE.reset(token)


def deadline() -> float | None:
    """The deadline of this context (for a loop that checks it often: read it once)."""
    return _DEADLINE.get()


def check_time(limit: float | None = None) -> None:
    """Raise :class:`OutOfTime` when ``limit`` (default: this context's deadline) has passed."""
    if limit is None:
        limit = _DEADLINE.get()
    if limit is not None and time.monotonic() > limit:
        raise OutOfTime("the time budget is spent")
