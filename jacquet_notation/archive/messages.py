"""The messages of an import's two processes, one small frozen dataclass a kind: what the
importing process asks (:data:`Request`) and what the writer process answers (:data:`Reply`).
Apart from the writer, so that what crosses the pipes reads in one place."""

from __future__ import annotations

from dataclasses import dataclass

from ..match import GameSummary
from ..notation import GameChunk
from .rows import DerivedGame


@dataclass(frozen=True, slots=True)
class Begin:
    """Open a file's transaction: its ``imports`` row, and the key indexes dropped if
    ``deferred`` (see :func:`.store.key_indexes_deferred`), or left out until the import
    settles if ``bulk`` (:mod:`.settling`). Answered by :class:`Began`."""

    name: str
    sha: str | None
    deferred: bool
    bulk: bool
    #: the most bytes the file may grow the archive by (:func:`.store.growth_cap`)
    limit: int


@dataclass(frozen=True, slots=True)
class WriteBatch:
    """Write games the importer derived. Answered by :class:`BatchDone`."""

    batch: list[DerivedGame]


@dataclass(frozen=True, slots=True)
class ReadBatch:
    """Read batch ``number`` of the file (parse, replay, derive), then write it; see
    :data:`.importer.WRITER_SHARE`. Answered by :class:`BatchDone`."""

    number: int
    chunks: list[GameChunk]
    #: the summary of the game before the batch, for the checks across games
    previous: GameSummary | None = None


@dataclass(frozen=True, slots=True)
class Finish:
    """Record the file's counts (the importer's share) and commit. Answered by
    :class:`Finished`."""

    games: int
    counts: dict[str, int]
    problem: str | None


@dataclass(frozen=True, slots=True)
class Abort:
    """Roll the file in progress back. Answered by :class:`Aborted`."""


@dataclass(frozen=True, slots=True)
class Quit:
    """End the writer process (no answer)."""


Request = Begin | WriteBatch | ReadBatch | Finish | Abort | Quit


@dataclass(frozen=True, slots=True)
class BatchDone:
    """A batch written (even after a failure, reported at :class:`Finish`), and the writer's
    processor time so far: the importer shares the reading out by it. ``refused``: the file
    has grown the archive past its cap (the importer stops reading it)."""

    cpu: float
    refused: bool = False


@dataclass(frozen=True, slots=True)
class Began:
    """The file's import id, and False; or, when another import committed the same file
    meanwhile, that import's id, and True (nothing is begun)."""

    import_id: int
    already: bool


@dataclass(frozen=True, slots=True)
class Finished:
    """The file committed: its new games, then the counts of the games the writer read and the
    error lines of each batch it read, by batch number."""

    added: int
    counts: dict[str, int]
    messages: list[tuple[int, list[str]]]
    #: the file refused for growing the archive past its cap: the one line that says so (its
    #: games rolled back, its ``imports`` row kept as unreadable); None for a file committed
    refused: str | None = None


@dataclass(frozen=True, slots=True)
class Aborted:
    """The file in progress rolled back."""


@dataclass(frozen=True, slots=True)
class Failed:
    """What the writer raised, for the importer to raise (as ``sqlite3``'s error of the same
    kind when it is APSW's, so that callers catch one family)."""

    error: BaseException


Reply = BatchDone | Began | Finished | Aborted | Failed
