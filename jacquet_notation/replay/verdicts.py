"""What ``jacquet infer`` says of a game, as data and in words: the rulesets it is consistent
with, where each other one is first broken (:class:`Exclusion`), and which rulesets no play can
tell apart (:func:`scoring_twins`). The inference itself is :mod:`.infer`'s."""

from __future__ import annotations

import functools
from dataclasses import dataclass

from ..errors import JacquetError
from ..rules import RULESET_NAMES, Rules

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

    def sentence(self) -> str:
        """The inference in one line, as the desk shows it live: ``consistent with jacquet,
        spanish (told apart by the result alone); murray excluded at ply 5 (line 3, column 9):
        ...``."""
        if self.errors:
            return "not read: no ruleset can be told"
        parts = [f"consistent with {', '.join(self.consistent) or 'no named ruleset'}"]
        for twins in self.scoring_only:
            parts[0] += f" ({' and '.join(twins)} told apart by the result alone)"
        for exclusion in self.excluded:
            where = f"ply {exclusion.ply}" if exclusion.ply is not None else "the result"
            if exclusion.line is not None:
                where += f" (line {exclusion.line}, column {exclusion.column})"
            parts.append(f"{exclusion.rules} excluded at {where}: {exclusion.reason}")
        return "; ".join(parts)


@functools.cache
def scoring_twins(rulesets: tuple[Rules, ...] = NAMED_RULESETS) -> tuple[tuple[str, ...], ...]:
    """The rulesets that differ only in scoring (jacquet and spanish), grouped: no play can
    tell them apart, only a result."""
    groups: dict[Rules, list[str]] = {}
    for rules in rulesets:
        groups.setdefault(rules.replace(name="", scoring="single-double"), []).append(rules.name)
    return tuple(tuple(names) for names in groups.values() if len(names) > 1)
