"""What an import or a rebuild reports: a module of its own beneath both, so that neither
imports the other for it."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..wording import plural


@dataclass(slots=True)
class ImportSummary:
    """What an import (or a rebuild) did, counted like ``validate`` counts.

    ``unreadable`` counts unreadable games and files that could not be read at all, as
    ``validate`` does; ``errors`` holds one line per error, in input order. A skipped file (its
    sha256 already imported) counts its stored games again, so a re-run reports the same.
    """

    files: int = 0
    games: int = 0
    valid: int = 0
    invalid: int = 0
    unreadable: int = 0
    skipped_files: int = 0
    unreadable_files: int = 0
    #: of the unreadable files, those that could not be opened or read (exit 2, not 1)
    io_errors: int = 0
    new_games: int = 0
    errors: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """True when every game read is valid and every file could be read."""
        return not (self.invalid or self.unreadable)

    def line(self) -> str:
        """The one-line summary the command prints."""
        files = plural(self.files, "file")
        extra = []
        if self.skipped_files:
            extra.append(f"{self.skipped_files} already imported")
        if self.unreadable_files:
            extra.append(f"{self.unreadable_files} unreadable")
        if extra:
            files += f" ({', '.join(extra)})"
        return (
            f"{files}: {plural(self.games, 'game')}: {self.valid} valid, {self.invalid} invalid, "
            f"{self.unreadable} unreadable; {self.new_games} new in the archive"
        )
