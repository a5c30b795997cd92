"""The line walk: a record's plays replayed from its start or its ``[Position]``, the lead
(tied doubles under every die), each play resolved (checked, inferred, settled by its hit
marks) and the variations replayed from the position before the play they replace, as in PGN.

It never splices plays onto a wrong position: after an illegal play the line stops, and the
game keeps its error.
"""

from __future__ import annotations

import dataclasses
import enum
from collections.abc import Sequence
from itertools import islice

from ..board_terms import side_name
from ..budget import check_time, deadline
from ..engine import (
    Play,
    accept_quickly,
    holds_prime,
    legal_plays,
    score,
    validate_play,
    winner,
)
from ..errors import (
    AmbiguousPlayError,
    IllegalPlayError,
    JacquetError,
    PositionError,
    ReplayError,
    RulesError,
)
from ..position import Position, Side
from ..position_specs import tag_position
from ..record import POSITION_TAG, GameRecord, WrittenPlay
from ..rules import Rules
from .bare import blank_play, missing_play, pass_of
from .diagnosis import illegal_play
from .dice import infer_roll
from .game import Context, ReplayedGame, ReplayedPly
from .marks import by_marks, unmarked_hits
from .tags import RULES_TAG, check_result, rules_for
from .turns import off_path


class _Lead(enum.Enum):
    """The lead to be played (every die is used, the ordinary opening): either side may play."""

    OPEN = "open"


#: where the lead stands before a play: open (thrown, or thrown again), the tied double the
#: first thrower has just played (the other side plays it too), or None once the lead is played
_LeadState = _Lead | tuple[int, int] | None


