"""From a record to the rows the archive stores: pure, no I/O, in either process of an import.

A game read becomes a :class:`DerivedGame`: its game row (a dict by column, the ids of its
names still to be looked up by the store) and its plays' rows (``plies``, but for the game's
number, which the store gives it). The positions it reaches are its plays' keys. The hot loop
of an import is ``_Plies.read``, one pass a play.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ..bibliography import source_name
from ..engine import Step
from ..errors import JacquetError, MatchError
from ..match import GameSummary, check_game, match_errors, outcome
from ..notation import GameChunk, parse_chunk, parse_game, split_games, write_game
from ..position import Position
from ..record import MOVE_TEXTS, GameRecord, WrittenPlay
from ..replay import ReplayedGame, ReplayedPly, consistent_rulesets, replay
from ..reporting import describe_error, headline, suggestions
from ..rules import Rules
from ..stored_text import pack
from .decisions import DecisionRow, analyser_columns, decision_rows, format_of
from .names import iso_date, normalise_name
from .plays import counts_after, position_counts
from .stored_steps import pack_steps
from .stored_written import SPELLED_ROLL, pack_written

# --------------------------------------------------------------------------------------------
# The rows of a game

#: a game's row, by column of ``games`` (see schema.GAME_COLUMNS)
GameRow = dict[str, Any]
#: a play's row, in the order of plays.PLY_COLUMNS less the first (the game's number)
TurnRow = tuple[Any, ...]
#: what few plays carry besides (plays.NOTE_COLUMNS less the game's number): the ply, its
#: annotation, NAGs, comment, error, the opponent's share, a cube action
NoteRow = tuple[Any, ...]


@dataclass(slots=True)
class DerivedGame:
    """The rows of one game read, before player, event and source ids (and its number) are
    known."""

    game: GameRow
    turns: list[TurnRow]
    notes: list[NoteRow]
    index: int
    line: int
    status: str
    messages: list[str]
    #: the analysed decisions the record's plies carry (decisions.py), none for most games
    decisions: list[DecisionRow] = field(default_factory=list)

    @property
    def id(self) -> str:
        return str(self.game["id"])

    def __reduce__(self) -> tuple[type[DerivedGame], tuple[Any, ...]]:
        # Batches cross to the writer process pickled: rebuilt by a call, not by the slots
        # state protocol (measured: a quarter less time to unpickle, a fifth less to pickle).
        return DerivedGame, (
            self.game,
            self.turns,
            self.notes,
            self.index,
            self.line,
            self.status,
            self.messages,
            self.decisions,
        )


#: ``_DICE[high][low]``: ``6-5``
_DICE = [[f"{high}-{low}" for low in range(7)] for high in range(7)]
#: a side as ``plies`` stores it (the view ``turns`` spells it)
_SIDE_NUMBER = {"white": 0, "black": 1}


def game_hash(text: str) -> str:
    """A game's id: the first 16 hex digits of the SHA-256 of its canonical text (of its own
    text, for a game that could not be read), so that one game read twice is one row."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]


def _error_detail(error: JacquetError, text: str) -> dict[str, Any]:
    return {
        "kind": error.kind,
        "line": error.line,
        "column": error.column,
        "message": headline(error),
        "suggestions": list(suggestions(error)),
        "text": text,
    }


def _fingerprint(record: GameRecord) -> str | None:
    """Same players (normalised) and the same dice and moves: a near-duplicate's mark."""
    if record.errors or not record.plays:
        return None
    numbers: list[int] = []
    for play in record.plays:
        numbers.append(255 if play.side == "white" else 254)
        numbers.extend(play.dice or (0, 0))
        for move in play.moves:
            numbers.extend((move.start, move.end, move.count & 255, 1 if move.hit else 0))
        if play.opponent_moves:
            numbers.append(253)  # the opponent's share (Versailles) begins
            for move in play.opponent_moves:
                numbers.extend((move.start, move.end, move.count & 255, 1 if move.hit else 0))
    digest = hashlib.blake2b(digest_size=8)
    digest.update(normalise_name(record.tags.get("White", "")).encode())
    digest.update(b"\x00")
    digest.update(normalise_name(record.tags.get("Black", "")).encode())
    digest.update(b"\x00")
    digest.update(bytes(numbers))
    return digest.hexdigest()


