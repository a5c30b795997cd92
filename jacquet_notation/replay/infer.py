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
Given the record's replay under one ruleset, the others that can follow its plays do
(:mod:`.follow`), leaving the same way, and only the rest walk.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from ..budget import check_time, deadline
from ..engine import (
    Agreement,
    Play,
    allows_final,
    holds_prime,
    holds_six,
    score,
    unstructured,
    winner,
)
from ..errors import IllegalPlayError
from ..position import Position, Side
from ..record import POSITION_TAG, GameRecord, WrittenPlay
from ..rules import Rules
from .alone import Parted, checked_play, exclusion, game_verdict, left_alone, replay_alone
from .follow import follow, followers
from .game import Context, ReplayedGame
from .marks import unmarked_hits
from .tags import RULES_TAG, check_result
from .verdicts import NAMED_RULESETS, Exclusion, Inference, scoring_twins

#: one check of a ply for a class of rulesets: the rules it is checked under, the members whose
#: verdict it is, those whose verdict it is only for a play that uses every die and (their
#: structural rules) reaches a position they allow, and the members that move on together,
#: with no look at any one of them, when the play uses every die and reaches no six points in
#: a row (the direct ones, the share's and the block conventions': all but Murray's limits),
#: and the class's :meth:`Agreement.key` where its check has no structural rule and no share
#: (so that the replay's own play can answer it, :func:`_advance`), else None
_Check = tuple[Rules, list[Rules], list[Rules], list[Rules], tuple[object, ...] | None]
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
    #: whether any member scores marcia (a prime held counts): else no prime is looked for
    marcia: bool = field(init=False)

    def __post_init__(self) -> None:
        self.marcia = any(rules.scoring == "marcia" for rules in self.members)


def _parted(
    rules: Rules,
    index: int,
    group: _Group,
    refused: IllegalPlayError | None = None,
    judged: IllegalPlayError | None = None,
) -> Parted:
    prime = group.prime_seen
    at, marks = group.position, group.marks_hits
    return Parted(rules, index, at, (prime["white"], prime["black"]), marks, refused, judged)


def infer(
    record: GameRecord,
    rulesets: Sequence[Rules] = NAMED_RULESETS,
    *,
    words: bool = True,
    replayed: ReplayedGame | None = None,
) -> Inference:
    """The rulesets ``record`` is consistent with, and where it breaks each other one.

    ``words``: whether a refused play's reason names the slip that explains it (looking for
    it is most of the cost of an excluded ruleset). ``replayed``: the record's replay under one
    of ``rulesets``, made already: that ruleset's verdict is read from it, and it is not walked
    again."""
    file, declared = record.file or "<stdin>", record.tags.get(RULES_TAG)
    tags = record.tags
    label = f"{tags.get('White', '?')} v {tags.get('Black', '?')}, {tags.get('Date', '?')}"
    if record.errors:
        return Inference(file, record.index, declared, (), (), tuple(record.errors), label=label)
    verdicts = _verdicts(record, rulesets, replayed, words, fits_only=False)
    names = [rules.name for rules in rulesets]
    consistent = tuple(name for name in names if verdicts[name] is None)
    excluded = tuple(verdict for name in names if (verdict := verdicts[name]) is not None)
    twins = tuple(
        pair for pair in scoring_twins(rulesets) if sum(name in consistent for name in pair) > 1
    )
    return Inference(
        file, record.index, declared, consistent, excluded, scoring_only=twins, label=label
    )


def consistent_rulesets(
    record: GameRecord,
    rulesets: Sequence[Rules] = NAMED_RULESETS,
    *,
    replayed: ReplayedGame | None = None,
) -> tuple[str, ...]:
    """``infer(record, rulesets, replayed=replayed).consistent``, and nothing more: what the
    archive keeps. No exclusion is worded, and a ruleset whose own check refused a play is
    excluded there without a replay (the replay's verdict on that play is that refusal);
    ``()`` for a record that did not parse."""
    if record.errors:
        return ()
    verdicts = _verdicts(record, rulesets, replayed, False, fits_only=True)
    return tuple(rules.name for rules in rulesets if verdicts[rules.name] is None)