class _Replayer:
    """Walks one line of play (the main line or a variation), collecting errors."""

    def __init__(self, game: ReplayedGame) -> None:
        self.game = game
        self.rules = game.rules
        self.context = Context(game.record, game.rules, game.set_position is None)
        self.track_primes = game.rules.scoring == "marcia"
        #: whether the record marks its hits with ``*``: true until a play hits unmarked (the
        #: Galaxy dialect never marks them); while true, the marks settle a combined move
        self.marks_hits = True
        #: whether a play can hit at all: where none can, no play's hits are weighed against
        #: its marks (which every play would pass)
        self.hitting = game.rules.hitting
        #: the opening's and the lead's rules apply only to a game from its start
        self.ordinary_opening = game.rules.opening == "ordinary" and self.context.from_start
        #: stop at the line's first error, keeping no ply after it, and name no legal plays
        #: beside it (:func:`replay_from`)
        self.first_error_only = False
        self.suggest = True
        #: the engine's refusal of the first play walked, when the caller asked it already
        #: under these rules (:func:`replay_from`): not asked again
        self.refused_first: IllegalPlayError | None = None

    def line(
        self,
        plays: Sequence[WrittenPlay],
        start: Position,
        first_index: int,
        prime_seen: dict[Side, bool],
        lead: _LeadState = None,
        skip: int = 0,
    ) -> tuple[list[ReplayedPly], Position, list[ReplayError]]:
        """Replay ``plays`` from ``start``; ``lead``: where the lead stands (a tied lead);
        ``skip``: the plays before it are left out (:func:`replay_from`), but still there for
        the diagnosis to read."""
        position = start
        plies: list[ReplayedPly] = []
        errors: list[ReplayError] = []
        stopped = False
        ordinary_opening, rules = self.ordinary_opening, self.rules
        quick = not rules.every_die_used  # (under every die, an accepted play may share dice)
        index = first_index - 1
        limit = deadline()  # the desk's time budget (none elsewhere): checked between plies
        open_lead, first_error_only, new = _Lead.OPEN, self.first_error_only, object.__new__
        for offset, written in islice(enumerate(plays), skip, None):
            if stopped and first_error_only:
                break
            index += 1
            if limit is not None:
                check_time(limit)
            if lead is open_lead and not stopped and written.side != position.turn:
                # the lead thrown again: its higher thrower, either side, plays next
                position = position.with_turn(written.side)
            lead_before = lead  # where this play's variations start from
            # ReplayedPly(index, written, position, None, None, None, []), its fields stored
            # here rather than by the dataclass's __init__: about 0.1 us a play less
            ply = new(ReplayedPly)
            ply.index = index
            ply.written = written
            ply.before = position
            ply.after = ply.play = ply.error = ply.note = None
            ply.variations = []
            ply.rolls = ()
            ply.unplayed = False
            plies.append(ply)
            if stopped:
                continue
            if written.action is not None:
                # A cube action, or a roll whose play the record does not give: no man moves, the
                # turn does not pass (docs/notation.md, "Match files"); match/ checks the cube.
                ply.play, ply.after = Play((), position), position
                continue
            dice = written.dice
            # The common case inline (dice written, the right side, the game not over, no double
            # opening); anything else goes through off_path, which says what is wrong.
            if (
                dice is None
                or written.side != position.turn
                or position.over
                or (index == 0 and ordinary_opening and dice[0] == dice[1])
            ):
                problem = off_path(self.context, ordinary_opening, written, position, index)
            else:
                problem = None
            if lead is not None and problem is None:
                problem, lead = self._lead(written, index, lead)
            moves = written.moves
            if problem is None and dice is not None and moves:
                try:  # the common case inline, once a play of a corpus: the written play checked
                    play = None
                    if quick and not written.opponent_moves:
                        # validate_play's quick path, given the moves as read (13/7(2) unrolled);
                        # where it declines (so where the caller's refusal is at hand), the rest
                        for move in moves:
                            if move[2] != 1:
                                moves = written.moves_as_pairs()  # type: ignore[assignment]
                                break
                        play = accept_quickly(position, dice, moves, rules)
                    if play is None:
                        play = self._validated(written, position, offset == skip)
                except (AmbiguousPlayError, IllegalPlayError) as refused:
                    # says why, or settles by marks, from this refusal (not checked again)
                    problem = self._resolve(ply, plays, offset, refused)
                else:
                    ply.play, ply.after = play, play.position
            elif problem is None:
                problem = self._resolve(ply, plays, offset)
            if problem is not None or ply.after is None:
                if problem is not None:
                    ply.error = problem
                    errors.append(problem)
                # no play stops the line; a missing play goes on from the one the next allows
                stopped = ply.after is None
                position = ply.after or position
                continue
            position = ply.after
            if ply.unplayed:  # the game ends on a roll left unplayed
                continue
            if (self.marks_hits and self.hitting) or self.track_primes:
                self._played(ply, prime_seen)
            if written.variations:
                errors.extend(self._variations(ply, prime_seen, lead_before))
        return plies, position, errors

    def _variations(
        self, ply: ReplayedPly, prime_seen: dict[Side, bool], lead: _LeadState
    ) -> list[ReplayError]:
        """The variations of ``ply``'s play replayed from the position before it (set on the
        ply), as the line stood there (``lead``); their errors."""
        errors: list[ReplayError] = []
        for variation in ply.written.variations:
            branch, _, branch_errors = self.line(
                variation, ply.before, ply.index, dict(prime_seen), lead
            )
            ply.variations.append(branch)
            errors.extend(branch_errors)
        return errors

    def _validated(self, written: WrittenPlay, position: Position, first: bool) -> Play:
        """The engine's check of a written play with its dice, the quick path aside: its refusal
        raised, or the refusal the caller had of the first play walked (not asked again)."""
        if first and self.refused_first is not None:
            raise self.refused_first
        assert written.dice is not None
        shared = written.opponent_moves_as_pairs() if written.opponent_moves else ()
        pairs = written.moves_as_pairs()
        return validate_play(position, written.dice, pairs, self.rules, shared)

    def _resolve(
        self,
        ply: ReplayedPly,
        plays: Sequence[WrittenPlay],
        offset: int,
        refused: IllegalPlayError | None = None,
    ) -> ReplayError | None:
        """The play of ``ply`` found and set on it (``after``, ``play``), or the error that
        stops the line; a missing play's error sets ``after`` alone when the game goes on.
        ``refused``: the engine's refusal of the written play, when it was asked already (not
        raised again: its traceback would hold this frame, and the frame it)."""
        written, position, index = ply.written, ply.before, ply.index
        rules = self.rules
        dice = written.dice
        if refused is not None:
            return self._refused(ply, refused, plays, offset)
        try:
            if dice is None and written.moves:  # the dice left out: inferred
                play, ply.rolls, problem = infer_roll(self.context, written, position, index)
                if problem is not None:
                    return problem
            elif dice is None:  # a checked pass: no roll could be played
                play = legal_plays(position, (6, 5), rules)[0]
            elif not written.moves and written.is_bare_roll:
                return self._bare_roll(ply, dice, plays, offset)
            else:
                shared = written.opponent_moves_as_pairs() if written.opponent_moves else ()
                play = validate_play(position, dice, written.moves_as_pairs(), rules, shared)
        except IllegalPlayError as illegal:
            return self._refused(ply, illegal, plays, offset)
        ply.play = play
        ply.after = play.position
        return None

    def _refused(
        self, ply: ReplayedPly, refused: IllegalPlayError, plays: Sequence[WrittenPlay], offset: int
    ) -> ReplayError | None:
        """A written play the engine refused: an ambiguous combined move settled by its hit
        marks (set on ``ply``), else the error that stops the line, in a transcriber's words."""
        written, position = ply.written, ply.before
        if isinstance(refused, AmbiguousPlayError) and self.marks_hits:
            marked = by_marks(written, position, self.rules)
            if marked is not None:
                ply.play = marked
                ply.after = marked.position
                return None
        return illegal_play(
            self.context, written, position, ply.index, refused, plays, offset, self.suggest
        )

    def _bare_roll(
        self, ply: ReplayedPly, dice: tuple[int, int], plays: Sequence[WrittenPlay], offset: int
    ) -> ReplayError | None:
        """A roll alone: its play is missing where some man could move with it (else 6-5:
        alone is an honest pass), but for gnubg's reading of a match file's bare roll: the one
        legal play (FIBS's automove), or, ending the game, a roll left unplayed."""
        position, rules = ply.before, self.rules
        passed = pass_of(position, dice, rules)
        if passed is None and rules.scoring == "backgammon":
            passed = blank_play(ply, position, dice, rules, offset == len(plays) - 1)
            if passed is not None and not passed.steps:  # left unplayed
                ply.play = passed
                ply.after = position
                return None
        if passed is None:
            following = plays[offset + 1] if offset + 1 < len(plays) else None
            message, ply.after = missing_play(rules, dice, position, following)
            return self.context.error("missing-play", message, ply.written.span, ply.index)
        ply.play = passed
        ply.after = passed.position
        return None

    def _played(self, ply: ReplayedPly, prime_seen: dict[Side, bool]) -> None:
        """What a play replayed tells of the rest of the game: whether the record marks its
        hits, and whether the mover has held a prime (marcia scoring)."""
        written, play, position = ply.written, ply.play, ply.after
        assert play is not None and position is not None
        if self.marks_hits and unmarked_hits(written, play):
            self.marks_hits = False
        # Only marcia scoring asks whether a prime was ever held; only the mover's
        # own play can make one (a hit removes a lone man, never one of a pair).
        if self.track_primes:
            mover = written.side
            if not prime_seen[mover] and holds_prime(position, mover):
                prime_seen[mover] = True

    def _lead(
        self, written: WrittenPlay, index: int, lead: _Lead | tuple[int, int]
    ) -> tuple[ReplayError | None, _LeadState]:
        """The lead under every die: a double is a tied lead both sides play, then it is thrown
        again; the first roll that is not a double is the lead itself, and ends it.
        """
        dice = written.dice
        if lead is _Lead.OPEN:
            if dice is not None and dice[0] == dice[1]:
                return None, dice  # the first thrower plays the tied double
            return None, None
        assert isinstance(lead, tuple)
        if dice != lead:
            # the second thrower plays the same double, then the lead is thrown again
            return (
                self.context.error(
                    "tied-lead",
                    f"the lead dice were tied ({lead[0]}-{lead[1]}): "
                    f"{side_name(written.side)} plays that double too, "
                    "before the lead is thrown again",
                    written.span,
                    index,
                ),
                None,
            )
        return None, _Lead.OPEN


