"""The rulesets that left :mod:`.infer`'s shared walk, each replayed alone from where it left
(:func:`.walk.replay_from`, in the state the walk had reached), one replay answering for
several where their answers must be alike; and a replay's verdict for a ruleset."""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

from ..engine import Play, judged_alike, validate_play
from ..errors import AmbiguousPlayError, IllegalPlayError, JacquetError
from ..position import Position, Side
from ..record import GameRecord, WrittenPlay
from ..rules import Rules
from .game import ReplayedGame, ReplayedPly
from .verdicts import Exclusion, scoring_twins
from .walk import replay, replay_from


def checked_play(
    position: Position, dice: tuple[int, int], moves: list[tuple[int, int]], rules: Rules
) -> Play | IllegalPlayError:
    """A written play (its moves as pairs) under ``rules``, as a shared walk (infer's, follow's)
    checks it inline, or the engine's refusal (an ambiguous one too: the walk settles that by
    the marks, alone), kept without its traceback (which would hold the caller's frame) for
    the replay alone to take."""
    try:
        return validate_play(position, dice, moves, rules, ())
    except (AmbiguousPlayError, IllegalPlayError) as refused:
        return refused.with_traceback(None)


def left_alone(written: WrittenPlay, position: Position, index: int) -> bool:
    """Whether a written ply, at ``position`` and the ``index``-th of its game, is one that the
    walk shared among rulesets (infer's, follow's) leaves to each ruleset's own replay: no dice,
    a cube action or a play not given, a bare roll, a share, the wrong side or a game over, or
    a doubles opening (the lead's rules); the replay's careful checks say what each makes of it."""
    dice = written.dice
    return (
        dice is None
        or written.action is not None
        or written.is_bare_roll
        or bool(written.opponent_moves)
        or written.side != position.turn
        or position.over
        or (index == 0 and dice[0] == dice[1])
    )


@dataclass(frozen=True, slots=True)
class Parted:
    """A ruleset that left the groups at play ``index`` (None: before any play is shared), in
    the state the walk would have reached there, to be replayed alone from there."""

    rules: Rules
    index: int | None
    position: Position | None = None
    prime_seen: tuple[bool, bool] = (False, False)
    marks_hits: bool = True
    #: the engine's refusal of that play under these very rules, when the walk asked it: the
    #: replay alone takes it rather than asking again
    refused: IllegalPlayError | None = None
    #: the refusal of that play under rules that judge it as these do (the class it was checked
    #: in, :meth:`..engine.Agreement.key`): the same verdict, perhaps not in the same words
    judged: IllegalPlayError | None = None


def replay_alone(
    record: GameRecord,
    alone: list[Parted],
    rulesets: Sequence[Rules],
    verdicts: dict[str, Exclusion | None],
    words: bool = True,
    fits_only: bool = False,
) -> None:
    """Each ruleset that left the groups replayed from where it left, but that one replay
    answers for several that left together and must be answered alike: two that differ only
    in scoring (whose words differ only at the result), or a play refused at once under
    rulesets whose options all agree for every roll the diagnosis asks about there.

    ``fits_only``: only whether each fits is asked, so a ruleset that left on its own check's
    refusal, which the replay would take as its error there (:meth:`.walk._Replayer._refused`:
    anything but an ambiguous move the record's hit marks may settle), is not replayed; its
    verdict is :data:`REFUSED`, which says no more than that it does not fit."""
    twins = {name: pair for pair in scoring_twins(tuple(rulesets)) for name in pair}
    told: dict[object, Exclusion | None] = {}
    # a ruleset alone where it left shares with none: its keys are not worth working out
    crowds = Counter(_where(parted) for parted in alone)
    for parted in alone:
        name = parted.rules.name
        if fits_only and _surely_refused(parted):
            verdicts[name] = REFUSED
            continue
        where = _where(parted)
        crowded = where is not None and crowds[where] > 1
        keys = _shared_keys(record, parted, where, twins.get(name)) if crowded else (None, None)
        found = next((told[key] for key in keys if told.get(key) is not None), None)
        if found is not None:
            verdicts[name] = dataclasses.replace(found, rules=name)
            continue
        verdicts[name] = verdict = _replayed_verdict(record, parted, words)
        if verdict is None or parted.index is None or verdict.ply is None:
            continue
        twin_key, alike_key = keys
        if twin_key is not None:
            told[twin_key] = verdict
        refused_here = verdict.kind == "illegal-play" and verdict.ply == parted.index + 1
        if alike_key is not None and refused_here:  # refused where it left, not later
            told[alike_key] = verdict


