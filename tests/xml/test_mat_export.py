"""``jacquet export --mat`` as gnubg and our reader read it back (docs/notation.md, "Match files").

Where gnubg's Python package is installed (GPL, an outside cross-check only), its import of our
export of real match files is compared with its import of the originals; everywhere, what our
own reader reads back from an export is compared with what was exported, and the command's exit
codes are checked in a real subprocess.
"""

from __future__ import annotations

import importlib.util
import os
import random
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest
from click.testing import CliRunner
from helpers import run

from jacquet_notation.cli import main
from jacquet_notation.notation import parse_games, read_games, write_match, write_matches
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import replay

ROOT = Path(__file__).resolve().parents[2]
MATCHES = ROOT / "corpus" / "valid" / "backgammon-mat"
#: the shared real match files beside the checkout, or beside the folder of worktrees
SHARED = (
    next(
        (
            folder
            for folder in (ROOT.parent / "shared", ROOT.parent.parent / "shared")
            if (folder / "data" / "backgammon-mat").is_dir()
        ),
        ROOT.parent / "shared",
    )
    / "data"
    / "backgammon-mat"
)
needs_shared = pytest.mark.skipif(not SHARED.is_dir(), reason="the shared match files are not here")
#: the shared files whose export gnubg once read differently, one a layout: Player 2 winning on
#: Player 1's drop (Studio), Player 2 resigning after Player 1's take (Galaxy's Losses beside
#: the take), gnubg's doubled roll before an unnumbered Losses line, Galaxy's Losses lines
DIALECT_RICH = (
    "lasse/rossrock - Lasse 5pt Backgammon Studio 2024_05_11 21_39_07.txt",
    "lasse/match3029786.txt",
    "lasse/match10329741.txt",
    "lasse/match1100068.txt",
    "lasse/match2516058.txt",
    "lasse/match5905414.txt",
)

GAME = """[Rules "backgammon"]
[White "Ann"]
[Black "Bob"]
[Match "3"]
[Game "1"]
[Score "0-0"]

1. 3-1: 8/5 6/5 6-3: 24/18 18/15
2. 6-5: 24/18 18/13 2-1: 15/13 24/23
3. {end}
"""
#: Black doubles, and White drops (Black wins 1), or takes and Black resigns (White wins 2)
DROPPED = GAME.format(end="6-2: 13/7 7/5 double 2\n4. drop\n0-1")
RESIGNED = GAME.format(end="6-2: 13/7 7/5 double 2\n4. take\n2-0")


def _read(text: str) -> list[GameRecord]:
    return parse_games(text)


