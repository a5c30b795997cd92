"""Replay a game record with the rules engine: positions, resolved plays, errors and the result.

This is the one module that knows both the text (records) and the rules (engine). It never
splices plays onto a wrong position: after an illegal play the line stops, and the game keeps its
error. Variations are replayed from the position before the play they replace, as in PGN.
"""

from __future__ import annotations

import enum
import functools
import re
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace

from .bits import off_count
from .board_terms import pairs_text, shifted_point
from .board_terms import side_name as _side_name
from .budget import check_time, deadline
from .engine import (
    Play,
    holds_prime,
    legal_plays,
    rolls_for_play,
    score,
    validate_play,
    why_no_roll,
    winner,
)
from .errors import AmbiguousPlayError, IllegalPlayError, JacquetError, PositionError, RulesError
from .generate import written_play
from .numerals import ascii_int
from .position import MEN, Position, Side, other
from .record import POSITION_TAG, GameRecord, Move, Span, WrittenPlay
from .rules import Rules

#: tags that are not rule options (everything else matching an option name is an override)
_RULES_TAG = "Rules"


class _Lead(enum.Enum):
    """The lead to be played (every die is used, the ordinary opening): either side may play."""

    OPEN = "open"


#: where the lead stands before a play: open (thrown, or thrown again), the tied double the
#: first thrower has just played (the other side plays it too), or None once the lead is played
_LeadState = _Lead | tuple[int, int] | None


class ReplayError(JacquetError):
    """An error found while replaying a record: an illegal play, a wrong result, a wrong side.

    ``kind`` names the error for machines and for the corpus of broken records; ``suggestions``
    lists the legal plays closest to what was written, and ``slip`` names a common transcription
    slip when one explains the play.
    """

    def __init__(
        self,
        kind: str,
        message: str,
        *,
        file: str | None = None,
        game: int | None = None,
        line: int | None = None,
        column: int | None = None,
        ply: int | None = None,
        suggestions: Sequence[str] = (),
        slip: str | None = None,
    ) -> None:
        super().__init__(message, file=file, game=game, line=line, column=column)
        self.kind = kind
        self.ply = ply
        self.suggestions = tuple(suggestions)
        self.slip = slip


@dataclass(slots=True)
class ReplayedPly:
    """One play of the record, with the position it was played from and the one it reached."""

    index: int
    written: WrittenPlay
    before: Position
    after: Position | None = None
    play: Play | None = None
    error: ReplayError | None = None
    variations: list[list[ReplayedPly]] = field(default_factory=list)
    #: the rolls a play written without dice fits (docs/notation.md): one when the roll is
    #: inferred, several when the steps leave it open; empty for a play with its dice
    rolls: tuple[tuple[int, int], ...] = ()
    #: what the replay read into a play the record leaves blank (docs/notation.md)
    note: str | None = None
    #: a roll kept without a play: the game ended after it was rolled (gnubg's set dice)
    unplayed: bool = False

    @property
    def side(self) -> Side:
        return self.written.side


@dataclass(slots=True)
class ReplayedGame:
    """A record replayed: every position, the result by the rules, and every error found."""

    record: GameRecord
    rules: Rules
    plies: list[ReplayedPly]
    errors: list[JacquetError]
    final: Position
    winner: Side | None
    points: int
    prime_seen: dict[Side, bool]
    #: the position a ``[Position]`` tag set, None for a game from its rules' start
    set_position: Position | None = None

    @property
    def computed_result(self) -> str | None:
        """``white-black`` points, as a record writes them; None while the game is unfinished."""
        if self.winner is None:
            return None
        return f"{self.points}-0" if self.winner == "white" else f"0-{self.points}"

    @property
    def is_valid(self) -> bool:
        return not self.errors

    @property
    def complete(self) -> bool:
        """Every written play was replayed (no line stopped early).

        A line stops at its first error and replays nothing after it, so the last ply tells.
        """
        return not self.plies or self.plies[-1].after is not None