#: the verdict of a ruleset known not to fit, where nothing more of it is asked
REFUSED = Exclusion("", None, None, None, "", "illegal-play")


def _surely_refused(parted: Parted) -> bool:
    """Whether the refusal ``parted`` left with, its own or its class's, is its replay's error
    at that play (then, in some words, the walk's verdict)."""
    refused = parted.refused or parted.judged
    if refused is None:
        return False
    return not (isinstance(refused, AmbiguousPlayError) and parted.marks_hits)


def _where(parted: Parted) -> tuple[object, ...] | None:
    """The state a ruleset left the groups in (None: before any play was shared)."""
    if parted.position is None or parted.index is None:
        return None
    return (parted.index, parted.position, parted.prime_seen, parted.marks_hits)


def _shared_keys(
    record: GameRecord, parted: Parted, where: object, twins: tuple[str, ...] | None
) -> tuple[object, object]:
    """What a ruleset leaving the groups at ``where`` (:func:`_where`, not None) shares its
    replay's verdict by: its scoring twins (and where), and every option that can matter to
    the refused play's diagnosis."""
    position, index = parted.position, parted.index
    assert position is not None and index is not None
    twin_key = (twins, where) if twins else None
    plays = record.plays
    written = plays[index]
    if written.dice is None or written.opponent_moves:
        return twin_key, None
    # the diagnosis tries the play with its neighbours' rolls too (the dice of two swapped)
    rolls = {written.dice}
    for neighbour in (index - 1, index + 1):
        if 0 <= neighbour < len(plays) and (dice := plays[neighbour].dice) is not None:
            rolls.add(dice)
    alike = judged_alike(position, sorted(rolls), parted.rules)
    opening = parted.rules.opening if index == 0 else None  # the first play's own rule
    return twin_key, (where, opening, alike)


def _replayed_verdict(record: GameRecord, parted: Parted, words: bool = True) -> Exclusion | None:
    """The ordinary replay under a ruleset, from where it parted (``words``: with the slip
    a refused play suggests), and its verdict (:func:`_game_verdict`)."""
    rules, position, index = parted.rules, parted.position, parted.index
    if position is None or index is None:
        return game_verdict(replay(record, rules), 1)
    white, black = parted.prime_seen
    prime_seen: dict[Side, bool] = {"white": white, "black": black}
    game = replay_from(
        record, rules, position, index, prime_seen, parted.marks_hits, parted.refused, words
    )
    return game_verdict(game, index + 1)


def game_verdict(game: ReplayedGame, first: int) -> Exclusion | None:
    """A replay's verdict, its plies numbered from ``first``: its first error on the main
    line, else its first error of the game as a whole (the result, a ``[Position]`` tag);
    variations are not judged."""
    rules = game.rules
    for number, ply in enumerate(game.plies, start=first):
        if ply.error is not None:
            return exclusion(rules, ply.error, number)
    in_variations = {id(error) for error in _variation_errors(game.plies)}
    for error in game.errors:
        if id(error) not in in_variations:
            return exclusion(rules, error, None)
    return None


def _variation_errors(plies: list[ReplayedPly]) -> list[JacquetError]:
    """Every error found in the variations below ``plies``."""
    found: list[JacquetError] = []
    for ply in plies:
        for branch in ply.variations:
            found.extend(ply.error for ply in branch if ply.error is not None)
            found.extend(_variation_errors(branch))
    return found


def exclusion(rules: Rules, error: JacquetError, ply: int | None) -> Exclusion:
    return Exclusion(rules.name, ply, error.line, error.column, error.message, error.kind)
