"""The line walk: a record's plays replayed from its start or its ``[Position]``, the lead
(tied doubles under every die), each play resolved (checked, inferred, settled by its hit
marks) and the variations replayed from the position before the play they replace, as in PGN.

It never splices plays onto a wrong position: after an illegal play the line stops, and the
game keeps its error.
"""

from __future__ import annotations

import enum
from collections import Counter
from collections.abc import Sequence
from itertools import islice

from ..board_terms import side_name
from ..budget import check_time, deadline
from ..engine import Play, holds_prime, legal_plays, score, validate_play, winner
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
from .dice import infer_roll, playable_roll
from .game import Context, ReplayedGame, ReplayedPly
from .tags import RULES_TAG, check_result, rules_for


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
        # Tied lead dice under "every die is used": each side plays the double, then the lead is
        # thrown again (docs/rules.md), so the lead can last several plays; None once it is over.
        if lead is None and first_index == 0 and ordinary_opening and self.rules.every_die_used:
            lead = _Lead.OPEN
        index = first_index - 1
        limit = deadline()  # the desk's time budget (none elsewhere): checked between plies
        for offset, written in islice(enumerate(plays), skip, None):
            if stopped and self.first_error_only:
                break
            index += 1
            if limit is not None:
                check_time(limit)
            if lead is _Lead.OPEN and not stopped and written.side != position.turn:
                # the lead thrown again: its higher thrower, either side, plays next
                position = position.with_turn(written.side)
            lead_before = lead  # where this play's variations start from
            ply = ReplayedPly(index, written, position, None, None, None, [])
            plies.append(ply)
            if stopped:
                continue
            if written.action is not None:
                # A cube action, or a roll whose play the record does not give: no man moves
                # and the turn does not pass (docs/notation.md, "Match files"). The cube's, the
                # score's and the match's checks are made in match/.
                ply.play = Play((), position)
                ply.after = position
                continue
            dice = written.dice
            # The common case, checked inline (this runs for every play of a corpus): dice
            # written, the right side, the game not over, no double opening. Anything else
            # goes through _check_play, which says what is wrong.
            if (
                dice is None
                or written.side != position.turn
                or position.over
                or (index == 0 and ordinary_opening and dice[0] == dice[1])
            ):
                problem = self._check_play(written, position, index)
            else:
                problem = None
            if lead is not None and problem is None:
                problem, lead = self._lead(written, index, lead)
            if problem is None and dice is not None and written.moves:
                try:  # the common case inline, once a play of a corpus: the written play checked
                    shared = written.opponent_moves_as_pairs() if written.opponent_moves else ()
                    play = validate_play(position, dice, written.moves_as_pairs(), rules, shared)
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
                if ply.after is None:
                    stopped = True
                else:  # a missing play, checked on from the one play the next allows
                    position = ply.after
                continue
            position = ply.after
            if ply.unplayed:  # the game ends on a roll left unplayed
                continue
            if (self.marks_hits and self.hitting) or self.track_primes:
                self._played(ply, prime_seen)
            for variation in written.variations:
                branch, _, branch_errors = self.line(
                    variation, ply.before, index, dict(prime_seen), lead_before
                )
                ply.variations.append(branch)
                errors.extend(branch_errors)
        return plies, position, errors

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
            marked = self._by_marks(written, position)
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

    def _by_marks(self, written: WrittenPlay, position: Position) -> Play | None:
        """The one legal play that moves the men as ``written`` does and hits exactly where it
        marks a hit: a combined move without ``*`` is the way that does not hit, one ending in
        ``*`` the way that hits only there (docs/notation.md, "Match files"). None if not one.
        """
        dice = written.dice
        if dice is None:
            return None
        mover = position.turn
        wanted = _men_of(position, mover)
        for start, end in written.moves_as_pairs():
            wanted[start] -= 1
            wanted[end] += 1
        del wanted[0]  # men borne off are not on the board
        wanted = +wanted
        marks = Counter(move.end for move in written.moves for _ in range(move.count) if move.hit)
        found = [
            play
            for play in legal_plays(position, dice, self.rules)
            if _men_of(play.position, mover) == wanted
            and Counter(step.end for step in play.steps if step.hit) == marks
        ]
        return found[0] if len(found) == 1 else None

    def _check_play(
        self, written: WrittenPlay, position: Position, index: int
    ) -> ReplayError | None:
        """What is wrong with a play off the common path: a play after the end, the wrong
        side, a pass without its dice where some roll plays, a double at an ordinary opening."""
        error, rules = self.context.error, self.rules
        if winner(position) is not None:
            return error(
                "play-after-end",
                f"{side_name(written.side)} plays after the game has ended "
                f"({side_name(winner(position))} has borne off every man)",  # type: ignore[arg-type]
                written.span,
                index,
            )
        if written.side != position.turn:
            return error(
                "wrong-side",
                f"{side_name(written.side)} plays, but it is {side_name(position.turn)}'s turn",
                written.span,
                index,
            )
        if written.dice is None and written.moves:
            # the roll left out (the record's [Dice "omitted"], or "?-?:"; the reader lets no
            # other play without dice through): inferred from the steps (infer_roll)
            return None
        if written.dice is None:
            # A pass written without its dice is only checkable when no roll at all could be
            # played: then any roll was a pass. Otherwise the dice are needed.
            if rules.every_die_used:
                return error(
                    "no-dice",
                    "a pass without its dice, where every die is used: the dice say what the "
                    "opponent plays of them; write them, as in 6-1: + 24/18 18/17",
                    written.span,
                    index,
                )
            playable = playable_roll(position, rules)
            if playable is not None:
                return error(
                    "no-dice",
                    "a pass without its dice, where some rolls can be played "
                    f"(e.g. {playable[0]}-{playable[1]}): write the dice, as in 6-6: pass",
                    written.span,
                    index,
                )
        if index == 0 and self.ordinary_opening and written.dice is not None:
            high, low = written.dice
            if high != low or rules.every_die_used:
                return None  # under every die, a double at the lead is a tied lead (_lead)
            return error(
                "double-opening",
                f"the first roll of a game cannot be a double ({high}-{low}) "
                "under the ordinary opening: "
                "the lead dice are the first roll",
                written.span,
                index,
            )
        return None

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


