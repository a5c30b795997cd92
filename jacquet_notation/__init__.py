"""Read, validate, archive and browse records of the board game Jacquet."""

__version__ = "0.1.0"
