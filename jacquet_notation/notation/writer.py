"""The canonical writer: one layout for every record (``docs/notation.md``)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import replace

from ..bibliography import SOURCE_TAGS
from ..board_terms import BAR
from ..record import MOVE_TEXTS, UNKNOWN_ROLL, GameRecord, WrittenPlay
from .splitting import TAG_START

#: tags in the order the writer puts them; any other tag follows, in the order it was written,
#: before the bibliographic tags at the end
TAG_ORDER = ("Event", "Site", "Date", "Round", "Match", "Game", "Score", "White", "Black")
TAG_ORDER_RULES = ("Result", "Rules")
TAG_ORDER_END = (*SOURCE_TAGS, "Transcriber", "Annotator")


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"')


def _comment(text: str) -> str:
    # A comment holding a "}", or a line that would begin a game's tags, is written as ";" lines
    # (each ends its line; the reader joins a run of them into one comment again).
    lines = text.split("\n")
    if "}" in text or any(TAG_START.match(line) for line in lines[1:]):
        return "".join(f"; {line}\n" if line else ";\n" for line in lines)
    return "{" + text + "}"


def _ordered_tags(tags: dict[str, str]) -> list[str]:
    head = [name for name in TAG_ORDER + TAG_ORDER_RULES if name in tags]
    tail = [name for name in TAG_ORDER_END if name in tags]
    middle = [name for name in tags if name not in head and name not in tail]
    return head + middle + tail


def _play_text(play: WrittenPlay, steps_alone: bool = False) -> str:
    if play.is_cube_action:
        text = play.cube_words
    elif play.action == "unknown" and play.dice is not None:
        text = f"{play.dice[0]}-{play.dice[1]}: unknown"
    elif play.dice is None and play.moves:  # a play whose dice the record leaves out
        # steps alone under [Dice "omitted"]; else the per-play form, the roll written unknown
        text = " ".join([move.notation() for move in play.moves])
        if not steps_alone:
            text = f"{UNKNOWN_ROLL}: {text}"
    elif play.dice is None:
        text = "pass"
    elif play.is_bare_roll:  # kept bare: a pass or a forgotten play, which the replay tells
        text = f"{play.dice[0]}-{play.dice[1]}:"
    else:
        text = f"{play.dice[0]}-{play.dice[1]}:"
        if play.moves:
            text += " " + " ".join([move.notation() for move in play.moves])
        elif not play.opponent_moves:
            text += " pass"
        if play.opponent_moves:
            # Versailles: the opponent's share, in its own numbering ("6-1: + 24/18 18/17")
            text += " + " + " ".join([move.notation() for move in play.opponent_moves])
    if play.annotation:
        text += play.annotation
    return text


def play_text(play: WrittenPlay) -> str:
    """One play's canonical text, dice and moves, without its annotation (``6-5: 24/18 18/13``):
    what two transcriptions of a ply are compared by (``replay/collate.py``)."""
    return _play_text(play if play.annotation is None else replace(play, annotation=None))


#: ``_ROLLS[high][low]``: a roll as the canonical writer begins its play, ``6-5:``
_ROLLS = [[f"{high}-{low}:" for low in range(7)] for high in range(7)]


def _line_pieces(plays: Iterable[WrittenPlay], top: bool, steps_alone: bool = False) -> list[str]:
    """The pieces of a line of play; at the top, "\\n" pieces break it into one turn a line.

    The writer's hot loop (an import writes every game for its id): a play of dice and moves
    with nothing inside it (no annotation, share or action), nearly every play, is spelled here,
    a single move from the table; any other goes through :func:`_play_text`."""
    pieces: list[str] = []
    append = pieces.append
    previous: WrittenPlay | None = None
    rolls, texts = _ROLLS, MOVE_TEXTS
    for play in plays:
        dice, moves = play.dice, play.moves
        # a play without dice begins and ends only at a turn number: Black's is numbered there
        if play.side == "white":
            number = f"{play.turn}."
        elif (
            previous is None
            or previous.comments
            or previous.variations
            or (previous.dice is None and previous.moves)
            or (dice is None and moves)
            or (dice is None and previous.is_bare_roll)  # "1-1: pass" would be White's pass
            or previous.side != "white"
            or previous.turn != play.turn
        ):
            number = f"{play.turn}..."
        else:
            number = ""
        if top and previous is not None and play.turn != previous.turn:
            append("\n")
        if play.comments_before:
            pieces.extend([_comment(comment) for comment in play.comments_before])
        if number:
            append(number)
        if (
            dice is not None
            and moves
            and play.action is None
            and not play.annotation
            and not play.opponent_moves
            and 0 <= dice[0] <= 6
            and 0 <= dice[1] <= 6
        ):
            words = [rolls[dice[0]][dice[1]]]
            for move in moves:
                start, end = move.start, move.end
                if move.count == 1 and 0 <= start <= BAR and 0 <= end <= BAR:
                    words.append(texts[1 if move.hit else 0][start][end])
                else:
                    words.append(move.notation())  # several men, or a point out of range
            append(" ".join(words))
        else:
            append(_play_text(play, steps_alone))
        if play.nags:
            pieces.extend([f"${nag}" for nag in play.nags])
        if play.comments:
            pieces.extend([_comment(comment) for comment in play.comments])
        for variation in play.variations:
            append("(" + _join(_line_pieces(variation, False, steps_alone)) + ")")
        previous = play
    return pieces


def _join(pieces: list[str]) -> str:
    """The pieces joined by single spaces, none after a line's end or an opening ``(``; a
    ``"\\n"`` piece ends a line, its trailing spaces dropped."""
    done: list[str] = []
    line: list[str] = []
    glue = False  # whether the text so far wants a space before the next piece
    for piece in pieces:
        if piece == "\n":
            done.append("".join(line).rstrip(" ") + "\n")
            line = []
            glue = False
        elif piece:
            if glue:
                line.append(" ")
            line.append(piece)
            glue = piece[-1] != "\n" and piece[-1] != "("
        elif glue:
            line.append(" ")  # an empty piece still takes its space
    done.append("".join(line))
    return "".join(done).rstrip(" ")


def write_game(record: GameRecord) -> str:
    """The canonical text of a record, ending with a newline (see ``docs/notation.md``).

    Tags in :data:`TAG_ORDER`, then a blank line, the game's comments, one turn a line, the
    result alone on the last line.
    """
    lines = [f'[{name} "{_escape(record.tags[name])}"]' for name in _ordered_tags(record.tags)]
    body = [_comment(comment).rstrip("\n") for comment in record.comments]
    moves = _join(_line_pieces(record.plays, True, record.dice_omitted))
    if moves:
        body.append(moves.rstrip("\n"))
    if record.result is not None:
        body.append(record.result)
    if lines and body:
        lines.append("")
    return "\n".join(lines + body) + "\n"


def write_games(records: Iterable[GameRecord]) -> str:
    """The canonical text of several records, a blank line between games."""
    return "\n".join(write_game(record) for record in records)
