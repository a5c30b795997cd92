"""One turn's search context: which men may step (one rule for every path), the step tables,
the expansion of states by one die, and the structural rules (blocks, Murray's limits).

A state is the mover's packed side, or in hitting rulesets ``mover | opponent << OPP_SHIFT``
(:mod:`..bits`); a step is one addition of a table entry.
"""

from __future__ import annotations

from collections.abc import Callable

from ..bits import (
    BAR,
    BAR_SHIFT,
    BOARD_AND_BAR,
    COUNT,
    COURIER_REST,
    FLAG,
    LOCATION_BY_LENGTH,
    MIDPOINT_SHIFT,
    MOVER,
    OFF,
    OFF_AND_HOME,
    OPP_SHIFT,
    OUTSIDE,
    OWN_ONE_AND_TWO,
    POINT_24_SHIFT,
    POINTS,
    SHIFT,
    SOURCES,
    START_TABLE,
    START_TABLE_RUN,
    highest,
    location_of,
    men_at,
    mirror,
    occupied,
    rotate,
    runs_of_six,
    two_or_more,
)
from ..board_terms import side_name
from ..position import MEN, Direction, Position, Side, mirror_point, opposite_point, other
from ..rules import Rules
from .facts import EXACT, STANDARD, facts_of
from .plays import (
    Step,
    make_position,
)

# -- packed-int tables (the layout itself is named in .bits) -------------------------------------

# per die: the change of a side's packed int when a man steps from p (bar included)
DELTA = [[0] * 26] + [
    [FLAG[p - d] - FLAG[p] if p - d >= 1 else 0 for p in range(BAR + 1)] for d in range(1, 7)
]
OFF_DELTA = [FLAG[OFF] - FLAG[p] for p in range(BAR + 1)]
STEP = [[Step(p, max(p - d, 0), d) for p in range(BAR + 1)] for d in range(7)]
HIT_STEP = [[Step(p, max(p - d, 0), d, True) for p in range(BAR + 1)] for d in range(7)]


def hit_tables(their_point: Callable[[int], int]) -> tuple[list[int], list[int]]:
    """Hitting, by the mover's point t: where the opponent's man there sits in the opponent's
    own packed int, and the change a hit makes to that int (the man to the bar).

    ``their_point`` is t in the opponent's numbering (one table per direction): the one
    statement of a hit, which the search (in states, :data:`HIT_SHIFT`) and the quick path (on
    the opponent's own int) both read.
    """
    shifts = [0] + [SHIFT[their_point(t)] for t in range(1, 25)]
    deltas = [0] + [FLAG[BAR] - FLAG[their_point(t)] for t in range(1, 25)]
    return shifts, deltas


#: the opponent's side: the sides moving the same way round (p +- 12), or opposite ways (25 - p)
OPP_POINT_SHIFT, HIT_OPP_DELTA = hit_tables(opposite_point)
MIRROR_OPP_POINT_SHIFT, MIRROR_HIT_OPP_DELTA = hit_tables(mirror_point)
#: the same in a search state, where the opponent's side sits from OPP_SHIFT up
HIT_SHIFT = [0] + [OPP_SHIFT + shift for shift in OPP_POINT_SHIFT[1:]]
HIT_DELTA = [delta << OPP_SHIFT for delta in HIT_OPP_DELTA]
MIRROR_HIT_SHIFT = [0] + [OPP_SHIFT + shift for shift in MIRROR_OPP_POINT_SHIFT[1:]]
MIRROR_HIT_DELTA = [delta << OPP_SHIFT for delta in MIRROR_HIT_OPP_DELTA]


#: men left on the 24-point once the courier has left it (its rule binds from here up)
COURIER_MEN = MEN - 1


# -- which men may step --------------------------------------------------------------------------


def free_men(mover: int, hitting: bool, courier: bool) -> int:
    """Flags of the locations a man of ``mover`` (a packed side) may step from now.

    The one statement of "may a man step from this point": a man on the bar enters before any
    other man moves; while the courier is out (14 men still on the 24-point, none home or off)
    only the courier moves, and before it leaves (15 on the 24-point) only a man of the 24-point;
    otherwise any man. The search, the quick validation and the careful one all ask here (the
    hot loops skip the call when neither rule can bind: no man on the bar, fewer than
    :data:`COURIER_MEN` on the 24-point).
    """
    if hitting and mover >> BAR_SHIFT:
        return FLAG[BAR]
    if courier:
        on_24 = (mover >> POINT_24_SHIFT) & COUNT
        if on_24 == MEN:
            return FLAG[24]
        if on_24 == COURIER_MEN and not mover & OFF_AND_HOME:
            return FLAG[highest(mover & COURIER_REST)]
    return occupied(mover)


# -- the search ----------------------------------------------------------------------------------