def replay(record: GameRecord, rules: Rules | None = None) -> ReplayedGame:
    """Replay ``record``; the errors are collected on the game, never raised.

    ``rules`` forces a ruleset (``--rules``); otherwise the record's tags choose it.
    """
    errors: list[JacquetError] = list(record.errors)
    try:
        chosen = rules_for(record, rules)
    except RulesError as problem:
        span = record.tag_spans.get(RULES_TAG) if record.tag_spans else None
        problem.file, problem.game = record.file, record.index
        if span is not None:
            problem.line, problem.column = span.line, span.column
        errors.append(problem)
        chosen = Rules.named("jacquet")
    first_side: Side = record.plays[0].side if record.plays else "white"
    start = Position.start(chosen).with_turn(first_side)
    prime_seen: dict[Side, bool] = {"white": False, "black": False}
    game = ReplayedGame(record, chosen, [], errors, start, None, 0, prime_seen)
    if POSITION_TAG in record.tags and not record.errors:
        try:
            game.set_position = game.final = start = tag_position(record.tags[POSITION_TAG], chosen)
        except PositionError as impossible:
            span = record.tag_spans.get(POSITION_TAG)
            errors.append(
                Context(record, chosen, True).error(
                    "bad-position",
                    f"the [Position] tag sets no position a game can start from: "
                    f"{impossible.message}",
                    span,
                )
            )
            return game
    if record.errors:
        # A record that did not parse is kept with its syntax errors; its plays are not trusted.
        return game
    return _walk(_Replayer(game), start, 0)


