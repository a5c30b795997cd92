"""The named rulesets that follow the replay's own plays (:func:`.infer.consistent_rulesets`):
the game was replayed under its own rules already, and a ruleset that sets out from the same
start is asked, ply by ply, only whether that replay's play is its verdict too.

Where a roll here is judged alike by both rulesets (:meth:`..engine.Agreement.whole_key`: every
verdict and every legal play the same) the replay's play is taken without a look; elsewhere the
written play is checked under the follower's own rules (the engine's door,
:func:`..engine.validate_play`), and the follower goes on only if that reaches the replay's
position. Anything else parts it from the replay, in the state its own walk would have reached
there (:class:`.alone.Parted`): a refusal, another position reached (a hit the replay's rules
do not make), a play off the walk's common path (no dice, a pass, a share, the opening), the
replay's own error. :mod:`.infer` replays it alone from there, as it does a ruleset leaving its
shared walk, so that every verdict is still exactly the walk's under that ruleset.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..budget import check_time, deadline
from ..engine import (
    Agreement,
    Play,
    allows_final,
    holds_prime,
    holds_six,
    keys_agree,
)
from ..errors import IllegalPlayError
from ..position import Position, Side
from ..record import POSITION_TAG, GameRecord
from ..rules import Rules
from .alone import Parted, checked_play, left_alone
from .game import ReplayedGame
from .marks import unmarked_hits


@dataclass(slots=True)
class _Follower:
    """A ruleset following the replay, and what its own walk has learnt so far."""

    rules: Rules
    #: judged as the replay's rules are for every roll everywhere (they differ in the scoring
    #: alone): the replay's play is taken at every ply, no key weighed
    twin: bool
    #: whether its :meth:`Agreement.key` is the replay's rules' for every roll everywhere
    #: (True), for none (False), or for some, asked of each (None): :func:`..engine.keys_agree`
    agrees: bool | None
    prime_seen: dict[Side, bool] = field(default_factory=lambda: {"white": False, "black": False})
    #: whether the record has marked every hit so far (the walk's ``marks_hits``)
    marks_hits: bool = True
    #: whether it has left the replay (to be replayed alone)
    parted: bool = False
    #: what of its rules the loop asks at every ply, read once
    structural: bool = field(init=False)
    hitting: bool = field(init=False)
    marcia: bool = field(init=False)

    def __post_init__(self) -> None:
        rules = self.rules
        self.structural, self.hitting = rules.structural, rules.hitting
        self.marcia = rules.scoring == "marcia"


#: a ruleset that followed the replay to the end of the main line: its rules, the final
#: position and the primes seen, whose result :mod:`.infer` judges
Followed = tuple[Rules, Position, dict[Side, bool]]


def followers(
    record: GameRecord, replayed: ReplayedGame | None, rulesets: Sequence[Rules]
) -> tuple[list[Rules], list[Rules]]:
    """``rulesets`` split into those that can follow ``replayed`` (its start theirs, neither
    sharing dice, which changes the position a play reaches and the lead) and the rest."""
    if replayed is None or POSITION_TAG in record.tags or replayed.set_position is not None:
        return [], list(rulesets)
    own = replayed.rules
    if own.every_die_used or own.hitting:
        return [], list(rulesets)
    start = Position.start(own)
    able, rest = [], []
    for rules in rulesets:
        if not rules.every_die_used and Position.start(rules) == start:
            able.append(rules)
        else:
            rest.append(rules)
    return able, rest


def follow(
    record: GameRecord, replayed: ReplayedGame, rulesets: Sequence[Rules], alone: list[Parted]
) -> list[Followed]:
    """The rulesets of :func:`followers` walked along ``replayed``'s main line: each that
    parts from it goes to ``alone``, where it parts; those that follow it to the end are
    returned, to have the result judged."""
    own = replayed.rules
    plies = replayed.plies
    clean = all(ply.error is None and ply.after is not None for ply in plies)
    arrived: list[Followed] = []
    following = []
    for rules in rulesets:
        twin = _twin(rules, own)
        if twin and clean and _walked_alike(rules, own):
            # its walk is the replay's, ply for ply and prime for prime: only the result is
            # its own
            arrived.append((rules, replayed.final, replayed.prime_seen))
        else:
            following.append(_Follower(rules, twin, keys_agree(rules, own)))
    first: Side = record.plays[0].side if record.plays else "white"
    position = Position.start(own).with_turn(first)
    limit = deadline()
    for index, written in enumerate(record.plays):
        if not following:
            break
        if limit is not None:
            check_time(limit)
        if written.action is not None and index > 0:
            continue  # a cube action, or a roll whose play is not given: no man moves
        ply = plies[index] if index < len(plies) else None
        dice = written.dice
        if (
            ply is None
            or ply.written is not written
            or ply.error is not None
            or ply.play is None
            or ply.after is None
            or (ply.before is not position and ply.before != position)
            or dice is None  # said again for the type checker
            or left_alone(written, position, index)
        ):
            # the walk's careful checks, the opening, or the replay stopped or went elsewhere
            alone.extend(_parted(one, index, position) for one in following)
            break
        play, after = ply.play, ply.after
        agreement = Agreement(position, dice)
        # the replay's play speaks for a ruleset of its key only where it uses every die
        full = len(play.steps) == agreement.steps(own)
        told: tuple[object, ...] | None = None  # the replay's key, once a follower asks it
        six: bool | None = None  # whether that play's position holds six points in a row
        moves: list[tuple[int, int]] | None = None  # the written moves, once one is checked
        mover = position.turn
        parted = False
        for one in following:
            mine: Play | IllegalPlayError = play
            if not one.twin:
                agrees = full and one.agrees
                if agrees is None:
                    if told is None:
                        told = agreement.key(own)
                    agrees = agreement.key(one.rules) == told
                if agrees and one.structural:
                    # the play uses every die: only the final position can be forbidden
                    if six is None:
                        six = holds_six(play.position, mover, own.hitting)
                    agrees = allows_final(position, play, one.rules, six)
                if not agrees:
                    if moves is None:
                        moves = written.moves_as_pairs()
                    mine = checked_play(position, dice, moves, one.rules)
            if isinstance(mine, IllegalPlayError):
                alone.append(_parted(one, index, position, mine))
                parted = one.parted = True
                continue
            if mine is not play and mine.position != after:
                alone.append(_parted(one, index, position))  # its own walk goes elsewhere
                parted = one.parted = True
                continue
            if one.hitting and one.marks_hits and unmarked_hits(written, mine):
                one.marks_hits = False  # the marks settle no combined move from here on
            if one.marcia and not one.prime_seen[mover]:
                one.prime_seen[mover] = holds_prime(mine.position, mover)
        if parted:
            following = [one for one in following if not one.parted]
        position = after
    return arrived + [(one.rules, position, one.prime_seen) for one in following]


@functools.lru_cache(maxsize=256)
def _twin(rules: Rules, own: Rules) -> bool:
    """Whether ``rules`` differ from ``own`` in the scoring alone, which never reaches the
    engine: every play is judged alike under both (kept: a copy of a ruleset is made to tell,
    some microseconds, asked for every ruleset of every game)."""
    return rules.replace(name=own.name, scoring=own.scoring) == own


def _walked_alike(rules: Rules, own: Rules) -> bool:
    """Whether the walk under twins ``rules`` and ``own`` (:func:`_twin`) is the same line: it
    reads the scoring only at a bare roll (backgammon's reading of a match file's) and to look
    for primes (marcia's), besides the result."""
    if "backgammon" in (rules.scoring, own.scoring):
        return False
    return (rules.scoring == "marcia") == (own.scoring == "marcia")


def _parted(
    one: _Follower, index: int, position: Position, refused: IllegalPlayError | None = None
) -> Parted:
    """A follower leaving the replay at play ``index``, from ``position``, in its walk's state
    there (``refused``: its own rules' refusal of that play, not asked again)."""
    prime = one.prime_seen
    return Parted(
        one.rules, index, position, (prime["white"], prime["black"]), one.marks_hits, refused
    )
