"""An analyser's decisions of a ply (analysis.py's shapes) as XML, both ways.

``<analysis><decision kind="move" chosen="0" loss="0.0" luck="0.2"><candidate
equity="0.21">8/5 6/5</candidate>...</decision></analysis>``: the options best first as the
analyser listed them, ``chosen`` left out where the play made is not among them, ``luck`` where
the analyser gave it; who analysed the game is said once, on ``<plays>``. Numbers are written
with ``repr`` so that they read back the same.
"""

from __future__ import annotations

from typing import Any

from lxml import etree

from ..analysis import Analyser, Decision, DecisionKind, Option, PlyAnalysis
from ..position import Position
from .format import NAMESPACE

ANALYSIS = f"{{{NAMESPACE}}}analysis"
DECISION = f"{{{NAMESPACE}}}decision"
CANDIDATE = f"{{{NAMESPACE}}}candidate"


def plays_attributes(start: Position | None, analyser: Analyser | None) -> dict[str, str]:
    """``<plays>``'s attributes: the key of a set position it starts from, and who analysed
    the game (``analyser``, ``analyser-settings``, ``analyser-units``) where a program did."""
    attributes = {"start-position": start.key()} if start is not None else {}
    if analyser is not None:
        attributes["analyser"] = analyser.name
        attributes["analyser-settings"] = analyser.settings
        attributes["analyser-units"] = analyser.units
    return attributes


def read_analyser(plays: etree._Element) -> Analyser | None:
    """The analyser ``<plays>`` names, if any."""
    name = plays.get("analyser")
    if name is None:
        return None
    settings, units = plays.get("analyser-settings", ""), plays.get("analyser-units", "equity")
    return Analyser(name, settings, units)


def write_analysis(xf: Any, analysis: PlyAnalysis, indent: str) -> None:
    """A ply's ``<analysis>`` through lxml's incremental writer, at ``indent``."""
    inner, deeper = indent + "  ", indent + "    "
    xf.write(indent)
    with xf.element(ANALYSIS):
        for decision in analysis.decisions:
            attributes = {"kind": decision.kind, "loss": repr(decision.loss)}
            if decision.chosen is not None:
                attributes["chosen"] = str(decision.chosen)
            if decision.luck is not None:
                attributes["luck"] = repr(decision.luck)
            xf.write(inner)
            with xf.element(DECISION, attributes):
                for option in decision.options:
                    xf.write(deeper)
                    with xf.element(CANDIDATE, {"equity": repr(option.equity)}):
                        xf.write(option.text)
                xf.write(inner)
        xf.write(indent)


def read_analysis(element: etree._Element) -> PlyAnalysis:
    """An ``<analysis>`` element (checked by the schema) back into its shape."""
    decisions = []
    for decision in element.iterchildren(DECISION):
        kind: DecisionKind = "cube" if decision.get("kind") == "cube" else "move"
        options = tuple(
            Option(candidate.text or "", float(candidate.get("equity", "0")))
            for candidate in decision.iterchildren(CANDIDATE)
        )
        chosen = decision.get("chosen")
        luck = decision.get("luck")
        decisions.append(
            Decision(
                kind,
                options,
                int(chosen) if chosen is not None else None,
                float(decision.get("loss", "0")),
                float(luck) if luck is not None else None,
            )
        )
    return PlyAnalysis(tuple(decisions))
