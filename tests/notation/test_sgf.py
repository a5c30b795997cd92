"""gnubg's SGF both ways: gnubg's ``save match`` read as the same games as the ``.mat`` it came
from, our ``export --sgf`` read back as the same games, and loaded by gnubg as the original."""

from __future__ import annotations

import importlib.util
import io
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from helpers import SHARED_MAT

from jacquet_notation.match import check_game, outcome
from jacquet_notation.notation import read_games
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import replay
from jacquet_notation.sgf_writer import write_sgf_matches

ROOT = Path(__file__).resolve().parent.parent.parent
FIXTURE = ROOT / "tests" / "data" / "sgf" / "gnubg-analysed-3pt.sgf"
GNUBG_PROGRAM = Path("/usr/games/gnubg")
needs_gnubg = pytest.mark.skipif(
    importlib.util.find_spec("gnubg") is None, reason="gnubg's Python package is not installed"
)


def shared_files(count: int) -> list[Path]:
    if not SHARED_MAT.is_dir():
        pytest.skip("the shared match files are not here")
    files = sorted(p for p in Path(SHARED_MAT).rglob("*.txt"))
    step = max(len(files) // count, 1)
    return files[::step][:count]


def game_key(record: GameRecord) -> tuple[Any, ...]:
    """A game as both readings must agree on it: each ply's side, dice, action and the position
    after it, the winner and the points (``24/13`` and ``24/18 18/13`` are one play); the
    result's points only where the match's checks accept it and it is no resignation: gnubg
    keeps a resignation at 1 to 3 times the cube (sgf.c's RestoreGame), where a match file may
    give up the match, and writes its own reading of a result the checks refuse."""
    game = replay(record)
    plies = [
        (p.written.side, p.written.dice, p.written.action, p.after.key() if p.after else None)
        for p in game.plies
    ]
    resigned = outcome(game).ending == "resignation"
    result = record.result if not check_game(game) and not resigned else "not compared"
    return plies, result, game.winner, game.points, [str(e) for e in game.errors]


def gnubg_sgf(mat: Path, out: Path) -> None:
    """gnubg's SGF of a match file, made by gnubg in a process of its own (it prints boards)."""
    script = (
        f"import gnubg\ngnubg.command('import mat \"{mat}\"')\n"
        f"gnubg.command('save match \"{out}\"')\n"
    )
    subprocess.run([sys.executable, "-c", script], capture_output=True, check=True, timeout=120)


@pytest.mark.integration
@needs_gnubg
def test_gnubg_save_match_reads_as_the_same_games_as_the_mat(tmp_path: Path) -> None:
    for number, mat in enumerate(shared_files(6)):
        out = tmp_path / f"saved{number}.sgf"
        gnubg_sgf(mat, out)
        ours = list(read_games(mat))
        theirs = list(read_games(out))
        assert [g.errors for g in theirs] == [[] for _ in theirs]
        assert [game_key(g) for g in theirs] == [game_key(g) for g in ours], mat
        for a, b in zip(ours, theirs, strict=True):
            for tag in ("White", "Black", "Match", "Game", "Score", "Crawford", "Date", "Event"):
                if tag in a.tags or tag != "Date":  # gnubg dates an undated match today
                    assert a.tags.get(tag) == b.tags.get(tag), (mat, tag)


@pytest.mark.integration
def test_every_export_reads_back_as_the_same_games() -> None:
    for mat in shared_files(25):
        games = list(read_games(mat))
        texts = list(write_sgf_matches(games))
        back = [g for text in texts for g in read_games(io.StringIO(text), str(mat))]
        assert [game_key(g) for g in back] == [game_key(g) for g in games], mat
        assert [g.tags for g in back] == [g.tags for g in games]
        assert [g.comments for g in back] == [g.comments for g in games]


@pytest.mark.unit
def test_a_small_match_round_trips_with_its_cube_and_resignation() -> None:
    text = (
        "(;FF[4]GM[6]CA[UTF-8]AP[GNU Backgammon:1.1]MI[length:3][game:0][ws:0][bs:0]"
        "PW[Ann]PB[Bob]DT[2024-05-01]RU[Crawford]RE[W+2R]\n;W[31hefe]\n;B[double]C[a bold one]"
        "\n;W[take]\n;B[42qusu]\n;W[63])\n"
        "(;FF[4]GM[6]MI[length:3][game:1][ws:2][bs:0]PW[Ann]PB[Bob]RU[Crawford:CrawfordGame]"
        "\n;B[61qkkj]\n;W[double]\n;B[drop]RE[W+1])\n"
    )
    first, second = read_games(io.StringIO(text), "m.sgf")
    assert first.errors == [] and second.errors == []
    assert first.tags["Date"] == second.tags["Date"] == "2024.05.01"  # carried from game 1
    assert (first.tags["Game"], second.tags["Score"], first.tags["Crawford"]) == ("1", "2-0", "On")
    assert [p.action for p in first.plays] == [None, "double", "take", None, None]
    assert first.plays[1].comments == ("a bold one",)
    assert first.plays[-1].is_bare_roll and first.result == "2-0"  # resigned, 63 unplayed
    assert [(p.side, p.turn) for p in first.plays] == [
        ("white", 1),
        ("black", 1),
        ("white", 2),
        ("black", 2),
        ("white", 3),
    ]
    assert replay(first).errors == []
    # gnubg's dice set: mid-game a play not given; ending the game, the roll left unplayed
    (given,) = read_games(io.StringIO("(;FF[4]GM[6]\n;W[31hefe]\n;PL[B]DI[63]\n;W[21cbba])"))
    assert (given.plays[1].side, given.plays[1].action) == ("black", "unknown")
    (ending,) = read_games(io.StringIO("(;FF[4]GM[6]RE[W+1R]\n;W[31hefe]\n;PL[B]DI[63])"))
    assert ending.plays[-1].side == "black" and ending.plays[-1].is_bare_roll
    assert replay(ending).plies[-1].unplayed and replay(ending).errors == []


@pytest.mark.unit
def test_a_set_position_becomes_the_position_tag() -> None:
    text = (
        "(;FF[4]GM[6]MI[length:0][game:0][ws:0][bs:0]PW[A]PB[B]\n"
        ";PL[W]AE[a:y]AW[a][a][b:c]AB[x][x][y]\n;W[21cbba])\n"
    )
    (game,) = read_games(io.StringIO(text))
    assert game.errors == []
    assert game.tags["Position"] == (
        "white 3:1 2:1 1:2 off:11; black 1:2 bar:1 off:12; white to move"
    )
    # as gnubg loads it: AW are the men of the side on roll (PL's), AB the other side's
    text = text.replace("PL[W]", "PL[B]").replace(";W[21cbba]", ";B[21xwxz]")
    (game,) = read_games(io.StringIO(text))
    assert game.tags["Position"] == (
        "white 1:2 bar:1 off:12; black 3:1 2:1 1:2 off:11; black to move"
    )


@pytest.mark.unit
@pytest.mark.parametrize(
    ("text", "where", "said"),
    [
        ("(;FF[4]GM[6]PW[A]\n;W[71ab])", (2, 2), "expected two dice 1 to 6"),
        ("(;FF[4]GM[1]PW[A])", (1, 8), "expected GM[6]"),
        ("(;FF[4]GM[6]pw[A])", (1, 13), "expected a property in capitals"),
        ("(;FF[4]GM[6]RU[Nackgammon])", (1, 13), "jacquet reads standard backgammon only"),
        # unclosed, it runs to the end of the file, the game after it taken in
        ("(;FF[4]GM[6]\n;W[31hefe]", (4, 12), "expected ) closing the game"),
    ],
)
def test_a_malformed_game_says_where(text: str, where: tuple[int, int], said: str) -> None:
    good = "(;FF[4]GM[6]PW[A]PB[B]\n;W[31hefe])\n"
    games = list(read_games(io.StringIO(good + text + "\n" + good)))
    assert [bool(g.errors) for g in games][:2] == [False, True]
    error = games[1].errors[0]
    assert said in str(error)
    assert ((error.line or 0) - 2, error.column) == where
    if len(games) == 3:  # the game after a closed broken one is read
        assert games[2].errors == []


@pytest.mark.unit
def test_gnubgs_analysis_reaches_the_record() -> None:
    if not FIXTURE.exists():
        pytest.skip("no analysed fixture")
    games = list(read_games(FIXTURE))
    analysed = [p.analysis for g in games for p in g.plays if p.analysis is not None]
    assert analysed and games[0].analyser is not None
    assert games[0].analyser.name == "GNU Backgammon"
    assert any(d.kind == "cube" for a in analysed for d in a.decisions)
    moves = [d for a in analysed for d in a.decisions if d.kind == "move"]
    assert moves and all(d.loss >= 0 for d in moves)
    assert any(d.luck is not None for d in moves)
    chosen = [d for d in moves if d.chosen is not None]
    assert chosen and all(d.options[0].equity >= d.options[-1].equity for d in chosen)


@pytest.mark.integration
def test_export_sgf_writes_one_file_a_match(tmp_path: Path) -> None:
    (mat,) = shared_files(1)
    out = tmp_path / "m.sgf"
    done = subprocess.run(
        [sys.executable, "-m", "jacquet_notation", "export", "--sgf", str(out), str(mat)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    assert "1 match written" in done.stderr
    assert [game_key(g) for g in read_games(out)] == [game_key(g) for g in read_games(mat)]


@pytest.mark.slow
@pytest.mark.skipif(not GNUBG_PROGRAM.exists(), reason="the gnubg program is not installed")
def test_gnubg_loads_the_export_as_it_imports_the_original() -> None:
    if not SHARED_MAT.is_dir():
        pytest.skip("the shared match files are not here")
    done = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "compare_gnubg_sgf.py"), "--sample", "8"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
        timeout=600,
    )
    assert "8 files: gnubg loads the SGF export of" in done.stdout, done.stderr
    # a match-winning resignation worth less than its cube's multiple gnubg scores otherwise
    differing = [line for line in done.stdout.splitlines() if ": game" in line]
    assert all("outcome" in line for line in differing), differing


BAR_FRAGMENT = ROOT / "corpus" / "valid" / "fragments" / "backgammon-bar.jqt"
BLACK_ON_ROLL = (
    '[White "Ann"]\n[Black "Bob"]\n[Rules "backgammon"]\n'
    '[Position "white 24:2 13:5 8:3 6:4 bar:1; black 24:2 13:5 8:3 6:5; black to move"]\n\n'
    "12... 6-4: 8/2 6/2\n13. 6-5: bar/20 13/7 5-2: 13/8 13/11\n*\n"
)


def set_position_records() -> list[GameRecord]:
    return [next(read_games(BAR_FRAGMENT)), next(read_games(io.StringIO(BLACK_ON_ROLL)))]


@pytest.mark.unit
def test_a_set_position_is_written_and_read_back_for_either_side_on_roll() -> None:
    for record in set_position_records():
        (text,) = write_sgf_matches([record])
        (back,) = read_games(io.StringIO(text))
        ours, theirs = replay(record), replay(back)
        assert theirs.errors == [] and theirs.set_position == ours.set_position
        assert [p.after for p in theirs.plies] == [p.after for p in ours.plies]


@pytest.mark.integration
@pytest.mark.skipif(not GNUBG_PROGRAM.exists(), reason="the gnubg program is not installed")
def test_gnubg_loads_a_set_position_as_ours(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The boards gnubg (the program: the Python package cannot load SGF) shows before each
    roll of our export, beside gnubg's position ID of our replay's (scripts/compare_gnubg.py)."""
    spec = importlib.util.spec_from_file_location("compare", ROOT / "scripts" / "compare_gnubg.py")
    assert spec is not None and spec.loader is not None
    compare = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "compare", compare)  # its dataclasses look it up there
    spec.loader.exec_module(compare)
    for number, record in enumerate(set_position_records()):
        (text,) = write_sgf_matches([record])
        sgf = tmp_path / f"set{number}.sgf"
        sgf.write_text(text, encoding="utf-8")
        script = tmp_path / "boards.py"
        script.write_text(
            "import gnubg\n"
            f"gnubg.command('load match \"{sgf}\"')\n"
            "for game in gnubg.match(0, 1, 0, 0)['games']:\n"
            "    for a in game['game']:\n"
            "        if a['action'] == 'move': print('BOARD', a['board'])\n",
            encoding="utf-8",
        )
        done = subprocess.run(
            [str(GNUBG_PROGRAM), "-t", "-q", "-p", str(script)],
            capture_output=True,
            text=True,
            timeout=120,
            check=False,
            cwd=tmp_path,
        )
        boards = [line.split()[1] for line in done.stdout.splitlines() if line.startswith("BOARD")]
        game = replay(record)
        assert boards == [compare.position_id(p.before, p.side) for p in game.plies]


@pytest.mark.integration
def test_an_sgf_file_is_archived_and_rebuilt_from_its_stored_text(tmp_path: Path) -> None:
    """Each game's stored text is its own tree, read again alone by the rebuild: the same games
    (each root with the match's date, as our writer writes it; docs/notation.md says what a
    rebuild of gnubg's own file, dated in its first game only, loses)."""
    import sqlite3

    db = tmp_path / "games.db"
    two = tmp_path / "two.sgf"
    two.write_text(
        "(;FF[4]GM[6]MI[length:3][game:0][ws:0][bs:0]PW[Ann]PB[Bob]DT[2024-05-01]RE[B+1]\n"
        ";W[31hefe]\n;B[double]\n;W[drop])\n"
        "(;FF[4]GM[6]MI[length:3][game:1][ws:0][bs:1]PW[Ann]PB[Bob]DT[2024-05-01]RE[W+1]\n"
        ";B[31qtst]\n;W[double]\n;B[drop])\n",
        encoding="utf-8",
    )

    def games() -> list[tuple[object, ...]]:
        with sqlite3.connect(db) as conn:
            return conn.execute(
                "select white, black, date, status from games order by id"
            ).fetchall()

    for extra in ([str(db), str(two)], [str(db), "--rebuild"]):
        done = subprocess.run(
            [sys.executable, "-m", "jacquet_notation", "archive", *extra],
            capture_output=True,
            text=True,
            cwd=ROOT,
            check=False,
        )
        assert done.returncode == 0, done.stderr
        assert games() == [("Ann", "Bob", "2024-05-01", "valid")] * 2