def _compare_export() -> ModuleType:
    """scripts/compare_gnubg_export.py, which is a script, not part of the package."""
    path = ROOT / "scripts" / "compare_gnubg_export.py"
    spec = importlib.util.spec_from_file_location("compare_gnubg_export", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _sample(count: int, seed: int) -> list[Path]:
    """A seeded draw of the shared files, plus the dialect-rich ones."""
    files = sorted(SHARED.glob("*/*.txt"))
    drawn = random.Random(seed).sample(files, min(count, len(files)))
    rich = [SHARED / name for name in DIALECT_RICH if (SHARED / name).is_file()]
    return sorted(set(drawn) | set(rich))


# -- the layout gnubg reads -------------------------------------------------------------------


def test_player_twos_win_on_player_ones_drop_stands_beside_the_drop() -> None:
    # gnubg reads "Wins" alone on the next line, in the right column, as Player 2 doubling again
    # and Player 1 resigning: gnubg's own export writes it beside the drop
    (record,) = _read(DROPPED)
    text = write_match([record])
    assert "  4)  Drops                       Wins 1 point" in text.splitlines()
    assert _read(text) == [record]


def test_player_twos_resignation_after_a_take_is_galaxys_losses_beside_the_take() -> None:
    # gnubg reads a bare "Wins" after Player 1's take as Player 2 doubling again; Galaxy's
    # "Losses" in Player 2's column beside the take it reads as the resignation
    (record,) = _read(RESIGNED)
    lines = write_match([record]).splitlines()
    assert "  4)  Takes                       Losses 2 points" in lines
    assert lines[-1] == "      Wins 2 points"
    assert _read("\n".join(lines)) == [record]


# -- what both readers read back --------------------------------------------------------------


def test_names_and_tags_are_written_as_both_readers_read_them_back() -> None:
    # ":" ends a score line's name for both readers, "," starts gnubg's rating (ours: the last
    # one), a '"' ends our header value, a line break ends the line: each written as documented
    (record,) = _read(DROPPED)
    record.tags.update(
        White="Ann : 3", Black="Zed,1500", Event='the "big" one', Site="Mon\ntreal\x07"
    )
    text = write_match([record])
    (again,) = _read(text)
    assert again.errors == []
    assert (again.tags["White"], again.tags["Black"]) == ("Ann ; 3", "Zed;1500")
    assert "BlackElo" not in again.tags and "Player_1" not in again.tags
    assert again.tags["Event"] == "the 'big' one"
    assert again.tags["Site"] == "Mon treal "
    assert again.plays == record.plays and again.result == record.result
    assert list(write_matches([again])) == [text]  # a fixed point from there


def test_a_rating_still_goes_after_the_name() -> None:
    (record,) = _read(DROPPED)
    record.tags.update(White="Zed,1500", WhiteElo="1600")
    (again,) = _read(write_match([record]))
    assert (again.tags["White"], again.tags["WhiteElo"]) == ("Zed;1500", "1600")


POSITION = "white 6:2 5:3 4:2 3:2 2:1 off:5; black 6:3 5:3 4:3 3:2 2:1 1:1 off:2; black to move"
SET_GAME = f"""[Rules "backgammon"]
[White "Ann"]
[Black "Bob"]
[Match "3"]
[Game "1"]
[Score "0-0"]
[Position "{POSITION}"]

23... 6-5: 6/off 5/off 24. 6-2: 6/off 2/off 4-3: 4/off 3/off
"""


def test_a_game_from_a_set_position_reads_back_from_its_header() -> None:
    # the set position is the header's [Position] (gnubg ignores it); the lines are numbered
    # from 1 whatever the first turn, as both readers want
    (record,) = _read(SET_GAME)
    assert not replay(record).errors
    text = write_match([record])
    assert f'; [Position "{POSITION}"]' in text
    assert "  1)                             65: 6/off 5/off" in text.splitlines()
    (again,) = _read(text)
    assert again.errors == [] and again.tags["Position"] == POSITION
    assert [(p.side, p.dice, p.moves) for p in again.plays] == [
        (p.side, p.dice, p.moves) for p in record.plays
    ]
    assert replay(again).errors == []
    assert [p.turn for p in again.plays] == [1, 2, 2]


def test_games_of_one_match_from_different_positions_are_refused(tmp_path: Path) -> None:
    second = SET_GAME.replace('[Game "1"]', '[Game "2"]').replace(
        POSITION, POSITION[:-13] + "white to move"
    )
    second = second.replace("23... 6-5: 6/off 5/off 24.", "23.").replace(" 4-3: 4/off 3/off", "")
    source = tmp_path / "two.jqt"
    source.write_text(SET_GAME + "\n" + second, encoding="utf-8")
    done = run("export", "--mat", str(tmp_path / "out.mat"), str(source))
    assert done.returncode == 1, done.stderr
    (line,) = done.stderr.splitlines()
    assert line.startswith(f"jacquet: {source}:") and "set position is its header's" in line
    assert not (tmp_path / "out.mat").exists()


@needs_shared
def test_every_export_of_a_sample_reads_back_as_the_same_games(tmp_path: Path) -> None:
    runner = CliRunner()
    for number, path in enumerate(_sample(40, seed=20261201)):
        out = tmp_path / f"{number}.mat"
        done = runner.invoke(main, ["export", "--mat", str(out), str(path)])
        if done.exit_code != 0:  # a refusal is one line, exit 1, nothing written
            assert done.exit_code == 1 and len(done.output.splitlines()) == 1, done.output
            assert not out.exists()
            continue
        assert list(read_games(out)) == list(read_games(path)), path


# -- file names and exit codes ----------------------------------------------------------------


def test_a_folder_gets_files_named_by_each_matchs_identity(tmp_path: Path) -> None:
    one = tmp_path / "one.jqt"
    one.write_text(
        DROPPED.replace('"Ann"', '"Jörg / Ann"').replace("[Score", '[Date "2024.05.11"]\n[Score'),
        encoding="utf-8",
    )
    two = tmp_path / "two.jqt"
    two.write_text(RESIGNED + "\n" + RESIGNED.replace('"0-0"', '"2-0"'), encoding="utf-8")
    out = tmp_path / "out"
    out.mkdir()
    done = run("export", "--mat", str(out), str(one), str(two))
    assert done.returncode == 0, done.stderr
    names = sorted(p.name for p in out.iterdir())
    assert names[0] == "Ann-v-Bob-3pt-" + names[0].split("-")[-1]  # two same matches: an id each
    assert len(names) == 3 and names[0] != names[1] and names[:2] == sorted(names[:2])
    assert names[2] == "Jorg_Ann-v-Bob-3pt-2024.05.11.mat"
    assert all(name.replace("-", "").replace("_", "").replace(".", "").isalnum() for name in names)
    again = tmp_path / "again"
    again.mkdir()
    assert run("export", "--mat", str(again), str(one), str(two)).returncode == 0
    assert sorted(p.name for p in again.iterdir()) == names  # stable


def test_exit_codes_are_the_helps(tmp_path: Path) -> None:
    good = tmp_path / "good.jqt"
    good.write_text(DROPPED, encoding="utf-8")
    done = run("export", "--mat", str(tmp_path / "good.mat"), str(good))
    assert done.returncode == 0 and "1 match written" in done.stderr
    # an illegal play: written all the same, exit 1
    bad = tmp_path / "bad.jqt"
    bad.write_text(DROPPED.replace("8/5 6/5", "8/5 6/4"), encoding="utf-8")
    done = run("export", "--mat", str(tmp_path / "bad.mat"), str(bad))
    assert done.returncode == 1, done.stderr
    assert (tmp_path / "bad.mat").exists() and "1 invalid game" in done.stderr
    assert f"{bad}:" in done.stderr.splitlines()[0]
    # a game that cannot be written: nothing written, exit 1, one line
    jqt = tmp_path / "j.jqt"
    jqt.write_text('[Rules "jacquet"]\n\n1. 6-5: 24/13\n', encoding="utf-8")
    done = run("export", "--mat", str(tmp_path / "j.mat"), str(jqt))
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert "Traceback" not in done.stderr and not (tmp_path / "j.mat").exists()
    # usage and I/O: exit 2
    done = run("export", "--mat", str(tmp_path / "x.mat"), str(tmp_path / "missing.jqt"))
    assert done.returncode == 2 and "Traceback" not in done.stderr
    help_text = run("export", "-h").stdout
    said = " ".join(help_text.split())
    assert "Exit 0 when every game is valid, 1 when any is invalid or unreadable" in said
    assert "--mat writes nothing when a game cannot be a match file's), 2 for a usage" in said


# -- gnubg, where installed -------------------------------------------------------------------


@needs_shared
def test_gnubg_reads_our_export_of_a_sample_as_the_original(tmp_path: Path) -> None:
    pytest.importorskip("gnubg")
    folder = tmp_path / "sample"
    folder.mkdir()
    for number, path in enumerate(_sample(30, seed=1346)):
        (folder / f"{number:02}-{path.name}").write_bytes(path.read_bytes())
    script = ROOT / "scripts" / "compare_gnubg_export.py"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run(
        [sys.executable, str(script), str(folder)],
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    count = len(list(folder.iterdir()))
    assert f"{count} files: gnubg reads the export of {count} as the original, 0 not" in done.stdout


def test_gnubg_reads_the_names_we_write_as_our_reader_does(tmp_path: Path) -> None:
    pytest.importorskip("gnubg")
    gnubg_summary = _compare_export().gnubg_summary
    (record,) = _read(DROPPED)
    record.tags.update(White="Ann : 3", Black="Zed,1500", Event='the "big" one')
    out = tmp_path / "names.mat"
    out.write_text(write_match([record]), encoding="utf-8")
    summary = gnubg_summary(out)
    assert summary is not None
    (again,) = read_games(out)
    assert summary["names"] == (again.tags["White"], again.tags["Black"])


#: every way a game can end, as the writer lays out each: the last turn, then the result
ENDINGS = [
    DROPPED,
    RESIGNED,
    GAME.format(end="double 2 take\n0-2"),
    GAME.format(end="double 2 drop\n1-0"),
    GAME.format(end="6-2: 13/7 7/5 6-3: 13/7 13/10\n0-2"),
    GAME.format(end="6-2: 13/7 7/5 6-3: 13/7 13/10\n1-0"),
    GAME.format(end="6-2: 13/7 7/5\n1-0"),
    GAME.format(end="6-2: 13/7 7/5\n0-1"),
]


@pytest.mark.parametrize("text", ENDINGS)
def test_gnubg_reads_each_ending_with_our_winner_and_points(text: str, tmp_path: Path) -> None:
    pytest.importorskip("gnubg")
    gnubg_summary = _compare_export().gnubg_summary
    (record,) = _read(text)
    out = tmp_path / "end.mat"
    out.write_text(write_match([record]), encoding="utf-8")
    (again,) = read_games(out)
    assert again.result == record.result
    summary = gnubg_summary(out)
    assert summary is not None
    white, black = (int(points) for points in (record.result or "").split("-"))
    (game,) = summary["games"]
    assert game["outcome"][2:] == (("X", white) if white else ("O", black))
    assert [a[0] for a in game["actions"]].count("double") == text.count("double")