def _verdicts(
    record: GameRecord,
    rulesets: Sequence[Rules],
    replayed: ReplayedGame | None,
    words: bool,
    fits_only: bool,
) -> dict[str, Exclusion | None]:
    """Each ruleset's verdict by name: None where the game fits it (``fits_only``: an
    exclusion is only known to be one, :func:`.alone.replay_alone`)."""
    verdicts: dict[str, Exclusion | None] = {}
    walked = rulesets
    if replayed is not None and replayed.rules in rulesets:
        verdicts[replayed.rules.name] = game_verdict(replayed, 1)
        walked = [rules for rules in rulesets if rules != replayed.rules]
    alone: list[Parted] = []
    if POSITION_TAG in record.tags:
        # a set position is read and checked under each ruleset: the walk's own business
        alone.extend(Parted(rules, None) for rules in walked)
        groups: list[_Group] = []
    else:
        # those that can follow the replay's own plays do (:mod:`.follow`), the rest walk
        followed, walked = followers(record, replayed, walked)
        if replayed is not None and followed:
            for rules, final, prime_seen in follow(record, replayed, followed, alone):
                verdicts[rules.name] = _result_verdict(record, rules, final, prime_seen)
        groups = _start_groups(record, walked)
    limit = deadline()  # the desk's time budget (none elsewhere): checked between plies
    for index, written in enumerate(record.plays):
        if not groups:
            break
        if limit is not None:
            check_time(limit)
        groups = _advance(groups, index, written, alone, _known(replayed, index, written))
    for group in groups:
        for rules in group.members:
            verdicts[rules.name] = _result_verdict(record, rules, group.position, group.prime_seen)
    replay_alone(record, alone, rulesets, verdicts, words, fits_only)
    return verdicts


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


#: the replay's own ply, as :func:`_known` hands it on: the position it was played from, its
#: play, the replay's rules
_Known = tuple[Position, Play, Rules]


def _known(replayed: ReplayedGame | None, index: int, written: WrittenPlay) -> _Known | None:
    """The replayed ply of play ``index``, where its play can stand for a class's check
    (:func:`_advance`): its rules hit nothing and share nothing (so a play of theirs that uses
    every die reaches the same position, by the same steps, under any rules whose options agree
    on the roll but the structural ones, which only ever forbid a final position), and the
    replay accepted it."""
    if replayed is None or replayed.rules.hitting or replayed.rules.every_die_used:
        return None
    plies = replayed.plies
    if index >= len(plies):
        return None
    ply = plies[index]
    if ply.written is not written or ply.error is not None or ply.play is None:
        return None
    return ply.before, ply.play, replayed.rules


def _advance(
    groups: list[_Group],
    index: int,
    written: WrittenPlay,
    alone: list[Parted],
    known: _Known | None = None,
) -> list[_Group]:
    """The groups after one ply of the main line; a member the common path cannot settle
    goes to ``alone``. ``known``: the replay's own ply there (:func:`_known`), whose play is
    taken for a class's check where the class judges the roll as its rules do."""
    if written.action is not None and index > 0:
        return groups  # a cube action, or a roll whose play is not given: no man moves
    after: dict[_Key, _Arrival] = {}
    for group in groups:
        position = group.position
        dice = written.dice
        if dice is None or left_alone(written, position, index):  # None said again for the type
            # the walk's careful checks, the lead, the opening
            alone.extend(_parted(rules, index, group) for rules in group.members)
            continue
        if len(group.members) == 1:  # its own rules, whatever the roll: nothing to weigh
            play = _check(position, dice, written, group.members[0])
            if not isinstance(play, Play):
                alone.append(_parted(group.members[0], index, group, play))
            else:
                _join(after, group, written, play, group.members)
            continue
        agreement = Agreement(position, dice)
        # the replay's play, for a class whose check it answers (:func:`_known`)
        ready, told = _told(agreement, position, known)
        for checker, direct, others, light, key in _plan(group, agreement):
            if ready is not None and key is not None and key == told:
                checked: Play | IllegalPlayError = ready  # the replay's: the same check
            else:
                checked = _check(position, dice, written, checker)
            shared = checked if isinstance(checked, Play) else None
            if not isinstance(checked, Play):
                # a class of one was checked under its own rules: its refusal is the replay's
                refused = checked if direct == [checker] and not others else None
                # the class's refusal is each direct member's verdict, if not in its words
                alone.extend(_parted(rules, index, group, refused, checked) for rules in direct)
                movers: list[Rules] = []
            elif not others:
                _join(after, group, written, checked, direct)
                continue
            else:
                movers = direct
                six: dict[bool, bool] = {}
                if len(checked.steps) == agreement.steps(checker):
                    # every die used: only six points in a row could part the class
                    hitting = checker.hitting
                    six[hitting] = holds_six(checked.position, position.turn, hitting)
                    if not six[hitting]:
                        movers = light
                        if len(light) == len(direct) + len(others):
                            _join(after, group, written, checked, light)
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
                    own = _check(position, dice, written, rules)
                if own is None and not isinstance(checked, Play):  # the class's verdict
                    alone.append(_parted(rules, index, group, None, checked))
                elif not isinstance(own, Play):
                    alone.append(_parted(rules, index, group, own))  # the replay says why
                else:
                    _join(after, group, written, own, [rules])
            if shared is not None and movers:
                _join(after, group, written, shared, movers)
    return _arrived(after)


