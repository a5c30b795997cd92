"""A turn of the archive as the pages say it: a play without its roll, a caption, a line of the
score sheet, the note where the line stopped, and a damaged row made safe to show.

Shared by the game page and the position page (whose title names the play that reached it).
"""

from __future__ import annotations

from typing import Any

from ..archive import TURN_COLUMNS
from ..board_terms import side_name
from ..position import SIDES
from .drawing import is_key


def without_dice(written: str | None, dice: str | None) -> str:
    """A play as written, without the roll it begins with (``6-6: 24/18`` -> ``24/18``, a match
    file's ``66: 24/18`` too): the caption and the score sheet say the roll once."""
    text = (written or "").strip()
    if not dice:
        return text
    if text.startswith(dice):
        return text[len(dice) :].lstrip().removeprefix(":").lstrip()
    compact = dice.replace("-", "")
    # only with its colon: a bare ``24`` may be a point (2-4 and ``24/18``)
    if text.startswith(f"{compact}:"):
        return text[len(compact) + 1 :].lstrip()
    return text


#: a match file's ``63: ????``: a roll whose play the record does not give (docs/notation.md)
UNKNOWN_PLAY = "????"
#: how the pages say such a play
UNKNOWN_PLAY_TEXT = "an unknown play (the record gives the roll, not its play)"


def play_text(written: str | None, dice: str | None) -> str:
    """A play as written without its roll, ``????`` said in words."""
    text = without_dice(written, dice)
    return UNKNOWN_PLAY_TEXT if text == UNKNOWN_PLAY else text


def sheet_text(ply: dict[str, Any]) -> str:
    """A ply on the score sheet: ``6-3: 24/18 13/10``, the roll once however it was written."""
    if not ply["dice"]:
        return str(ply["written"] or "—")
    return f"{ply['dice']}: {play_text(ply['written'], ply['dice']) or '—'}"


def ply_caption(ply: dict[str, Any] | None) -> str:
    """What the board shows: ``12. White 6-5: 24/18 18/13``, the roll said once."""
    if ply is None:
        return "Start of the game"
    side = side_name(ply["side"])
    dots = "." if ply["side"] == "white" else "..."
    play = ply["steps"] or play_text(ply["written"], ply["dice"]) or "(no move)"
    if ply["steps"] is not None and ply.get("opponent_steps"):
        # Versailles: the opponent's share of the dice, in its numbering (docs/notation.md)
        play = f"{ply['steps']} + {ply['opponent_steps']}".lstrip()
    roll = f" {ply['dice']}:" if ply["dice"] else ":"
    caption = f"{ply['turn']}{dots} {side}{roll} {play}"
    if ply["error"]:
        caption += f" — {ply['error']}"
    return caption


def stop_note(ply: dict[str, Any]) -> str:
    """Said at an illegal ply and every later one: the board no longer follows the captions."""
    side = side_name(ply["side"])
    dots = "." if ply["side"] == "white" else "..."
    play = ply["written"] or f"{ply['dice'] or ''}: (no move)"
    return (
        f"The line stopped at {ply['turn']}{dots} {side} {play}: the board stays at the position "
        f"before it, and later plays are shown as written, not replayed. Why: {ply['error']}"
    )


#: the text columns of a turn the game page reads (each a string or NULL in a sound archive):
#: the schema's, but for the game they belong to, the numbers and the keys (checked apart)
TURN_TEXTS = tuple(
    column
    for column in TURN_COLUMNS
    if column not in ("game_id", "ply", "turn", "side", "pips", "key_before", "key_after")
)


def sound_turns(turns: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], str | None]:
    """A game's turns as the page can show them, and what was damaged (None: nothing).

    The archive's writer gives every cell its type, but a file another program wrote (or a disk
    damaged) may hold anything: a row whose ply or side is not one is left out, a cell of the
    wrong type (or a key that is no position) is shown empty (:func:`sound_turn`), and the page
    says so rather than answering 500. The plies kept are numbered again from 1, as the board's
    states are.
    """
    kept: list[dict[str, Any]] = []
    left_out = 0
    emptied: set[str] = set()
    for row in turns:
        clean = sound_turn(row, emptied)
        if clean is None:
            left_out += 1
        else:
            kept.append(dict(clean, ply=len(kept) + 1))
    if not left_out and not emptied:
        return kept, None
    said = []
    if left_out:
        said.append(f"{left_out} of its turns left out (their ply or side is not one)")
    if emptied:
        said.append(f"values of the wrong kind not shown ({', '.join(sorted(emptied))})")
    return kept, f"This game's rows in the archive are damaged: {'; '.join(said)}."


def sound_turn(row: dict[str, Any], emptied: set[str]) -> dict[str, Any] | None:
    """``row`` of ``turns`` with every cell of the wrong kind emptied (its column added to
    ``emptied``); None when its ply or side is not one, so that nothing can place it."""
    if type(row.get("ply")) is not int or row.get("side") not in SIDES:
        return None
    clean = dict(row)
    for column, value in row.items():
        if value is None:
            continue
        if column in ("turn", "pips"):
            wrong = type(value) is not int
        elif column in ("key_before", "key_after"):
            wrong = not (isinstance(value, str) and is_key(value))
        else:
            wrong = column in TURN_TEXTS and not isinstance(value, str)
        if wrong:
            clean[column] = None
            emptied.add(column)
    return clean
