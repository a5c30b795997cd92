"""``python -m jacquet_notation`` runs the ``jacquet`` command."""

from .cli import main

main()
