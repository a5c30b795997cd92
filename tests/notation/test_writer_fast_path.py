"""The canonical writer's fast path spells a play exactly as its general path does.

``_line_pieces`` spells a play of dice and single moves from tables and sends every other play
to ``_play_text``; ``_join`` glues the pieces line by line. Both were rewritten for speed (an
import writes every game for its id), so each is checked here against the general path it
stands in for: every play of real and generated records, and any list of pieces.
"""

from __future__ import annotations

from helpers import ROOT, SHARED_MAT
from hypothesis import given
from hypothesis import strategies as st

from jacquet_notation.generate import generate_records
from jacquet_notation.notation import read_games
from jacquet_notation.notation.writer import _join, _line_pieces, _play_text
from jacquet_notation.record import GameRecord, WrittenPlay
from jacquet_notation.rules import RULESET_NAMES, Rules


def _records() -> list[GameRecord]:
    records: list[GameRecord] = []
    for path in sorted((ROOT / "corpus").rglob("*.jqt")):
        records.extend(read_games(path))
    if SHARED_MAT.is_dir():
        for path in sorted(SHARED_MAT.rglob("*"))[:120]:
            if path.is_file():
                records.extend(read_games(path))
    for name in RULESET_NAMES:
        records.extend(generate_records(6, 3, Rules.named(name)))
    return records


def _plays(plays: tuple[WrittenPlay, ...]) -> list[WrittenPlay]:
    found: list[WrittenPlay] = []
    for play in plays:
        found.append(play)
        for variation in play.variations:
            found.extend(_plays(variation))
    return found


def test_every_play_is_spelled_as_the_general_path_spells_it() -> None:
    plays = [play for record in _records() for play in _plays(tuple(record.plays))]
    fast = 0
    for play in plays:
        alone = play.__class__(  # the play with nothing around it: its piece is its text
            **{
                **{name: getattr(play, name) for name in play.__slots__},
                "nags": (),
                "comments": (),
                "comments_before": (),
                "variations": (),
            }
        )
        pieces = _line_pieces([alone], False)
        assert pieces[-1] == _play_text(alone), play
        fast += alone.dice is not None and bool(alone.moves) and alone.action is None
    assert fast > 1000  # the fast path was taken, and often


def _joined_plainly(pieces: list[str]) -> str:
    """The joining rule written out: a space before each piece but at the start, after a line's
    end or after ``(``; a ``"\\n"`` piece drops the spaces before it and ends the line."""
    text = ""
    for piece in pieces:
        if piece == "\n":
            text = text.rstrip(" ") + "\n"
        elif text == "" or text[-1] in "\n(":
            text += piece
        else:
            text += " " + piece
    return text.rstrip(" ")


@given(st.lists(st.sampled_from(["\n", "", " ", "6-5: 24/18", "(", "x(", "{c}", ";c\n", "12."])))
def test_pieces_are_joined_by_the_plain_rule(pieces: list[str]) -> None:
    assert _join(pieces) == _joined_plainly(pieces)
