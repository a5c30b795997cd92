"""A ``Rules`` read once for the engine's inline paths: the fields they test, as plain values.

Validating a game asks for the same rules every turn, so the last ruleset's facts are kept at
hand and looked up by identity first; any other ruleset is looked up by value (a ``Rules`` is
frozen and hashable), so equal rulesets share their facts and nothing depends on object ids.
"""

from __future__ import annotations

from typing import NamedTuple

from ..position import MEN
from ..rules import Rules

#: the bear-off conventions as the engine tests them (``Facts.bear_off``)
STANDARD, EXACT, REARMOST = 0, 1, 2
_BEAR_CODES = {"standard": STANDARD, "exact": EXACT, "rearmost": REARMOST}


class Facts(NamedTuple):
    """What the engine needs of a ``Rules``, read once per ruleset instead of once per call."""

    rules: Rules
    hitting: bool
    courier: bool
    bear_off: int  # STANDARD, EXACT or REARMOST
    double_steps: int  # 0 for squared doubles (n steps of n)
    structural: bool
    five_max: bool
    block_rule: bool  # a block convention that looks at the opponent's men
    start_table_points: int
    midpoint_men: int
    return_men: int
    opposite: bool  # the sides move in opposite directions (backgammon: p <-> 25 - p)


def _read(rules: Rules) -> Facts:
    return Facts(
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
        rules.return_men,
        rules.direction == "opposite",
    )


_CACHE: dict[Rules, Facts] = {}
#: the facts of the rules last asked for, in a one-item list that the hottest caller reads
#: inline (``LAST[0]``, if its ``rules`` is the caller's) before calling :func:`facts_of`
LAST = [_read(Rules())]
#: :class:`Facts` as a plain tuple, whose twelve fields unpack in one step (a named tuple's class
#: is not the exact tuple the interpreter's fast unpacking asks for)
FactValues = tuple[Rules, bool, bool, int, int, bool, bool, bool, int, int, int, bool]
#: the last facts as such a tuple: the quick path's (``LAST_VALUES[0]``, kept beside ``LAST``)
LAST_VALUES: list[FactValues] = [(*LAST[0],)]


def facts_of(rules: Rules) -> Facts:
    """The :class:`Facts` of ``rules``."""
    last = LAST[0]
    if rules is last.rules:
        return last
    facts = _CACHE.get(rules)
    if facts is None:
        if len(_CACHE) > 256:
            _CACHE.clear()
        facts = _CACHE[rules] = _read(rules)
    elif facts.rules is not rules:
        # an equal ruleset, another object (a game's own): the identity test above then holds
        facts = facts._replace(rules=rules)
    LAST[0] = facts
    LAST_VALUES[0] = (*facts,)
    return facts