def rules_for(record: GameRecord, forced: Rules | None = None) -> Rules:
    """The ruleset a record asks for: its ``Rules`` tag, then every tag naming an option."""
    if forced is not None:
        return forced
    name = record.tags.get(_RULES_TAG, "jacquet").strip() or "jacquet"
    rules = Rules.named(name)
    overrides = {}
    for tag, value in record.tags.items():
        key = _option_of(tag)
        if key is not None and tag != _RULES_TAG:
            overrides[key] = value
    return rules.with_options(overrides) if overrides else rules


@functools.cache
def _option_tags() -> dict[str, str]:
    """Option names by their tag spelling, lower case without ``-`` or ``_`` (read once)."""
    # Every ruleset has the same options; only their values differ.
    return {key.lower().replace("-", "").replace("_", ""): key for key in Rules().options()}


@functools.lru_cache(maxsize=1024)
def _option_of(tag: str) -> str | None:
    """The option a tag names, if any: a record has a dozen tags, nearly all the same names
    game after game (``White``, ``Date``, ...), so each name's answer is kept."""
    return _option_tags().get(tag.lower().replace("-", "").replace("_", ""))


def _moves(written: WrittenPlay) -> list[tuple[int, int]]:
    """The written moves as (start, end) pairs, each ``(n)`` repeat expanded."""
    return written.moves_as_pairs()


def parse_result(text: str | None) -> tuple[int, int] | None:
    """Points to White and to Black from a result such as ``2-0``; None for ``*`` or nothing."""
    if not text or text.strip() == "*":
        return None
    left, sep, right = text.strip().partition("-")
    white, black = ascii_int(left), ascii_int(right)
    if not sep or white is None or black is None:
        return None
    return white, black