class Context:
    """What one turn's search needs, computed once per call."""

    __slots__ = (
        "bear_off",
        "blocks",
        "courier",
        "direction",
        "facts",
        "hit_delta",
        "hit_shift",
        "hitting",
        "midpoint_men",
        "mover",
        "open",
        "opp_courier",
        "opp_packed",
        "opp_rear",
        "return_ok",
        "rules",
        "start",
        "start_table_points",
        "structural",
    )

    def __init__(self, position: Position, rules: Rules) -> None:
        self.rules = rules
        facts = self.facts = facts_of(rules)
        self.mover: Side = position.turn
        if self.mover == "white":
            mover, opp = position.packed_white, position.packed_black
        else:
            mover, opp = position.packed_black, position.packed_white
        self.opp_packed = opp
        hitting = self.hitting = facts.hitting
        self.courier = facts.courier
        self.bear_off = facts.bear_off
        self.structural = facts.structural
        self.blocks = rules.blocks
        blockers = (two_or_more(opp) if hitting else occupied(opp)) & POINTS
        # flags, in the mover's numbering, of the points a man may land on
        if facts.opposite:
            self.direction: Direction = "opposite"
            self.open = POINTS & ~mirror(blockers)
            self.hit_shift, self.hit_delta = MIRROR_HIT_SHIFT, MIRROR_HIT_DELTA
        else:
            self.direction = "same"
            self.open = POINTS & ~rotate(blockers)
            self.hit_shift, self.hit_delta = HIT_SHIFT, HIT_DELTA
        self.start = mover | (opp << OPP_SHIFT) if hitting else mover
        self.start_table_points = rules.start_table_points
        self.midpoint_men = rules.midpoint_men
        self.return_ok = FLAG[1] if facts.return_men == 1 else OWN_ONE_AND_TWO
        self.opp_rear, self.opp_courier = opponent_facts(opp, facts.courier)

    def sources(self, die: int) -> int:
        """Flags of the points (and the bar) from which a step of ``die`` lands on an open point."""
        return (self.open << SHIFT[die]) & SOURCES

    def expand(
        self, level: dict[int, tuple[Step, ...]], die: int, out: dict[int, tuple[Step, ...]]
    ) -> None:
        """Add to ``out`` every state one step of ``die`` away from a state of ``level``."""
        src = self.sources(die)
        hitting = self.hitting
        courier = self.courier
        bear_off = self.bear_off
        delta = DELTA[die]
        steps = STEP[die]
        hit_steps = HIT_STEP[die]
        hit_shift, hit_delta = self.hit_shift, self.hit_delta
        die_shift = SHIFT[die]
        on_24_shift, courier_men = POINT_24_SHIFT, COURIER_MEN
        location_by_length = LOCATION_BY_LENGTH
        for state, path in level.items():
            mover = state & MOVER if hitting else state
            bearing = 0  # point a man is borne off from, if any
            if (hitting and mover >> BAR_SHIFT) or (
                courier and (mover >> on_24_shift) & COUNT >= courier_men
            ):  # whether free_men can bind, inline: this loop is the search's hottest
                movable = free_men(mover, hitting, courier) & src
            else:
                movable = occupied(mover) & src  # free_men(...) & src when nothing binds
                if not mover & OUTSIDE:
                    # every man is home: bearing off
                    top = highest(mover)
                    if bear_off == STANDARD:
                        if (mover >> die_shift) & COUNT:
                            bearing = die
                        elif top < die:
                            bearing = top
                    elif bear_off == EXACT:
                        if (mover >> die_shift) & COUNT:
                            bearing = die
                    elif die >= top:
                        # rearmost: a die that can bear off must, and only from the rearmost point
                        bearing = top
                        movable = 0
            while movable:
                low = movable & -movable
                movable ^= low
                point = location_by_length[low.bit_length()]  # location_of(low)
                new = state + delta[point]
                if hitting:
                    target = point - die
                    if (state >> hit_shift[target]) & COUNT == 1:
                        new += hit_delta[target]
                        if new not in out:
                            out[new] = (*path, hit_steps[point])
                        continue
                if new not in out:
                    out[new] = (*path, steps[point])
            if bearing:
                new = state + OFF_DELTA[bearing]
                if new not in out:
                    out[new] = (*path, steps[bearing])

    def can_step(self, die: int) -> bool:
        """Whether one step of ``die`` is possible from the start (blocks aside)."""
        reached: dict[int, tuple[Step, ...]] = {}
        self.expand({self.start: ()}, die, reached)
        return bool(reached)

    def keep_valid(self, level: dict[int, tuple[Step, ...]]) -> dict[int, tuple[Step, ...]]:
        """The states of ``level`` that break no structural rule.

        The limits and ``five-max`` are a few bit operations, inline; a convention that looks at
        the opponent's men needs :meth:`problem` only for a final position with six points in a
        row, which most positions do not hold.
        """
        if not level:
            return level
        facts = self.facts
        hitting = self.hitting
        most_points = facts.start_table_points
        most_men = facts.midpoint_men
        five_max = facts.five_max
        block_rule = facts.block_rule
        limits = most_points < 6 or most_men < MEN
        # return-men without hitting: problem()'s only clause that a run can break, inline (the
        # opponent's rearmost man is fixed for the turn); the worst Versailles calls are squared
        # doubles whose hundreds of final states mostly hold a run of six
        return_men = block_rule and self.blocks == "return-men" and not hitting
        return_ok, opp_rear = self.return_ok, self.opp_rear
        kept = {}
        for state, path in level.items():
            if hitting:
                mover = state & MOVER
                held = two_or_more(mover) & POINTS
            else:
                mover = state
                held = occupied(mover) & POINTS
            if limits and (
                (held & START_TABLE).bit_count() > most_points
                or (mover >> MIDPOINT_SHIFT) & COUNT > most_men
            ):
                continue
            if five_max:
                runs = runs_of_six(held)
                if runs and held & OWN_ONE_AND_TWO != OWN_ONE_AND_TWO:
                    continue
            elif block_rule:
                runs = runs_of_six(rotate(held))
                if runs:
                    if return_men:
                        # a block (lowest window's top: location_of(runs & -runs) + 5) in front
                        # of the opponent's rearmost man, without the return men
                        if held & return_ok != return_ok and (
                            opp_rear > location_of(runs & -runs) + 5
                        ):
                            continue
                    elif self.problem(state, explain=False) is not None:
                        continue
            kept[state] = path
        return kept

    def valid(self, state: int) -> bool:
        """Whether a final state breaks no structural rule (blocks, Murray's limits)."""
        return self.problem(state, explain=False) is None

    def problem(self, state: int, explain: bool = True) -> str | None:
        """The structural rule a final state breaks, in words (or "" when not ``explain``)."""
        hitting = self.hitting
        mover = state & MOVER if hitting else state
        held = (two_or_more(mover) if hitting else occupied(mover)) & POINTS
        if self.start_table_points is not None:
            count = (held & START_TABLE).bit_count()
            if count > self.start_table_points:
                return (
                    f"holds {count} points of its starting table 19-24 "
                    f"(at most {self.start_table_points})"
                    if explain
                    else ""
                )
        if self.midpoint_men is not None:
            count = men_at(mover, 13)
            if count > self.midpoint_men:
                return (
                    f"puts {count} men on the 13-point (at most {self.midpoint_men})"
                    if explain
                    else ""
                )
        blocks = self.blocks
        if blocks == "unrestricted":
            return None
        opp_name = side_name(other(self.mover))
        if blocks == "five-max":
            runs = runs_of_six(held)
            if runs and held & OWN_ONE_AND_TWO != OWN_ONE_AND_TWO:
                if not explain:
                    return ""
                low = location_of(runs & -runs)
                return (
                    f"holds six consecutive points ({low + 5} to {low}) "
                    "without holding its own 1- and 2-points"
                )
            return None
        runs = runs_of_six(rotate(held))  # windows in the opponent's numbering
        if not runs:
            return None
        if hitting:
            rear, courier_at = opponent_facts(state >> OPP_SHIFT, self.courier)
        else:
            rear, courier_at = self.opp_rear, self.opp_courier
        low = location_of(runs & -runs)  # lowest window: opponent points low..low+5
        top = low + 5
        if blocks == "bouchon":
            if courier_at > top:
                return (
                    f"makes a block of six ({_window(top)}) in front of {opp_name}'s courier"
                    if explain
                    else ""
                )
            if runs & START_TABLE_RUN and rear > 12 and not held & FLAG[1]:
                return (
                    f"closes its starting table (points 24 to 19) in front of {opp_name}'s men "
                    "without holding its own 1-point"
                    if explain
                    else ""
                )
            return None
        if blocks == "variable" and runs & START_TABLE_RUN and rear > 12:
            return (
                f"closes its starting table (points 24 to 19) while {opp_name} has men still "
                "to pass it"
                if explain
                else ""
            )
        if rear > top and held & self.return_ok != self.return_ok:
            if not explain:
                return ""
            need = "a return man" if self.return_ok == FLAG[1] else "two return men"
            return (
                f"makes a block of six ({_window(top)}) in front of {opp_name}'s men without {need}"
            )
        return None

    def position(self, state: int) -> Position:
        """The position a final state stands for, with the turn passed."""
        if self.hitting:
            mover, opp = state & MOVER, state >> OPP_SHIFT
        else:
            mover, opp = state, self.opp_packed
        if self.mover == "white":
            return make_position(mover, opp, "black", self.direction)
        return make_position(opp, mover, "white", self.direction)


def _window(top: int) -> str:
    """A block whose points are opponent's top..top-5, in the mover's words."""
    return f"points {opposite_point(top)} to {opposite_point(top - 5)}"


def opponent_facts(opp: int, courier: bool) -> tuple[int, int]:
    """The opponent's rearmost location (25 = bar) and its courier's location while it is out.

    Both in the opponent's numbering; 0 when there is none. While 15 men are on its 24-point the
    courier has not left yet and counts as standing there.
    """
    rear = opp & BOARD_AND_BAR
    rear = highest(rear)
    courier_at = 0
    if courier:
        on_24 = (opp >> POINT_24_SHIFT) & COUNT  # men_at(opp, 24), inline
        if on_24 == MEN:
            courier_at = 24
        elif on_24 == COURIER_MEN and not opp & OFF_AND_HOME:
            courier_at = highest(opp & COURIER_REST)
    return rear, courier_at
