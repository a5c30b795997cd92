"""``jacquet position`` and ``plays --position`` taking every SPEC form, through a real
process: the board and IDs printed, ``--json``'s fields, ``--turn``, and a malformed SPEC's one
line and exit code 2."""

from __future__ import annotations

import json

from helpers import run

START_ID = "4HPwATDgc/ABMA"
START_XGID = "XGID=-b----E-C---eE---c-e----B-:0:0:1:00:0:0:0:0:10"


def test_a_gnubg_id_is_shown_with_its_key_pips_and_xgid() -> None:
    done = run("position", START_ID, "--turn", "black")
    assert done.returncode == 0, done.stderr
    assert "White: 167 pips" in done.stdout and "Black: 167 pips" in done.stdout
    assert f"gnubg ID: {START_ID}\n" in done.stdout
    assert "XGID:     XGID=-b----E-C---eE---c-e----B-:0:0:-1:00:0:0:0:0:10" in done.stdout
    assert "Black to move" in done.stdout


def test_json_gives_the_key_ids_position_and_pips_and_reads_back() -> None:
    done = run("position", START_XGID, "--json")
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)
    assert set(answer) == {"key", "gnubg_id", "xgid", "position", "pips"}
    assert answer["xgid"] == START_XGID and answer["gnubg_id"].startswith(START_ID + ":")
    assert answer["pips"] == {"white": 167, "black": 167}
    for spec in (answer["key"], json.dumps(answer["position"]), answer["gnubg_id"]):
        again = json.loads(run("position", spec, "--json").stdout)
        assert (again["key"], again["position"]) == (answer["key"], answer["position"])


def test_a_jacquet_position_has_only_its_key() -> None:
    done = run("position", "gAAgP_8AAAIf_4")
    assert done.returncode == 0, done.stderr
    assert "gnubg ID: none (a Jacquet position" in done.stdout
    answer = json.loads(run("position", "gAAgP_8AAAIf_4", "--json").stdout)
    assert answer["gnubg_id"] is None and answer["xgid"] is None


def test_a_malformed_spec_is_one_line_and_exit_2() -> None:
    for spec in ("bogus", "XGID=-b:0:0", "4HPwATDgc/ABMA:QYnl", START_ID + "x"):
        done = run("position", spec)
        assert done.returncode == 2, (spec, done.stdout)
        assert done.stderr.count("\n") == 1 and done.stderr.startswith("jacquet: "), done.stderr
        assert "Traceback" not in done.stderr
    done = run("position", START_ID, "--rules", "jacquet")
    assert done.returncode == 2 and "direction=same" in done.stderr


def test_plays_takes_a_gnubg_id_and_an_xgid_as_its_position() -> None:
    by_xgid = run("plays", "--rules", "backgammon", "--dice", "3-1", "--position", START_XGID)
    by_id = run("plays", "--rules", "backgammon", "--dice", "3-1", "--position", START_ID)
    assert by_xgid.returncode == 0, by_xgid.stderr
    assert by_xgid.stdout == by_id.stdout and "8/5 6/5" in by_id.stdout


def test_replay_ids_gives_both_ids_after_each_board() -> None:
    from helpers import ROOT

    match = sorted((ROOT / "tests" / "data" / "mat").glob("*.mat"))[0]
    done = run("replay", str(match), "--ids")
    assert done.returncode in (0, 1), done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("gnubg ID: ")]
    boards = sum(line.startswith("White: ") for line in done.stdout.splitlines())
    assert lines and len(lines) == boards
    # a match file's game: the Match ID beside the Position ID (5 points, 0-0, White to roll)
    assert lines[0] == f"gnubg ID: {START_ID}:cAmgAAAAAAAE   {START_XGID[:-4]}5:10"
    for line in lines:
        gnubg, xgid = line.removeprefix("gnubg ID: ").split("   ")
        answer = json.loads(run("position", xgid, "--json").stdout)
        assert answer["gnubg_id"].split(":")[0] == gnubg.split(":")[0]
