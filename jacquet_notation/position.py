"""A position of Jacquet: where each player's men stand, in its own numbering, and who moves.

Each side's men are packed into one int, four bits per location (location 0 = borne off, 1..24 =
points in that side's own numbering, 25 = the bar; the layout is named in :mod:`.bits`): the
engine moves a man by adding one constant, compares and hashes positions as ints, and tests whole
tables with bit masks. Readers never see the packing: ``men``, ``off``, ``bar``, ``counts`` and
the JSON form give plain numbers.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

# the location numbers and the packing are position's public names too (explicit re-exports)
from .bits import COUNT, bar_count, off_count, pip_count
from .bits import LOCATIONS as LOCATIONS
from .bits import MEN as MEN
from .bits import pack as pack
from .bits import unpack as unpack
from .board_terms import BAR as BAR
from .board_terms import OFF as OFF
from .board_terms import Side as Side
from .board_terms import shifted_point, side_name
from .errors import PositionError
from .keys import KEY_CHARACTER_CLASS as KEY_CHARACTER_CLASS
from .keys import key_counts
from .keys import key_from_bits as key_from_bits
from .keys import side_key_bits as side_key_bits
from .numerals import ascii_int
from .rules import Direction as Direction  # defined with the rules option; re-exported
from .rules import Rules

SIDES: tuple[Side, Side] = ("white", "black")


#: the locations the readable form names by word
_TEXT_POINTS = {"off": OFF, "bar": BAR}


def other(side: Side) -> Side:
    """The opponent of ``side``."""
    return "black" if side == "white" else "white"


DIRECTIONS: tuple[Direction, Direction] = ("same", "opposite")


def opposite_point(point: int) -> int:
    """The same board point in the other player's numbering (p + 12 or p - 12)."""
    if not 1 <= point <= 24:
        raise PositionError(f"point {point} is not on the board (1 to 24)")
    return shifted_point(point)


def mirror_point(point: int) -> int:
    """The same board point in the other player's numbering when they move in opposite
    directions (backgammon): 25 - p."""
    if not 1 <= point <= 24:
        raise PositionError(f"point {point} is not on the board (1 to 24)")
    return BAR - point


#: pips by a side's packing, counted lately (:meth:`Position.pips`); emptied when full, so bounded
_PIPS: dict[int, int] = {}
_PIPS_MOST = 1 << 16


def other_point(point: int, direction: Direction) -> int:
    """The same board point (1..24) in the other player's numbering, under ``direction``."""
    return mirror_point(point) if direction == "opposite" else opposite_point(point)


_START_SIDE = pack([0] * 24 + [MEN, 0])
#: backgammon's start in each side's numbering: 2 on 24, 5 on 13, 3 on 8, 5 on 6
_BACKGAMMON_START_SIDE = pack(
    [{24: 2, 13: 5, 8: 3, 6: 5}.get(location, 0) for location in range(LOCATIONS)]
)


