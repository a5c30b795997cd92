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
import functools
from collections.abc import Sequence
from dataclasses import dataclass, field

from ..engine import Play, dice_steps, holds_prime, score, validate_play, winner
from ..engine.agreement import Agreement, allows_final, unstructured
from ..errors import AmbiguousPlayError, IllegalPlayError, JacquetError
from ..position import Position, Side
from ..record import POSITION_TAG, GameRecord, WrittenPlay
from ..rules import RULESET_NAMES, Rules
from .game import Context, ReplayedGame, ReplayedPly
from .tags import RULES_TAG, check_result
from .walk import _unmarked_hits, replay, replay_from

#: every named ruleset, the default first (rules.py's order)
NAMED_RULESETS: tuple[Rules, ...] = tuple(Rules.named(name) for name in RULESET_NAMES)


@dataclass(frozen=True, slots=True)
class Exclusion:
    """A ruleset a record breaks: at which ply of the main line (1 = the first play written;
    None for the result or the record as a whole), where in the text, and why."""

    rules: str
    ply: int | None
    line: int | None
    column: int | None
    reason: str
    kind: str

    def to_json(self) -> dict[str, object]:
        return {
            "rules": self.rules,
            "ply": self.ply,
            "line": self.line,
            "column": self.column,
            "reason": self.reason,
        }


@dataclass(frozen=True, slots=True)
class Inference:
    """What the plays of one record say of its rules; ``declared`` is its ``[Rules]`` tag as
    written (None without one), reported beside and never trusted."""

    file: str
    game: int
    declared: str | None
    consistent: tuple[str, ...]
    excluded: tuple[Exclusion, ...]
    #: a record that did not parse: its errors (nothing is inferred)
    errors: tuple[JacquetError, ...] = ()
    #: consistent rulesets that differ only in their scoring, which only a result could part
    scoring_only: tuple[tuple[str, ...], ...] = ()
    #: how a person names the game: ``White v Black, date`` from its tags
    label: str = ""

    def to_json(self) -> dict[str, object]:
        answer: dict[str, object] = {
            "file": self.file,
            "game": self.game,
            "declared": self.declared,
            "consistent": list(self.consistent),
            "excluded": [exclusion.to_json() for exclusion in self.excluded],
        }
        if self.errors:
            answer["errors"] = [str(error).splitlines()[0] for error in self.errors]
        return answer


@dataclass(slots=True)
class _Group:
    """Rulesets that have reached the same position by the same plays."""

    position: Position
    members: list[Rules]
    prime_seen: dict[Side, bool] = field(default_factory=lambda: {"white": False, "black": False})
    #: whether the record has marked every hit so far (the walk's ``marks_hits``)
    marks_hits: bool = True


@dataclass(frozen=True, slots=True)
class _Parted:
    """A ruleset that left the groups at play ``index`` (None: before any play is shared), in
    the state the walk would have reached there, to be replayed alone from there."""

    rules: Rules
    index: int | None
    group: _Group | None


@functools.cache
def scoring_twins(rulesets: tuple[Rules, ...] = NAMED_RULESETS) -> tuple[tuple[str, ...], ...]:
    """The rulesets that differ only in scoring (jacquet and spanish), grouped: no play can
    tell them apart, only a result."""
    groups: dict[Rules, list[str]] = {}
    for rules in rulesets:
        groups.setdefault(rules.replace(name="", scoring="single-double"), []).append(rules.name)
    return tuple(tuple(names) for names in groups.values() if len(names) > 1)


def infer(record: GameRecord, rulesets: Sequence[Rules] = NAMED_RULESETS) -> Inference:
    """The rulesets ``record`` is consistent with, and where it breaks each other one."""
    file, declared = record.file or "<stdin>", record.tags.get(RULES_TAG)
    tags = record.tags
    label = f"{tags.get('White', '?')} v {tags.get('Black', '?')}, {tags.get('Date', '?')}"
    if record.errors:
        return Inference(file, record.index, declared, (), (), tuple(record.errors), label=label)
    verdicts: dict[str, Exclusion | None] = {}
    alone: list[_Parted] = []
    if POSITION_TAG in record.tags:
        # a set position is read and checked under each ruleset: the walk's own business
        alone.extend(_Parted(rules, None, None) for rules in rulesets)
        groups: list[_Group] = []
    else:
        groups = _start_groups(record, rulesets)
    for index, written in enumerate(record.plays):
        if not groups:
            break
        groups = _advance(groups, index, written, alone)
    for group in groups:
        for rules in group.members:
            verdicts[rules.name] = _result_verdict(record, rules, group)
    _replay_alone(record, alone, rulesets, verdicts)
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
    after: dict[tuple[Position, bool, bool, bool], _Group] = {}
    for group in groups:
        position = group.position
        here = index if index > 0 else None  # the lead and the opening: from the start
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
            alone.extend(_Parted(rules, here, group) for rules in group.members)
            continue
        moves = written.moves_as_pairs()
        agreement = Agreement(position, dice)
        for members in _classes(group.members, agreement):
            # a class of one is checked under its own rules; a larger one under their common
            # steps, each member's structural rules then judging the position reached
            checker = members[0] if len(members) == 1 else unstructured(members[0])
            shared = _check(position, dice, moves, checker)
            marks = shared is not None and group.marks_hits and not _unmarked_hits(written, shared)
            for rules in members:
                if shared is not None and (
                    checker is rules or _same_verdict(agreement, position, shared, rules)
                ):
                    _join(after, group, marks, shared, rules)
                    continue
                # its own answer: a structural rule, a die left over (the share), a refusal
                own = (
                    _check(position, dice, moves, rules)
                    if checker is not rules
                    and (shared is not None or rules.every_die_used or agreement.binds(rules))
                    else None
                )
                if own is None:
                    alone.append(_Parted(rules, here, group))  # the replay says why
                else:
                    own_marks = group.marks_hits and not _unmarked_hits(written, own)
                    _join(after, group, own_marks, own, rules)
    return list(after.values())