class _Replayer:
    """Walks one line of play (the main line or a variation), collecting errors."""

    def __init__(self, game: ReplayedGame) -> None:
        self.game = game
        self.record = game.record
        self.rules = game.rules
        self.track_primes = game.rules.scoring == "marcia"
        #: whether the record marks its hits with ``*``: true until a play hits unmarked (the
        #: Galaxy dialect never marks them); while true, the marks settle a combined move
        self.marks_hits = True
        #: the opening's and the lead's rules apply only to a game from its start
        self.from_start = game.set_position is None

    def error(
        self,
        kind: str,
        message: str,
        span: Span | None,
        ply: int | None = None,
        suggestions: Sequence[str] = (),
        slip: str | None = None,
    ) -> ReplayError:
        return ReplayError(
            kind,
            message,
            file=self.record.file,
            game=self.record.index,
            line=span.line if span else None,
            column=span.column if span else None,
            ply=ply,
            suggestions=suggestions,
            slip=slip,
        )

    def line(
        self,
        plays: Sequence[WrittenPlay],
        start: Position,
        first_index: int,
        prime_seen: dict[Side, bool],
        main: bool,
        lead: _LeadState = None,
    ) -> tuple[list[ReplayedPly], Position, list[ReplayError]]:
        """Replay ``plays`` from ``start``; ``lead``: where the lead stands (a tied lead)."""
        position = start
        plies: list[ReplayedPly] = []
        errors: list[ReplayError] = []
        stopped = False
        rules = self.rules
        ordinary_opening = rules.opening == "ordinary" and self.from_start
        # Tied lead dice under "every die is used": each side plays the double, then the lead is
        # thrown again (docs/rules.md), so the lead can last several plays; None once it is over.
        if lead is None and first_index == 0 and ordinary_opening and rules.every_die_used:
            lead = _Lead.OPEN
        index = first_index - 1
        limit = deadline()  # the desk's time budget (none elsewhere): checked between plies
        for offset, written in enumerate(plays):
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
                # score's and the match's checks are not made here yet.
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
                or off_count(position.packed_white) == MEN
                or off_count(position.packed_black) == MEN
                or (index == 0 and ordinary_opening and dice[0] == dice[1])
            ):
                problem = self._check_play(written, position, index, plays, offset)
            else:
                problem = None
            if lead is not None and problem is None:
                problem, lead = self._lead(written, index, lead)
            if problem is None:
                try:
                    if dice is None and written.moves:  # the dice left out: inferred
                        play, ply.rolls, problem = self._infer(written, position, index)
                    elif dice is None:  # a checked pass: no roll could be played
                        play = legal_plays(position, (6, 5), rules)[0]
                    elif not written.moves and written.is_bare_roll:
                        # A roll alone: its play is missing where some man could move with it
                        # (else 6-5: alone is an honest pass)
                        passed = self._pass(position, dice)
                        if passed is None and rules.scoring == "backgammon":
                            # gnubg's reading of a match file's bare roll: the one legal play
                            # (FIBS's automove), or, ending the game, a roll left unplayed
                            passed = self._blank(ply, position, dice, offset == len(plays) - 1)
                            if passed is not None and not passed.steps:  # left unplayed
                                ply.play = passed
                                ply.after = position
                                continue
                        if passed is None:
                            problem, after = self._missing(written, position, index, plays, offset)
                            ply.error = problem
                            errors.append(problem)
                            if after is None:
                                stopped = True
                            else:
                                ply.after = position = after
                            continue
                        play = passed
                    else:
                        play = validate_play(
                            position,
                            dice,
                            written.moves_as_pairs(),
                            rules,
                            written.opponent_moves_as_pairs() if written.opponent_moves else (),
                        )
                except AmbiguousPlayError as illegal:
                    marked = self._by_marks(written, position) if self.marks_hits else None
                    if marked is None:
                        problem = self._illegal(written, position, index, illegal, plays, offset)
                    else:
                        play = marked
                except IllegalPlayError as illegal:
                    problem = self._illegal(written, position, index, illegal, plays, offset)
                if problem is None:
                    ply.play = play
                    ply.after = position = play.position
                    if self.marks_hits and _unmarked_hits(written, play):
                        self.marks_hits = False
                    # Only marcia scoring asks whether a prime was ever held; only the mover's
                    # own play can make one (a hit removes a lone man, never one of a pair).
                    if self.track_primes:
                        mover = written.side
                        if not prime_seen[mover] and holds_prime(position, mover):
                            prime_seen[mover] = True
            if problem is not None:
                ply.error = problem
                errors.append(problem)
                stopped = True
                continue
            for variation in written.variations:
                branch, _, branch_errors = self.line(
                    variation, ply.before, index, dict(prime_seen), False, lead_before
                )
                ply.variations.append(branch)
                errors.extend(branch_errors)
        return plies, position, errors

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
        self,
        written: WrittenPlay,
        position: Position,
        index: int,
        plays: Sequence[WrittenPlay],
        offset: int,
    ) -> ReplayError | None:
        if winner(position) is not None:
            return self.error(
                "play-after-end",
                f"{_side_name(written.side)} plays after the game has ended "
                f"({_side_name(winner(position))} has borne off every man)",  # type: ignore[arg-type]
                written.span,
                index,
            )
        if written.side != position.turn:
            return self.error(
                "wrong-side",
                f"{_side_name(written.side)} plays, but it is {_side_name(position.turn)}'s turn",
                written.span,
                index,
            )
        if written.dice is None and written.moves:
            # the roll left out (the record's [Dice "omitted"], or "?-?:"; the reader lets no
            # other play without dice through): inferred from the steps (_infer)
            return None
        if written.dice is None:
            # A pass written without its dice is only checkable when no roll at all could be
            # played: then any roll was a pass. Otherwise the dice are needed.
            if written.moves:
                return self.error("no-dice", "a play without its dice", written.span, index)
            if self.rules.every_die_used:
                return self.error(
                    "no-dice",
                    "a pass without its dice, where every die is used: the dice say what the "
                    "opponent plays of them; write them, as in 6-1: + 24/18 18/17",
                    written.span,
                    index,
                )
            playable = _playable_roll(position, self.rules)
            if playable is not None:
                return self.error(
                    "no-dice",
                    "a pass without its dice, where some rolls can be played "
                    f"(e.g. {playable[0]}-{playable[1]}): write the dice, as in 6-6: pass",
                    written.span,
                    index,
                )
        if (
            index == 0
            and self.rules.opening == "ordinary"
            and written.dice is not None
            and self.from_start
        ):
            high, low = written.dice
            if high != low or self.rules.every_die_used:
                return None  # under every die, a double at the lead is a tied lead (_lead)
            return self.error(
                "double-opening",
                f"the first roll of a game cannot be a double ({high}-{low}) "
                "under the ordinary opening: "
                "the lead dice are the first roll",
                written.span,
                index,
            )
        return None

    def _infer(
        self, written: WrittenPlay, position: Position, index: int
    ) -> tuple[Play, tuple[tuple[int, int], ...], ReplayError | None]:
        """The roll of a play written without dice, from its steps and the position (the
        engine's :func:`rolls_for_play`); raises IllegalPlayError when no roll fits.

        Several rolls may fit (``24/18``: 6 alone, 5-1, 4-2, 3-3...): the play is kept with
        them all and the game goes on, unless they lead to different positions (a hit on the
        way, a different share), which only the dice could settle.
        """
        moves = written.moves_as_pairs()
        share = written.opponent_moves_as_pairs()
        fits = rolls_for_play(position, moves, self.rules, share)
        rules = self.rules
        opening = index == 0 and self.from_start and rules.opening == "ordinary"
        if opening and not rules.every_die_used:  # never a double first (a tied lead is one)
            fits = [(roll, play) for roll, play in fits if roll[0] != roll[1]]
        if not fits:
            raise why_no_roll(position, moves, self.rules, share)
        rolls = tuple(roll for roll, _ in fits)
        if len({play.position for _, play in fits}) > 1:
            return (
                fits[0][1],
                rolls,
                self.error(
                    "ambiguous-dice",
                    f"the rolls {_rolls(rolls)} fit this play but lead to different "
                    "positions: write its dice",
                    written.span,
                    index,
                ),
            )
        return fits[0][1], rolls, None

    def _pass(self, position: Position, dice: tuple[int, int]) -> Play | None:
        """The pass a roll written alone stands for, or None where some man could move with it
        (its play is then missing).

        Outside every-die, the pass is legal exactly when no man can move (the legal plays are
        distinct by position, and a step moves a man), so validating it says both at once, and
        costs little where the engine sees at once that no die moves (backgammon's dance).
        Under every die the turn's plays, the opponent's share included, are asked first.
        """
        rules = self.rules
        if rules.every_die_used:
            if any(p.steps or p.opponent_steps for p in legal_plays(position, dice, rules)):
                return None
            return validate_play(position, dice, [], rules)
        try:
            return validate_play(position, dice, [], rules)
        except IllegalPlayError:
            return None

    def _blank(
        self, ply: ReplayedPly, position: Position, dice: tuple[int, int], last: bool
    ) -> Play | None:
        """A backgammon roll written alone where some man can move, as gnubg reads it
        (docs/notation.md, "Match files"): the only legal play, noted on the ply; or, as the
        game's last ply (a resignation or the end of the file follows), the roll kept unplayed,
        no man moved (an empty play, noted); None where several plays are legal mid-game."""
        plays = legal_plays(position, dice, self.rules)
        if len(plays) == 1:
            ply.note = f"the only legal play of {dice[0]}-{dice[1]}, left blank: played"
            return plays[0]
        if last:
            ply.note = f"{dice[0]}-{dice[1]} rolled and not played: the game ends there"
            ply.unplayed = True
            return Play((), position)
        return None

    def _missing(
        self,
        written: WrittenPlay,
        position: Position,
        index: int,
        plays: Sequence[WrittenPlay],
        offset: int,
    ) -> tuple[ReplayError, Position | None]:
        """A roll written without its play (``6-5:`` where 6-5 can be played): its own error,
        and the position after it when the next play allows exactly one play of that roll.
        """
        dice = written.dice
        assert dice is not None
        following = plays[offset + 1] if offset + 1 < len(plays) else None
        fitting = []
        if following is not None:
            for play in legal_plays(position, dice, self.rules):
                check_time()  # each a roll inferred for the next play, maybe
                if self._fits(following, play.position):
                    fitting.append(play)
        message = f"the play of {dice[0]}-{dice[1]} is missing"
        after: Position | None = None
        if len(fitting) == 1:
            after = fitting[0].position
            shown = fitting[0].notation() or "a pass"
            message += f"; the next play allows only {shown}, and the game is checked on from it"
        elif following is not None:
            message += (
                f"; {len(fitting)} plays of it allow the next play, "
                "so the game is checked no further"
            )
        return self.error("missing-play", message, written.span, index), after

    def _fits(self, written: WrittenPlay, position: Position) -> bool:
        """Whether ``written`` is legal from ``position`` (its roll inferred if left out)."""
        if written.action is not None or written.side != position.turn:
            return False
        moves = written.moves_as_pairs()
        share = written.opponent_moves_as_pairs()
        if written.dice is None:
            return bool(moves) and bool(rolls_for_play(position, moves, self.rules, share))
        try:
            validate_play(position, written.dice, moves, self.rules, share)
        except JacquetError:
            return False
        return True

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
                self.error(
                    "tied-lead",
                    f"the lead dice were tied ({lead[0]}-{lead[1]}): "
                    f"{_side_name(written.side)} plays that double too, "
                    "before the lead is thrown again",
                    written.span,
                    index,
                ),
                None,
            )
        return None, _Lead.OPEN

    def _illegal(
        self,
        written: WrittenPlay,
        position: Position,
        index: int,
        illegal: IllegalPlayError,
        plays: Sequence[WrittenPlay],
        offset: int,
    ) -> ReplayError:
        dice = written.dice or (0, 0)
        moves = _moves(written)
        try:
            legal = legal_plays(position, dice, self.rules)
        except JacquetError:
            legal = []
        suggestions = closest_plays(written, legal)
        slip = self._slip(written, position, moves, plays, offset)
        message = illegal.message
        if slip:
            message += f"; probably {slip}"
        return self.error(
            "illegal-play",
            message,
            _culprit(written, illegal.move),
            index,
            suggestions=suggestions,
            slip=slip,
        )

    def _slip(
        self,
        written: WrittenPlay,
        position: Position,
        moves: list[tuple[int, int]],
        plays: Sequence[WrittenPlay],
        offset: int,
    ) -> str | None:
        """Name the common transcription slip that makes the play legal, if one does."""
        dice = written.dice or (0, 0)
        shared = written.opponent_moves_as_pairs()

        def legal_with(
            pos: Position,
            roll: tuple[int, int],
            pairs: list[tuple[int, int]],
            share: list[tuple[int, int]] = shared,
        ) -> bool:
            try:
                validate_play(pos, roll, pairs, self.rules, share)
            except JacquetError:
                return False
            return True

        if shared and _share_by_mover(position, moves, shared):
            mover, opponent = _side_name(position.turn), _side_name(other(position.turn))
            return (
                f"{mover}'s own men moved in the share ({pairs_text(shared)}): the share is "
                f"{opponent}'s, played on {opponent}'s men in {opponent}'s numbering"
            )
        if shared and legal_with(position, dice, moves + shared, []):
            # the mover's own steps written after the +: a share is the opponent's, on its men
            return (
                f"{_side_name(position.turn)}'s own steps written as "
                f"{_side_name(other(position.turn))}'s share: {pairs_text(moves + shared)}"
            )

        shifted = [(shifted_point(a), shifted_point(b)) for a, b in moves]
        if shifted != moves and legal_with(position, dice, shifted):
            return "written in the opponent's numbering (points ± 12): " + pairs_text(shifted)
        reversed_pairs = [(b, a) if b > a else (a, b) for a, b in moves]
        if reversed_pairs != moves and legal_with(position, dice, reversed_pairs):
            return "a step written in the other direction: " + pairs_text(reversed_pairs)
        for neighbour in (offset - 1, offset + 1):
            if 0 <= neighbour < len(plays):
                other_dice = plays[neighbour].dice
                if other_dice and other_dice != dice and legal_with(position, other_dice, moves):
                    return (
                        f"the dice of two plays swapped ({dice[0]}-{dice[1]} and "
                        f"{other_dice[0]}-{other_dice[1]})"
                    )
        flipped = position.with_turn(other(position.turn))
        if legal_with(flipped, dice, moves):
            return (
                f"a play of {_side_name(flipped.turn)}'s recorded under {_side_name(position.turn)}"
            )
        return None


