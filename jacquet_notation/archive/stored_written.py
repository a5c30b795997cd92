"""Version 15: a play's text as written, stored without the roll its row keeps beside it.

``plies.written`` has left out, since version 7, a text that reads ``dice: steps`` (NULL: the
.jqt's ``6-5: 24/18 18/13``; ``''``: a match file's ``65: 24/18 18/13``). A text spelled
otherwise (a match file's ``65: 24/13``, a .jqt's ``5-5: 13/8(2)``) was kept whole, its roll
written again though ``plies.dice`` holds it: half the plays of the shared match files, 4 bytes
each. Now what follows the roll is stored alone: where it is the moves as written spelled
canonically (``24/13``, ``13/7(2) 6/4*``, or with the bar and off as numbers: ``25/20``,
``3/0 3/0``, a bit of its own), the moves packed as the steps are
(:func:`.stored_steps.pack_moves`, 14 binary places a move: a step's and its count of men), an
integer positive after a match file's ``65: ``, negative after a .jqt's ``6-5: ``; otherwise a
BLOB of the rest, as it is after ``65: ``, after a ``-`` for ``6-5: ``. The view ``turns`` spells
the roll and the moves back (:func:`written_sql`), so that a visitor reads the text as written.
A TEXT cell is the text as it is (one that begins otherwise, a cube action's, and every cell
stored before version 15): nothing is migrated.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..board_terms import BAR, OFF, point_name
from ..record import Move
from .stored_steps import MOST_STEPS, MOVE_WIDTH, pack_moves, packed_sql

#: ``SPELLED_ROLL[high][low]``: the two spellings of a play's start that ``plies.written``
#: leaves out (a .jqt's ``6-5: ``, a match file's ``65: ``), and the roll as ``plies.dice``
#: stores it (65)
SPELLED_ROLL = [
    [(f"{high}-{low}: ", f"{high}{low}: ", high * 10 + low) for low in range(7)]
    for high in range(7)
]
#: what begins a stored rest that follows a .jqt's ``6-5: `` (a match file's has no mark)
DASHED_MARK = "-"
#: the bit of packed moves that says the bar and off are spelled as numbers (``25/20``,
#: ``3/0``, as some match files write them), above the four moves' places
POINTS_AS_NUMBERS = 1 << (MOVE_WIDTH * MOST_STEPS)
#: the two spellings of the bar, and of off
BAR_TEXT, BAR_NUMBER = point_name(BAR), str(BAR)
OFF_TEXT, OFF_NUMBER = point_name(OFF), str(OFF)


def pack_written(
    text: str, dashed: str, plain: str, steps: str | None, moves: Sequence[Move]
) -> str | bytes | int | None:
    """What ``plies.written`` stores of ``text``, a play whose roll spells ``dashed`` (``6-5: ``)
    or ``plain`` (``65: ``), whose steps read ``steps`` (None: not replayed) and whose moves as
    written are ``moves``."""
    if text.startswith(plain):
        rest, sign = text[len(plain) :], 1
        if rest == steps:
            return ""
    elif text.startswith(dashed):
        rest, sign = text[len(dashed) :], -1
        if rest == steps:
            return None
    else:
        return text
    if moves:
        canonical = " ".join([move.notation() for move in moves])
        flag = 0
        if rest != canonical:
            flag = POINTS_AS_NUMBERS
            canonical = canonical.replace(BAR_TEXT, BAR_NUMBER).replace(OFF_TEXT, OFF_NUMBER)
        packed = pack_moves(moves) if rest == canonical else None
        if packed is not None:
            return sign * (packed | flag)
    if sign < 0:
        return (DASHED_MARK + rest).encode()
    return text if rest.startswith(DASHED_MARK) else rest.encode()


def written_sql(written: str, dice: str, steps: str) -> str:
    """SQL: the text as written of a play whose ``written``, ``dice`` and spelled ``steps`` (SQL
    expressions) are stored as :func:`pack_written` stores them."""
    high, low = f"({dice} / 10)", f"({dice} % 10)"
    mark = DASHED_MARK
    packed = f"abs({written})"
    moves = (
        f"CASE WHEN ({packed} & {POINTS_AS_NUMBERS}) THEN {packed_sql(packed, MOVE_WIDTH, True)} "
        f"ELSE {packed_sql(packed, MOVE_WIDTH)} END"
    )
    return (
        f"CASE WHEN {written} IS NULL THEN {high} || '-' || {low} || ': ' || ({steps}) "
        f"WHEN typeof({written}) = 'integer' THEN {high} || CASE WHEN {written} < 0 THEN '-' "
        f"ELSE '' END || {low} || ': ' || {moves} "
        f"WHEN {written} = '' THEN {high} || {low} || ': ' || ({steps}) "
        f"WHEN typeof({written}) != 'blob' THEN {written} "
        f"WHEN substr({written}, 1, {len(mark)}) = CAST('{mark}' AS BLOB) "
        f"THEN {high} || '-' || {low} || ': ' || CAST(substr({written}, {len(mark) + 1}) AS TEXT) "
        f"ELSE {high} || {low} || ': ' || CAST({written} AS TEXT) END"
    )
