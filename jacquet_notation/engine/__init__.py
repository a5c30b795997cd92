"""The rules engine: legal plays, validation of written plays, game end and scoring.

Pure functions of ``(position, dice, rules)``. The search works on the packed ints of
:mod:`..position` (four bits per location, named in :mod:`..bits`), so a step is one addition
and a whole table is tested with a few bit operations; see docs/rules.md for the rules and the
choices made where docs/rules.md leaves something open.

One module per concern, each importing only those beneath it: :mod:`.plays` (``Step``,
``Play``, dice, the fast constructors), :mod:`.facts` (a ``Rules`` read once for the inline
paths), :mod:`.context` (one turn's context: which men may step, the structural rules),
:mod:`.search` (every legal play of the mover), :mod:`.quick` (validation's common case,
inline), :mod:`.validate` (the careful path), :mod:`.shares` (Versailles: the opponent's share
of the dice the mover could not use, whole turns), :mod:`.legal` (the one door: ``legal_plays``
and ``validate_play``, choosing between a plain turn and a whole Versailles turn),
:mod:`.explain` (why a play is illegal, in a player's words), :mod:`.scoring` (applying plays,
game end, points), :mod:`.rolls` (the rolls a play written without dice fits), :mod:`.agreement`
(which options of a ruleset can matter for one roll in one position: ``jacquet infer``).
"""

from .agreement import (
    Agreement,
    allows_final,
    could_bear_off,
    could_hold_six,
    holds_six,
    judged_alike,
    keys_agree,
    unstructured,
)
from .legal import legal_plays, validate_play
from .plays import Play, Step, dice_steps
from .quick import accept_quickly
from .rolls import ROLLS, rolls_for_play, why_no_roll
from .scoring import BACKGAMMON, apply_play, holds_prime, score, winner

__all__ = [
    "BACKGAMMON",
    "ROLLS",
    "Agreement",
    "Play",
    "Step",
    "accept_quickly",
    "allows_final",
    "apply_play",
    "could_bear_off",
    "could_hold_six",
    "dice_steps",
    "holds_prime",
    "holds_six",
    "judged_alike",
    "keys_agree",
    "legal_plays",
    "rolls_for_play",
    "score",
    "unstructured",
    "validate_play",
    "why_no_roll",
    "winner",
]