def _men_of(position: Position, side: Side) -> Counter[int]:
    """A side's men on the board and the bar (25), by point, in its own numbering."""
    men = Counter(position.men(side))
    men[25] += position.bar(side)
    return +men


def _unmarked_hits(written: WrittenPlay, play: Play) -> bool:
    """Whether ``play`` hit more often than ``written`` marks a hit."""
    hits = [step for step in play.steps if step.hit]
    return bool(hits) and len(hits) > sum(move.count for move in written.moves if move.hit)


def _share_by_mover(
    position: Position, moves: list[tuple[int, int]], shared: list[tuple[int, int]]
) -> bool:
    """A share played with the mover's men, the wrong side's (a transcription slip): every step
    of the share starts where the mover has a man (before or after its own moves), and the
    opponent none.
    """
    mover = position.turn
    own = set(position.men(mover)) | {end for _, end in moves}
    theirs = set(position.men(other(mover)))
    starts = {start for start, _ in shared if 0 < start < 25}
    return bool(starts) and starts <= own and not starts & theirs


def _culprit(written: WrittenPlay, move: int | None) -> Span:
    """Where an illegal play goes wrong: the written move the engine names, else the play.

    ``move`` indexes the moves as the engine got them, a repeat ``13/9(2)`` counted as often as
    written; a play's span begins at its dice, the place to look when the dice are the issue.
    """
    if move is not None and move >= 0:
        # the engine counts the opponent's share after the mover's moves
        for written_move in written.moves + written.opponent_moves:
            if move < written_move.count:
                return written_move.span if written_move.span.line else written.span
            move -= written_move.count
    return written.span