# --------------------------------------------------------------------------------------------
# Deriving

#: the options of each ruleset met, as ``games.options`` holds them (a few rulesets in a run)
_OPTIONS: dict[Rules, str] = {}


def _options(rules: Rules) -> str:
    text = _OPTIONS.get(rules)
    if text is None:
        text = _OPTIONS[rules] = json.dumps(rules.options())
    return text


def derive(
    record: GameRecord,
    rules: Rules | None,
    import_id: int | None,
    across: Sequence[MatchError] = (),
) -> DerivedGame:
    """Replay ``record`` (under ``rules`` when given, as ``validate --rules`` does), check its
    cube and points (``match.check_game``), add ``across``, its errors against the game before
    it (``match.match_errors``: validate's checks, so that the game's status is validate's),
    and turn it into rows."""
    game = replay(record, rules)
    # the rulesets it fits, before the match's checks join the replay's errors: the replay is
    # its own ruleset's verdict, not walked again; only which fit is kept, so no words
    fits = None if record.errors else consistent_rulesets(record, replayed=game)
    game.errors.extend(check_game(game))
    game.errors.extend(across)
    derived = derive_replayed(record, game, import_id)
    derived.game["consistent_rules"] = None if fits is None else " ".join(fits)
    return derived


def derive_chained(
    record: GameRecord, rules: Rules | None, import_id: int | None, previous: GameSummary | None
) -> tuple[DerivedGame, GameSummary | None]:
    """:func:`derive` with the checks across games: the game after ``previous`` (the summary of
    the game before it, None for none), and the summary for the game after it."""
    across, summary = match_errors(previous, record)
    return derive(record, rules, import_id, across), summary


def derive_batch(
    chunks: Sequence[GameChunk],
    rules: Rules | None,
    import_id: int | None,
    counts: dict[str, int],
    previous: GameSummary | None = None,
) -> tuple[list[DerivedGame], list[str], GameSummary | None]:
    """Parse, replay and derive a batch of games as cut from a file (by either process of an
    import), each checked against the one before it (``previous``: the summary of the game
    before the batch); ``counts`` gains their statuses. The games, the batch's error lines, and
    the summary of its last game (the next batch's ``previous``: not read again for it)."""
    batch = []
    for chunk in chunks:
        derived, previous = derive_chained(parse_chunk(chunk), rules, import_id, previous)
        derived.game["format"] = format_of(chunk.syntax)  # a rebuild's text no longer says
        batch.append(derived)
    for derived in batch:
        counts[derived.status] += 1
    return batch, [line for derived in batch for line in derived.messages], previous


def derive_replayed(record: GameRecord, game: ReplayedGame, import_id: int | None) -> DerivedGame:
    """The rows of a replayed record; the engine is not run again."""
    messages: list[str] = []
    details: list[dict[str, Any]] = []
    for error in game.errors:
        text = describe_error(game if not record.errors else None, record, error)
        messages.append(text)
        details.append(_error_detail(error, text))
    if record.errors:
        status = "unreadable"
        game_id = game_hash("unreadable:" + record.text.replace("\r\n", "\n"))
    else:
        status = "invalid" if game.errors else "valid"
        # the id's text; not stored (version 7): ``original`` is the record's one text kept
        game_id = game_hash(write_game(record))
    comments = list(record.comments)
    plies = _Plies()
    plies.read(record, game, comments)
    refused_start = record.starts_elsewhere and game.set_position is None  # a bad [Position]
    if not game.plies and not record.errors and not refused_start:
        plies.final_key = game.final.key()
    row = _game_row(record, game, import_id, game_id, status)
    row["error"] = messages[0] if messages else None
    row["errors"] = json.dumps(details, ensure_ascii=False) if details else None
    row["turns"] = plies.last_turn
    row["final_key"] = plies.final_key
    row["comments"] = "\n".join(comments) or None
    row.update(analyser_columns(record))
    line = record.span.line or 1
    decisions = decision_rows(record, game_id)
    return DerivedGame(
        row, plies.turns, plies.notes, record.index, line, status, messages, decisions
    )


