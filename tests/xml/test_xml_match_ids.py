"""The XML's ``<resolved>`` carries gnubg's Match ID and the XGID with the match's cube and score
where the record says the match: the same IDs ``jacquet replay --ids`` prints, in the schema,
gnubg's where its Python package is installed, and one copied from gnubg always."""

from __future__ import annotations

import importlib.util
import io
from pathlib import Path

import pytest
from helpers import gnubg_match_id, run
from helpers import replay_ids as helpers_replay_ids
from lxml import etree

from jacquet_notation.notation import read_games
from jacquet_notation.position_ids import from_match_id
from jacquet_notation.xml import NAMESPACE, schema, write_xml

ROOT = Path(__file__).resolve().parents[2]
MATCH = ROOT / "tests" / "data" / "sgf" / "gnubg-cases" / "galaxy-dance-then-losses.txt"
RESOLVED = f"{{{NAMESPACE}}}resolved"
needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="gnubg's Python package is not installed"
)


def exported(tmp_path: Path, path: Path) -> etree._Element:
    """``jacquet export --xml`` of ``path`` (a real subprocess), parsed and checked by lxml."""
    out = tmp_path / "out.xml"
    done = run("export", "--xml", str(out), str(path))
    assert done.returncode == 0, done.stderr
    document = etree.parse(str(out)).getroot()
    schema().assertValid(document)
    return document


def replay_ids(number: int) -> list[tuple[str, str]]:
    """``jacquet replay --ids`` of game ``number`` of the match: (gnubg ID, XGID) after each
    ply, the start's left out."""
    return helpers_replay_ids(MATCH, number)[1:]


@pytest.mark.integration
def test_each_resolved_ply_of_a_match_carries_the_ids_replay_prints(tmp_path: Path) -> None:
    document = exported(tmp_path, MATCH)
    games = document.findall(f"{{{NAMESPACE}}}game")
    assert len(games) == len(list(read_games(MATCH))) >= 2
    for number in (1, 2):
        plays = games[number - 1].find(f"{{{NAMESPACE}}}plays")
        assert plays is not None
        printed = replay_ids(number)
        resolved = 0
        for index, play in enumerate(plays.findall(f"{{{NAMESPACE}}}play")):
            found = play.find(RESOLVED)
            if found is None:
                continue
            resolved += 1
            gnubg = f"{found.get('gnubg-id')}:{found.get('gnubg-match-id')}"
            assert (gnubg, found.get("xgid")) == printed[index], (number, index)
        assert resolved > 10
    # copied from gnubg: the Crawford game at 2-0 of 3, Black to roll after White's 2-1
    first = games[1].find(f".//{RESOLVED}")
    assert first is not None
    assert (first.get("gnubg-id"), first.get("gnubg-match-id")) == (
        "0HPkATDgc/ABMA",
        "sAFgAAAAEAAE",
    )
    # its XGID with the score and the Crawford flag: 2-0, Crawford, 3 points
    assert str(first.get("xgid")).endswith(":0:0:-1:00:2:0:1:3:10")


def test_a_game_of_no_match_keeps_the_board_ids_alone() -> None:
    (record,) = read_games(io.BytesIO(b'[Rules "backgammon"]\n\n1. 3-1: 8/5 6/5 6-4: 24/18 13/9\n'))
    out = io.BytesIO()
    write_xml([record], out)
    found = list(etree.fromstring(out.getvalue()).iter(RESOLVED))
    assert len(found) == 2
    assert all(r.get("gnubg-id") and r.get("gnubg-match-id") is None for r in found)
    assert all(str(r.get("xgid")).endswith(":00:0:0:0:0:10") for r in found)


def test_a_cube_taken_shows_in_the_ids_after_it() -> None:
    text = (
        '[Rules "backgammon"]\n[Match "5"]\n[Score "1-2"]\n\n'
        "1. 3-1: 8/5 6/5 6-4: 24/18 13/9 2. double 2 take 3. 5-2: 13/8 13/11\n"
    )
    out = io.BytesIO()
    write_xml(list(read_games(io.BytesIO(text.encode()))), out)
    document = etree.fromstring(out.getvalue())
    schema().assertValid(document)
    last = list(document.iter(RESOLVED))[-1]
    state = from_match_id(str(last.get("gnubg-match-id")))
    assert (state.cube, state.owner, state.length, state.score) == (2, "black", 5, (1, 2))
    assert state.mover == "black"  # White played 5-2 after the take
    # XGID: cube 2^1 owned by Black (-1), Black on roll, 1-2 of 5, no Crawford
    assert str(last.get("xgid")).endswith(":1:-1:-1:00:1:2:0:5:10")


@needs_gnubg
@pytest.mark.integration
def test_the_match_ids_of_a_real_match_are_gnubgs(tmp_path: Path) -> None:
    import gnubg  # type: ignore[import-not-found,import-untyped,unused-ignore]  # GPL, optional

    matches = ROOT / "corpus" / "valid" / "backgammon-mat"
    path = sorted(matches.glob("*.mat"))[0]
    checked = doubles = 0
    for found in exported(tmp_path, path).iter(RESOLVED):
        text = found.get("gnubg-match-id")
        if text is None:
            continue
        state = from_match_id(text)
        assert gnubg_match_id(gnubg, state) == text
        checked += 1
        doubles += state.doubled
    assert checked > 20 and doubles > 0
