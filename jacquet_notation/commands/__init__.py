"""One module per ``jacquet`` sub-command; ``cli.py`` imports them lazily."""
