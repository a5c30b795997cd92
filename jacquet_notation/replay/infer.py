"""Which rules? Every named ruleset under which a record's plays are legal, and for each other
ruleset the first ply that breaks it, in the replay's own words (docs/infer.md).

The verdict for a ruleset is exactly what :func:`.walk.replay` under it says of the main line
and the result; the work is shared. The rulesets walk the main line together in groups, one
group a position: at each ply the members whose options agree for this roll in this position
(:class:`..engine.agreement.Agreement`) have the written play checked once, on the common path
the walk itself takes inline. A member that anything else concerns (a check fails, a pass, a
bare roll, dice left out, a share, the lead, a ``[Position]`` tag) leaves the groups and is
replayed alone the ordinary way, which finds its first error and words it; so a ruleset
excluded early costs only its prefix, and those that agree to the end cost one check a class.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..budget import check_time, deadline
from ..engine import (
    Agreement,
    Play,
    allows_final,
    holds_prime,
    holds_six,
    judged_alike,
    score,
    unstructured,
    validate_play,
    winner,
)
from ..errors import AmbiguousPlayError, IllegalPlayError, JacquetError
from ..position import Position, Side
from ..record import POSITION_TAG, GameRecord, WrittenPlay
from ..rules import Rules
from .game import Context, ReplayedGame, ReplayedPly
from .marks import unmarked_hits
from .tags import RULES_TAG, check_result
from .verdicts import NAMED_RULESETS, Exclusion, Inference, scoring_twins
from .walk import replay, replay_from

#: one check of a ply for a class of rulesets: the rules it is checked under, the members whose
#: verdict it is, those whose verdict it is only for a play that uses every die and (their
#: structural rules) reaches a position they allow, and the members that move on together,
#: with no look at any one of them, when the play uses every die and reaches no six points in
#: a row (the direct ones, the share's and the block conventions': all but Murray's limits)
_Check = tuple[Rules, list[Rules], list[Rules], list[Rules]]
#: a group of the next ply: its position, the primes seen, whether the record marks its hits
_Key = tuple[Position, bool, bool, bool]


@dataclass(slots=True)
class _Group:
    """Rulesets that have reached the same position by the same plays."""

    position: Position
    members: list[Rules]
    prime_seen: dict[Side, bool] = field(default_factory=lambda: {"white": False, "black": False})
    #: whether the record has marked every hit so far (the walk's ``marks_hits``)
    marks_hits: bool = True
    #: the checks of a ply, by what can matter in it (:meth:`Agreement.situation`): the members
    #: stay together most of a game, and so do their classes
    plans: dict[tuple[bool, ...], list[_Check]] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class _Parted:
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


def _parted(
    rules: Rules, index: int, group: _Group, refused: IllegalPlayError | None = None
) -> _Parted:
    prime = group.prime_seen
    at = group.position
    return _Parted(rules, index, at, (prime["white"], prime["black"]), group.marks_hits, refused)


def infer(
    record: GameRecord,
    rulesets: Sequence[Rules] = NAMED_RULESETS,
    *,
    words: bool = True,
    replayed: ReplayedGame | None = None,
) -> Inference:
    """The rulesets ``record`` is consistent with, and where it breaks each other one.

    ``words``: whether a refused play's reason names the slip that explains it (looking for
    it is most of the cost of an excluded ruleset; the archive, which keeps only which
    rulesets fit, does without). ``replayed``: the record's replay under one of ``rulesets``,
    made already (the archive's, before the match checks are added to it): that ruleset's
    verdict is read from it, and it is not walked again."""
    file, declared = record.file or "<stdin>", record.tags.get(RULES_TAG)
    tags = record.tags
    label = f"{tags.get('White', '?')} v {tags.get('Black', '?')}, {tags.get('Date', '?')}"
    if record.errors:
        return Inference(file, record.index, declared, (), (), tuple(record.errors), label=label)
    verdicts: dict[str, Exclusion | None] = {}
    walked = rulesets
    if replayed is not None and replayed.rules in rulesets:
        verdicts[replayed.rules.name] = _game_verdict(replayed, 1)
        walked = [rules for rules in rulesets if rules != replayed.rules]
    alone: list[_Parted] = []
    if POSITION_TAG in record.tags:
        # a set position is read and checked under each ruleset: the walk's own business
        alone.extend(_Parted(rules, None) for rules in walked)
        groups: list[_Group] = []
    else:
        groups = _start_groups(record, walked)
    limit = deadline()  # the desk's time budget (none elsewhere): checked between plies
    for index, written in enumerate(record.plays):
        if not groups:
            break
        if limit is not None:
            check_time(limit)
        groups = _advance(groups, index, written, alone)
    for group in groups:
        for rules in group.members:
            verdicts[rules.name] = _result_verdict(record, rules, group)
    _replay_alone(record, alone, rulesets, verdicts, words)
    names = [rules.name for rules in rulesets]
    consistent = tuple(name for name in names if verdicts[name] is None)
    excluded = tuple(verdict for name in names if (verdict := verdicts[name]) is not None)
    twins = tuple(
        pair for pair in scoring_twins(rulesets) if sum(name in consistent for name in pair) > 1
    )
    return Inference(
        file, record.index, declared, consistent, excluded, scoring_only=twins, label=label
    )


def _start_groups(record: GameRecord, rulesets: Sequence[Rules]) -> list[_Group]:
    """One group for each start position the rulesets set out from (the stack, backgammon's)."""
    first: Side = record.plays[0].side if record.plays else "white"
    groups: dict[Position, _Group] = {}
    for rules in rulesets:
        start = Position.start(rules).with_turn(first)
        group = groups.get(start)
        if group is None:
            groups[start] = _Group(start, [rules])
        else:
            group.members.append(rules)
    return list(groups.values())


def _advance(
    groups: list[_Group], index: int, written: WrittenPlay, alone: list[_Parted]
) -> list[_Group]:
    """The groups after one ply of the main line; a member the common path cannot settle
    goes to ``alone``."""
    if written.action is not None and index > 0:
        return groups  # a cube action, or a roll whose play is not given: no man moves
    after: dict[_Key, _Group] = {}
    #: the group each group of the next ply came from, while it came from one alone
    origins: dict[_Key, _Group | None] = {}
    for group in groups:
        position = group.position
        dice = written.dice
        if (
            dice is None
            or written.action is not None
            or written.is_bare_roll
            or written.opponent_moves
            or written.side != position.turn
            or position.over
            or (index == 0 and dice[0] == dice[1])
        ):
            # the walk's careful checks, the lead, the opening
            alone.extend(_parted(rules, index, group) for rules in group.members)
            continue
        moves = written.moves_as_pairs()
        if len(group.members) == 1:  # its own rules, whatever the roll: nothing to weigh
            play = _check(position, dice, moves, group.members[0])
            if not isinstance(play, Play):
                alone.append(_parted(group.members[0], index, group, play))
            else:
                _join(after, origins, group, written, play, group.members)
            continue
        agreement = Agreement(position, dice)
        for checker, direct, others, light in _plan(group, agreement):
            checked = _check(position, dice, moves, checker)
            shared = checked if isinstance(checked, Play) else None
            if shared is None:
                # a class of one was checked under its own rules: its refusal is the replay's
                refused = checked if direct == [checker] and not others else None
                alone.extend(_parted(rules, index, group, refused) for rules in direct)
                movers: list[Rules] = []
            elif not others:
                _join(after, origins, group, written, shared, direct)
                continue
            else:
                movers = direct
                six: dict[bool, bool] = {}
                if len(shared.steps) == agreement.steps(checker):
                    # every die used: only six points in a row could part the class
                    hitting = checker.hitting
                    six[hitting] = holds_six(shared.position, position.turn, hitting)
                    if not six[hitting]:
                        movers = light
                        if len(light) == len(direct) + len(others):
                            _join(after, origins, group, written, shared, light)
                            continue
            for rules in others:
                if movers is light and not _limited(rules):
                    continue  # moved on with the light ones
                if shared is not None and _same_verdict(agreement, position, shared, rules, six):
                    movers = [*movers, rules]
                    continue
                # its own answer: a structural rule, a die left over (the share), a refusal
                own: Play | IllegalPlayError | None = None
                if shared is not None or rules.every_die_used or agreement.binds(rules):
                    own = _check(position, dice, moves, rules)
                if not isinstance(own, Play):
                    alone.append(_parted(rules, index, group, own))  # the replay says why
                else:
                    _join(after, origins, group, written, own, [rules])
            if shared is not None and movers:
                _join(after, origins, group, written, shared, movers)
    for key, joined in after.items():
        source = origins[key]
        if source is not None and len(joined.members) == len(source.members):
            joined.plans = source.plans  # the same members: the same classes
    return list(after.values())


def _plan(group: _Group, agreement: Agreement) -> list[_Check]:
    """The checks of this ply for the group's members: one a class of members whose options
    agree for this roll here (:meth:`Agreement.key`). A class of one is checked under its own
    rules; a larger one under its common steps (:func:`unstructured`), each member's share and
    structural rules then weighed apart."""
    situation = agreement.situation()
    plan = group.plans.get(situation)
    if plan is not None:
        return plan
    classes: dict[tuple[object, ...], list[Rules]] = {}
    for rules in group.members:
        classes.setdefault(agreement.key(rules), []).append(rules)
    plan = []
    for members in classes.values():
        if len(members) == 1:
            plan.append((members[0], members, [], members))
            continue
        direct = [rules for rules in members if not rules.structural and not rules.every_die_used]
        others = [rules for rules in members if rules.structural or rules.every_die_used]
        light = [rules for rules in members if not _limited(rules)]
        plan.append((unstructured(members[0]), direct, others, light))
    group.plans[situation] = plan
    return plan


def _check(
    position: Position, dice: tuple[int, int], moves: list[tuple[int, int]], rules: Rules
) -> Play | IllegalPlayError:
    """The written play under ``rules`` as the walk checks it inline, or the engine's refusal
    (an ambiguous one too: the walk settles that by the marks, alone), kept without its
    traceback (which would hold this frame) for the replay alone to take."""
    try:
        return validate_play(position, dice, moves, rules, ())
    except (AmbiguousPlayError, IllegalPlayError) as refused:
        return refused.with_traceback(None)


def _same_verdict(
    agreement: Agreement, position: Position, play: Play, rules: Rules, six: dict[bool, bool]
) -> bool:
    """Whether ``play``, accepted under the unstructured rules of ``rules``' class, is
    ``rules``' own verdict: it uses every die (so neither a share nor a structural rule can
    make a shorter play legal instead) or nothing else can bind, and its structural rules
    allow the position it reaches (``six``: whether that position holds six points in a row,
    by hitting, found once for the class)."""
    full = len(play.steps) == agreement.steps(rules)
    if rules.every_die_used and not full:
        return False
    if not rules.structural:
        return True
    if full:
        hitting = rules.hitting
        if hitting not in six:
            six[hitting] = holds_six(play.position, position.turn, hitting)
        return allows_final(position, play, rules, six[hitting])
    return not agreement.binds(rules)


def _limited(rules: Rules) -> bool:
    """Whether Murray's limits bind ``rules``: a final position they judge needs no six points
    in a row (the block conventions need them)."""
    return rules.start_table_points is not None or rules.midpoint_men is not None


def _join(
    after: dict[_Key, _Group],
    origins: dict[_Key, _Group | None],
    group: _Group,
    written: WrittenPlay,
    play: Play,
    movers: list[Rules],
) -> None:
    """``movers`` moved on by ``play`` into the group of their new position and of what the
    walk learns from a play: whether a prime was held (marcia's score), whether the record
    marks its hits. A group of the next ply that holds the very members of one group of this
    ply keeps that group's plans (:func:`_advance`, from ``origins``)."""
    marks_hits = group.marks_hits and not (play.steps and unmarked_hits(written, play))
    mover = group.position.turn
    prime_seen = group.prime_seen
    parts = [(movers, prime_seen)]
    if not prime_seen[mover] and any(rules.scoring == "marcia" for rules in movers):
        if holds_prime(play.position, mover):
            rest = [rules for rules in movers if rules.scoring != "marcia"]
            marcia = [rules for rules in movers if rules.scoring == "marcia"]
            parts = [(rest, prime_seen), (marcia, {**prime_seen, mover: True})]
    for members, prime in parts:
        if not members:
            continue
        key = (play.position, prime["white"], prime["black"], marks_hits)
        joined = after.get(key)
        if joined is None:
            after[key] = _Group(play.position, list(members), dict(prime), marks_hits)
            origins[key] = group
        else:
            joined.members.extend(members)
            if origins[key] is not group:
                origins[key] = None


def _result_verdict(record: GameRecord, rules: Rules, group: _Group) -> Exclusion | None:
    """A ruleset that accepted every play: the written result checked under its scoring."""
    final = group.position
    won = winner(final)
    points = score(final, won, rules, group.prime_seen[won]) if won is not None else 0
    game = ReplayedGame(record, rules, [], [], final, won, points, group.prime_seen)
    check_result(game, Context(record, rules, True))
    return _exclusion(rules, game.errors[0], None) if game.errors else None


def _replay_alone(
    record: GameRecord,
    alone: list[_Parted],
    rulesets: Sequence[Rules],
    verdicts: dict[str, Exclusion | None],
    words: bool = True,
) -> None:
    """Each ruleset that left the groups replayed from where it left, but that one replay
    answers for several that left together and must be answered alike: two that differ only
    in scoring (whose words differ only at the result), or a play refused at once under
    rulesets whose options all agree for every roll the diagnosis asks about there."""
    twins = {name: pair for pair in scoring_twins(tuple(rulesets)) for name in pair}
    told: dict[object, Exclusion | None] = {}
    # a ruleset alone where it left shares with none: its keys are not worth working out
    crowds = Counter(_where(parted) for parted in alone)
    for parted in alone:
        name = parted.rules.name
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


def _where(parted: _Parted) -> tuple[object, ...] | None:
    """The state a ruleset left the groups in (None: before any play was shared)."""
    if parted.position is None or parted.index is None:
        return None
    return (parted.index, parted.position, parted.prime_seen, parted.marks_hits)


def _shared_keys(
    record: GameRecord, parted: _Parted, where: object, twins: tuple[str, ...] | None
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


def _replayed_verdict(record: GameRecord, parted: _Parted, words: bool = True) -> Exclusion | None:
    """The ordinary replay under a ruleset, from where it parted (``words``: with the slip
    a refused play suggests), and its verdict (:func:`_game_verdict`)."""
    rules, position, index = parted.rules, parted.position, parted.index
    if position is None or index is None:
        return _game_verdict(replay(record, rules), 1)
    white, black = parted.prime_seen
    prime_seen: dict[Side, bool] = {"white": white, "black": black}
    game = replay_from(
        record, rules, position, index, prime_seen, parted.marks_hits, parted.refused, words
    )
    return _game_verdict(game, index + 1)


def _game_verdict(game: ReplayedGame, first: int) -> Exclusion | None:
    """A replay's verdict, its plies numbered from ``first``: its first error on the main
    line, else its first error of the game as a whole (the result, a ``[Position]`` tag);
    variations are not judged."""
    rules = game.rules
    for number, ply in enumerate(game.plies, start=first):
        if ply.error is not None:
            return _exclusion(rules, ply.error, number)
    in_variations = {id(error) for error in _variation_errors(game.plies)}
    for error in game.errors:
        if id(error) not in in_variations:
            return _exclusion(rules, error, None)
    return None


def _variation_errors(plies: list[ReplayedPly]) -> list[JacquetError]:
    """Every error found in the variations below ``plies``."""
    found: list[JacquetError] = []
    for ply in plies:
        for branch in ply.variations:
            found.extend(ply.error for ply in branch if ply.error is not None)
            found.extend(_variation_errors(branch))
    return found


def _exclusion(rules: Rules, error: JacquetError, ply: int | None) -> Exclusion:
    return Exclusion(rules.name, ply, error.line, error.column, error.message, error.kind)
