"""Replay a game record with the rules engine: positions, resolved plays, errors and the result.

The one package that knows both the text (records) and the rules (engine), one concern a module
(docs/architecture.md): ``game`` (the replayed game as data, the checks' context), ``tags``
(tags to rules, the result read and checked), ``dice`` (a roll left out inferred), ``bare`` (a
roll written alone), ``diagnosis`` (an illegal play's suggestions and slip), ``written`` (plays
written as records: self-play's, the suggestions', ``fmt``'s inferred dice), ``walk`` (the
line walk and the lead), ``infer`` (which named rulesets a game's plays fit, the walk shared
among them), ``follow`` (the rulesets that follow a game's replay under its own rules, ply by
ply), ``alone`` (a ruleset that left that walk or that replay, replayed alone) and ``verdicts``
(what it says of a game, as data and in words). Callers import the names below from the package.
"""

from ..errors import ReplayError
from .diagnosis import closest_plays
from .game import ReplayedGame, ReplayedPly
from .infer import consistent_rulesets, infer
from .tags import parse_result, rules_for
from .verdicts import NAMED_RULESETS, Exclusion, Inference, scoring_twins
from .walk import replay, replay_from
from .written import inferred_text, with_inferred_dice, written_play

__all__ = [
    "NAMED_RULESETS",
    "Exclusion",
    "Inference",
    "ReplayError",
    "ReplayedGame",
    "ReplayedPly",
    "closest_plays",
    "consistent_rulesets",
    "infer",
    "inferred_text",
    "parse_result",
    "replay",
    "replay_from",
    "rules_for",
    "scoring_twins",
    "with_inferred_dice",
    "written_play",
]
