"""A slow, plain reference generator of legal plays, written from docs/rules.md independently of the
engine: lists of counts instead of packed ints, every step order and every prefix tried, the rules
read literally (routes and windows as lists, "has still to pass" as a loop over the opponent's
men). The tests compare the engine's plays with these on thousands of positions.

Backgammon (``direction=opposite``) is read from docs/rules.md too: the opponent's man on my
point p stands on its 25 - p, written here as its own function, not the engine's tables.
"""

from __future__ import annotations

from jacquet_notation.position import Position, opposite_point, other, pack
from jacquet_notation.rules import Rules

Counts = tuple[int, ...]  # 26: off, points 1..24 in the owner's numbering, bar


def reference_plays(position: Position, dice: tuple[int, int], rules: Rules) -> set[Position]:
    """The positions (turn passed) of every legal play, by brute force."""
    side = position.turn
    me0 = position.counts(side)
    opp0 = position.counts(other(side))
    if me0[0] == 15 or opp0[0] == 15:
        return set()
    if dice[0] == dice[1]:
        all_dice = [dice[0]] * (dice[0] if rules.doubles == "squared" else 4)
    else:
        all_dice = sorted(dice, reverse=True)

    # every (me, opp, dice left) reachable by some order of legal steps, the empty play included
    reached: set[tuple[Counts, Counts, tuple[int, ...]]] = set()

    def explore(me: Counts, opp: Counts, left: tuple[int, ...]) -> None:
        if (me, opp, left) in reached:
            return
        reached.add((me, opp, left))
        for die in set(left):
            rest = list(left)
            rest.remove(die)
            for new_me, new_opp in steps(me, opp, die, rules):
                explore(new_me, new_opp, tuple(sorted(rest)))

    explore(me0, opp0, tuple(sorted(all_dice)))

    # the most dice first; among plays of one die of a non-double, the higher die first
    def rank(left: tuple[int, ...]) -> tuple[int, int]:
        return (len(all_dice) - len(left), max(all_dice) not in left)

    kept: list[tuple[Counts, Counts]] = []
    for wanted in sorted({rank(left) for _, _, left in reached}, reverse=True):
        kept = [
            (me, opp)
            for me, opp, left in reached
            if rank(left) == wanted and structure_ok(me, opp, rules)
        ]
        if kept:
            break
    if not kept:
        kept = [(me0, opp0)]
    if rules.bear_off == "rearmost":
        best = max(me[0] for me, _ in kept)
        kept = [(me, opp) for me, opp in kept if me[0] == best]
    result = set()
    for me, opp in kept:
        white, black = (me, opp) if side == "white" else (opp, me)
        result.add(Position(pack(white), pack(black), other(side), rules.direction))
    return result


def theirs(point: int, rules: Rules) -> int:
    """My point ``point`` in the opponent's numbering: the sides meet head on in backgammon
    (my 1-point is its 24-point), or a half board apart in the Jacquet family."""
    if rules.direction == "opposite":
        return 25 - point
    return opposite_point(point)


def steps(me: Counts, opp: Counts, die: int, rules: Rules) -> list[tuple[Counts, Counts]]:
    """Every legal single step of ``die``: (my counts, opponent's counts) after it."""
    out = []
    if rules.hitting and me[25] > 0:
        sources = [25]
    elif rules.courier and (courier := courier_point(me)) is not None:
        sources = [courier]
    else:
        sources = [p for p in range(25, 0, -1) if me[p] > 0]
    everyone_home = all(me[p] == 0 for p in range(7, 26))
    rearmost = max((p for p in range(1, 26) if me[p] > 0), default=0)
    for start in sources:
        if me[start] == 0:
            continue
        end = start - die
        if end >= 1:
            if rules.bear_off == "rearmost" and everyone_home and die >= rearmost:
                continue  # that die can bear off, so it must
            there = theirs(end, rules)
            if opp[there] == 0 or (rules.hitting and opp[there] == 1):
                new_me = list(me)
                new_me[start] -= 1
                new_me[end] += 1
                new_opp = list(opp)
                if opp[there] == 1:
                    new_opp[there] -= 1
                    new_opp[25] += 1
                out.append((tuple(new_me), tuple(new_opp)))
        elif everyone_home:
            if rules.bear_off == "standard":
                allowed = start == die or (start < die and start == rearmost)
            elif rules.bear_off == "exact":
                allowed = start == die
            else:
                allowed = start == rearmost and die >= start
            if allowed:
                new_me = list(me)
                new_me[start] -= 1
                new_me[0] += 1
                out.append((tuple(new_me), opp))
    return out


def courier_point(me: Counts) -> int | None:
    """Where the courier stands while the courier phase lasts (24 before it has left)."""
    if me[24] == 15:
        return 24
    if me[24] == 14:
        others: list[int] = [p for p in (*range(0, 24), 25) if me[p] > 0]
        if len(others) == 1 and others[0] not in range(0, 7):
            return others[0]
    return None


def structure_ok(me: Counts, opp: Counts, rules: Rules) -> bool:
    """docs/rules.md's structural rules on a final position (blocks, Murray's limits)."""
    need = 2 if rules.hitting else 1
    is_held = [count >= need for count in me]

    def held(point: int) -> bool:
        return is_held[point]

    start_table = sum(1 for p in range(19, 25) if held(p))
    if rules.start_table_points is not None and start_table > rules.start_table_points:
        return False
    if rules.midpoint_men is not None and me[13] > rules.midpoint_men:
        return False
    if rules.blocks == "unrestricted":
        return True
    if rules.blocks == "five-max":
        for low in range(1, 20):
            if all(held(p) for p in range(low, low + 6)) and not (held(1) and held(2)):
                return False
        return True
    route = [*range(12, 0, -1), *range(24, 12, -1)]  # the opponent's route, in my numbering

    def still_to_pass(first: int) -> bool:
        """Some opponent man stands before my point ``first`` on its route (bar included)."""
        entry = opposite_point(first)
        return any(opp[r] > 0 for r in range(entry + 1, 26))

    blocks = []
    run = 0  # held points in a row along the route, ending at route[i]
    for i, point in enumerate(route):
        run = run + 1 if held(point) else 0
        if run >= 6:
            blocks.append(route[i - 5 : i + 1])
    if rules.blocks in ("return-men", "variable"):
        returned = held(1) and (rules.return_men == 1 or held(2))
        for window in blocks:
            if still_to_pass(window[0]) and not returned:
                return False
            closes_start = window == [24, 23, 22, 21, 20, 19] and still_to_pass(24)
            if rules.blocks == "variable" and closes_start:
                return False
        return True
    # bouchon
    courier = courier_point(opp) if rules.courier else None
    for window in blocks:
        # in my numbering, is the opponent's courier before the window on its route?
        if courier is not None and (
            courier == 25 or route.index(opposite_point(courier)) < route.index(window[0])
        ):
            return False
        if window == [24, 23, 22, 21, 20, 19] and still_to_pass(24) and not held(1):
            return False
    return True
