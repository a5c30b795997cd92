"""The commands on match files: validate and fmt read them by content, export --mat writes them."""

from __future__ import annotations

import io
import shutil
from pathlib import Path

from click.testing import CliRunner

from jacquet_notation.cli import main
from jacquet_notation.notation import parse_games, read_games

MATCHES = Path(__file__).resolve().parents[2] / "corpus" / "valid" / "backgammon-mat"
GALAXY = MATCHES / "galaxy-1988527.mat"
STUDIO = MATCHES / "studio-boardlord-llabba.mat"


def _games(path: Path) -> list[object]:
    return list(read_games(path))


def test_validate_reads_match_files_whatever_their_ending(tmp_path: Path) -> None:
    shutil.copy(GALAXY, tmp_path / "one.jqt")
    shutil.copy(STUDIO, tmp_path / "two.txt")
    result = CliRunner().invoke(main, ["validate", "--jobs", "1", str(tmp_path)])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("5 games: 5 valid, 0 invalid, 0 unreadable")
    result = CliRunner().invoke(main, ["validate", "--jobs", "1", str(MATCHES)])
    assert result.exit_code == 0, result.output
    assert result.output.strip().endswith("7 games: 7 valid, 0 invalid, 0 unreadable")


def test_a_bad_play_in_a_match_file_is_reported_with_its_place(tmp_path: Path) -> None:
    text = GALAXY.read_text(encoding="utf-8").replace("13/9 7/6", "13/9 7/q")
    (tmp_path / "bad.mat").write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--jobs", "1", str(tmp_path / "bad.mat")])
    assert result.exit_code == 1
    first = result.output.splitlines()[0]
    assert first.startswith(f"{tmp_path / 'bad.mat'}:32:15: ")
    assert "expected a move such as 24/18" in first and "Traceback" not in result.output
    assert result.output.strip().endswith("2 games: 1 valid, 0 invalid, 1 unreadable")


def test_export_mat_writes_a_match_that_reads_back_the_same(tmp_path: Path) -> None:
    out = tmp_path / "out.mat"
    result = CliRunner().invoke(main, ["export", "--mat", str(out), str(GALAXY)])
    assert result.exit_code == 0, result.output
    assert "1 match written" in result.output
    assert _games(out) == _games(GALAXY)


def test_export_mat_from_jqt_records(tmp_path: Path) -> None:
    jqt = tmp_path / "match.jqt"
    fmt = CliRunner().invoke(main, ["fmt", "--no-check", str(STUDIO)])
    assert fmt.exit_code == 0, fmt.output
    jqt.write_text(fmt.stdout, encoding="utf-8")
    out = tmp_path / "again.mat"
    result = CliRunner().invoke(main, ["export", "--mat", str(out), str(jqt)])
    assert result.exit_code == 0, result.output
    assert _games(out) == _games(STUDIO)


def test_export_mat_writes_one_file_a_match_into_a_folder(tmp_path: Path) -> None:
    args = ["export", "--mat", str(tmp_path), str(GALAXY), str(STUDIO)]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    names = sorted(p.name for p in tmp_path.iterdir())
    assert names == [
        "BoardLord-v-Llabba-7pt-2023.08.09.mat",
        "lasse-v-nicksan1111-5pt-2023.09.07.mat",
    ]
    assert _games(tmp_path / names[0]) == _games(STUDIO)
    refused = CliRunner().invoke(
        main, ["export", "--mat", str(tmp_path / "x.mat"), str(GALAXY), str(STUDIO)]
    )
    assert refused.exit_code == 2
    assert "the games make 2 matches: give a folder" in refused.output
    assert not (tmp_path / "x.mat").exists()


def test_export_mat_refuses_a_jacquet_game_and_writes_nothing(tmp_path: Path) -> None:
    jqt = tmp_path / "j.jqt"
    jqt.write_text('[Rules "jacquet"]\n\n1. 6-5: 24/13\n', encoding="utf-8")
    result = CliRunner().invoke(main, ["export", "--mat", str(tmp_path / "j.mat"), str(jqt)])
    assert result.exit_code == 1  # a game that cannot be written (docs/notation.md)
    assert 'backgammon games only (this game\'s Rules: "jacquet")' in result.output
    assert "Traceback" not in result.output and not (tmp_path / "j.mat").exists()


def test_fmt_writes_a_match_file_as_jqt_records_to_a_fixed_point() -> None:
    runner = CliRunner()
    first = runner.invoke(main, ["fmt", str(GALAXY)])
    assert first.exit_code == 0, first.output
    records = parse_games(first.stdout)
    assert records == _games(GALAXY)
    assert "6. double 2 drop" in first.stdout
    second = runner.invoke(main, ["fmt", "-"], input=first.stdout)
    assert second.stdout == first.stdout


def test_import_xml_gives_the_match_back_as_records(tmp_path: Path) -> None:
    xml = tmp_path / "m.xml"
    runner = CliRunner()
    assert runner.invoke(main, ["export", "--xml", str(xml), str(STUDIO)]).exit_code == 0
    back = runner.invoke(main, ["import-xml", str(xml)])
    assert back.exit_code == 0, back.output
    assert list(read_games(io.BytesIO(back.stdout_bytes))) == _games(STUDIO)
