"""A position set by clicking men onto the transcriber's desk's board, made a key and a
``[Position]`` tag (:func:`setup_position`); what the desk refuses (:class:`Refused`).

Apart from :mod:`.desk` so that the desk's page and endpoint and the board it sets stay each
under the size one reads at once.
"""

from __future__ import annotations

from typing import Any

from ..board_terms import Side
from ..errors import JacquetError, PositionError
from ..numerals import ascii_int
from ..position import MEN, Position
from ..position_specs import read_spec
from ..rules import RULESET_NAMES, Rules


class Refused(Exception):
    """A request the endpoint will not do: its status and a sentence for the page."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def setup_position(setup: object) -> dict[str, Any]:
    """A position set by clicking men onto a board, as a key and a ``[Position]`` tag.

    ``setup``: ``rules`` (a ruleset's name), ``turn``, ``white`` and ``black`` (men by point in
    **White's** numbering, as the board is drawn), ``white_bar``, ``black_bar``; the men not
    placed are borne off. With ``"start": true`` the rules' opening position instead; with
    ``"spec"`` the position a SPEC gives (a key, a gnubg ID, an XGID: ``position_specs``). The
    answer has ``key``, ``tag``, both sides' men again in White's numbering, and ``problem``: why
    the rules forbid the position (None when they allow it), so that men can be placed one at a time
    through positions that are not yet legal. More than 15 men, or both sides on one point, is an
    ``error`` (no key).
    """
    if not isinstance(setup, dict):
        raise Refused(400, '"setup" must be a JSON object')
    name = setup.get("rules", "jacquet")
    if name not in RULESET_NAMES:
        return {"error": f"unknown ruleset {name!r} (known: {', '.join(RULESET_NAMES)})"}
    rules = Rules.named(str(name))
    turn = setup.get("turn", "white")
    if turn not in ("white", "black"):
        return {"error": f"turn must be white or black, not {turn!r}"}
    if setup.get("start"):
        position = Position.start(rules).with_turn(turn)
    elif "spec" in setup:
        try:
            position = read_spec(str(setup["spec"]), rules, turn).position
        except JacquetError as error:
            return {"error": error.message}
    else:
        try:
            position = Position.from_counts(
                _counts(setup, "white", rules),
                _counts(setup, "black", rules),
                turn,
                rules.direction,
            )
        except JacquetError as error:
            return {"error": error.message}
    problem = None
    try:
        position.check(rules)
    except JacquetError as error:
        problem = error.message
    key = position.key()
    return {
        "key": key,
        "tag": f'[Position "{key}"]',
        "rules": rules.name,
        "turn": position.turn,
        "white": _by_white_point(position, "white"),
        "black": _by_white_point(position, "black"),
        "white_bar": position.bar("white"),
        "black_bar": position.bar("black"),
        "white_off": position.off("white"),
        "black_off": position.off("black"),
        "problem": problem,
    }


def _counts(setup: dict[str, Any], side: Side, rules: Rules) -> list[int]:
    """26 counts (off, points 1..24 in ``side``'s own numbering, bar) from the board's men."""
    men = setup.get(side, {})
    bar = setup.get(f"{side}_bar", 0)
    if not isinstance(men, dict) or not isinstance(bar, int) or bar < 0:
        raise Refused(400, f'"{side}" must map points to men, "{side}_bar" be a count')
    counts = [0] * 26
    for point_text, number in men.items():
        point = ascii_int(str(point_text))
        if point is None or not 1 <= point <= 24:
            raise Refused(400, f"{point_text!r} is not a point (1 to 24)")
        if not isinstance(number, int) or number < 0:
            raise Refused(400, f"{number!r} men is not a count")
        own = Position.from_absolute(side, point, rules.direction)
        counts[own] += number
    counts[25] = bar
    placed = sum(counts)
    if placed > MEN:
        raise PositionError(f"{side.capitalize()} has {placed} men on the board; each side has 15")
    counts[0] = MEN - placed
    return counts


def _by_white_point(position: Position, side: Side) -> dict[str, int]:
    """A side's men by point in White's numbering (the board's), for the page's clicks."""
    return {
        str(Position.to_absolute(side, point, position.direction)): number
        for point, number in position.men(side).items()
    }
