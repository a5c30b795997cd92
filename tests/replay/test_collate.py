"""Collation (docs/collate.md): self-play games printed three times, each printing wrong at one
ply in its own way (a typo that makes a play illegal, a play left out, another legal play the
game cannot go on from), found at exactly those plies and merged back into the game played."""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import dataclass, replace
from pathlib import Path

import pytest

from jacquet_notation.engine import legal_plays, validate_play
from jacquet_notation.errors import JacquetError
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, read_games, write_game
from jacquet_notation.record import GameRecord, Move, WrittenPlay
from jacquet_notation.replay import collate as collation_module
from jacquet_notation.replay import replay, written_play
from jacquet_notation.replay.alignment import align
from jacquet_notation.replay.collate import Transcription, collate
from jacquet_notation.rules import RULESET_NAMES, Rules


@dataclass
class Printings:
    """A true game, three printings of it, and the 0-based ply each one gets wrong."""

    true: GameRecord
    printings: list[GameRecord]
    typo: int
    omitted: int
    other: int


def _main_line(record: GameRecord) -> list[WrittenPlay]:
    return [replace(play, variations=(), comments=(), comments_before=()) for play in record.plays]


def _typo(record: GameRecord, at: int) -> WrittenPlay:
    """The play at ``at`` with one end point misprinted so that the play is illegal."""
    game = replay(record)
    ply = game.plies[at]
    play = ply.written
    assert play.dice is not None
    for shift in range(1, 24):
        first = play.moves[0]
        end = (first.end + shift) % 24 or 24
        moved = (Move(first.start, end, first.count, first.hit), *play.moves[1:])
        wrong = replace(play, moves=moved)
        try:
            validate_play(ply.before, play.dice, wrong.moves_as_pairs(), game.rules)
        except JacquetError:
            return wrong
    raise AssertionError("no misprint makes this play illegal")


def _dead_end(record: GameRecord, start: int) -> tuple[int, WrittenPlay]:
    """From ``start`` on, the first ply with another legal play after which the next play
    written is illegal, and that play as a transcriber writes it."""
    game = replay(record)
    for at in range(start, len(game.plies) - 1):
        ply, following = game.plies[at], record.plays[at + 1]
        dice = ply.written.dice
        if dice is None or following.dice is None or ply.play is None:
            continue
        for play in legal_plays(ply.before, dice, game.rules):
            if play.position == ply.play.position:
                continue
            try:
                validate_play(play.position, following.dice, following.moves_as_pairs(), game.rules)
            except JacquetError:
                return at, written_play(ply.written.side, ply.written.turn, dice, play)
    raise AssertionError("no play here leads nowhere")