def _rolls(rolls: Sequence[tuple[int, int]]) -> str:
    return ", ".join(f"{high}-{low}" for high, low in rolls)


def _playable_roll(position: Position, rules: Rules) -> tuple[int, int] | None:
    """A roll with at least one legal step from ``position``, if there is one."""
    for high in range(6, 0, -1):
        for low in range(high, 0, -1):
            check_time()
            if any(play.steps for play in legal_plays(position, (high, low), rules)):
                return (high, low)
    return None


def closest_plays(written: WrittenPlay, legal: Sequence[Play], most: int = 3) -> list[str]:
    """The legal plays sharing most steps with what was written (ties: notation order).

    Each in canonical notation, as the writer spells a play (``24/18(4)``); never the text of
    ``written`` itself, which was refused.
    """
    moves = written.moves_as_pairs()
    wanted = Counter(moves)
    starts = Counter(a for a, _ in moves)

    def likeness(play: Play) -> tuple[int, int]:
        steps = Counter((step.start, step.end) for step in play.steps)
        return (
            sum((wanted & steps).values()),
            sum((starts & Counter(s.start for s in play.steps)).values()),
        )

    ranked = sorted(
        (p for p in legal if p.steps or p.opponent_steps),
        key=lambda p: (-likeness(p)[0], -likeness(p)[1], p.notation()),
    )
    refused = _canonical(written.moves, written.opponent_moves)
    dice = written.dice or (0, 0)
    texts: list[str] = []
    for play in ranked:
        suggested = written_play(written.side, written.turn, dice, play)
        text = _canonical(suggested.moves, suggested.opponent_moves)
        if text != refused and text not in texts:
            texts.append(text)
            if len(texts) == most:
                break
    return texts


