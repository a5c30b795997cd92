"""From a record to the rows the archive stores: pure, no I/O, in either process of an import.

A game read becomes a :class:`DerivedGame`: its game row (a dict by column, the ids of its
names still to be looked up by the store), its turn rows and the position rows of the positions
it reaches. The hot loop of an import is ``_Plies.read``, one pass a play.
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
from ..position import Position, other_point
from ..record import MOVE_TEXTS, GameRecord, WrittenPlay
from ..replay import ReplayedGame, consistent_rulesets, replay
from ..reporting import describe_error, headline, suggestions
from ..rules import Rules
from .decisions import DecisionRow, analyser_columns, decision_rows, format_of
from .names import iso_date, normalise_name

# --------------------------------------------------------------------------------------------
# The rows of a game

#: a game's row, by column of ``games`` (see schema.GAME_COLUMNS)
GameRow = dict[str, Any]
#: a turn's row, in the order of schema.TURN_COLUMNS
TurnRow = tuple[Any, ...]
#: a position a game reaches, as ``positions`` takes it: key, turn, white and black pips, white
#: and black men off, and the game's 1 to add to the games reaching it
PositionRow = tuple[str, str, int, int, int, int, int]


@dataclass(slots=True)
class DerivedGame:
    """The rows of one game read, before player, event and source ids are known."""

    game: GameRow
    turns: list[TurnRow]
    positions: dict[str, PositionRow]
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
            self.positions,
            self.index,
            self.line,
            self.status,
            self.messages,
            self.decisions,
        )


#: ``_DICE[high][low]``: ``6-5``
_DICE = [[f"{high}-{low}" for low in range(7)] for high in range(7)]


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


def _start_row(position: Position) -> PositionRow:
    """Key, turn, pips and men off of a position (one not reached by a play), and a 1."""
    return (
        position.key(),
        position.turn,
        position.pips("white"),
        position.pips("black"),
        position.off("white"),
        position.off("black"),
        1,
    )


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


def _cube_text(written: WrittenPlay) -> str:
    """A cube action as the .jqt writes it: ``double 2``, ``take``, ``drop``, ``beaver 4``."""
    action = written.action or ""
    return f"{action} {written.cube}" if written.cube is not None else action


def derive_batch(
    chunks: Sequence[GameChunk],
    rules: Rules | None,
    import_id: int,
    counts: dict[str, int],
    previous: GameSummary | None = None,
) -> tuple[list[DerivedGame], list[str]]:
    """Parse, replay and derive a batch of games as cut from a file (by either process of an
    import), each checked against the one before it (``previous``: the summary of the game
    before the batch); ``counts`` gains their statuses. The games, and the batch's error lines."""
    batch = []
    for chunk in chunks:
        derived, previous = derive_chained(parse_chunk(chunk), rules, import_id, previous)
        derived.game["format"] = format_of(chunk.syntax)  # a rebuild's text no longer says
        batch.append(derived)
    for derived in batch:
        counts[derived.status] += 1
    return batch, [line for derived in batch for line in derived.messages]


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
        canonical = None
        game_id = game_hash("unreadable:" + record.text.replace("\r\n", "\n"))
    else:
        status = "invalid" if game.errors else "valid"
        canonical = write_game(record)
        game_id = game_hash(canonical)
    comments = list(record.comments)
    plies = _Plies(game_id)
    plies.read(record, game, comments)
    refused_start = record.starts_elsewhere and game.set_position is None  # a bad [Position]
    if not game.plies and not record.errors and not refused_start:
        start = _start_row(game.final)
        plies.reached[start[0]] = start
        plies.final_key = start[0]
    row = _game_row(record, game, import_id, game_id, status)
    row["canonical"] = canonical
    row["error"] = messages[0] if messages else None
    row["errors"] = json.dumps(details, ensure_ascii=False) if details else None
    row["turns"] = plies.last_turn
    row["final_key"] = plies.final_key
    row["comments"] = "\n".join(comments) or None
    row.update(analyser_columns(record))
    line = record.span.line or 1
    decisions = decision_rows(record, game_id)
    return DerivedGame(
        row, plies.turns, plies.reached, record.index, line, status, messages, decisions
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
        "original": record.text,
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


def _reached(key: str, position: Position, white_pips: int, black_pips: int) -> PositionRow:
    """A position's row, from its key and the pips carried to it."""
    return (
        key,
        position.turn,
        white_pips,
        black_pips,
        position.off("white"),
        position.off("black"),
        1,
    )


def _share(opponent_steps: Sequence[Step]) -> tuple[str, int]:
    """Versailles: the opponent's share of a play, in its numbering, kept apart from the
    mover's steps, and its pips, the opponent's (no hit: no hitting ruleset plays every die,
    and if one did, its hits would count as the mover's)."""
    text = " ".join([MOVE_TEXTS[s.hit][s.start][s.end] for s in opponent_steps])
    return text, sum([s.start - s.end for s in opponent_steps])


def _note(written: WrittenPlay, comments: list[str]) -> str:
    """A ply's comments as its turn row's note; they join the game's ``comments`` too."""
    notes = written.comments_before + written.comments
    comments.extend(notes)
    return "\n".join(notes)


class _Plies:
    """A game's turn rows and the positions it reaches, read ply by ply (:meth:`read`)."""

    __slots__ = ("final_key", "game_id", "last_turn", "reached", "turns")

    def __init__(self, game_id: str) -> None:
        self.game_id = game_id
        self.turns: list[TurnRow] = []
        self.reached: dict[str, PositionRow] = {}
        self.final_key: str | None = None
        self.last_turn = 0

    def read(self, record: GameRecord, game: ReplayedGame, comments: list[str]) -> None:
        """Every ply's turn row and the positions reached; the plies' notes join ``comments``.

        The hot loop of an import (one pass a play): tables and locals, no generic accessors.
        Each side's pips are carried from play to play: a play's steps say by how many pips the
        mover's men went (and, by its hits, the other side's); keys are ``Position.key()``'s.
        """
        game_id, append, reached = self.game_id, self.turns.append, self.reached
        final_key: str | None = None
        stopped = False
        last_turn = 0
        last_position: Position | None = None
        last_info: PositionRow = ("", "white", 0, 0, 0, 0, 1)
        white_pips = black_pips = 0
        hitting = game.rules.hitting
        dice_text, step_text = _DICE, MOVE_TEXTS
        for number, ply in enumerate(game.plies, 1):
            written = ply.written
            turn = written.turn
            if turn > last_turn:
                last_turn = turn
            written_dice = written.dice
            dice = dice_text[written_dice[0]][written_dice[1]] if written_dice else None
            if dice is None and len(ply.rolls) == 1:  # a play without dice: its one roll inferred
                dice = dice_text[ply.rolls[0][0]][ply.rolls[0][1]]
            key_before = key_after = steps = moved = shared = None
            if not stopped:
                before = ply.before
                if before is not last_position:
                    white_pips, black_pips = before.pips("white"), before.pips("black")
                    key = before.key()
                    last_info = reached[key] = _reached(key, before, white_pips, black_pips)
                key_before = last_info[0]
                play = ply.play
                if play is not None:
                    position = last_position = play.position
                    played = play.steps
                    steps = " ".join([step_text[s.hit][s.start][s.end] for s in played])
                    moved = sum([s.start - s.end for s in played])
                    # a man hit on the mover's point e stood on the other side's point
                    # other_point(e): it goes to the bar (25), that much further from home
                    where = position.direction
                    hit = (
                        sum([25 - other_point(s.end, where) for s in played if s.hit])
                        if hitting
                        else 0
                    )
                    if written.side == "white":
                        white_pips -= moved
                        black_pips += hit
                    else:
                        black_pips -= moved
                        white_pips += hit
                    opponent_steps = play.opponent_steps
                    if opponent_steps:
                        shared, shared_pips = _share(opponent_steps)
                        if written.side == "white":
                            black_pips -= shared_pips
                        else:
                            white_pips -= shared_pips
                    key_after = final_key = position.key()
                    last_info = reached[key_after] = _reached(
                        key_after, position, white_pips, black_pips
                    )
                elif ply.after is None:
                    stopped = True
                # else a missing play the game goes on from (replay.py): the next ply's
                # position is read afresh, as its ``before`` is not the last play's result
            note = _note(written, comments) if written.comments or written.comments_before else None
            append(
                (
                    game_id,
                    number,
                    turn,
                    written.side,
                    dice,
                    _ply_text(written, dice),
                    steps,
                    moved,
                    key_before,
                    key_after,
                    written.annotation,
                    " ".join([f"${nag}" for nag in written.nags]) if written.nags else None,
                    note,
                    describe_error(game, record, ply.error) if ply.error else None,
                    shared,
                    _cube_text(written) if written.is_cube_action else None,
                )
            )
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