def _men_of(position: Position, side: Side) -> Counter[int]:
    """A side's men on the board and the bar (25), by point, in its own numbering."""
    men = Counter(position.men(side))
    men[25] += position.bar(side)
    return +men


def unmarked_hits(written: WrittenPlay, play: Play) -> bool:
    """Whether ``play`` hit more often than ``written`` marks a hit."""
    hits = [step for step in play.steps if step.hit]
    return bool(hits) and len(hits) > sum(move.count for move in written.moves if move.hit)


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
) -> ReplayedGame:
    """The main line of ``record`` under ``rules`` from its play ``index`` on, at ``start``, as
    :func:`replay` goes on there once the plays before it were legal and told it ``prime_seen``
    and ``marks_hits``: so that ``infer``, having walked those plays for several rulesets at
    once, replays a ruleset alone only from where it parts. The plies before are left out, and
    so are those after the first error: that error's words are what it asks (the legal plays
    the error would suggest are not looked for)."""
    game = ReplayedGame(record, rules, [], [], start, None, 0, dict(prime_seen))
    replayer = _Replayer(game)
    replayer.marks_hits = marks_hits
    replayer.first_error_only, replayer.suggest = True, False
    return _walk(replayer, start, index)


def _walk(replayer: _Replayer, start: Position, index: int) -> ReplayedGame:
    """The main line walked from its play ``index`` at ``start``; then the end and the result."""
    game = replayer.game
    prime_seen = game.prime_seen
    plays = game.record.plays
    plies, final, line_errors = replayer.line(plays, start, index, prime_seen, None, index)
    game.plies = plies
    game.final = final
    game.errors.extend(line_errors)
    game.winner = winner(final)
    if game.winner is not None:
        game.points = score(final, game.winner, game.rules, prime_seen[game.winner])
    check_result(game, replayer.context)
    return game
