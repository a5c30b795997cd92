"""``jacquet replay`` and ``jacquet generate`` from the outside."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner
from lxml import etree

from jacquet_notation.cli import main
from jacquet_notation.notation import read_games
from jacquet_notation.position import Position
from jacquet_notation.replay import replay

CORPUS = Path(__file__).resolve().parents[2] / "corpus"


def test_replay_prints_each_board_and_the_result() -> None:
    path = CORPUS / "valid" / "seed-openings.jqt"
    result = CliRunner().invoke(main, ["replay", str(path), "--game", "4"])
    assert result.exit_code == 0, result.output
    out = result.output
    assert out.startswith("Start (jacquet)")
    assert "1... Black 6-5: 24/13  (as played: 24/18 18/13)" in out
    assert "2. White 4-1: 24/20 20/19" in out
    # After Black's 24/13, Black's courier stands on White's 1 (the near row's right end).
    board = out.split("1... Black 6-5")[1].split("2. White")[0]
    near = board.splitlines()[4]
    assert near.rstrip().endswith("Bc")
    assert "Result by the rules: unfinished; as written: *" in out


def test_replay_one_turn_to_svg(tmp_path: Path) -> None:
    path = CORPUS / "valid" / "jacquet.jqt"
    svg = tmp_path / "turn3.svg"
    result = CliRunner().invoke(main, ["replay", str(path), "--turn", "3", "--svg", str(svg)])
    assert result.exit_code == 0, result.output
    assert "Start" not in result.output
    assert result.output.count("3. White") + result.output.count("3... Black") >= 1
    root = etree.parse(str(svg)).getroot()
    game = replay(next(iter(read_games(path))))
    after_turn_3 = [p for p in game.plies if p.written.turn == 3][-1].after
    assert isinstance(after_turn_3, Position)
    assert root.get("data-key") == after_turn_3.key()


def test_replay_of_a_broken_game_says_where_it_stops() -> None:
    path = CORPUS / "broken" / "illegal-courier.jqt"
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 1
    assert "cannot be played: 24/23: the courier" in result.output


def test_replay_missing_game_is_a_clean_error() -> None:
    path = CORPUS / "valid" / "jacquet.jqt"
    result = CliRunner().invoke(main, ["replay", str(path), "--game", "9"])
    assert result.exit_code == 2
    assert "has no game 9" in result.output
    assert "Traceback" not in result.output


def test_generate_is_seeded_and_legal(tmp_path: Path) -> None:
    runner = CliRunner()
    first = runner.invoke(main, ["generate", "--games", "3", "--seed", "9", "--bot", "greedy"])
    second = runner.invoke(main, ["generate", "--games", "3", "--seed", "9", "--bot", "greedy"])
    other = runner.invoke(main, ["generate", "--games", "3", "--seed", "10", "--bot", "greedy"])
    assert first.exit_code == 0
    assert first.output == second.output != other.output
    path = tmp_path / "g.jqt"
    path.write_text(first.output, encoding="utf-8")
    games = [replay(r) for r in read_games(path)]
    assert len(games) == 3
    assert all(g.is_valid and g.winner is not None for g in games)


def test_generate_each_ruleset(tmp_path: Path) -> None:
    for name in ("bouchon", "murray", "five-max"):
        result = CliRunner().invoke(main, ["generate", "-n", "2", "--rules", name])
        assert result.exit_code == 0
        assert f'[Rules "{name}"]' in result.output


def test_replay_names_cube_actions_and_unknown_plays() -> None:
    # a real Galaxy match: game 1's "Doubles => 2" / "Drops", and a roll whose play the Studio
    # file does not give ("????"), each said as such, never as a pass
    runner = CliRunner()
    galaxy = CORPUS / "valid" / "backgammon-mat" / "galaxy-1988527.mat"
    said = runner.invoke(main, ["replay", str(galaxy)]).output
    assert "6. White: double 2\n" in said
    assert "6... Black: drop\n" in said
    assert ": pass" not in said
    studio = CORPUS / "valid" / "backgammon-mat" / "studio-solnze-lasse.txt"
    said = runner.invoke(main, ["replay", str(studio), "--game", "2"]).output
    # (``61: ????``, then the resignation: the roll kept unplayed, as gnubg reads it)
    assert (
        "31... Black 6-1: (no play written)  [6-1 rolled and not played: the game ends there]\n"
        in said
    )


def test_replay_of_a_file_with_no_record_says_so_and_writes_nothing(tmp_path: Path) -> None:
    notes = tmp_path / "LICENSE.md"
    notes.write_text("MIT License\n\nPermission is hereby granted, free of charge\n")
    svg = tmp_path / "out.svg"
    result = subprocess.run(
        [sys.executable, "-m", "jacquet_notation", "replay", str(notes), "--svg", str(svg)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert result.returncode == 1
    assert result.stdout == ""  # no start board, no "Result by the rules"
    [line] = result.stderr.splitlines()
    assert line.startswith(f"{notes}:1:1: expected a tag")
    assert not svg.exists()