@dataclass(frozen=True, slots=True)
class Position:
    """Men of both sides and the side to move. Immutable; equal positions compare equal.

    ``packed_white`` and ``packed_black`` hold each side's counts in its own numbering (see the
    module docstring); build positions with :meth:`start`, :meth:`from_counts`,
    :meth:`from_json` or :meth:`from_key` rather than by hand.

    ``direction`` says how the two numberings meet (docs/rules.md, the option ``direction``): a
    position knows it, so that its key, its check and its drawing need no rules beside it.
    """

    packed_white: int
    packed_black: int
    turn: Side = "white"
    direction: Direction = "same"

    @classmethod
    def start(cls, rules: Rules | None = None) -> Position:
        """The opening position of ``rules`` (Jacquet's by default: 15 men on each player's
        24-point), White to move."""
        if rules is None:
            return cls(_START_SIDE, _START_SIDE, "white")
        side = _BACKGAMMON_START_SIDE if rules.start == "backgammon" else _START_SIDE
        return cls(side, side, "white", rules.direction)

    @classmethod
    def from_counts(
        cls,
        white: Iterable[int],
        black: Iterable[int],
        turn: Side = "white",
        direction: Direction = "same",
    ) -> Position:
        """A position from 26 counts per side (off, 1..24, bar); checked like :meth:`check`."""
        white_counts, black_counts = tuple(white), tuple(black)
        for side, counts in (
            (side_name("white"), white_counts),
            (side_name("black"), black_counts),
        ):
            if len(counts) != LOCATIONS or any(
                not isinstance(n, int) or n < 0 or n > MEN for n in counts
            ):
                raise PositionError(f"{side}: 26 counts from 0 to 15 expected")
        if turn not in SIDES:
            raise PositionError(f"turn must be 'white' or 'black', not {turn!r}")
        if direction not in DIRECTIONS:
            raise PositionError(f"direction must be 'same' or 'opposite', not {direction!r}")
        position = cls(pack(white_counts), pack(black_counts), turn, direction)
        position.check()
        return position

    # -- reading -----------------------------------------------------------------------------

    def packed(self, side: Side) -> int:
        """The packed counts of ``side`` (see the module docstring)."""
        return self.packed_white if side == "white" else self.packed_black

    def counts(self, side: Side) -> tuple[int, ...]:
        """26 counts of ``side``: index 0 = borne off, 1..24 = own points, 25 = bar."""
        return unpack(self.packed(side))

    def men(self, side: Side) -> dict[int, int]:
        """Men of ``side`` per point 1..24 of its own numbering (points without men left out)."""
        counts = self.counts(side)
        return {point: counts[point] for point in range(24, 0, -1) if counts[point]}

    def off(self, side: Side) -> int:
        """Men ``side`` has borne off."""
        return off_count(self.packed(side))

    @property
    def over(self) -> bool:
        """Whether a side has borne off every man: the game is over, whatever the rules."""
        # off_count inline (the replay asks this before every play)
        return self.packed_white & COUNT == MEN or self.packed_black & COUNT == MEN

    def bar(self, side: Side) -> int:
        """Men of ``side`` on the bar (hitting rulesets only)."""
        return bar_count(self.packed(side))

    def pips(self, side: Side) -> int:
        """Pips ``side`` still has to travel (a man on the bar counts 25).

        Looked up by the side's packing when counted lately: the archive counts both sides a
        play, and a play moves one.
        """
        packed = self.packed_white if side == "white" else self.packed_black
        found = _PIPS.get(packed)
        if found is None:
            if len(_PIPS) >= _PIPS_MOST:
                _PIPS.clear()
            found = _PIPS[packed] = pip_count(packed)
        return found

    def in_courier_phase(self, side: Side) -> bool:
        """True while ``side``'s courier has not reached its home table (docs/rules.md).

        Derived from the position alone: 15 men on the 24-point, or 14 there and the one other
        man on the board or the bar outside 1-6.
        """
        counts = self.counts(side)
        if counts[24] == MEN:
            return True
        if counts[24] != MEN - 1 or counts[OFF]:
            return False
        return not any(counts[1:7])

    def with_turn(self, side: Side) -> Position:
        """The same men with ``side`` to move."""
        return Position(self.packed_white, self.packed_black, side, self.direction)

    @staticmethod
    def to_absolute(side: Side, point: int, direction: Direction = "same") -> int:
        """``side``'s point number (1..24) in White's numbering (the board's fixed frame)."""
        return point if side == "white" else other_point(point, direction)

    @staticmethod
    def from_absolute(side: Side, point: int, direction: Direction = "same") -> int:
        """White's point number (1..24) in ``side``'s numbering."""
        return point if side == "white" else other_point(point, direction)

    @staticmethod
    def convert(point: int, from_side: Side, to_side: Side, direction: Direction = "same") -> int:
        """``from_side``'s point in ``to_side``'s numbering (off and bar stay as they are)."""
        if from_side == to_side or point in (OFF, BAR):
            return point
        return other_point(point, direction)

    # -- checking ----------------------------------------------------------------------------

    def check(self, rules: Rules | None = None) -> None:
        """Raise PositionError if this position cannot occur (under ``rules`` when given).

        Always: 15 men per side, never both sides on one point. With rules: no man on the bar
        without hitting, and without hitting a side that has borne off has every man home (a man
        never leaves the home table once there, so anything else was never reached).
        """
        white, black = self.counts("white"), self.counts("black")
        for name, counts in ((side_name("white"), white), (side_name("black"), black)):
            total = sum(counts)
            if total != MEN:
                raise PositionError(f"{name} has {total} men; each side has 15")
        for point in range(1, 25):
            theirs = other_point(point, self.direction)
            if white[point] and black[theirs]:
                raise PositionError(
                    f"White's point {point} (Black's {theirs}) holds men of both sides"
                )
        if rules is None:
            return
        if rules.direction != self.direction:
            raise PositionError(
                f"a position whose sides move in {self.direction} directions, but the "
                f"{rules.name} rules have direction={rules.direction}"
            )
        for name, counts in ((side_name("white"), white), (side_name("black"), black)):
            if counts[BAR] and not rules.hitting:
                raise PositionError(
                    f"{name} has men on the bar, but the {rules.name} rules have no hitting"
                )
            if counts[OFF] and not rules.hitting and any(counts[7:25]):
                outside = max(p for p in range(7, 25) if counts[p])
                raise PositionError(
                    f"{name} has borne off men while a man stands on its {outside}-point"
                )

    # -- keys --------------------------------------------------------------------------------

    def key(self) -> str:
        """A canonical key: 14 characters of ``[A-Za-z0-9_-]``, decoded by :meth:`from_key`.

        Bits: the turn, then for each side and location 0..25 its count in unary followed by a
        zero, then one bit set when the sides move in opposite directions (so every Jacquet
        key is what it was); base64url of the bit string.
        """
        return key_from_bits(
            self.turn,
            side_key_bits(self.packed_white),
            side_key_bits(self.packed_black),
            self.direction,
        )

    @classmethod
    def from_key(cls, key: str) -> Position:
        """The position of a key made by :meth:`key`; raises PositionError on a bad key."""
        turn, sides, direction = key_counts(key)
        position = cls.from_counts(sides[0], sides[1], turn, direction)
        if position.key() != key:
            raise PositionError(f"{key!r} is not a canonical position key")
        return position

    # -- the [Position] tag -------------------------------------------------------------------

    def check_courier(self, rules: Rules) -> None:
        """Raise PositionError for a courier state ``rules`` forbid: under the courier rule
        without hitting, a second man gone from the 24-point while none has reached home.

        Apart from :meth:`check`, which the engine's callers use on positions made up to show
        a rule (``jacquet plays --position``); a ``[Position]`` tag is a game's real start
        (``position_specs.tag_position``).
        """
        if not rules.courier or rules.hitting:
            return
        for side in SIDES:
            counts = self.counts(side)
            if counts[24] < MEN - 1 and not any(counts[OFF:7]):
                raise PositionError(
                    f"{side_name(side)} has {MEN - counts[24]} men off the 24-point and none "
                    "home: under the courier rule no other man moves until the courier reaches 1-6"
                )

    @classmethod
    def from_text(cls, text: str, direction: Direction = "same") -> Position:
        """The readable form a person types from a diagram, e.g.
        ``white 24:13 18:1 off:1; black 24:15; white to move``.

        Clauses apart by ``;``: a side followed by ``point:men`` pairs (points in the side's own
        numbering, ``bar`` and ``off`` too), a side followed by ``off N`` or ``bar N``, and
        ``<side> to move``. Every man of a side is listed (15 in all), so that a typing slip
        is a count that does not add up rather than men silently put aside.
        """
        counts: dict[Side, list[int]] = {"white": [0] * LOCATIONS, "black": [0] * LOCATIONS}
        named: dict[Side, set[int]] = {"white": set(), "black": set()}
        turn: Side | None = None
        for clause in text.split(";"):
            words = clause.lower().split()
            if not words:
                continue
            side = words[0]
            if side not in SIDES:
                raise PositionError(
                    f"a position clause begins with white or black, not {words[0]!r} "
                    "(e.g. white 24:13 18:2; black 24:15; white to move)"
                )
            mover: Side = "white" if side == "white" else "black"
            if words[1:] == ["to", "move"]:
                if turn is not None:
                    raise PositionError("the side to move is named twice")
                turn = mover
                continue
            rest = words[1:]
            if len(rest) == 2 and rest[0] in ("off", "bar"):
                rest = [f"{rest[0]}:{rest[1]}"]
            if not rest:
                raise PositionError(f"{side}: no men listed (e.g. {side} 24:15)")
            for pair in rest:
                point_text, colon, men_text = pair.partition(":")
                point = _TEXT_POINTS.get(point_text)
                if point is None:
                    number = ascii_int(point_text)
                    point = number if number is not None and 1 <= number <= 24 else None
                men = ascii_int(men_text)
                if not colon or point is None or men is None:
                    raise PositionError(
                        f"{side}: {pair!r} is not point:men (a point 1 to 24, bar or off; "
                        "e.g. 18:2)"
                    )
                if point in named[mover]:
                    raise PositionError(f"{side}: {point_text} is listed twice")
                named[mover].add(point)
                counts[mover][point] = men
        if turn is None:
            raise PositionError("the side to move is missing (e.g. white to move)")
        for side in SIDES:
            total = sum(counts[side])
            if total != MEN:
                raise PositionError(f"{side_name(side)} has {total} men; each side has 15")
        return cls.from_counts(counts["white"], counts["black"], turn, direction)

    # -- JSON --------------------------------------------------------------------------------

    def to_json(self) -> dict[str, Any]:
        """The JSON form of the issue: points in each side's own numbering, empty ones left out;
        ``direction`` only when the sides move in opposite directions (Jacquet's form unchanged).
        """
        obj: dict[str, Any] = {
            "white": {str(point): n for point, n in self.men("white").items()},
            "black": {str(point): n for point, n in self.men("black").items()},
            "white_off": self.off("white"),
            "black_off": self.off("black"),
            "white_bar": self.bar("white"),
            "black_bar": self.bar("black"),
            "turn": self.turn,
        }
        if self.direction != "same":
            obj["direction"] = self.direction
        return obj

    @classmethod
    def from_json(cls, obj: object, rules: Rules | None = None) -> Position:
        """Read the JSON form; raises PositionError on anything malformed or impossible.

        ``*_off`` and ``*_bar`` may be left out (0); ``direction`` too (the rules' when given,
        else "same"). With ``rules``, also checks what depends on them (see :meth:`check`).
        """
        if not isinstance(obj, Mapping):
            raise PositionError("a position must be a JSON object")
        known = {
            "white",
            "black",
            "white_off",
            "black_off",
            "white_bar",
            "black_bar",
            "turn",
            "direction",
        }
        unknown = sorted(str(name) for name in obj if name not in known)
        if unknown:
            raise PositionError(f"unknown key {unknown[0]!r} in position")
        turn = obj.get("turn", "white")
        if turn not in SIDES:
            raise PositionError(f"turn must be 'white' or 'black', not {turn!r}")
        direction = obj.get("direction", rules.direction if rules else "same")
        if direction not in DIRECTIONS:
            raise PositionError(f"direction must be 'same' or 'opposite', not {direction!r}")
        sides: list[list[int]] = []
        for side in SIDES:
            counts = [0] * LOCATIONS
            points = obj.get(side)
            if not isinstance(points, Mapping):
                raise PositionError(f"{side!r} must be an object of point: men")
            for name, count in points.items():
                point = _json_int(name, f"{side} point")
                if not 1 <= point <= 24:
                    raise PositionError(f"{side} point {name!r} is not a point from 1 to 24")
                counts[point] = _json_count(count, f"{side} point {point}")
            counts[OFF] = _json_count(obj.get(f"{side}_off", 0), f"{side}_off")
            counts[BAR] = _json_count(obj.get(f"{side}_bar", 0), f"{side}_bar")
            sides.append(counts)
        for name, counts in zip(map(side_name, SIDES), sides, strict=True):
            if sum(counts) != MEN:
                raise PositionError(f"{name} has {sum(counts)} men; each side has 15")
        position = cls(pack(sides[0]), pack(sides[1]), turn, direction)
        position.check(rules)
        return position

    def __repr__(self) -> str:
        return f"Position.from_key({self.key()!r})"


def _json_int(value: object, what: str) -> int:
    if isinstance(value, bool):
        raise PositionError(f"{what}: {value!r} is not a number")
    if isinstance(value, int):
        return value
    number = ascii_int(value.strip()) if isinstance(value, str) else None
    if number is not None:
        return number
    raise PositionError(f"{what}: {value!r} is not a number")


def _json_count(value: object, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= MEN:
        raise PositionError(f"{what}: {value!r} is not a number of men from 0 to 15")
    return value