def _check(
    position: Position, dice: tuple[int, int], moves: list[tuple[int, int]], rules: Rules
) -> Play | None:
    """The written play under ``rules`` as the walk checks it inline, or None if refused (or
    ambiguous: the walk settles that by the marks, alone)."""
    try:
        return validate_play(position, dice, moves, rules, ())
    except (AmbiguousPlayError, IllegalPlayError):
        return None


def _same_verdict(agreement: Agreement, position: Position, play: Play, rules: Rules) -> bool:
    """Whether ``play``, accepted under the unstructured rules of ``rules``' class, is
    ``rules``' own verdict: it uses every die (so neither a share nor a structural rule can
    make a shorter play legal instead) or nothing else can bind, and its structural rules
    allow the position it reaches."""
    full = _every_die(play, agreement.dice, rules)
    if rules.every_die_used and not full:
        return False
    if not agreement.binds(rules):
        return True
    return full and allows_final(position, play, rules)


def _classes(members: list[Rules], agreement: Agreement) -> list[list[Rules]]:
    """The members split by what can matter for this roll here: one check a class."""
    if len(members) == 1:
        return [members]
    classes: dict[tuple[object, ...], list[Rules]] = {}
    for rules in members:
        classes.setdefault(agreement.key(rules), []).append(rules)
    return list(classes.values())


def _every_die(play: Play, dice: tuple[int, int], rules: Rules) -> bool:
    """Whether ``play`` uses every step the roll gives under ``rules`` (nothing to share)."""
    return len(play.steps) == len(dice_steps(dice, rules))


def _join(
    after: dict[tuple[Position, bool, bool, bool], _Group],
    group: _Group,
    marks_hits: bool,
    play: Play,
    rules: Rules,
) -> None:
    """``rules`` moved on by ``play`` into the group of its new position (and of what the
    walk learns from a play: whether a prime was held, whether the record marks its hits)."""
    prime_seen = group.prime_seen
    mover = group.position.turn
    if rules.scoring == "marcia" and not prime_seen[mover] and holds_prime(play.position, mover):
        prime_seen = {**prime_seen, mover: True}
    key = (play.position, prime_seen["white"], prime_seen["black"], marks_hits)
    joined = after.get(key)
    if joined is None:
        after[key] = _Group(play.position, [rules], dict(prime_seen), marks_hits)
    else:
        joined.members.append(rules)


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
) -> None:
    """Each ruleset that left the groups replayed from where it left; of two that differ only
    in scoring and left together, one replay tells both where a play refuses them (the same
    words: only the result names a ruleset)."""
    twins = {name: pair for pair in scoring_twins(tuple(rulesets)) for name in pair}
    told: dict[tuple[tuple[str, ...], int | None, int], Exclusion | None] = {}
    for parted in alone:
        name = parted.rules.name
        pair = twins.get(name)
        key = (pair, parted.index, id(parted.group)) if pair and parted.group else None
        found = told.get(key) if key is not None else None
        if found is not None and found.ply is not None:
            verdicts[name] = dataclasses.replace(found, rules=name)
            continue
        verdicts[name] = verdict = _replayed_verdict(record, parted)
        if key is not None:
            told[key] = verdict


def _replayed_verdict(record: GameRecord, parted: _Parted) -> Exclusion | None:
    """The ordinary replay under a ruleset, from where it parted: its first error on the main
    line, else its first error of the game as a whole (the result, a ``[Position]`` tag);
    variations are not judged."""
    rules, group, index = parted.rules, parted.group, parted.index
    if group is None or index is None:
        game, first = replay(record, rules), 1
    else:
        game = replay_from(record, rules, group.position, index, group.prime_seen, group.marks_hits)
        first = index + 1
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