def _canonical(moves: Iterable[Move], share: Iterable[Move] = ()) -> str:
    """The moves of a play (and the opponent's share) as the canonical writer spells them."""
    text = " ".join(move.notation() for move in moves)
    shared = " ".join(move.notation() for move in share)
    if shared:
        return f"{text} + {shared}" if text else f"+ {shared}"
    return text


def replay(record: GameRecord, rules: Rules | None = None) -> ReplayedGame:
    """Replay ``record``; the errors are collected on the game, never raised.

    ``rules`` forces a ruleset (``--rules``); otherwise the record's tags choose it.
    """
    errors: list[JacquetError] = list(record.errors)
    try:
        chosen = rules_for(record, rules)
    except RulesError as problem:
        span = record.tag_spans.get(_RULES_TAG) if record.tag_spans else None
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
            game.set_position = game.final = start = Position.from_tag(
                record.tags[POSITION_TAG], chosen
            )
        except PositionError as impossible:
            span = record.tag_spans.get(POSITION_TAG)
            errors.append(
                ReplayError(
                    "bad-position",
                    f"the [Position] tag sets no position a game can start from: "
                    f"{impossible.message}",
                    file=record.file,
                    game=record.index,
                    line=span.line if span else None,
                    column=span.column if span else None,
                )
            )
            return game
    if record.errors:
        # A record that did not parse is kept with its syntax errors; its plays are not trusted.
        return game
    replayer = _Replayer(game)
    plies, final, line_errors = replayer.line(record.plays, start, 0, prime_seen, main=True)
    game.plies = plies
    game.final = final
    errors.extend(line_errors)
    game.winner = winner(final)
    if game.winner is not None:
        game.points = score(final, game.winner, chosen, prime_seen[game.winner])
    _check_result(game, replayer)
    return game


