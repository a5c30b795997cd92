"""What an analyser (gnubg, eXtreme Gammon) wrote about a game's decisions, kept as it wrote it.

Nothing here is evaluated by us: a record read from gnubg's SGF or an ``.xg`` file carries the
analyser's equities, and the pages and the archive show them. The shape is the one both readers
fill, so that a game's error rate or luck reads the same whichever file it came from. Equities are
the analyser's own (cubeful, in its units: normalised money or match-winning chances, as
``Analyser.units`` says); ``loss`` is never negative.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

#: what a decision is about: the play of the dice, or the cube (offer, take, drop)
DecisionKind = Literal["move", "cube"]


@dataclass(frozen=True, slots=True)
class Option:
    """One play or cube action the analyser weighed.

    ``text`` is a play in the project's notation (``24/18 13/10``) or a cube action's word
    (``no double``, ``double, take``, ``double, pass``); ``equity`` is the analyser's for it.
    """

    text: str
    equity: float


@dataclass(frozen=True, slots=True)
class Decision:
    """One decision of a ply, as analysed: the options best first, and the one chosen.

    ``chosen`` indexes ``options`` (``None`` where the play made is not among those listed);
    ``loss`` is the equity given up against the best option, as the analyser wrote or implied it.
    ``luck`` is the luck of the roll the decision followed, where the analyser gives it.
    ``level`` is how deep the analyser looked at this decision, in its words (``4-ply``,
    ``XG Roller+``), empty where it does not say.
    """

    kind: DecisionKind
    options: tuple[Option, ...]
    chosen: int | None
    loss: float
    luck: float | None = None
    level: str = ""


@dataclass(frozen=True, slots=True)
class Analyser:
    """Who analysed a game and how: the program, its version and its settings, as written."""

    name: str
    settings: str = ""
    units: str = "equity"


@dataclass(frozen=True, slots=True)
class PlyAnalysis:
    """The analysed decisions of one ply: a cube decision before the roll, then the play."""

    decisions: tuple[Decision, ...]
