"""Every option of docs/rules.md as one immutable value, and the named rulesets.

Variants are data, not subclasses: the engine reads the fields of :class:`Rules` and nothing else.
A record's tags (or ``--set option=value``) override single options by their string names, so a
club's house rules fit in a record's header. See docs/rules.md for the table of options.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Literal, get_args

from .errors import RulesError
from .numerals import ascii_int

BlockConvention = Literal["unrestricted", "return-men", "variable", "bouchon", "five-max"]
BearOff = Literal["standard", "exact", "rearmost"]
Scoring = Literal["single-double", "marcia", "spanish", "backgammon"]
Opening = Literal["ordinary", "reroll"]
Doubles = Literal["four", "squared"]
#: how the two sides' numberings meet: "same" (the Jacquet family: one side's p is the other's
#: p ± 12) or "opposite" (backgammon: one side's p is the other's 25 - p)
Direction = Literal["same", "opposite"]
#: where the men start: "stack" (all 15 on the 24-point) or "backgammon" (2 on 24, 5 on 13, 3 on
#: 8, 5 on 6)
Start = Literal["stack", "backgammon"]
_Parser = Callable[[str], dict[str, object]]


@dataclass(frozen=True, slots=True)
class Rules:
    """One ruleset: every convention the engine needs, each settable on its own.

    ``name`` is the named ruleset this value started from; overrides keep it (``options()`` lists
    every option, so an override is never hidden behind the name).
    """

    name: str = "jacquet"
    #: a lone opposing man may be hit to the bar; "held" then means two men or more
    hitting: bool = False
    #: "four": a double gives four steps; "squared": a double n gives n steps of n
    doubles: Doubles = "four"
    #: the first man must reach the home table before any other moves
    courier: bool = True
    blocks: BlockConvention = "return-men"
    #: k of the return-men and variable conventions: own 1-point (1) or 1- and 2-points (2)
    return_men: int = 2
    bear_off: BearOff = "standard"
    scoring: Scoring = "single-double"
    opening: Opening = "ordinary"
    #: Versailles: every die the mover does not use is played at once by the opponent on its own
    #: men (the share, engine/shares.py); a die neither can use is lost (docs/rules.md)
    every_die_used: bool = False
    #: most points the mover may hold in its starting table 19-24 (Murray: 2); None = no limit
    start_table_points: int | None = None
    #: most men the mover may have on its 13-point (Murray: 2); None = no limit
    midpoint_men: int | None = None
    #: the sides move the same way round (p ± 12) or in opposite directions (25 - p)
    direction: Direction = "same"
    start: Start = "stack"

    def __post_init__(self) -> None:
        _check_choice("doubles", self.doubles, Doubles)
        _check_choice("blocks", self.blocks, BlockConvention)
        _check_choice("bear-off", self.bear_off, BearOff)
        _check_choice("scoring", self.scoring, Scoring)
        _check_choice("opening", self.opening, Opening)
        _check_choice("direction", self.direction, Direction)
        _check_choice("start", self.start, Start)
        if self.direction == "opposite" and self.blocks not in ("unrestricted", "five-max"):
            # those conventions are written along the Jacquet route, round the board one way
            raise RulesError(
                f"blocks: {self.blocks!r} needs direction=same "
                "(use blocks=unrestricted or five-max with direction=opposite)"
            )
        if self.return_men not in (1, 2):
            raise RulesError(f"return men must be 1 or 2, not {self.return_men}")
        if self.start_table_points is not None and not 0 <= self.start_table_points <= 6:
            raise RulesError("start-table-points must be 0 to 6 or 'any'")
        if self.midpoint_men is not None and not 0 <= self.midpoint_men <= 15:
            raise RulesError("midpoint-men must be 0 to 15 or 'any'")

    @classmethod
    def named(cls, name: str) -> Rules:
        """The named ruleset of docs/rules.md (``jacquet``, ``murray``, …); raises RulesError."""
        key = name.strip().lower()
        try:
            return _NAMED[key]
        except KeyError:
            raise RulesError(
                f"unknown ruleset {name!r} (known: {', '.join(RULESET_NAMES)})"
            ) from None

    def replace(self, **fields: object) -> Rules:
        """A copy with some fields changed (Python names: ``blocks="unrestricted"``)."""
        try:
            return dataclasses.replace(self, **fields)  # type: ignore[arg-type]
        except TypeError as error:
            raise RulesError(str(error)) from None

    def with_options(self, options: Mapping[str, str]) -> Rules:
        """A copy with options set from strings, as written in tags or ``--set option=value``.

        Names are case-insensitive and ``_`` equals ``-``. The option ``ruleset`` starts again
        from that named ruleset before the others apply, so ``with_options(r.options())``
        rebuilds ``r``.
        """
        normalised = {_normalise(name): value for name, value in options.items()}
        rules = self
        if "ruleset" in normalised:
            rules = Rules.named(normalised.pop("ruleset"))
        changes: dict[str, object] = {}
        for name, value in normalised.items():
            parser = _PARSERS.get(name)
            if parser is None:
                raise RulesError(
                    f"unknown rules option {name!r} (known: ruleset, {', '.join(_PARSERS)})"
                )
            changes.update(parser(value.strip().lower()))
        return rules.replace(**changes) if changes else rules

    def options(self) -> dict[str, str]:
        """Every option as a string, in a fixed order (for exporters and ``with_options``)."""
        blocks: str = self.blocks
        if self.blocks in ("return-men", "variable"):
            blocks = f"{self.blocks}-{self.return_men}"
        return {
            "ruleset": self.name,
            "hitting": _yes_no(self.hitting),
            "doubles": self.doubles,
            "courier": _yes_no(self.courier),
            "blocks": blocks,
            "bear-off": self.bear_off,
            "scoring": self.scoring,
            "opening": self.opening,
            "every-die": _yes_no(self.every_die_used),
            "start-table-points": _limit(self.start_table_points),
            "midpoint-men": _limit(self.midpoint_men),
            "direction": self.direction,
            "start": self.start,
        }

    @property
    def structural(self) -> bool:
        """Whether any structural rule (blocks, limits) can forbid a final position."""
        return (
            self.blocks != "unrestricted"
            or self.start_table_points is not None
            or self.midpoint_men is not None
        )

    @property
    def held(self) -> int:
        """Men needed to hold a point: one without hitting, two with (a lone man can be hit)."""
        return 2 if self.hitting else 1

    @property
    def double_steps(self) -> dict[int, int]:
        """Number of steps each double gives."""
        if self.doubles == "squared":
            return {n: n for n in range(1, 7)}
        return dict.fromkeys(range(1, 7), 4)


def _check_choice(option: str, value: object, kind: object) -> None:
    choices = get_args(kind)
    if value not in choices:
        raise RulesError(f"{option}: {value!r} is not one of {', '.join(choices)}")


def _normalise(name: str) -> str:
    return name.strip().lower().replace("_", "-")


def _yes_no(flag: bool) -> str:
    return "yes" if flag else "no"


def _limit(value: int | None) -> str:
    return "any" if value is None else str(value)


def _parse_flag(option: str, field: str) -> _Parser:
    def parse(value: str) -> dict[str, object]:
        if value in ("yes", "true", "on", "1"):
            return {field: True}
        if value in ("no", "false", "off", "0"):
            return {field: False}
        raise RulesError(f"{option}: {value!r} is not yes or no")

    return parse


def _parse_choice(option: str, field: str, kind: object) -> _Parser:
    def parse(value: str) -> dict[str, object]:
        _check_choice(option, value, kind)
        return {field: value}

    return parse


def _parse_blocks(value: str) -> dict[str, object]:
    for base in ("return-men", "variable"):
        if value == base:
            return {"blocks": base, "return_men": 2}
        if value in (f"{base}-1", f"{base}-2"):
            return {"blocks": base, "return_men": int(value[-1])}
    if value in ("unrestricted", "bouchon", "five-max"):
        return {"blocks": value}
    raise RulesError(
        f"blocks: {value!r} is not one of unrestricted, return-men-1, return-men-2, "
        "variable-1, variable-2, bouchon, five-max"
    )


def _parse_limit(option: str, field: str, highest: int) -> _Parser:
    def parse(value: str) -> dict[str, object]:
        if value in ("any", "none", "no"):
            return {field: None}
        number = ascii_int(value)
        if number is not None and number <= highest:
            return {field: number}
        raise RulesError(f"{option}: {value!r} is not 'any' or a number from 0 to {highest}")

    return parse


_PARSERS = {
    "hitting": _parse_flag("hitting", "hitting"),
    "doubles": _parse_choice("doubles", "doubles", Doubles),
    "courier": _parse_flag("courier", "courier"),
    "blocks": _parse_blocks,
    "bear-off": _parse_choice("bear-off", "bear_off", BearOff),
    "scoring": _parse_choice("scoring", "scoring", Scoring),
    "opening": _parse_choice("opening", "opening", Opening),
    "every-die": _parse_flag("every-die", "every_die_used"),
    "start-table-points": _parse_limit("start-table-points", "start_table_points", 6),
    "midpoint-men": _parse_limit("midpoint-men", "midpoint_men", 15),
    "direction": _parse_choice("direction", "direction", Direction),
    "start": _parse_choice("start", "start", Start),
}

_NAMED: dict[str, Rules] = {
    "jacquet": Rules(),
    "jacquet-unrestricted": Rules(name="jacquet-unrestricted", blocks="unrestricted"),
    "jacquet-variable": Rules(name="jacquet-variable", blocks="variable"),
    "bouchon": Rules(name="bouchon", blocks="bouchon"),
    "five-max": Rules(name="five-max", blocks="five-max", bear_off="exact"),
    "spanish": Rules(name="spanish", scoring="spanish"),
    "murray": Rules(
        name="murray",
        hitting=True,
        blocks="unrestricted",
        bear_off="rearmost",
        scoring="marcia",
        opening="reroll",
        start_table_points=2,
        midpoint_men=2,
    ),
    "versailles": Rules(name="versailles", doubles="squared", every_die_used=True),
    "backgammon": Rules(
        name="backgammon",
        hitting=True,
        courier=False,
        blocks="unrestricted",
        scoring="backgammon",
        direction="opposite",
        start="backgammon",
    ),
}

#: the named rulesets of docs/rules.md, the default first
RULESET_NAMES: tuple[str, ...] = tuple(_NAMED)