def _check_result(game: ReplayedGame, replayer: _Replayer) -> None:
    if game.rules.scoring == "backgammon":
        # The points of a backgammon game are the cube's times the game's, or a dropped
        # double's, or a resignation's (a result on a game not over): checked with the cube
        # (match.py), so nothing is asked here.
        return
    record = game.record
    written = parse_result(record.result)
    if written is None or not game.complete:
        return
    # The result is the last thing a record writes: point at the end of the game's text.
    end = record.span
    column = max(end.end_column - len(record.result or "") + 1, 1)
    span = Span(end.end_line, column, end.end_line, end.end_column) if end.line else None
    if game.winner is None:
        game.errors.append(
            replayer.error(
                "ends-early",
                f"the record claims the result {record.result}, but the game is not over "
                f"(White has {game.final.off('white')} men off, Black {game.final.off('black')})",
                span,
            )
        )
        return
    if game.computed_result != f"{written[0]}-{written[1]}":
        game.errors.append(
            replayer.error(
                "wrong-result",
                f"the result {record.result} disagrees with the final position: "
                f"{_side_name(game.winner)} wins {game.points} "
                f"({game.computed_result}) under {game.rules.name}",
                span,
            )
        )


#: the comment ``fmt`` writes after a play without dice: its inferred roll, or the candidates
_INFERRED = re.compile(r"\([1-6]-[1-6](?: or [1-6]-[1-6])*\)\Z")


def inferred_text(rolls: Sequence[tuple[int, int]]) -> str:
    """How a play's inferred roll is shown: ``(6-5)``, or ``(5-1 or 4-2 or 3-3)`` when the
    steps leave it open (docs/notation.md, "Plays without dice")."""
    return "(" + " or ".join(f"{high}-{low}" for high, low in rolls) + ")"


def with_inferred_dice(game: ReplayedGame, fill: bool = False) -> GameRecord:
    """The record with each dice-less play's inferred roll shown, as ``fmt`` writes it.

    The roll is shown as a comment after the play (``24/18 18/13 {(6-5)}``), which reads back
    as a comment: the record stays a record without dice, and ``fmt`` stays idempotent (an
    earlier such comment is replaced). ``fill`` writes a unique roll in as the play's dice
    (``fmt --fill-dice``); a play whose roll is left open keeps its candidates shown.
    """

    def line(plies: Sequence[ReplayedPly]) -> list[WrittenPlay]:
        plays = []
        for ply in plies:
            written = ply.written
            variations = tuple(tuple(line(branch)) for branch in ply.variations)
            if variations:
                written = replace(written, variations=variations)
            if written.dice is None and written.moves and ply.rolls:
                kept = tuple(c for c in written.comments if not _INFERRED.match(c))
                if fill and len(ply.rolls) == 1:
                    written = replace(written, dice=ply.rolls[0], comments=kept)
                else:
                    shown = (inferred_text(ply.rolls),)
                    written = replace(written, comments=shown + kept)
            plays.append(written)
        return plays

    record = game.record
    if not game.plies:
        return record
    return replace(record, plays=line(game.plies) + record.plays[len(game.plies) :])
