"""Version 15: a play's text as written, stored without the roll its row keeps beside it.

``plies.written`` has left out, since version 7, a text that reads ``dice: steps`` (NULL: the
.jqt's ``6-5: 24/18 18/13``; ``''``: a match file's ``65: 24/18 18/13``). A text spelled
otherwise (a match file's ``65: 24/13``, a .jqt's ``5-5: 13/8(2)``) was kept whole, its roll
written again though ``plies.dice`` holds it: half the plays of the shared match files, 4 bytes
each. Now such a text is stored as a BLOB of what follows the roll: as it is after a match
file's ``65: `` (the commoner), after a ``-`` for a .jqt's ``6-5: ``. The view ``turns`` spells
the roll back (:func:`written_sql`), so that a visitor reads the text as written. A TEXT cell is
the text as it is (one that begins otherwise, a cube action's, and every cell stored before
version 15): nothing is migrated.
"""

from __future__ import annotations

#: ``SPELLED_ROLL[high][low]``: the two spellings of a play's start that ``plies.written``
#: leaves out (a .jqt's ``6-5: ``, a match file's ``65: ``), and the roll as ``plies.dice``
#: stores it (65)
SPELLED_ROLL = [
    [(f"{high}-{low}: ", f"{high}{low}: ", high * 10 + low) for low in range(7)]
    for high in range(7)
]
#: what begins a stored rest that follows a .jqt's ``6-5: `` (a match file's has no mark)
DASHED_MARK = "-"


def pack_written(text: str, dashed: str, plain: str, steps: str | None) -> str | bytes | None:
    """What ``plies.written`` stores of ``text``, a play whose roll spells ``dashed`` (``6-5: ``)
    or ``plain`` (``65: ``) and whose steps read ``steps`` (None: not replayed)."""
    if text.startswith(plain):
        rest = text[len(plain) :]
        if rest == steps:
            return ""
        if not rest.startswith(DASHED_MARK):
            return rest.encode()
    elif text.startswith(dashed):
        rest = text[len(dashed) :]
        if rest == steps:
            return None
        return (DASHED_MARK + rest).encode()
    return text


def written_sql(written: str, dice: str, steps: str) -> str:
    """SQL: the text as written of a play whose ``written``, ``dice`` and spelled ``steps`` (SQL
    expressions) are stored as :func:`pack_written` stores them."""
    high, low = f"({dice} / 10)", f"({dice} % 10)"
    mark = DASHED_MARK
    return (
        f"CASE WHEN {written} IS NULL THEN {high} || '-' || {low} || ': ' || ({steps}) "
        f"WHEN {written} = '' THEN {high} || {low} || ': ' || ({steps}) "
        f"WHEN typeof({written}) != 'blob' THEN {written} "
        f"WHEN substr({written}, 1, {len(mark)}) = CAST('{mark}' AS BLOB) "
        f"THEN {high} || '-' || {low} || ': ' || CAST(substr({written}, {len(mark) + 1}) AS TEXT) "
        f"ELSE {high} || {low} || ': ' || CAST({written} AS TEXT) END"
    )