def _game_row(
    record: GameRecord, game: ReplayedGame, import_id: int | None, game_id: str, status: str
) -> GameRow:
    """The game's row but for what its plays and errors give (set by :func:`derive_replayed`),
    in the order of ``games``' columns."""
    tags = record.tags
    ended = outcome(game)
    date, year = iso_date(tags.get("Date"))
    return {
        "id": game_id,
        "event": tags.get("Event"),
        "site": tags.get("Site"),
        "date": date,
        "date_written": tags.get("Date"),
        "year": year,
        "round": tags.get("Round"),
        "white": tags.get("White"),
        "black": tags.get("Black"),
        "rules": game.rules.name,
        "options": _options(game.rules),
        "tags": json.dumps(tags, ensure_ascii=False),
        "source": source_name(tags),
        "transcriber": tags.get("Transcriber"),
        "annotator": tags.get("Annotator"),
        "result": record.result,
        "computed_result": ended.result,
        "status": status,
        "error": None,
        "errors": None,
        "turns": 0,
        "plies": len(record.plays),
        "winner": ended.winner,
        "points": ended.points,
        "final_key": None,
        "comments": None,
        "fingerprint": _fingerprint(record),
        "canonical": None,
        "original": pack(record.text),
        "file": record.file,
        "game_index": record.index,
        "line": record.span.line or 1,
        "import_id": import_id,
        "start_key": game.set_position.key() if game.set_position is not None else None,
        "gap": record.gap[1] or None,
        "ending": ended.ending if status != "unreadable" else None,
        "format": None,  # the chunk's, set by derive_batch
        "consistent_rules": None,  # set by derive
    }


def _ply_text(written: WrittenPlay, dice: str | None) -> str:
    """A ply's text as written, or spelled from its moves when it was read from XML."""
    if written.text:
        return written.text
    moves = " ".join(move.notation() for move in written.moves) or "pass"
    if written.opponent_moves:
        share = " ".join(move.notation() for move in written.opponent_moves)
        moves = f"{moves} + {share}" if written.moves else f"+ {share}"
    return f"{dice}: {moves}" if dice else "pass"


def _share(opponent_steps: Sequence[Step]) -> str:
    """Versailles: the opponent's share of a play, in its numbering, kept apart from the
    mover's steps."""
    return " ".join([MOVE_TEXTS[s.hit][s.start][s.end] for s in opponent_steps])


def _note_row(
    number: int,
    ply: ReplayedPly,
    game: ReplayedGame,
    record: GameRecord,
    shared: str | None,
    comments: list[str],
) -> NoteRow:
    """The notes row of a ply that has any (few do); its comments join the game's, and a cube
    action is written as the .jqt writes it: ``double 2``, ``take``, ``beaver 4``."""
    written = ply.written
    notes = written.comments_before + written.comments
    comments.extend(notes)
    action = written.action or ""
    cube = f"{action} {written.cube}" if written.cube is not None else action
    return (
        number,
        written.annotation,
        " ".join([f"${nag}" for nag in written.nags]) if written.nags else None,
        "\n".join(notes) if notes else None,
        describe_error(game, record, ply.error) if ply.error else None,
        shared,
        cube if written.is_cube_action else None,
    )


