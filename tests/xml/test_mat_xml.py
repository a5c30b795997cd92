"""XML carries a match's cube actions and unknown plays: schema, export, import round trip."""

from __future__ import annotations

import io
from pathlib import Path

from lxml import etree

from jacquet_notation.notation import read_games
from jacquet_notation.xml import NAMESPACE, read_xml, schema, write_xml

MATCHES = Path(__file__).resolve().parents[2] / "corpus" / "valid" / "backgammon-mat"


def test_cube_actions_are_exported_valid_and_read_back() -> None:
    records = [r for path in sorted(MATCHES.glob("*.*at")) for r in read_games(path)]
    records += list(read_games(MATCHES / "studio-solnze-lasse.txt"))
    # a match file's ``61: ????`` is the roll alone, as gnubg reads it (docs/notation.md); an
    # unknown play is a record's ``6-1: unknown``
    records += list(
        read_games(io.BytesIO(b'[Rules "backgammon"]\n1. 3-1: 8/5 6/5 6-1: unknown *\n'))
    )
    assert any(p.action == "unknown" for r in records for p in r.plays)
    out = io.BytesIO()
    write_xml(records, out)
    document = etree.fromstring(out.getvalue())
    schema().assertValid(document)
    plays = document.iter(f"{{{NAMESPACE}}}play")
    cube = [(p.get("action"), p.get("cube"), p.get("dice")) for p in plays if p.get("action")]
    assert ("double", "2", None) in cube and ("drop", None, None) in cube
    assert ("take", None, None) in cube and ("unknown", None, "6-1") in cube
    again = list(read_xml(io.BytesIO(out.getvalue())))
    assert again == records


def test_the_schema_refuses_an_action_it_does_not_know() -> None:
    (record,) = read_games(io.BytesIO(b"1. double 2\n"))
    out = io.BytesIO()
    write_xml([record], out)
    document = etree.fromstring(out.getvalue().replace(b'action="double"', b'action="redouble"'))
    assert not schema().validate(document)


def test_a_match_games_cube_and_points_errors_are_in_the_xml() -> None:
    # the same games as jacquet validate sees them: a take with no double before it, and a
    # resignation of 5 points with the cube at 1 (3 at most), are errors of their games
    header = b'; [Player 1 "anna"]\n; [Player 2 "bert"]\n\n7 point match\n\n Game 1\n'
    header += b" anna : 0                        bert : 0\n"
    take = b"  1) 31: 8/5 6/5                  Takes\n"
    played = b"  1) 31: 8/5 6/5                  62: 24/18 13/11\n"
    records = [
        record
        for body in (take, played)
        for record in read_games(io.BytesIO(header + body + b"      Wins 5 point\n"))
    ]
    out = io.BytesIO()
    write_xml(records, out)
    document = etree.fromstring(out.getvalue())
    schema().assertValid(document)
    games = list(document.iter(f"{{{NAMESPACE}}}game"))
    assert [game.get("status") for game in games] == ["invalid", "invalid"]
    errors = [
        [(e.get("kind"), e.get("line")) for e in game.iter(f"{{{NAMESPACE}}}error")]
        for game in games
    ]
    assert errors == [[("cube", "8")], [("points", "9")]]
