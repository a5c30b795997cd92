"""Version 13: a play's steps stored as one integer, spelled back as text by SQL.

``24/18 18/13`` took 11 bytes of ``plies`` a play (23 for a double's four steps), half the text
the play was read from; packed, each step takes 11 binary places (its start, 1 to 25, in 5;
its end, 0 to 25, in 5; a hit, in 1), the first lowest, and a zero start ends them: 3 bytes for
two steps, 6 for four, 0 for a pass. The view ``turns`` spells the steps back with built-in
SQL, so that any connection (Datasette's, a visitor's) reads ``24/18 18/13`` as before; the
spelling of a point is read from :data:`.record.MOVE_TEXTS`, the one table of moves' texts,
not written again here.
A play of more than four steps, or a step outside the board, keeps its text, and so does a cell
stored before version 13: the view reads a TEXT cell as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from ..board_terms import move_text
from ..engine import Play
from ..record import MOVE_TEXTS, Move

#: the binary places of one step
STEP_WIDTH = 11
#: the most steps packed in one integer (4 x 11 places: six bytes)
MOST_STEPS = 4
_BAR = len(MOVE_TEXTS[0]) - 1


def pack_steps(play: Play | None, text: str | None) -> int | str | None:
    """What ``plies.steps`` stores of a play whose steps read ``text`` (None: not replayed):
    its steps packed, or the text where they do not fit."""
    if play is None or text is None:
        return text
    packed = shift = 0
    for step in play.steps:
        start, end = step.start, step.end
        if not 0 < start <= _BAR or not 0 <= end <= _BAR or shift == STEP_WIDTH * MOST_STEPS:
            return text  # off the board, or a fifth step
        packed |= (start | end << 5 | step.hit << 10) << shift
        shift += STEP_WIDTH
    return packed


def _start_text(point: int) -> str:
    return MOVE_TEXTS[0][point][0].split("/")[0]


def _end_text(point: int) -> str:
    return MOVE_TEXTS[0][_BAR][point].split("/")[1]


#: what a hit adds to a move's text
_HIT_MARK = MOVE_TEXTS[1][_BAR][1][len(MOVE_TEXTS[0][_BAR][1]) :]


def spelled_as_parts() -> bool:
    """Whether every move's text is its start's, a slash, its end's and the hit's mark, as
    :func:`steps_sql` spells it (checked by the tests: a change to the spelling shows there)."""
    return all(
        MOVE_TEXTS[hit][start][end]
        == f"{_start_text(start)}/{_end_text(end)}{_HIT_MARK if hit else ''}"
        for hit in (0, 1)
        for start in range(1, _BAR + 1)
        for end in range(_BAR + 1)
    )


def _point_sql(value: str, texts: dict[int, str]) -> str:
    """SQL: a point's text, the points whose text is not their number named."""
    named = " ".join(
        f"WHEN {point} THEN '{text}'" for point, text in texts.items() if text != str(point)
    )
    return f"(CASE {value} {named} ELSE {value} END)" if named else value


#: version 15: the binary places of a move as written (``plies.written``, stored_written.py): a
#: step's, then the count of men it moves (``13/7(2)``: 2) in 3 more
MOVE_WIDTH = STEP_WIDTH + 3
#: the most men one written move may count to be packed
MOST_COUNT = 7


def counted_as_parts() -> bool:
    """Whether a move of several men reads as one man's move then ``(count)``, as
    :func:`packed_sql` spells it (checked by the tests, as :func:`spelled_as_parts` is)."""
    return all(
        move_text(start, end, bool(hit), count) == f"{MOVE_TEXTS[hit][start][end]}({count})"
        for hit in (0, 1)
        for start in range(1, _BAR + 1)
        for end in range(_BAR + 1)
        for count in range(2, MOST_COUNT + 1)
    )


def packed_sql(column: str, width: int = STEP_WIDTH, numbers: bool = False) -> str:
    """SQL: the text of the moves packed in ``column``, a non-negative integer, ``width``
    places each (:data:`STEP_WIDTH`: steps; :data:`MOVE_WIDTH`: moves with their counts);
    ``numbers``: every point spelled as its number, the bar 25 and off 0, as some match files
    write them (``25/20``, ``3/0``)."""
    starts = {point: _start_text(point) for point in range(1, _BAR + 1)}
    ends = {point: _end_text(point) for point in range(_BAR + 1)}
    if numbers:
        starts = {point: str(point) for point in starts}
        ends = {point: str(point) for point in ends}
    parts = []
    for index in range(MOST_STEPS):
        shift = index * width
        start = f"(({column} >> {shift}) & 31)"
        end = f"(({column} >> {shift + 5}) & 31)"
        hit = f"(({column} >> {shift + 10}) & 1)"
        counted = ""
        if width > STEP_WIDTH:
            count = f"(({column} >> {shift + STEP_WIDTH}) & {MOST_COUNT})"
            counted = f" || CASE WHEN {count} > 1 THEN '(' || {count} || ')' ELSE '' END"
        parts.append(
            f"CASE WHEN {start} = 0 THEN '' ELSE ' ' || {_point_sql(start, starts)} || '/' || "
            f"{_point_sql(end, ends)} || CASE WHEN {hit} THEN '{_HIT_MARK}' ELSE '' END"
            f"{counted} END"
        )
    return f"substr({' || '.join(parts)}, 2)"


def pack_moves(moves: Sequence[Move]) -> int | None:
    """Moves as written packed :data:`MOVE_WIDTH` places each, the first lowest (None where
    they do not fit: none, more than four, a point off the board, more than seven men)."""
    if not moves or len(moves) > MOST_STEPS:
        return None
    packed = shift = 0
    for move in moves:
        start, end, count = move.start, move.end, move.count
        if not 0 < start <= _BAR or not 0 <= end <= _BAR or not 0 < count <= MOST_COUNT:
            return None
        packed |= (start | end << 5 | move.hit << 10 | count << STEP_WIDTH) << shift
        shift += MOVE_WIDTH
    return packed


def steps_sql(column: str) -> str:
    """SQL: the text of the steps ``column`` holds (packed or, stored otherwise, as it is)."""
    return f"CASE WHEN typeof({column}) = 'integer' THEN {packed_sql(column)} ELSE {column} END"
