"""Benchmark of the rules engine, each figure beside a peer measured in the same run.

- ``legal_plays`` over a fixed, seeded set of positions reached by self-play, all 21 rolls each:
  calls per second and the worst single call, beside the brute-force reference generator of the
  tests (``tests/reference.py``) on the same positions and rolls.
- ``validate_play`` over every play of seeded self-play games, beside validation by enumeration
  (``legal_plays`` and a look-up of the resulting position).

Targets on one core: legal_plays >= 10,000 calls/s with no call over 5 ms; validate_play >=
150,000 plays/s. Times are the process's CPU time (``time.process_time``), so that other work on
a shared machine does not count against the engine; the wall-clock rate is printed beside it.

    python3 bench/engine.py [--rules jacquet] [--positions 1000] [--games 1000]
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from reference import reference_plays

from jacquet_notation.engine import legal_plays, validate_play
from jacquet_notation.position import Position
from jacquet_notation.rules import RULESET_NAMES, Rules
from jacquet_notation.selfplay import play_game

ROLLS = [(a, b) for a in range(1, 7) for b in range(1, a + 1)]


def positions_from_selfplay(rules: Rules, count: int, seed: int) -> list[Position]:
    """``count`` positions, every third of seeded self-play games (random and greedy bots)."""
    positions: list[Position] = []
    game = 0
    while len(positions) < count:
        bot = "greedy" if game % 2 else "random"
        played = play_game(rules, random.Random(seed * 100_003 + game), bot)
        for turn in played.turns[:-1][game % 3 :: 3]:
            positions.append(turn.play.position)
        game += 1
    return positions[:count]


def time_generator(
    generate: object, positions: list[Position], rules: Rules
) -> tuple[float, float, int, float]:
    """(CPU seconds, worst CPU seconds of one call, calls, wall seconds): every position, roll."""
    worst = 0.0
    total = 0.0
    clock = time.process_time
    wall = time.perf_counter()
    for position in positions:
        for dice in ROLLS:
            start = clock()
            generate(position, dice, rules)  # type: ignore[operator]
            elapsed = clock() - start
            total += elapsed
            worst = max(worst, elapsed)
    return total, worst, len(positions) * len(ROLLS), time.perf_counter() - wall


def bench_legal_plays(rules: Rules, count: int, reference_count: int, seed: int) -> None:
    positions = positions_from_selfplay(rules, count, seed)
    total, worst, calls, wall = time_generator(legal_plays, positions, rules)
    subset = positions[:reference_count]
    ref_total, ref_worst, ref_calls, _ = time_generator(reference_plays, subset, rules)
    sub_total, _, _, _ = time_generator(legal_plays, subset, rules)
    rate = calls / total
    ref_rate = ref_calls / ref_total
    sub_rate = ref_calls / sub_total
    print(f"legal_plays [{rules.name}]: {len(positions)} positions x 21 rolls = {calls} calls")
    print(
        f"  engine     {rate:>10,.0f} calls/s   worst call {worst * 1000:6.2f} ms"
        f"   (wall clock {calls / wall:,.0f} calls/s)"
    )
    print(
        f"  reference  {ref_rate:>10,.0f} calls/s   worst call {ref_worst * 1000:6.2f} ms"
        f"   (first {len(subset)} positions; engine there {sub_rate:,.0f} calls/s,"
        f" ratio {sub_rate / ref_rate:.1f}x)"
    )
    verdict = "met" if rate >= 10_000 and worst <= 0.005 else "NOT met"
    print(f"  target >= 10,000 calls/s and worst <= 5 ms: {verdict}")


def bench_validate(rules: Rules, games: int, seed: int) -> None:
    cases = []
    for game in range(games):
        played = play_game(rules, random.Random(seed * 7919 + game), "random")
        before = played.start
        for turn in played.turns:
            moves = [(step.start, step.end) for step in turn.play.steps]
            cases.append((before, turn.dice, moves))
            before = turn.play.position
    clock = time.process_time
    wall = time.perf_counter()
    start = clock()
    for position, dice, moves in cases:
        validate_play(position, dice, moves, rules)
    elapsed = clock() - start
    wall = time.perf_counter() - wall
    peer_cases = cases[: max(1, len(cases) // 10)]
    start = clock()
    for position, dice, moves in peer_cases:
        wanted = validate_play(position, dice, moves, rules).position
        assert any(play.position == wanted for play in legal_plays(position, dice, rules))
    peer_elapsed = clock() - start
    # the peer's loop also validates; subtract that to time the enumeration alone
    start = clock()
    for position, dice, moves in peer_cases:
        validate_play(position, dice, moves, rules)
    peer_elapsed -= clock() - start
    rate = len(cases) / elapsed
    peer_rate = len(peer_cases) / peer_elapsed
    print(f"validate_play [{rules.name}]: {len(cases)} plays of {games} self-play games")
    print(
        f"  validate_play            {rate:>10,.0f} plays/s"
        f"   (wall clock {len(cases) / wall:,.0f} plays/s)"
    )
    print(
        f"  enumerate + look up      {peer_rate:>10,.0f} plays/s   "
        f"(first {len(peer_cases)} plays; ratio {rate / peer_rate:.1f}x)"
    )
    print(f"  target >= 150,000 plays/s: {'met' if rate >= 150_000 else 'NOT met'}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", default="jacquet", help="a named ruleset, or 'all'")
    parser.add_argument("--positions", type=int, default=1000)
    parser.add_argument("--reference-positions", type=int, default=200)
    parser.add_argument("--games", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=2024)
    args = parser.parse_args()
    print(f"load average: {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    names = RULESET_NAMES if args.rules == "all" else (args.rules,)
    for name in names:
        rules = Rules.named(name)
        bench_legal_plays(rules, args.positions, args.reference_positions, args.seed)
        bench_validate(rules, args.games, args.seed)


if __name__ == "__main__":
    main()
