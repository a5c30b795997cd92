"""``jacquet infer`` from the outside: a real process, its output, its exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import ROOT, run

HAND = """[Event "hand"]
[White "Ann"]
[Black "Bob"]
[Rules "jacquet"]

1. 6-5: 24/13 5-4: 24/15
2. 6-3: 13/7 24/21 4-1: 15/11 24/23
"""
BROKEN = """[Event "broken"]

1. 6-5: 24/ZZ
"""


def test_text_output_one_block_a_game_and_the_exit_codes(tmp_path: Path) -> None:
    path = tmp_path / "hand.jqt"
    path.write_text(HAND, encoding="utf-8")
    done = run("infer", str(path))
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"{path}: game 1 (Ann v Bob, ?): declared jacquet"
    assert lines[1] == "  consistent with: backgammon"
    assert (
        "  jacquet excluded at ply 3 (line 7, column 14): 24/21: the courier (on 7) must reach "
        "the home table before any other man moves"
    ) in lines
    assert lines[-1] == "1 game: 1 fit some ruleset, 0 fit none, 0 unreadable"


def test_json_one_object_a_game_and_an_unreadable_game_between(tmp_path: Path) -> None:
    path = tmp_path / "three.jqt"
    path.write_text(HAND + "\n" + BROKEN + "\n" + HAND, encoding="utf-8")
    done = run("infer", "--json", str(path))
    assert done.returncode == 1  # a game that does not parse, as validate counts it
    objects = [json.loads(line) for line in done.stdout.splitlines()]
    assert [item["game"] for item in objects] == [1, 2, 3]
    first, broken, third = objects
    assert set(first) == {"file", "game", "declared", "consistent", "excluded"}
    assert first["consistent"] == ["backgammon"] and first["declared"] == "jacquet"
    assert first["excluded"][0] == {
        "rules": "jacquet",
        "ply": 3,
        "line": 7,
        "column": 14,
        "reason": "24/21: the courier (on 7) must reach the home table before any other man moves",
    }
    assert broken["consistent"] == [] and "24/ZZ" in broken["errors"][0]
    assert third["consistent"] == ["backgammon"]  # the games after it are still inferred
    assert "3 games: 2 fit some ruleset, 0 fit none, 1 unreadable" in done.stderr


def test_a_game_no_ruleset_fits_exits_1_and_a_missing_path_2(tmp_path: Path) -> None:
    path = tmp_path / "none.jqt"
    path.write_text('[Event "x"]\n\n1. 6-5: 24/2\n', encoding="utf-8")
    done = run("infer", str(path))
    assert done.returncode == 1
    assert "  consistent with: none" in done.stdout
    missing = run("infer", str(path), str(tmp_path / "missing.jqt"))
    assert missing.returncode == 2
    assert "missing.jqt" in missing.stdout + missing.stderr
    assert "Traceback" not in missing.stderr


def test_the_reason_is_the_rule_broken_and_slips_adds_the_slip() -> None:
    """An excluded ruleset is most often not the one played, which no slip explains: the
    reason is the rule alone unless ``--slips`` asks for the search (docs/infer.md)."""
    path = str(ROOT / "corpus" / "valid" / "jacquet-unrestricted.jqt")
    rule = "makes a block of six (points 24 to 19) in front of Black's men without two return men"
    plain = [json.loads(line) for line in run("infer", "--json", path).stdout.splitlines()]
    slips = [
        json.loads(line) for line in run("infer", "--json", "--slips", path).stdout.splitlines()
    ]
    assert [game["consistent"] for game in plain] == [game["consistent"] for game in slips]
    said = {item["rules"]: item["reason"] for item in plain[0]["excluded"]}
    with_slip = {item["rules"]: item["reason"] for item in slips[0]["excluded"]}
    assert said["jacquet"] == f"24/19 24/23: {rule}"
    assert (
        with_slip["jacquet"]
        == f"24/19 24/23: {rule}; probably a play of Black's recorded under White"
    )
    # the same plies and places either way: only the words after the rule differ
    for one, other in zip(plain[0]["excluded"], slips[0]["excluded"], strict=True):
        assert {**one, "reason": ""} == {**other, "reason": ""}
        assert other["reason"].startswith(one["reason"])
