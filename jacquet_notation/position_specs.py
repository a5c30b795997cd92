"""A position as a person gives one (a SPEC), in any of the forms the project knows: our key,
the JSON form ``plays --position`` takes, the readable form of a ``[Position]`` tag, a gnubg
Position ID (optionally ``:`` and a Match ID), or an XGID.

The one reader of them, so that ``jacquet position``, ``plays --position``, a ``[Position]``
tag, the desk and the browser's search all take the same things (docs/notation.md, "Position
IDs").
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Literal

from .board_terms import Side
from .errors import PositionError
from .keys import KEY_CHARACTER_CLASS, KEY_CHARS
from .position import Position
from .position_ids import (
    GNUBG_ID_CHARS,
    GNUBG_ID_PATTERN,
    XGID_PREFIX,
    MatchState,
    from_gnubg_id,
    from_match_id,
    from_xgid,
)
from .rules import Rules

SpecForm = Literal["key", "json", "text", "gnubg", "xgid"]
#: past this a SPEC is no position (the longest, the readable form, stays well under it)
MAX_SPEC_CHARS = 4096
_KEY = re.compile(f"{KEY_CHARACTER_CLASS}{{{KEY_CHARS}}}")


@dataclass(frozen=True, slots=True)
class Spec:
    """A SPEC read: the position, the match state where the SPEC gives one, and its form."""

    position: Position
    state: MatchState | None
    form: SpecForm


def _key(text: str, rules: Rules | None) -> Position | None:
    """The position of ``text`` as our key, or None: not a canonical key, or (under ``rules``)
    a key of the other direction, so that a gnubg ID made only of letters and digits is not
    taken for a key by chance."""
    if not _KEY.fullmatch(text):
        return None
    try:
        position = Position.from_key(text)
    except PositionError:
        return None
    if rules is not None and position.direction != rules.direction:
        return None
    return position


def read_spec(text: str, rules: Rules | None = None, turn: Side | None = None) -> Spec:
    """The position ``text`` gives, checked (under ``rules`` when given); PositionError if it
    is none of the forms, saying what was expected.

    A gnubg Position ID alone does not say who is on roll: ``turn`` does (White when None), as
    does a Match ID after it. A 14-character text that is both a canonical key of the rules'
    direction and a gnubg ID is read as the key.
    """
    spec = text.strip()
    if len(spec) > MAX_SPEC_CHARS:
        raise PositionError(f"a position of {len(spec)} characters is none (at most 4096)")
    if spec.startswith("{"):
        try:
            obj = json.loads(spec)
        except json.JSONDecodeError as error:
            raise PositionError(
                f"not JSON ({error.msg} at line {error.lineno} column {error.colno})"
            ) from error
        return Spec(Position.from_json(obj, rules), None, "json")
    is_xgid = spec[: len(XGID_PREFIX)].upper() == XGID_PREFIX
    key = _key(spec, rules)
    if key is None and (is_xgid or GNUBG_ID_PATTERN.fullmatch(spec)):
        _backgammon_rules(spec, rules)
    if is_xgid:
        position, state = from_xgid(spec)
        _check(position, rules)
        return Spec(position, state, "xgid")
    if key is not None:
        _check(key, rules)
        return Spec(key, None, "key")
    if GNUBG_ID_PATTERN.fullmatch(spec):
        match = from_match_id(spec[GNUBG_ID_CHARS + 1 :]) if ":" in spec else None
        mover = match.mover if match else turn or "white"
        position = from_gnubg_id(spec[:GNUBG_ID_CHARS], mover)
        _check(position, rules)
        return Spec(position, match, "gnubg")
    if ";" in spec or spec.split(" ", 1)[0].lower() in ("white", "black"):
        position = Position.from_text(spec, rules.direction if rules else "same")
        _check(position, rules)
        return Spec(position, None, "text")
    raise PositionError(
        f"{_shown(spec)} is no position: a key, JSON, the readable form, a gnubg Position ID "
        "(with :Match ID) or an XGID expected"
    )


def _shown(spec: str) -> str:
    """The SPEC quoted in an error, cut so that the error stays one line."""
    return repr(spec if len(spec) <= 60 else spec[:57] + "...")


def _backgammon_rules(spec: str, rules: Rules | None) -> None:
    """Refuse a gnubg ID or XGID under rules whose sides move the same way round: those IDs
    are backgammon boards, and a Jacquet position has only its key."""
    if rules is not None and rules.direction != "opposite":
        raise PositionError(
            f"{_shown(spec)} is not a position key; as a gnubg Position ID or XGID it is a "
            f"backgammon board, and the {rules.name} rules have direction={rules.direction}"
        )


def _check(position: Position, rules: Rules | None) -> None:
    if rules is not None:
        position.check(rules)


def tag_position(value: str, rules: Rules) -> Position:
    """The position a record's ``[Position]`` tag sets, in any SPEC form, checked under
    ``rules`` and the courier rule (docs/notation.md, "Set positions"): a game never starts
    from a position its rules could not reach."""
    position = read_spec(value, rules).position
    position.check_courier(rules)
    return position
