"""The rules engine: legal plays, validation of written plays, game end and scoring.

Pure functions of ``(position, dice, rules)``. The search works on the packed ints of
:mod:`.position` (four bits per location), so a step is one addition and a whole table is tested
with a few bit operations; see docs/rules.md for the rules and the choices made where RULES.md
leaves something open.

Search: all dice orders, level by level (one level per die), each level deduplicated by the
state reached, so that transpositions are expanded once. Structural rules (blocks, Murray's
limits) are checked on final positions only, as RULES.md says; then the "most dice" and "higher
die" filters, and for the ``rearmost`` bear-off the "most men borne off" filter.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from .board_terms import point_name as _point_name
from .board_terms import side_name as _side_name
from .errors import IllegalPlayError
from .position import BAR, MEN, OFF, Position, Side, opposite_point, other
from .rules import Rules

__all__ = [
    "Play",
    "Step",
    "apply_play",
    "dice_steps",
    "holds_prime",
    "legal_plays",
    "score",
    "validate_play",
    "winner",
]


@dataclass(frozen=True, slots=True)
class Step:
    """One die played by one man, in the mover's numbering (25 = bar, 0 = off)."""

    start: int
    end: int
    die: int
    hit: bool = False

    def notation(self) -> str:
        """``24/18``, ``bar/22``, ``5/off``, ``13/7*`` (``*`` marks a hit)."""
        return f"{_point_name(self.start)}/{_point_name(self.end)}{'*' if self.hit else ''}"


@dataclass(frozen=True, slots=True)
class Play:
    """A legal play: its steps in the order played, and the position it leads to (turn passed)."""

    steps: tuple[Step, ...]
    position: Position

    def notation(self) -> str:
        """The steps one die at a time, ``24/19 19/14``; empty for a pass."""
        return " ".join(step.notation() for step in self.steps)

    @property
    def dice_used(self) -> int:
        """Number of dice (steps) the play uses."""
        return len(self.steps)


# -- packed-int helpers --------------------------------------------------------------------------

_OPP = 104  # in hitting rulesets a search state is mover | opponent << _OPP
_MOVER = (1 << _OPP) - 1


def _flags(low: int, high: int) -> int:
    """The low bit of each location's nibble, for locations low..high."""
    return sum(1 << (4 * i) for i in range(low, high + 1))


_ONES = _flags(0, 25)
_POINTS = _flags(1, 24)
_SOURCES = _flags(1, 25)
_LOW12 = _flags(1, 12)
_HIGH12 = _flags(13, 24)
_START_TABLE = _flags(19, 24)
_FLAG = [1 << (4 * i) for i in range(26)]
_OFF_AND_HOME = _flags(0, 6) * 15  # whole nibbles of locations 0..6
_OUTSIDE = _flags(7, 25) * 15  # whole nibbles of locations 7..25
_COURIER_REST = (_flags(7, 23) | _FLAG[25]) * 15  # where a courier stands while out
_BOARD_AND_BAR = _flags(1, 25) * 15


def _occupied(packed: int) -> int:
    return (packed | packed >> 1 | packed >> 2 | packed >> 3) & _ONES


def _two_or_more(packed: int) -> int:
    return (packed >> 1 | packed >> 2 | packed >> 3) & _ONES


def _rotate(flags: int) -> int:
    """Flags by point in one side's numbering -> the same points in the other side's numbering."""
    return ((flags & _LOW12) << 48) | ((flags & _HIGH12) >> 48)


def _runs_of_six(flags: int) -> int:
    """Nibble j set when locations j..j+5 are all set."""
    return flags & flags >> 4 & flags >> 8 & flags >> 12 & flags >> 16 & flags >> 20


def _highest(packed: int) -> int:
    """Highest location with a man (0 when none on the board)."""
    return (packed.bit_length() - 1) >> 2 if packed else 0


# per die: the change of a side's packed int when a man steps from p (bar included)
_DELTA = [[0] * 26] + [
    [(1 << (4 * (p - d))) - (1 << (4 * p)) if p - d >= 1 else 0 for p in range(26)]
    for d in range(1, 7)
]
_OFF_DELTA = [1 - (1 << (4 * p)) for p in range(26)]
_STEP = [[Step(p, max(p - d, 0), d) for p in range(26)] for d in range(7)]
_HIT_STEP = [[Step(p, max(p - d, 0), d, True) for p in range(26)] for d in range(7)]
# hitting: where the opponent's man on the mover's point t sits in a state, and the hit's change
_HIT_SHIFT = [0] + [_OPP + 4 * opposite_point(t) for t in range(1, 25)]
_HIT_DELTA = [0] + [(1 << (_OPP + 4 * BAR)) - (1 << _HIT_SHIFT[t]) for t in range(1, 25)]


# -- the search ----------------------------------------------------------------------------------