def _printings(ruleset: str, seed: int) -> Printings:
    true = parse_game(write_game(next(iter(generate_records(1, seed, Rules.named(ruleset))))))
    plays = true.plays
    typo = len(plays) // 5
    omitted = (2 * len(plays)) // 5
    other, dead_end = _dead_end(true, (3 * len(plays)) // 5)
    first = list(plays)
    first[typo] = _typo(true, typo)
    second = [play for at, play in enumerate(plays) if at != omitted]
    third = list(plays)
    third[other] = dead_end
    printed = [parse_game(write_game(replace(true, plays=p))) for p in (first, second, third)]
    return Printings(true, printed, typo, omitted, other)


@pytest.mark.parametrize(("ruleset", "seed"), [("jacquet", 3), ("jacquet", 11), ("backgammon", 5)])
def test_three_printings_differ_at_exactly_their_slips_and_merge_into_the_game(
    ruleset: str, seed: int
) -> None:
    case = _printings(ruleset, seed)
    names = ["typo", "omits", "other"]
    collation = collate([Transcription(n, r) for n, r in zip(names, case.printings, strict=True)])
    found = {d.ply: d for d in collation.differences}
    assert sorted(found) == sorted([case.typo + 1, case.omitted + 1, case.other + 1])
    typo = found[case.typo + 1]
    wrong = next(r for r in typo.readings if r.sources == ["typo"])
    assert not wrong.legal and typo.chosen.sources == ["omits", "other"] and typo.chosen.legal
    left_out = found[case.omitted + 1]
    absent = next(r for r in left_out.readings if r.text is None)
    assert absent.sources == ["omits"] and not absent.legal and left_out.chosen.text is not None
    other = found[case.other + 1]
    alternative = next(r for r in other.readings if r.sources == ["other"])
    assert alternative.legal and alternative.continues == 0
    assert other.chosen.continues > 0
    assert _main_line(collation.merged) == _main_line(case.true)
    # the merged record reads back to the same game, its other readings kept as variations
    again = parse_game(write_game(collation.merged))
    assert _main_line(again) == _main_line(case.true)
    assert replay(replace(again, plays=_main_line(again))).is_valid
    asides = [v[0].comments_before for p in again.plays for v in p.variations]
    assert asides == [("reading of typo",), ("reading of other",)]
    assert any("left out in omits" in c for p in again.plays for c in p.comments)


def test_of_two_legal_readings_given_once_each_the_one_the_game_goes_on_from_wins() -> None:
    case = _printings("jacquet", 3)
    third = case.printings[2]
    collation = collate([Transcription("other", third), Transcription("true", case.true)])
    [difference] = collation.differences
    assert difference.chosen.sources == ["true"]
    assert all(reading.legal for reading in difference.readings)
    assert _main_line(collation.merged) == _main_line(case.true)


def test_a_play_one_printing_adds_is_dropped_and_kept_as_a_variation() -> None:
    case = _printings("backgammon", 5)
    plays = list(case.true.plays)
    added = replace(plays[9], comments=())
    doubled = parse_game(write_game(replace(case.true, plays=[*plays[:10], added, *plays[10:]])))
    collation = collate(
        [
            Transcription("adds", doubled),
            Transcription("a", case.true),
            Transcription("b", case.true),
        ]
    )
    [difference] = collation.differences
    assert difference.chosen.text is None and difference.ply == 11
    assert _main_line(collation.merged) == _main_line(case.true)
    assert collation.merged.plays[10].variations[0][0].comments_before == ("added in adds",)


def test_the_typo_s_slip_is_the_replay_s_own() -> None:
    # the dice of two plays swapped: each play is then illegal, and the replay names the slip
    true = parse_game("1. 6-5: 24/18 18/13 4-1: 24/20 20/19\n2. 3-2: 13/10 10/8 *\n")
    swapped = parse_game("1. 6-5: 24/18 18/13 3-2: 24/20 20/19\n2. 4-1: 13/10 10/8 *\n")
    collation = collate(
        [Transcription("a", true), Transcription("b", swapped), Transcription("c", true)]
    )
    assert [d.ply for d in collation.differences] == [2, 3]
    slips = [r.slip for d in collation.differences for r in d.readings if not r.legal]
    assert slips[0] is not None and "dice of two plays swapped" in slips[0]


def test_alignment_is_a_gap_for_a_play_left_out_and_one_column_for_a_misprint() -> None:
    a = [(1, "white", "x"), (1, "black", "y"), (2, "white", "z"), (2, "black", "w")]
    b = [(1, "white", "x"), (2, "white", "z"), (2, "black", "v")]
    assert align(a, b) == [(0, 0), (1, None), (2, 1), (3, 2)]
    long = [(n, "white", str(n)) for n in range(3000)]
    assert align(long, long[:1500] + long[1501:])[1500] == (1500, None)


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jacquet_notation", "collate", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.integration
def test_the_command_reports_json_and_writes_the_merged_record(tmp_path: Path) -> None:
    case = _printings("backgammon", 5)
    paths = []
    for name, record in zip(["typo", "omits", "other"], case.printings, strict=True):
        paths.append(str(tmp_path / f"{name}.jqt"))
        Path(paths[-1]).write_text(write_game(record), encoding="utf-8")
    merged = tmp_path / "merged.jqt"
    result = run(*paths, "--json", "--output", str(merged))
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    plies = [d["ply"] for d in answer["differences"]]
    assert plies == sorted([case.typo + 1, case.omitted + 1, case.other + 1])
    first = answer["differences"][0]
    assert set(first) == {"ply", "turn", "side", "readings", "chosen"}
    assert set(first["readings"][0]) == {"text", "sources", "legal", "slip"}
    [record] = read_games(merged)
    assert _main_line(record) == _main_line(case.true)
    # --output -: the record on stdout, the report on stderr
    piped = run(*paths, "--json", "--output", "-")
    assert piped.returncode == 0 and piped.stdout == merged.read_text(encoding="utf-8")
    assert json.loads(piped.stderr) == answer
    # one file of three games, two of them chosen
    both = tmp_path / "both.jqt"
    both.write_text("\n".join(write_game(r) for r in case.printings), encoding="utf-8")
    chosen = run(str(both), "--games", "1,3", "--json")
    assert chosen.returncode == 0, chosen.stderr
    sources = {
        s
        for d in json.loads(chosen.stdout)["differences"]
        for r in d["readings"]
        for s in r["sources"]
    }
    assert sources == {f"{both}#1", f"{both}#3"}


@pytest.mark.integration
def test_the_command_s_bad_input_is_one_line_and_an_exit_code(tmp_path: Path) -> None:
    good = tmp_path / "good.jqt"
    good.write_text("1. 6-5: 24/18 18/13 *\n", encoding="utf-8")
    bad = tmp_path / "bad.jqt"
    bad.write_text("1. 6-5: 24/1x *\n", encoding="utf-8")
    unread = run(str(good), str(bad))
    assert unread.returncode == 1
    assert unread.stderr.startswith(f"jacquet: {bad}:1:") and len(unread.stderr.splitlines()) == 1
    assert run(str(good)).returncode == 2
    assert run(str(good), str(good), "--games", "1,x").returncode == 2
    missing = run(str(good), str(good), "--games", "2")
    assert missing.returncode == 2 and "has no game 2" in missing.stderr


@pytest.mark.parametrize("ruleset", RULESET_NAMES)
def test_judging_from_the_position_reached_agrees_with_replaying_from_the_start(
    ruleset: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    case = next(
        found for seed in range(1, 9) if (found := _printings_or_none(ruleset, seed)) is not None
    )
    transcriptions = [Transcription(n, r) for n, r in zip("ABC", case.printings, strict=True)]
    quick = collate(transcriptions).to_json()
    monkeypatch.setattr(collation_module, "OPENING", 10**9)  # every reading from the start
    assert collate(transcriptions).to_json() == quick
    plies = sorted(difference["ply"] for difference in quick["differences"])  # type: ignore[attr-defined]
    assert plies == sorted([case.typo + 1, case.omitted + 1, case.other + 1])


def _printings_or_none(ruleset: str, seed: int) -> Printings | None:
    """The three printings of a seed's game, None where its game has no ply to spoil so."""
    try:
        return _printings(ruleset, seed)
    except AssertionError:
        return None
