"""The games table's JSON columns drawn for a reader: tags and options as a definition list,
errors as a list of ``line:column message``. Raw JSON in a cell was the first thing a
historian met in the table (issue 19); the JSON itself stays in the table's ``.json``.
"""

from __future__ import annotations

import json
from typing import Any

from markupsafe import Markup, escape

#: the JSON columns drawn, in the games table and in any query's results
JSON_COLUMNS = frozenset({"tags", "options", "errors"})
#: errors listed in a cell before "… and N more"
CELL_ERRORS = 5


def json_cell(column: str, value: Any) -> Markup | None:
    """The cell of ``value`` (text holding JSON) in ``column``, or None to leave it to Datasette
    (not JSON, or not the shape the archive writes)."""
    if not isinstance(value, str) or not value.startswith(("{", "[")):
        return None
    try:
        data = json.loads(value)
    except ValueError:
        return None
    if column in ("tags", "options") and isinstance(data, dict):
        items = "".join(
            f"<dt>{escape(str(name))}</dt><dd>{escape(str(text))}</dd>"
            for name, text in data.items()
        )
        return Markup(f'<div class="jacquet-json"><dl>{items}</dl></div>')
    if column == "errors" and isinstance(data, list):
        lines = []
        for error in data[:CELL_ERRORS]:
            if not isinstance(error, dict):
                continue
            where = ":".join(str(error[key]) for key in ("line", "column") if error.get(key))
            kind = f" ({escape(str(error['kind']))})" if error.get("kind") else ""
            lines.append(
                f"<li>{escape(where) + ' ' if where else ''}{escape(str(error.get('message', '')))}"
                f"{kind}</li>"
            )
        if len(data) > CELL_ERRORS:
            lines.append(f"<li>… and {len(data) - CELL_ERRORS} more</li>")
        return Markup(f'<div class="jacquet-json"><ul>{"".join(lines)}</ul></div>')
    return None
