"""The bundled corpus: the valid part validates, each broken record fails with its exact message,
and every play of the valid games is one the independent brute-force generator also finds."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner
from reference import reference_plays

from jacquet_notation.cli import main
from jacquet_notation.notation import read_games
from jacquet_notation.replay import replay
from jacquet_notation.rules import RULESET_NAMES

CORPUS = Path(__file__).resolve().parents[2] / "corpus"
BROKEN = CORPUS / "broken"


def _expected() -> list[tuple[str, str]]:
    rows = []
    for line in (BROKEN / "EXPECTED.tsv").read_text(encoding="utf-8").splitlines():
        name, message = line.split("\t", 1)
        rows.append((name, message))
    return rows


def test_valid_corpus_validates() -> None:
    result = CliRunner().invoke(main, ["validate", "--jobs", "1", str(CORPUS / "valid")])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("0 invalid, 0 unreadable")


def test_one_complete_game_per_named_ruleset() -> None:
    seen = set()
    for path in (CORPUS / "valid").glob("*.jqt"):
        for record in read_games(path):
            game = replay(record)
            assert game.errors == []
            if game.winner is not None:
                assert record.comments or any(p.comments for p in record.plays), path
                seen.add(game.rules.name)
    assert seen == set(RULESET_NAMES)


def test_every_broken_file_is_listed() -> None:
    listed = {name for name, _ in _expected()}
    assert listed == {p.name for p in BROKEN.glob("*.jqt")} | {p.name for p in BROKEN.glob("*.sgf")}


@pytest.mark.parametrize(("name", "message"), _expected(), ids=[n for n, _ in _expected()])
def test_broken_record_fails_with_its_message(
    name: str, message: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(BROKEN)
    result = CliRunner().invoke(main, ["validate", "--jobs", "1", name])
    assert result.exit_code == 1
    lines = result.output.splitlines()
    assert lines[0] == message
    assert lines[-1].startswith("1 game: 0 valid")


def test_corpus_plays_agree_with_the_reference_generator() -> None:
    for path in sorted((CORPUS / "valid").glob("*.jqt")):
        for record in read_games(path):
            game = replay(record)
            for ply in game.plies:
                assert ply.play is not None and ply.written.dice is not None
                expected = reference_plays(ply.before, ply.written.dice, game.rules)
                assert ply.after in expected, (path, ply.index)