def _told(
    agreement: Agreement, position: Position, known: _Known | None
) -> tuple[Play | None, tuple[object, ...] | None]:
    """The replay's own play of this ply from ``position``, where it uses every die, and the
    :meth:`Agreement.key` of its rules: a class with that key, no structural rule and no share
    would find the same play (:func:`_known`); (None, None) where there is none."""
    if known is None or (known[0] is not position and known[0] != position):
        return None, None
    _, play, rules = known
    if len(play.steps) != agreement.steps(rules):
        return None, None
    return play, agreement.key(rules)


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
            single = members[0]
            plain = not single.structural and not single.every_die_used
            plan.append((single, members, [], members, agreement.key(single) if plain else None))
            continue
        direct = [rules for rules in members if not rules.structural and not rules.every_die_used]
        others = [rules for rules in members if rules.structural or rules.every_die_used]
        light = [rules for rules in members if not _limited(rules)]
        checker = unstructured(members[0])
        plan.append((checker, direct, others, light, agreement.key(checker)))
    group.plans[situation] = plan
    return plan


def _check(
    position: Position, dice: tuple[int, int], written: WrittenPlay, rules: Rules
) -> Play | IllegalPlayError:
    """:func:`.alone.checked_play` of the written play, its moves paired here, for a check
    only: most plies of a game are answered by the replay's play."""
    return checked_play(position, dice, written.moves_as_pairs(), rules)


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


@dataclass(slots=True)
class _Arrival:
    """The members of the next ply's group at one position, and the group of this ply they all
    came from (None once they came from two)."""

    members: list[Rules]
    prime_seen: dict[Side, bool]
    origin: _Group | None


def _join(
    after: dict[_Key, _Arrival],
    group: _Group,
    written: WrittenPlay,
    play: Play,
    movers: list[Rules],
) -> None:
    """``movers`` moved on by ``play`` into the group of their new position and of what the
    walk learns from a play: whether a prime was held (marcia's score), whether the record
    marks its hits (:func:`_arrived` makes the groups)."""
    marks_hits = group.marks_hits and not (play.steps and unmarked_hits(written, play))
    mover = group.position.turn
    prime_seen = group.prime_seen
    parts = [(movers, prime_seen)]
    if (
        group.marcia
        and not prime_seen[mover]
        and any(rules.scoring == "marcia" for rules in movers)
        and holds_prime(play.position, mover)
    ):
        rest = [rules for rules in movers if rules.scoring != "marcia"]
        marcia = [rules for rules in movers if rules.scoring == "marcia"]
        parts = [(rest, prime_seen), (marcia, {**prime_seen, mover: True})]
    for members, prime in parts:
        if not members:
            continue
        key = (play.position, prime["white"], prime["black"], marks_hits)
        arrival = after.get(key)
        if arrival is None:
            after[key] = _Arrival(list(members), prime, group)
        else:
            arrival.members.extend(members)
            if arrival.origin is not group:
                arrival.origin = None


def _arrived(after: dict[_Key, _Arrival]) -> list[_Group]:
    """The groups of the next ply. A group whose members all arrive together goes on (its
    plans, by its members, still hold); the others are made anew."""
    groups = []
    for (position, _, _, marks_hits), arrival in after.items():
        group = arrival.origin
        if group is not None and len(arrival.members) == len(group.members):
            group.position, group.marks_hits = position, marks_hits
            if arrival.prime_seen is not group.prime_seen:
                group.prime_seen = dict(arrival.prime_seen)
        else:
            members, prime = arrival.members, dict(arrival.prime_seen)
            group = _Group(position, members, prime, marks_hits)
        groups.append(group)
    return groups


def _result_verdict(
    record: GameRecord, rules: Rules, final: Position, prime_seen: dict[Side, bool]
) -> Exclusion | None:
    """A ruleset that accepted every play, reaching ``final``: the written result checked
    under its scoring."""
    won = winner(final)
    points = score(final, won, rules, prime_seen[won]) if won is not None else 0
    game = ReplayedGame(record, rules, [], [], final, won, points, prime_seen)
    check_result(game, Context(record, rules, True))
    return exclusion(rules, game.errors[0], None) if game.errors else None