class _Context:
    """What one turn's search needs, computed once per call."""

    __slots__ = (
        "bear_off",
        "blocks",
        "courier",
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
        self.mover: Side = position.turn
        mover = position.packed_white if self.mover == "white" else position.packed_black
        opp = position.packed_black if self.mover == "white" else position.packed_white
        self.opp_packed = opp
        self.hitting = rules.hitting
        self.courier = rules.courier
        self.bear_off = rules.bear_off
        self.blocks = rules.blocks
        blockers = (_two_or_more(opp) if self.hitting else _occupied(opp)) & _POINTS
        # flags, in the mover's numbering, of the points a man may land on
        self.open = _POINTS & ~_rotate(blockers)
        self.start = mover | (opp << _OPP) if self.hitting else mover
        self.start_table_points = rules.start_table_points
        self.midpoint_men = rules.midpoint_men
        self.return_ok = _FLAG[1] if rules.return_men == 1 else _FLAG[1] | _FLAG[2]
        self.structural = (
            rules.blocks != "unrestricted"
            or rules.start_table_points is not None
            or rules.midpoint_men is not None
        )
        self.opp_rear, self.opp_courier = _opponent_facts(opp, rules.courier)

    def sources(self, die: int) -> int:
        """Flags of the points (and the bar) from which a step of ``die`` lands on an open point."""
        return (self.open << (4 * die)) & _SOURCES

    def expand(
        self, level: dict[int, tuple[Step, ...]], die: int, out: dict[int, tuple[Step, ...]]
    ) -> None:
        """Add to ``out`` every state one step of ``die`` away from a state of ``level``."""
        src = self.sources(die)
        hitting = self.hitting
        courier = self.courier
        bear_off = self.bear_off
        delta = _DELTA[die]
        steps = _STEP[die]
        off_steps = _STEP[die]
        hit_steps = _HIT_STEP[die]
        die_flag_shift = 4 * die
        for state, path in level.items():
            mover = state & _MOVER if hitting else state
            bearing = 0  # point a man is borne off from, if any
            if hitting and mover >> 100:
                movable = src & _FLAG[25]  # a man on the bar enters before any other move
            elif (
                courier and (mover >> 96) >= 14 and (mover >> 96 == 15 or not mover & _OFF_AND_HOME)
            ):
                if mover >> 96 == 15:
                    movable = src & _FLAG[24]
                else:
                    movable = src & _FLAG[_highest(mover & _COURIER_REST)]
            else:
                movable = (mover | mover >> 1 | mover >> 2 | mover >> 3) & src
                if not mover & _OUTSIDE:
                    # every man is home: bearing off
                    top = _highest(mover)
                    if bear_off == "standard":
                        if (mover >> die_flag_shift) & 15:
                            bearing = die
                        elif top < die:
                            bearing = top
                    elif bear_off == "exact":
                        if (mover >> die_flag_shift) & 15:
                            bearing = die
                    elif die >= top:
                        # rearmost: a die that can bear off must, and only from the rearmost point
                        bearing = top
                        movable = 0
            while movable:
                low = movable & -movable
                movable ^= low
                point = low.bit_length() >> 2
                new = state + delta[point]
                if hitting:
                    target = point - die
                    if (state >> _HIT_SHIFT[target]) & 15 == 1:
                        new += _HIT_DELTA[target]
                        if new not in out:
                            out[new] = (*path, hit_steps[point])
                        continue
                if new not in out:
                    out[new] = (*path, steps[point])
            if bearing:
                new = state + _OFF_DELTA[bearing]
                if new not in out:
                    out[new] = (*path, off_steps[bearing])

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
        rules = self.rules
        facts = _last_facts if rules is _last_facts.rules else _facts(rules)
        hitting = self.hitting
        most_points = facts.start_table_points
        most_men = facts.midpoint_men
        five_max = facts.five_max
        block_rule = facts.block_rule
        limits = most_points < 6 or most_men < MEN
        kept = {}
        for state, path in level.items():
            if hitting:
                mover = state & _MOVER
                held = (mover >> 1 | mover >> 2 | mover >> 3) & _POINTS
            else:
                mover = state
                held = (mover | mover >> 1 | mover >> 2 | mover >> 3) & _POINTS
            if limits and (
                (held & _START_TABLE).bit_count() > most_points or (mover >> 52) & 15 > most_men
            ):
                continue
            if five_max:
                runs = held & held >> 4 & held >> 8 & held >> 12 & held >> 16 & held >> 20
                if runs and held & 0x110 != 0x110:
                    continue
            elif block_rule:
                held = ((held & _LOW12) << 48) | ((held & _HIGH12) >> 48)
                runs = held & held >> 4 & held >> 8 & held >> 12 & held >> 16 & held >> 20
                if runs and self.problem(state, explain=False) is not None:
                    continue
            kept[state] = path
        return kept

    def valid(self, state: int) -> bool:
        """Whether a final state breaks no structural rule (blocks, Murray's limits)."""
        return self.problem(state, explain=False) is None

    def problem(self, state: int, explain: bool = True) -> str | None:
        """The structural rule a final state breaks, in words (or "" when not ``explain``)."""
        hitting = self.hitting
        mover = state & _MOVER if hitting else state
        held = (_two_or_more(mover) if hitting else _occupied(mover)) & _POINTS
        if self.start_table_points is not None:
            count = (held & _START_TABLE).bit_count()
            if count > self.start_table_points:
                return (
                    f"holds {count} points of its starting table 19-24 "
                    f"(at most {self.start_table_points})"
                    if explain
                    else ""
                )
        if self.midpoint_men is not None:
            count = (mover >> 52) & 15
            if count > self.midpoint_men:
                return (
                    f"puts {count} men on the 13-point (at most {self.midpoint_men})"
                    if explain
                    else ""
                )
        blocks = self.blocks
        if blocks == "unrestricted":
            return None
        opp_name = _side_name(other(self.mover))
        if blocks == "five-max":
            runs = _runs_of_six(held)
            if runs and held & 0x110 != 0x110:
                if not explain:
                    return ""
                low = (
                    runs.bit_length() >> 2
                    if runs == runs & -runs
                    else (runs & -runs).bit_length() >> 2
                )
                return (
                    f"holds six consecutive points ({low + 5} to {low}) "
                    "without holding its own 1- and 2-points"
                )
            return None
        runs = _runs_of_six(_rotate(held))  # windows in the opponent's numbering
        if not runs:
            return None
        if hitting:
            rear, courier_at = _opponent_facts(state >> _OPP, self.courier)
        else:
            rear, courier_at = self.opp_rear, self.opp_courier
        low = (runs & -runs).bit_length() >> 2  # lowest window: opponent points low..low+5
        top = low + 5
        if blocks == "bouchon":
            if courier_at > top:
                return (
                    f"makes a block of six ({_window(top)}) in front of {opp_name}'s courier"
                    if explain
                    else ""
                )
            if (runs >> 28) & 1 and rear > 12 and not held & _FLAG[1]:
                return (
                    f"closes its starting table (points 24 to 19) in front of {opp_name}'s men "
                    "without holding its own 1-point"
                    if explain
                    else ""
                )
            return None
        if blocks == "variable" and (runs >> 28) & 1 and rear > 12:
            return (
                f"closes its starting table (points 24 to 19) while {opp_name} has men still "
                "to pass it"
                if explain
                else ""
            )
        if rear > top and held & self.return_ok != self.return_ok:
            if not explain:
                return ""
            need = "a return man" if self.return_ok == _FLAG[1] else "two return men"
            return (
                f"makes a block of six ({_window(top)}) in front of {opp_name}'s men without {need}"
            )
        return None

    def position(self, state: int) -> Position:
        """The position a final state stands for, with the turn passed."""
        if self.hitting:
            mover, opp = state & _MOVER, state >> _OPP
        else:
            mover, opp = state, self.opp_packed
        if self.mover == "white":
            return _make_position(mover, opp, "black")
        return _make_position(opp, mover, "white")


def _window(top: int) -> str:
    """A block whose points are opponent's top..top-5, in the mover's words."""
    return f"points {opposite_point(top)} to {opposite_point(top - 5)}"


def _opponent_facts(opp: int, courier: bool) -> tuple[int, int]:
    """The opponent's rearmost location (25 = bar) and its courier's location while it is out.

    Both in the opponent's numbering; 0 when there is none. While 15 men are on its 24-point the
    courier has not left yet and counts as standing there.
    """
    rear = _highest(opp & _BOARD_AND_BAR)
    courier_at = 0
    if courier:
        on_24 = (opp >> 96) & 15
        if on_24 == MEN:
            courier_at = 24
        elif on_24 == MEN - 1 and not opp & _OFF_AND_HOME:
            courier_at = _highest(opp & _COURIER_REST)
    return rear, courier_at


_DIE_VALUES = frozenset(range(1, 7))


def dice_steps(dice: Sequence[int], rules: Rules) -> list[int]:
    """The steps a roll gives: two dice, or a double's four (or n, squared) steps."""
    try:
        first, second = dice
        ok = first in _DIE_VALUES and second in _DIE_VALUES
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise IllegalPlayError(f"dice must be two numbers from 1 to 6, not {tuple(dice)!r}")
    high, low = (first, second) if first >= second else (second, first)
    if high == low:
        return [high] * rules.double_steps[high]
    return [high, low]


class _Search:
    """Every legal final state of one turn, with one path (list of steps) reaching each."""

    __slots__ = ("ctx", "plays_by_state")

    def __init__(self, ctx: _Context, dice: list[int]) -> None:
        self.ctx = ctx
        start: dict[int, tuple[Step, ...]] = {ctx.start: ()}
        if len(dice) == 2 and dice[0] != dice[1]:
            high, low = dice
            first_high: dict[int, tuple[Step, ...]] = {}
            first_low: dict[int, tuple[Step, ...]] = {}
            ctx.expand(start, high, first_high)
            ctx.expand(start, low, first_low)
            both: dict[int, tuple[Step, ...]] = {}
            if first_high:
                ctx.expand(first_high, low, both)
            if first_low:
                ctx.expand(first_low, high, both)
            # most dice first; with one die, the higher die when it can be played at all
            candidates = [both, first_high, first_low, start]
        else:
            levels = [start]
            for die in dice:
                nxt: dict[int, tuple[Step, ...]] = {}
                ctx.expand(levels[-1], die, nxt)
                if not nxt:
                    break
                levels.append(nxt)
            candidates = levels[::-1]
        chosen: dict[int, tuple[Step, ...]] = {}
        for level in candidates:
            chosen = ctx.keep_valid(level) if ctx.structural else level
            if chosen:
                break
        if not chosen:
            # nothing, not even standing still, keeps the structure: the turn passes (docs/rules.md)
            chosen = {ctx.start: ()}
        if ctx.bear_off == "rearmost" and len(chosen) > 1:
            most = max(s & 15 for s in chosen)
            chosen = {s: p for s, p in chosen.items() if s & 15 == most}
        self.plays_by_state = chosen

    def plays(self) -> list[Play]:
        # inlined _make_position and _make_play: building the plays is a quarter of the time
        ctx = self.ctx
        white_moves = ctx.mover == "white"
        turn: Side = "black" if white_moves else "white"
        hitting = ctx.hitting
        opp = ctx.opp_packed
        new, set_white, set_black, set_turn = _new, _set_white, _set_black, _set_turn
        set_steps, set_position = _set_steps, _set_position
        plays = []
        for state, path in self.plays_by_state.items():
            if hitting:
                mover, opp = state & _MOVER, state >> _OPP
            else:
                mover = state
            position = new(Position)
            if white_moves:
                set_white(position, mover)
                set_black(position, opp)
            else:
                set_white(position, opp)
                set_black(position, mover)
            set_turn(position, turn)
            play = new(Play)
            set_steps(play, path)
            set_position(play, position)
            plays.append(play)
        return plays


def legal_plays(position: Position, dice: Sequence[int], rules: Rules | None = None) -> list[Play]:
    """Every distinct legal play of ``dice`` for the side to move (distinct by resulting position).

    A roll with no legal step gives one empty play (a pass). A finished game has no plays.
    """
    rules = rules or _DEFAULT
    if winner(position) is not None:
        return []
    ctx = _Context(position, rules)
    return _Search(ctx, dice_steps(dice, rules)).plays()


_DEFAULT = Rules()


# -- validation ----------------------------------------------------------------------------------


def validate_play(
    position: Position,
    dice: Sequence[int],
    moves: Iterable[Sequence[int]],
    rules: Rules | None = None,
) -> Play:
    """The play that ``moves`` (``(start, end)`` pairs as written) stand for, if it is legal.

    A written move may span several dice (``24/13`` with 6-5). Raises IllegalPlayError naming the
    broken rule. A play that uses every die needs no enumeration of the alternatives.
    """
    rules = rules or _DEFAULT
    if not isinstance(moves, (list, tuple)):
        moves = list(moves)
    try:
        quick = _accept_quickly(position, dice, moves, rules)
    except (TypeError, ValueError):
        quick = None  # malformed input: the careful path below says what is wrong
    if quick is not None:
        return quick
    if winner(position) is not None:
        raise IllegalPlayError("the game is over")
    steps_left = dice_steps(dice, rules)
    written = [_written_move(move, index) for index, move in enumerate(moves)]
    ctx = _Context(position, rules)
    best, failure = _realize_any_order(ctx, written, steps_left)
    if best is None:
        if failure is None:
            raise IllegalPlayError("no legal way to play that", move=0 if written else None)
        raise IllegalPlayError(failure[1], move=failure[0])
    state, path = best
    if (
        rules.hitting
        and len(written) == 1
        and written[0][1] != OFF
        and len(path) == 2
        and path[0].die != path[1].die
    ):
        state, path = _one_way(ctx, written[0], steps_left, state, path)
    if len(path) == len(steps_left):
        if ctx.structural:
            problem = ctx.problem(state)
            if problem is not None:
                # a rule about the final position: the play as a whole breaks it, and a
                # reader points at its first move
                raise IllegalPlayError(f"{_notation(path)}: {problem}", move=0)
        if not (
            rules.bear_off == "rearmost"
            and _may_bear_off(ctx, sum(steps_left))
            and _more_borne_off(ctx, steps_left, state & 15)
        ):
            return Play(path, ctx.position(state))
    search = _Search(ctx, steps_left)
    legal = search.plays_by_state
    if state in legal:
        return Play(path, ctx.position(state))
    reason, move = _why_not_legal(ctx, state, path, steps_left, legal)
    raise IllegalPlayError(reason, move=move)


def _one_way(
    ctx: _Context,
    move: tuple[int, int],
    dice: list[int],
    state: int,
    path: tuple[Step, ...],
) -> _Realized:
    """A move spanning both dice, with hitting: the two intermediate points may differ by a hit.

    Returns the one legal way, or raises IllegalPlayError when both are legal and differ.
    """
    start, _ = move
    ways: dict[int, tuple[Step, ...]] = {}
    for first, second in (dice, dice[::-1]):
        if start - first - second != move[1]:
            continue
        one = _try_step(ctx, ctx.start, start, first)
        if isinstance(one, str):
            continue
        two = _try_step(ctx, one[0], start - first, second)
        if not isinstance(two, str):
            ways[two[0]] = (one[1], two[1])
    if len(ways) < 2:
        return state, path
    legal = _Search(ctx, dice).plays_by_state
    legal_ways = [(s, p) for s, p in ways.items() if s in legal]
    if len(legal_ways) == 1:
        return legal_ways[0]
    if not legal_ways:
        return state, path
    options = " or ".join(_notation(p) for _, p in legal_ways)
    raise IllegalPlayError(
        f"{_point_name(start)}/{_point_name(move[1])} is ambiguous: it hits on one way and not "
        f"the other; write {options}",
        move=0,
    )


class _Facts(NamedTuple):
    """What the inline paths need of a ``Rules``, read once per ruleset instead of once per call."""

    rules: Rules
    hitting: bool
    courier: bool
    bear_off: int  # _STANDARD, _EXACT or _REARMOST
    double_steps: int  # 0 for squared doubles (n steps of n)
    structural: bool
    five_max: bool
    block_rule: bool  # a block convention that looks at the opponent's men
    start_table_points: int
    midpoint_men: int


_STANDARD, _EXACT, _REARMOST = 0, 1, 2
_BEAR_CODES = {"standard": _STANDARD, "exact": _EXACT, "rearmost": _REARMOST}
_FACTS: dict[int, _Facts] = {}


def _facts(rules: Rules) -> _Facts:
    """The :class:`_Facts` of ``rules``, cached by identity (the entry keeps ``rules`` alive)."""
    global _last_facts
    facts = _FACTS.get(id(rules))
    if facts is not None and facts.rules is rules:
        _last_facts = facts
        return facts
    if len(_FACTS) > 256:
        _FACTS.clear()
    facts = _Facts(
        rules,
        rules.hitting,
        rules.courier,
        _BEAR_CODES[rules.bear_off],
        0 if rules.doubles == "squared" else 4,
        rules.structural,
        rules.blocks == "five-max",
        rules.blocks not in ("unrestricted", "five-max"),
        MEN if rules.start_table_points is None else rules.start_table_points,
        MEN if rules.midpoint_men is None else rules.midpoint_men,
    )
    _FACTS[id(rules)] = facts
    _last_facts = facts
    return facts


#: the facts of the rules last asked for: validating a game asks for the same rules every turn
_last_facts = _facts(_DEFAULT)

# the opponent's change when the mover hits on its point t, in the opponent's own packed int
_HIT_OPP_DELTA = [0] + [(1 << (4 * BAR)) - (1 << (4 * opposite_point(t))) for t in range(1, 25)]
_OPP_SHIFT = [0] + [4 * opposite_point(t) for t in range(1, 25)]
_SINGLE = [((die,),) for die in range(7)]  # a move of one die, as _accept_quickly's orders


def _accept_quickly(
    position: Position, dice: Sequence[int], moves: Sequence[Sequence[int]], rules: Rules
) -> Play | None:
    """The common case of validation, inline: every die used, each move's dice obvious.

    Plays the written moves in the written order, checking each step as ``_try_step`` does, and
    returns the play if every die is used and the final position breaks no structural rule (a
    run of six under a block convention that looks at the opponent goes the careful way). Under
    the ``rearmost`` bear-off, a play that may bear off men is accepted only once an early-exit
    search finds no play bearing off more. Anything else returns None and goes the careful way,
    which also finds the words for what is wrong: this path only ever accepts.
    """
    a, b = dice
    if not (0 < a < 7 and 0 < b < 7):
        return None
    facts = _last_facts if rules is _last_facts.rules else _facts(rules)
    _, hitting, courier, bear_off, double_steps, structural, five_max, block_rule, _, _ = facts
    white = position.turn == "white"
    if white:
        me, opp = position.packed_white, position.packed_black
    else:
        me, opp = position.packed_black, position.packed_white
    if me & 15 == 15 or opp & 15 == 15:
        return None
    original = me
    if a == b:
        left = [a] * (double_steps or a)
    elif a > b:
        left = [a, b]
    else:
        left = [b, a]
    total = len(left)
    path: list[Step] = []
    append = path.append
    rearmost = bear_off == _REARMOST
    # whether every written move can use only the dice it used here (so no other order or
    # split of the same moves uses more dice)
    forced = True
    # the courier rule can bind only while 14 men or more are on the 24-point or the bar
    courier = courier and ((me >> 96) & 15) + (me >> 100) >= MEN - 1
    for start, end in moves:
        if not 0 <= end < start <= BAR:
            return None
        distance = start - end
        if end and distance in left:
            # the common move, one die landing on the board, inline (as the loop below checks it)
            if (
                not (me >> (4 * start)) & 15
                or (hitting and me >> 100 and start != BAR)
                or (
                    courier
                    and (me >> 96) & 15 == 14
                    and not me & _OFF_AND_HOME
                    and start != _highest(me & _COURIER_REST)
                )
            ):
                return None
            there = (opp >> _OPP_SHIFT[end]) & 15  # the opponent's men there
            if there and (there > 1 or not hitting):
                return None
            if rearmost and not me & _OUTSIDE and distance >= _highest(me):
                return None  # a die that can bear off must
            me += _DELTA[distance][start]
            if there:
                opp += _HIT_OPP_DELTA[end]
                append(_HIT_STEP[distance][start])
            else:
                append(_STEP[distance][start])
            left.remove(distance)
            continue
        if end == 0 and a != b:
            if bear_off != _EXACT:
                forced = False  # a lower die may take the man part of the way (2/1/off, 6-1)
            # bearing off, by that die or a higher one: the higher die first, as the careful path
            # tries them (so that both paths label the steps alike)
            orders: tuple[tuple[int, ...], ...] = tuple((die,) for die in left if die >= distance)
            if not orders:
                return None
        elif distance in left:
            orders = _SINGLE[distance]
        elif a == b:
            count = -(-distance // a)  # the last step may bear off with a higher die
            if count > len(left) or (end and distance % a):
                return None
            orders = ((a,) * count,)
        elif len(left) == 2 and distance == a + b and not hitting:
            orders = ((a, b), (b, a))  # either intermediate point (a hit makes them differ)
        else:
            return None
        mark = len(path)
        for order in orders:
            new_me, new_opp, at = me, opp, start
            for die in order:
                if not (new_me >> (4 * at)) & 15:
                    break
                if hitting and new_me >> 100 and at != BAR:
                    break
                if (
                    courier
                    and (new_me >> 96) & 15 == 14
                    and not new_me & _OFF_AND_HOME
                    and at != _highest(new_me & _COURIER_REST)
                ):
                    break
                target = at - die
                if target >= 1:
                    there = (new_opp >> _OPP_SHIFT[target]) & 15  # the opponent's men there
                    if there and (there > 1 or not hitting):
                        break
                    if rearmost and not new_me & _OUTSIDE and die >= _highest(new_me):
                        break  # a die that can bear off must
                    new_me += _DELTA[die][at]
                    if there:
                        new_opp += _HIT_OPP_DELTA[target]
                        append(_HIT_STEP[die][at])
                    else:
                        append(_STEP[die][at])
                    at = target
                else:
                    if end or new_me & _OUTSIDE:
                        break
                    if at != die:
                        if bear_off == _EXACT or at != _highest(new_me):
                            break
                    elif bear_off == _REARMOST and at != _highest(new_me):
                        break
                    new_me += _OFF_DELTA[at]
                    append(_STEP[die][at])
                    at = 0
            else:
                if at != end:
                    return None
                me, opp = new_me, new_opp
                for die in order:
                    left.remove(die)
                break
            del path[mark:]
        else:
            return None
    if left:
        if not forced:
            return None
        # fewer steps than the roll gives: legal only if no longer play is (nor, with one die,
        # one of the higher die), which needs the search; the written moves are realized already
        state = me | opp << _OPP if hitting else me
        steps = dice_steps(dice, rules)
        ctx = _Context(position, rules)
        # a pass where no die moves any man needs no search: nothing else is legal
        if (path or any(ctx.can_step(die) for die in {a, b})) and state not in _Search(
            ctx, steps
        ).plays_by_state:
            return None
        if white:
            return _make_play(tuple(path), _make_position(me, opp, "black"))
        return _make_play(tuple(path), _make_position(opp, me, "white"))
    if structural:
        if hitting:
            held = (me >> 1 | me >> 2 | me >> 3) & _POINTS
        else:
            held = (me | me >> 1 | me >> 2 | me >> 3) & _POINTS
        if (held & _START_TABLE).bit_count() > facts.start_table_points:
            return None
        if (me >> 52) & 15 > facts.midpoint_men:
            return None
        if five_max:
            runs = held & held >> 4 & held >> 8 & held >> 12 & held >> 16 & held >> 20
            if runs:
                return None  # the careful path (which labels a combined move's dice its own way)
        elif block_rule:
            held = ((held & _LOW12) << 48) | ((held & _HIGH12) >> 48)
            if held & held >> 4 & held >> 8 & held >> 12 & held >> 16 & held >> 20:
                return None
    if (
        rearmost
        and (me & 15) - (original & 15) < total
        and _highest(original) - (a * total if a == b else a + b) <= 6
    ):
        # "most men borne off": nothing to prove when no play can bear off more than this one
        # (above: when the rearmost man cannot even come home)
        steps = dice_steps(dice, rules)
        if (original & 15) + _most_off(original, steps) > me & 15 and _more_borne_off(
            _Context(position, rules), steps, me & 15
        ):
            return None
    play: Play = _new(Play)
    position = _new(Position)
    if white:
        _set_white(position, me)
        _set_black(position, opp)
        _set_turn(position, "black")
    else:
        _set_white(position, opp)
        _set_black(position, me)
        _set_turn(position, "white")
    _set_steps(play, tuple(path))
    _set_position(play, position)
    return play


def _more_borne_off(ctx: _Context, dice: list[int], off: int) -> bool:
    """Whether a play using every die and breaking no structural rule bears off more than ``off``.

    ``off`` counts all the mover's men borne off. Level by level as in :class:`_Search`, but a
    state is dropped as soon as :func:`_most_off` says it cannot beat ``off`` with the dice left,
    so the search usually ends at once or early.
    """
    if (ctx.start & 15) + _most_off(ctx.start, dice) <= off:
        return False
    orders = [dice] if dice[0] == dice[-1] else [dice, dice[::-1]]
    for order in orders:
        level: dict[int, tuple[Step, ...]] = {ctx.start: ()}
        for index, die in enumerate(order):
            reached: dict[int, tuple[Step, ...]] = {}
            ctx.expand(level, die, reached)
            left = order[index + 1 :]
            level = {
                state: path
                for state, path in reached.items()
                if (state & 15) + _most_off(state, left) > off
            }
            if not level:
                break
        else:
            if not ctx.structural or any(ctx.valid(state) for state in level):
                return True
    return False


def _most_off(state: int, dice: list[int]) -> int:
    """At most how many men ``dice`` can bear off from ``state`` (the mover's men in its low bits).

    Every man outside the home table must come home before any man leaves, a die moving one man
    at most the highest die's pips: a man on p takes ceil((p - 6) / highest) dice of its own.
    """
    outside = state & _OUTSIDE
    if not outside:
        return len(dice)
    if not dice:
        return 0
    highest = max(dice)
    need = 0
    flags = (outside | outside >> 1 | outside >> 2 | outside >> 3) & _ONES
    while flags:
        low = flags & -flags
        flags ^= low
        point = low.bit_length() >> 2
        need += ((state >> (4 * point)) & 15) * -(-(point - 6) // highest)
    return max(0, len(dice) - need)


_new = object.__new__
# the slots' own setters, which a frozen dataclass's __setattr__ does not guard
_set_white = Position.__dict__["packed_white"].__set__
_set_black = Position.__dict__["packed_black"].__set__
_set_turn = Position.__dict__["turn"].__set__
_set_steps = Play.__dict__["steps"].__set__
_set_position = Play.__dict__["position"].__set__


def _make_position(white: int, black: int, turn: Side) -> Position:
    """``Position(white, black, turn)`` without the frozen dataclass's slower ``__init__``."""
    position: Position = _new(Position)
    _set_white(position, white)
    _set_black(position, black)
    _set_turn(position, turn)
    return position


def _make_play(steps: tuple[Step, ...], position: Position) -> Play:
    """``Play(steps, position)``, as fast as :func:`_make_position`."""
    play: Play = _new(Play)
    _set_steps(play, steps)
    _set_position(play, position)
    return play


def _written_move(move: Sequence[int], index: int) -> tuple[int, int]:
    """The ``index``-th written move as ``(start, end)``, or IllegalPlayError pointing at it."""
    try:
        start, end = (int(x) for x in move)
    except (TypeError, ValueError):
        raise IllegalPlayError(
            f"{move!r} is not a move from one point to another", move=index
        ) from None
    if not (0 <= end < start <= BAR):
        raise IllegalPlayError(
            f"{_point_name(start) if 0 <= start <= 25 else start}/"
            f"{_point_name(end) if 0 <= end <= 25 else end}: men move from higher points to lower",
            move=index,
        )
    return start, end


def _may_bear_off(ctx: _Context, pips: int) -> bool:
    mover = ctx.start & _MOVER
    return _highest(mover) - pips <= 6


def _notation(path: Sequence[Step]) -> str:
    return " ".join(step.notation() for step in path) or "pass"


_Realized = tuple[int, tuple[Step, ...]]
#: why a written move cannot be played: its index among the moves as written, and the reason
_Failure = tuple[int, str]


def _realize_any_order(
    ctx: _Context, written: list[tuple[int, int]], dice: list[int]
) -> tuple[_Realized | None, _Failure | None]:
    """Play the written moves, in the written order first, then in any other order.

    Returns the realization using the most dice (one using all dice at once), or why the
    written order fails (at the first move beyond the dice when there are too many).
    """
    if len(written) > len(dice):
        return None, (
            len(dice),
            f"{' '.join(f'{_point_name(a)}/{_point_name(b)}' for a, b in written)}: "
            f"{len(written)} moves with only {len(dice)} dice to play",
        )
    failures: list[_Failure] = []
    best = _realize(ctx, ctx.start, written, 0, tuple(dice), (), len(dice), failures)
    if best is not None and len(best[1]) == len(dice):
        return best, None
    first_failure = failures[0] if failures else None
    if len(written) > 1:
        seen = {tuple(written)}
        for order in itertools.permutations(written):
            if order in seen:
                continue
            seen.add(order)
            found = _realize(ctx, ctx.start, list(order), 0, tuple(dice), (), len(dice), [])
            if found is not None and (best is None or len(found[1]) > len(best[1])):
                best = found
                if len(best[1]) == len(dice):
                    break
    return best, first_failure


def _realize(
    ctx: _Context,
    state: int,
    moves: list[tuple[int, int]],
    index: int,
    dice: tuple[int, ...],
    path: tuple[Step, ...],
    total: int,
    failures: list[_Failure],
) -> _Realized | None:
    """Depth-first: the written moves from ``index`` on, each by one or more of ``dice``.

    ``failures`` gathers why a move could not be played, with its index in ``moves`` (the
    written order comes first, so the first failure points at a move as written).
    """
    if index == len(moves):
        return state, path
    start, end = moves[index]
    best: _Realized | None = None
    # how many written moves leave ``start``: to say so when its men run out
    wanted = sum(1 for move in moves if move[0] == start)

    def chain(
        state: int, at: int, dice: tuple[int, ...], path: tuple[Step, ...]
    ) -> _Realized | None:
        nonlocal best
        for die in sorted(set(dice), reverse=True):
            landing = max(at - die, 0)
            if landing < end or (landing == 0 and end != 0):
                continue
            result = _try_step(ctx, state, at, die, wanted if at == start else 1)
            if isinstance(result, str):
                failures.append((index, f"{_point_name(start)}/{_point_name(end)}: {result}"))
                continue
            new_state, step = result
            rest = list(dice)
            rest.remove(die)
            if landing == end:
                found = _realize(
                    ctx, new_state, moves, index + 1, tuple(rest), (*path, step), total, failures
                )
            else:
                found = chain(new_state, landing, tuple(rest), (*path, step))
            if found is not None:
                if len(found[1]) == total:
                    return found
                if best is None or len(found[1]) > len(best[1]):
                    best = found
        return None

    complete = chain(state, start, dice, path)
    if complete is not None:
        return complete
    if best is None and not failures:
        move = f"{_point_name(start)}/{_point_name(end)}"
        if not dice:
            failures.append((index, f"{move}: every die of the roll is already used"))
        else:
            dice_text = "-".join(str(d) for d in sorted(set(dice), reverse=True))
            failures.append(
                (index, f"{move}: no die or dice left ({dice_text}) make {start - end} pips")
            )
    return best


def _try_step(
    ctx: _Context, state: int, point: int, die: int, wanted: int = 1
) -> tuple[int, Step] | str:
    """One step of ``die`` from ``point``, or why it is not allowed (in a player's words).

    ``wanted`` is how many written moves leave ``point``, for the message when its men have
    all moved already in this play.
    """
    mover = state & _MOVER if ctx.hitting else state
    if not (mover >> (4 * point)) & 15:
        return _no_man(ctx, point, wanted)
    if ctx.hitting and mover >> 100 and point != BAR:
        return "a man on the bar must enter before any other man moves"
    if ctx.courier and mover >> 96 == MEN - 1 and not mover & _OFF_AND_HOME:
        courier_at = _highest(mover & _COURIER_REST)
        if point != courier_at:
            return (
                f"the courier (on {_point_name(courier_at)}) must reach the home table "
                "before any other man moves"
            )
    target = point - die
    if target >= 1:
        if not (ctx.open >> (4 * target)) & 1:
            opp = _side_name(other(ctx.mover))
            if ctx.hitting:
                return f"point {target} is held by {opp} (two men or more)"
            return f"point {target} is {opp}'s"
        if ctx.bear_off == "rearmost" and not mover & _OUTSIDE:
            top = _highest(mover)
            if die >= top:
                return f"a {die} can bear off the man on {top}, so it must"
        new = state + _DELTA[die][point]
        if ctx.hitting and (state >> _HIT_SHIFT[target]) & 15 == 1:
            return new + _HIT_DELTA[target], _HIT_STEP[die][point]
        return new, _STEP[die][point]
    if mover & _OUTSIDE:
        return f"not all men are home ({_outside_men(mover)})"
    top = _highest(mover)
    rule = ctx.bear_off
    if rule == "exact" and die != point:
        return f"a man leaves only by a die equal to its point (a {die} from {point})"
    if rule == "standard" and die != point and point != top:
        return f"a {die} bears off from {point} only when no man stands higher (a man is on {top})"
    if rule == "rearmost" and point != top:
        return f"only a man on the rearmost point ({top}) may leave"
    return state + _OFF_DELTA[point], _STEP[die][point]


def _no_man(ctx: _Context, point: int, wanted: int) -> str:
    """Why no man can leave ``point``: none was ever there, or this play has moved them all."""
    me = _side_name(ctx.mover)
    where = "on the bar" if point == BAR else f"on point {point}"
    start = ctx.start & _MOVER if ctx.hitting else ctx.start
    had = (start >> (4 * point)) & 15
    if not had:
        return f"{me} has no man {where}"
    men = "one man" if had == 1 else f"{had} men"
    if wanted > had:
        times = {2: "twice", 3: "three times"}.get(wanted, f"{wanted} times")
        return f"{me} has only {men} {where} to move {times}"
    return f"{me} has only {men} {where}, moved already in this play"


def _outside_men(mover: int) -> str:
    parts = []
    for location in range(BAR, 6, -1):
        count = (mover >> (4 * location)) & 15
        if count:
            where = "the bar" if location == BAR else str(location)
            parts.append(f"{count} {'man' if count == 1 else 'men'} on {where}")
    return ", ".join(parts)


def _why_not_legal(
    ctx: _Context,
    state: int,
    path: tuple[Step, ...],
    dice: list[int],
    legal: dict[int, tuple[Step, ...]],
) -> tuple[str, int | None]:
    """Why a realizable play is not among the legal ones, with an example of a legal play.

    With the index of the written move to point at: None where the dice are the issue (a die
    left unplayed, the lower die played), the first move where the play as a whole breaks a
    rule (a block, a limit, too few men borne off).
    """
    written = _notation(path)
    example_path = next(iter(legal.values()))
    example = _notation(example_path)
    most = len(example_path)
    if len(path) < most:
        if len(dice) == 2 and dice[0] != dice[1]:
            if not path:
                return f"passes where a play is possible, e.g. {example}", None
            return f"{written}: plays one die where both can be played, e.g. {example}", None
        if not path:
            return f"passes where a play is possible, e.g. {example}", None
        return (
            f"{written}: plays {len(path)} of {len(dice)} steps where {most} can be played, "
            f"e.g. {example}"
        ), None
    if len(path) == 1 and len(dice) == 2 and dice[0] != dice[1] and path[0].die == dice[1]:
        return (
            f"{written}: plays the lower die ({dice[1]}) where the higher ({dice[0]}) "
            f"can be played, e.g. {example}"
        ), None
    problem = ctx.problem(state)
    if problem is not None:
        return f"{written}: {problem}", 0
    if ctx.bear_off == "rearmost":
        return f"{written}: bears off fewer men than possible, e.g. {example}", 0
    return f"{written}: not a legal play, e.g. {example}", 0


# -- applying, game end, scoring -----------------------------------------------------------------


def apply_play(position: Position, play: Play | Iterable[Step]) -> Position:
    """The position after ``play``'s steps (turn passed), without checking legality.

    Raises IllegalPlayError if a step starts where the mover has no man.
    """
    steps = play.steps if isinstance(play, Play) else tuple(play)
    side = position.turn
    mover = list(position.counts(side))
    opp = list(position.counts(other(side)))
    for step in steps:
        if not mover[step.start]:
            raise IllegalPlayError(f"{step.notation()}: no man on {_point_name(step.start)}")
        mover[step.start] -= 1
        mover[step.end] += 1
        if 1 <= step.end <= 24 and opp[opposite_point(step.end)]:
            opp[opposite_point(step.end)] -= 1
            opp[BAR] += 1
    white, black = (mover, opp) if side == "white" else (opp, mover)
    return Position.from_counts(white, black, other(side))


def winner(position: Position) -> Side | None:
    """The side that has borne off all 15 men, if any."""
    if position.off("white") == MEN:
        return "white"
    if position.off("black") == MEN:
        return "black"
    return None


def holds_prime(position: Position, side: Side) -> bool:
    """Whether ``side`` holds six consecutive points with two men or more on each.

    Consecutive along the board's circuit, so a prime may straddle the side's 1- and 24-points
    (see docs/rules.md).
    """
    held = _two_or_more(position.packed(side)) & _POINTS
    return bool(_runs_of_six(held) or _runs_of_six(_rotate(held)))


def score(
    position: Position, winner: Side, rules: Rules | None = None, prime_seen: bool = False
) -> int:
    """Points the winner scores under ``rules``.

    ``prime_seen`` says whether the winner held a prime at any moment of the game (``marcia``
    scoring); the caller tracks it over the game with :func:`holds_prime`.
    """
    rules = rules or _DEFAULT
    loser = other(winner)
    if rules.scoring == "spanish":
        counts = position.counts(loser)
        return 3 * (sum(counts[19:25]) + counts[BAR]) + 2 * sum(counts[13:19]) + sum(counts[1:13])
    if position.off(loser):
        return 1
    if rules.scoring == "marcia" and not prime_seen:
        return 3
    return 2
