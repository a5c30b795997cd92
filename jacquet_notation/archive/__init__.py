"""The SQLite archive: every game ever imported, valid or not, with where it came from.

The archive is an exporter (it reads replayed games); the schema is the contract with the
Datasette browser and is documented in ``docs/archive.md``. sqlite-utils creates the tables,
indexes, search and views. An import writes through a writer process with its own connection,
which owns one transaction per file and commits it only when told the file is done, so that a
file's games all land or none do and ``kill -9`` at any moment leaves a consistent archive.

One concern a module, each depending only on those before it:

- :mod:`.schema`: tables, indexes, search and views, and the layout's version;
- :mod:`.rows`: a record to the rows of its game, turns and positions (pure, no I/O);
- :mod:`.store`: the SQL: connections, ``imports`` rows, writing derived games, name ids;
- :mod:`.opening`: :func:`open_archive`, which checks a file, creates or migrates it;
- :mod:`.writer`: the writer process of an import and its typed messages;
- :mod:`.summary`: :class:`ImportSummary`, what both of the next two report;
- :mod:`.rebuilding`: :func:`rebuild`; :mod:`.importer`: :func:`import_paths` (which rebuilds
  first when a file was stored by another reader).

The tunables (``BATCH``, ``WAIT_SECONDS``, ``WRITER_SHARE``) are read from the module that
defines them (:mod:`.store`, :mod:`.importer`) each time they are used: set them there.
"""

from .importer import import_paths
from .names import iso_date, normalise_name
from .opening import open_archive, upgrade_before_serving
from .rebuilding import rebuild
from .schema import GAME_COLUMNS, SCHEMA_VERSION, TURN_COLUMNS
from .store import BATCH, WAIT_SECONDS, ArchiveError, busy_error
from .summary import ImportSummary

__all__ = [
    "BATCH",
    "GAME_COLUMNS",
    "SCHEMA_VERSION",
    "TURN_COLUMNS",
    "WAIT_SECONDS",
    "ArchiveError",
    "ImportSummary",
    "busy_error",
    "import_paths",
    "iso_date",
    "normalise_name",
    "open_archive",
    "rebuild",
    "upgrade_before_serving",
]