def replay_from(
    record: GameRecord,
    rules: Rules,
    start: Position,
    index: int,
    prime_seen: dict[Side, bool],
    marks_hits: bool,
    refused: IllegalPlayError | None = None,
    slips: bool = True,
) -> ReplayedGame:
    """The main line of ``record`` under ``rules`` from its play ``index`` on, at ``start``, as
    :func:`replay` goes on there once the plays before it were legal and told it ``prime_seen``
    and ``marks_hits``: so that ``infer``, having walked those plays for several rulesets at
    once, replays a ruleset alone only from where it parts. The plies before are left out, and
    so are those after the first error: that error's words are what it asks (the legal plays
    the error would suggest are not looked for). ``refused``: the engine's refusal of play
    ``index`` under ``rules``, when the caller has it already (not asked again); ``slips``:
    whether a refused play's words name the slip that explains it."""
    game = ReplayedGame(record, rules, [], [], start, None, 0, dict(prime_seen))
    replayer = _Replayer(game)
    replayer.marks_hits = marks_hits
    replayer.first_error_only, replayer.suggest = True, False
    replayer.refused_first = refused
    replayer.context = dataclasses.replace(replayer.context, slips=slips)
    return _walk(replayer, start, index)


def _walk(replayer: _Replayer, start: Position, index: int) -> ReplayedGame:
    """The main line walked from its play ``index`` at ``start``; then the end and the result."""
    game = replayer.game
    prime_seen = game.prime_seen
    plays = game.record.plays
    # Tied lead dice under "every die is used": each side plays the double, then the lead is
    # thrown again (docs/rules.md), so the lead can last several plays; None once it is over.
    lead = (
        _Lead.OPEN
        if index == 0 and replayer.ordinary_opening and game.rules.every_die_used
        else None
    )
    plies, final, line_errors = replayer.line(plays, start, index, prime_seen, lead, index)
    game.plies = plies
    game.final = final
    game.errors.extend(line_errors)
    game.winner = winner(final)
    if game.winner is not None:
        game.points = score(final, game.winner, game.rules, prime_seen[game.winner])
    check_result(game, replayer.context)
    return game