class _Plies:
    """A game's play rows, read ply by ply (:meth:`read`)."""

    __slots__ = ("final_key", "last_turn", "notes", "turns")

    def __init__(self) -> None:
        self.turns: list[TurnRow] = []
        self.notes: list[NoteRow] = []
        self.final_key: str | None = None
        self.last_turn = 0

    def read(self, record: GameRecord, game: ReplayedGame, comments: list[str]) -> None:
        """Every ply's row; the plies' notes join ``comments``.

        The hot loop of an import (one pass a play): tables and locals, no generic accessors.
        A play's position before is stored only where it is not the previous play's after (a
        game's first play, the play after a missing one): ``turns`` reads it from there.
        """
        append = self.turns.append
        final_key: str | None = None
        stopped = False
        last_turn = 0
        last_position: Position | None = None
        last_after: str | None = None  # the previous play's key_after
        last_counts: int | None = None  # the counts of last_position, once counted
        dice_text, step_text, sides, spelled = _DICE, MOVE_TEXTS, _SIDE_NUMBER, SPELLED_ROLL
        for number, ply in enumerate(game.plies, 1):
            written = ply.written
            turn = written.turn
            if turn > last_turn:
                last_turn = turn
            written_dice = written.dice
            roll = written_dice if written_dice else (ply.rolls[0] if len(ply.rolls) == 1 else None)
            before_key = key_after = steps = moved = shared = counts = None
            if not stopped:
                before = ply.before
                chained = before is last_position
                if not chained:
                    key = before.key()
                    if key != last_after:
                        before_key = key
                play = ply.play
                if play is not None:
                    position = last_position = play.position
                    texts = []
                    moved = off = hit = 0
                    for s in play.steps:
                        texts.append(step_text[s.hit][s.start][s.end])
                        moved += s.start - s.end
                        off += not s.end
                        hit |= s.hit
                    steps = " ".join(texts)
                    opponent_steps = play.opponent_steps
                    if opponent_steps:
                        shared = _share(opponent_steps)
                    key_after = final_key = position.key()
                    if chained and last_counts is not None and not hit and not opponent_steps:
                        counts = counts_after(last_counts, before.turn, moved, off, position.turn)
                    else:  # a hit or a share moves the other side too: counted afresh
                        counts = position_counts(position)
                    last_counts = counts
                elif ply.after is None:
                    stopped = True
                else:
                    # a missing play the game goes on from (replay.py): the next ply's position
                    # is read afresh, as its ``before`` is not the last play's result
                    last_position = None
            # the text as written, without the roll stored beside it (stored_written.py)
            stored: str | bytes | int | None
            if roll:
                dashed, plain, rolled = spelled[roll[0]][roll[1]]
                text = written.text or _ply_text(written, dice_text[roll[0]][roll[1]])
                # pack_written's two commonest answers first, without the call (the hot loop)
                if steps is not None and text == dashed + steps:
                    stored = None
                elif steps is not None and text == plain + steps:
                    stored = ""
                else:
                    stored = pack_written(text, dashed, plain, steps, written.moves)
            else:
                rolled = None
                stored = written.text or _ply_text(written, None)
            append(
                (
                    number,
                    turn,
                    sides[written.side],
                    rolled,
                    stored,
                    pack_steps(ply.play, steps),
                    moved,
                    before_key,
                    key_after,
                    counts,
                )
            )
            if (
                ply.error
                or shared
                or written.annotation
                or written.nags
                or written.comments
                or written.comments_before
                or (written.action is not None and written.is_cube_action)
            ):
                self.notes.append(_note_row(number, ply, game, record, shared, comments))
            last_after = key_after
        self.final_key = final_key
        self.last_turn = last_turn


def reread(text: str, file: str | None, index: int, line: int, gap: int = 0) -> GameRecord:
    """Read a stored original text again, with its line numbers in its file kept: the text
    begins at ``line`` and, a match game's, leaves ``gap`` lines out after its header
    (``GameRecord.gap``). Its chunk is moved to its lines rather than the text padded to them,
    which would cost a match's rebuild the square of its games."""
    chunks = list(split_games(io.StringIO(text), file))
    if len(chunks) == 1:
        chunk = chunks[0]
        moved = chunk.first_line + max(line - 1, 0) + (gap if chunk.syntax == "mat" else 0)
        record = parse_chunk(replace(chunk, first_line=moved, index=index))
    else:
        record = parse_game(text, file, index=index)
    record.index = index
    for error in record.errors:
        error.game = index
    return record
