"""The position page's opening tree narrowed: the plays from a position counted over the games
of one player (as White, as Black, or either), of a range of years, a ruleset, an event or a
source (docs/browse.md, "The opening tree narrowed").

The filter lives in the URL (``?player=3&side=white&from=1780&to=1790&rules=jacquet``), and
the links to the next positions carry it, so that walking the tree keeps it. Each filter is
one condition on the ``game_list`` row (the narrow copy of ``games``) the plays join.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any
from urllib.parse import urlencode

from datasette.utils.asgi import BadRequest

from ..numerals import ascii_int
from ..rules import RULESET_NAMES

#: the URL's parameters of the filter, in the order the form shows them
PARAMETERS: tuple[str, ...] = ("player", "side", "from", "to", "rules", "event", "source")


@dataclass(frozen=True)
class TreeFilter:
    """What the tree is counted over; every field None: every game."""

    player: int | None = None
    side: str | None = None
    year_from: int | None = None
    year_to: int | None = None
    rules: str | None = None
    event: int | None = None
    source: int | None = None

    @property
    def active(self) -> bool:
        """Whether any game is left out."""
        return any(getattr(self, field.name) is not None for field in fields(self))

    def params(self) -> dict[str, str]:
        """The URL's parameters of this filter (the ones set)."""
        values = {
            "player": self.player,
            "side": self.side,
            "from": self.year_from,
            "to": self.year_to,
            "rules": self.rules,
            "event": self.event,
            "source": self.source,
        }
        return {name: str(value) for name, value in values.items() if value is not None}

    def query_string(self) -> str:
        """``?…`` for a link that keeps the filter; empty when none is set."""
        params = self.params()
        return f"?{urlencode(params)}" if params else ""

    def sql(self) -> tuple[str, list[Any]]:
        """The conditions on ``game_list g`` (each beginning `` and``), and their arguments."""
        conditions: list[str] = []
        arguments: list[Any] = []
        if self.player is not None:
            if self.side in ("white", "black"):
                conditions.append(f"g.{self.side}_id = ?")
                arguments.append(self.player)
            else:
                conditions.append("(g.white_id = ? or g.black_id = ?)")
                arguments += [self.player, self.player]
        elif self.side is not None:
            raise BadRequest("side: give the player it is said of (player=ID)")
        for condition, value in (
            ("g.year >= ?", self.year_from),
            ("g.year <= ?", self.year_to),
            ("g.rules = ?", self.rules),
            ("g.event_id = ?", self.event),
            ("g.source_id = ?", self.source),
        ):
            if value is not None:
                conditions.append(condition)
                arguments.append(value)
        return "".join(f" and {condition}" for condition in conditions), arguments


def _number(args: Any, name: str) -> int | None:
    text = args.get(name, "").strip()
    if not text:
        return None
    value = ascii_int(text)
    if value is None:
        raise BadRequest(f"{name}: a number in ASCII digits expected, not {text[:20]!r}")
    return value


def read_filter(args: Any) -> TreeFilter:
    """The filter a position page's URL gives; a 400 in one line for a value that is none."""
    side = args.get("side", "").strip() or None
    if side not in (None, "white", "black"):
        raise BadRequest(f"side: white or black expected, not {str(side)[:20]!r}")
    rules = args.get("rules", "").strip() or None
    if rules is not None and rules not in RULESET_NAMES:
        raise BadRequest(f"rules: one of {', '.join(RULESET_NAMES)} expected, not {rules[:20]!r}")
    return TreeFilter(
        player=_number(args, "player"),
        side=side,
        year_from=_number(args, "from"),
        year_to=_number(args, "to"),
        rules=rules,
        event=_number(args, "event"),
        source=_number(args, "source"),
    )
