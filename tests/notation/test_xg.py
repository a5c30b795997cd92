"""eXtreme Gammon ``.xg`` files: their games, XG's analysis, damaged files, the commands.

The files are written here by ``xg_files`` from the vendor's format description (no public
sample could be kept); every expected value below is read off the records as built, by hand.
"""

from __future__ import annotations

import importlib.util
import io
import re
import sqlite3
import struct
import subprocess
import sys
import zlib
from pathlib import Path

import pytest
import xg_files as xg
from helpers import run

from jacquet_notation.analysis import Analyser, Decision, Option
from jacquet_notation.errors import NotationError
from jacquet_notation.notation import read_games
from jacquet_notation.notation.xg_container import MAX_UNPACKED
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import replay

W1 = [(8, 5), (6, 5)]
B1 = [(24, 18), (13, 10)]
AFTER_W1 = xg.played(xg.START, W1)
AFTER_B1 = xg.played(AFTER_W1, B1)


def _match() -> bytes:
    """Two games of a 5-point match: a played roll each, a dropped double; then a beaver,
    a resignation for a gammon."""
    return xg.pack(
        [
            xg.match_header(),
            xg.game_header(1),
            xg.move(
                1,
                xg.START,
                (3, 1),
                W1,
                options=[(W1, 0.16, 998), ([(24, 21), (6, 5)], 0.05, 2)],
                error=0.0,
                luck=0.2,
            ),
            xg.cube(-1, 0, equities=(0.1, -0.2, 1.0), errors=(0.0, -1000.0)),
            xg.move(
                -1,
                AFTER_W1,
                (6, 3),
                B1,
                options=[([(24, 18), (18, 15)], 0.02, 3), (B1, -0.01, 3)],
                error=-0.03,
                luck=-0.1,
            ),
            xg.cube(1, 1, 0, equities=(0.5, 1.25, 1.0), errors=(0.0, -0.25)),
            xg.game_footer(1, 1, 0),
            xg.game_header(2, (1, 0)),
            xg.move(-1, xg.START, (6, 3), B1),
            xg.cube(1, 1, 2, position=xg.played(xg.START, B1)),
            xg.move(1, xg.played(xg.START, B1), (2, 1), [(13, 11), (6, 5)]),
            xg.game_footer(-1, 8, 102),
            xg.match_footer(),
        ]
    )


def _games(data: bytes) -> list[GameRecord]:
    return list(read_games(io.BytesIO(data), "m.xg"))


def test_a_match_reads_as_the_mat_reader_gives_it() -> None:
    first, second = _games(_match())
    assert first.tags == {
        "Event": "Club night",
        "Site": "Oslo",
        "Date": "2023.03.15",
        "Rules": "backgammon",
        "Match": "5",
        "White": "Alice",
        "Black": "Bob",
        "Crawford": "On",
        "Jacoby": "Off",
        "Beaver": "Off",
        "Game": "1",
        "Score": "0-0",
    }
    plies = [(p.side, p.turn, p.dice, p.action, p.cube, p.moves_as_pairs()) for p in first.plays]
    assert plies == [
        ("white", 1, (3, 1), None, None, W1),
        ("black", 1, (6, 3), None, None, B1),
        ("white", 2, None, "double", 2, []),
        ("black", 2, None, "drop", None, []),
    ]
    assert first.result == "1-0"
    assert (second.tags["Game"], second.tags["Score"]) == ("2", "1-0")
    # Black opens; White doubles, Black beavers (the cube at 4), White rolls; Black wins 8
    assert [(p.side, p.turn, p.action, p.cube) for p in second.plays] == [
        ("black", 1, None, None),
        ("white", 2, "double", 2),
        ("black", 2, "beaver", 4),
        ("white", 3, None, None),
    ]
    assert second.result == "0-8"
    for record in (first, second):
        game = replay(record)
        assert game.is_valid, game.errors


def test_xg_analysis_is_kept_on_the_plies() -> None:
    first = _games(_match())[0]
    assert first.analyser == Analyser("eXtreme Gammon", "4-ply, book")
    opening = first.plays[0].analysis
    assert opening is not None
    assert opening.decisions == (
        Decision(
            "move",
            (Option("8/5 6/5", 0.16), Option("24/21 6/5", 0.05)),
            0,
            0.0,
            0.2,
            "book",
        ),
    )
    reply = first.plays[1].analysis
    assert reply is not None
    cube, play = reply.decisions
    # no double before Black's roll: XG's three equities, best first, "no double" chosen
    assert cube == Decision(
        "cube",
        (Option("double, pass", 1.0), Option("no double", 0.1), Option("double, take", -0.2)),
        1,
        0.0,
        None,
        "4-ply",
    )
    # Black played the second of XG's plays, 0.03 (ErrMove) worse
    assert (play.chosen, play.loss, play.luck) == (1, 0.03, -0.1)
    assert [o.text for o in play.options] == ["24/18 18/15", "24/18 13/10"]
    drop = first.plays[3].analysis
    assert drop is not None
    # the taker's side: take -1.25, pass -1.0; Black passed, the better, yet XG wrote 0.25
    assert drop.decisions[0].options == (Option("pass", -1.0), Option("take", -1.25))
    assert (drop.decisions[0].chosen, drop.decisions[0].loss) == (0, 0.25)
    assert first.plays[2].analysis is not None  # the double's own decision


def test_a_set_position_becomes_the_position_tag() -> None:
    board = [0] * 26
    board[6], board[5], board[0], board[19] = 10, 5, -1, -14  # White 6:10 5:5; Black bar, 6:14
    data = xg.pack(
        [
            xg.match_header(length=99999),
            xg.game_header(1, start=tuple(board)),
            xg.move(1, tuple(board), (6, 5), [(6, 0), (5, 0)]),
            xg.game_footer(1, 1),
        ]
    )
    (record,) = _games(data)
    assert "Match" not in record.tags  # unlimited: a money session
    assert record.tags["Position"] == "white 5:5 6:10; black 6:14 bar:1; white to move"
    assert record.plays[0].moves_as_pairs() == [(6, 0), (5, 0)]
    assert replay(record).is_valid


def _damaged(tmp_path: Path, data: bytes) -> subprocess.CompletedProcess[str]:
    path = tmp_path / "bad.xg"
    path.write_bytes(data)
    return run("validate", str(path))


def _raw(game: bytes) -> bytes:
    """``xg.pack`` of a game file of any length (for a record cut short)."""
    packed = zlib.compress(game)
    entry = bytearray(532)
    entry[0] = 7
    entry[1:8] = b"temp.xg"
    struct.pack_into("<iiiIBB", entry, 512, len(game), len(packed), 0, zlib.crc32(game), 0, 6)
    archive = packed + bytes(entry)
    trailer = struct.pack("<IiiiiI12x", zlib.crc32(archive), 1, 1, 532, len(packed), 0)
    header = bytearray(8232)
    struct.pack_into("<4sIIqI", header, 0, b"RGMH", 1, 8232, 0, 0)
    return bytes(header) + archive + trailer


@pytest.mark.integration
@pytest.mark.parametrize(
    ("damage", "said"),
    [
        (lambda d: d[:5000], "a header of 8,232 bytes, cut short (at byte 5000)"),
        (lambda d: d[:-40], "an archive trailer that does not fit"),
        (lambda d: d[:8250] + bytes([d[8250] ^ 0xFF]) + d[8251:], "CRC-32 does not match"),
        (lambda d: d[:4] + b"\x02" + d[5:], "header version 2"),
    ],
)
def test_a_damaged_file_is_one_line(tmp_path: Path, damage, said: str) -> None:  # type: ignore[no-untyped-def]
    done = _damaged(tmp_path, damage(_match()))
    assert done.returncode != 0
    assert "Traceback" not in done.stderr + done.stdout
    lines = [line for line in (done.stdout + done.stderr).splitlines() if "bad.xg" in line]
    assert len(lines) == 1 and said in lines[0], done.stdout + done.stderr


@pytest.mark.integration
def test_bad_compression_and_a_cut_record_are_one_line(tmp_path: Path) -> None:
    game = b"".join([xg.match_header(), xg.game_header(1), xg.game_footer(1, 1)])
    cut = _raw(game[:-100])
    said = _damaged(tmp_path, cut)
    assert "record 3 of temp.xg" in said.stdout + said.stderr
    placed = [line for line in (said.stdout + said.stderr).splitlines() if "bad.xg" in line]
    assert len(placed) == 1 and re.search(r"bad\.xg:1:1: ", placed[0]), placed
    assert "record cut short" in said.stdout + said.stderr
    # compressed bytes that are no zlib stream, their CRC made right
    garbage = bytearray(_raw(game))
    garbage[8232 + 2 : 8232 + 12] = b"\x00" * 10
    size = len(garbage) - 36
    archive_crc = zlib.crc32(bytes(garbage[8232:size]))
    struct.pack_into("<I", garbage, size, archive_crc)
    said = _damaged(tmp_path, bytes(garbage))
    assert "bad compression" in said.stdout + said.stderr, said.stdout + said.stderr


def _bomb(declared: int, zeros: int) -> bytes:
    """An .xg file whose game file says ``declared`` bytes and inflates to ``zeros``."""
    bomb = zlib.compress(b"\0" * zeros)
    entry = bytearray(532)
    entry[0] = 7
    entry[1:8] = b"temp.xg"
    struct.pack_into("<iiiIBB", entry, 512, declared, len(bomb), 0, 0, 0, 6)
    archive = bomb + bytes(entry)
    trailer = struct.pack("<IiiiiI12x", zlib.crc32(archive), 1, 1, 532, len(bomb), 0)
    header = bytearray(8232)
    struct.pack_into("<4sIIqI", header, 0, b"RGMH", 1, 8232, 0, 0)
    return bytes(header) + archive + trailer


def test_a_compressed_bomb_is_refused_at_its_bound() -> None:
    """zlib is asked for no more than the game file's declared size (itself at most
    MAX_UNPACKED): 50 MB of zeros said to be 5,120 bytes stop at 5,121."""
    with pytest.raises(NotationError, match="unpacking past its 5,120 bytes"):
        _games(_bomb(5120, 50 << 20))
    with pytest.raises(NotationError, match="past the bound"):
        _games(_bomb(MAX_UNPACKED + 1, 10))


@pytest.mark.integration
def test_validate_archive_and_export_of_an_xg_file(tmp_path: Path) -> None:
    good = tmp_path / "match.xg"
    good.write_bytes(_match())
    done = run("validate", str(good))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 games: 2 valid" in done.stdout + done.stderr
    bad = tmp_path / "broken.xg"
    bad.write_bytes(_match()[:-10])
    db = tmp_path / "a.db"
    done = run("archive", str(db), str(good), str(bad))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    with sqlite3.connect(db) as conn:
        files = [row[0] for row in conn.execute("SELECT file FROM games")]
    assert sorted(files) == [str(good)] * 2  # nothing of the broken file
    # a rebuild reads the games' stored texts (the canonical ones) to the same games
    assert run("archive", str(db), "--rebuild").returncode == 0
    with sqlite3.connect(db) as conn:
        results = sorted(row[0] for row in conn.execute("SELECT result FROM games"))
    assert results == ["0-8", "1-0"]
    out = tmp_path / "match.mat"
    done = run("export", "--mat", str(out), str(good))
    assert done.returncode == 0, done.stdout + done.stderr
    again = list(read_games(out))
    assert [r.plays for r in again] == [r.plays for r in _games(_match())]
    assert [r.result for r in again] == ["1-0", "0-8"]


@pytest.mark.integration
def test_gnubg_has_no_import_of_xg_and_reads_our_mat_export_of_one(tmp_path: Path) -> None:
    """gnubg is the outside check of match files; it does not read .xg (``import xg`` is no
    command of its), so it checks our ``export --mat`` of the file: the same games and rolls."""
    if importlib.util.find_spec("gnubg") is None:
        pytest.skip("gnubg's Python package is not installed")
    path = tmp_path / "match.xg"
    path.write_bytes(_match())
    mat = tmp_path / "match.mat"
    assert run("export", "--mat", str(mat), str(path)).returncode == 0
    script = (
        "import gnubg\n"
        f"gnubg.command('import xg {path}')\n"
        "print('XG', 'MATCH' if gnubg.match() else 'NONE')\n"
        f"gnubg.command('import mat {mat}')\n"
        "m = gnubg.match(analysis=0, boards=0, statistics=0, verbose=0)\n"
        "for g in m['games']:\n"
        "    print('GAME', [(a['action'], tuple(sorted(a.get('dice', ())))) for a in g['game']])\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=tmp_path
    )
    assert "XG NONE" in done.stdout, done.stdout + done.stderr
    games = [line for line in done.stdout.splitlines() if line.startswith("GAME")]
    assert games == [
        "GAME [('move', (1, 3)), ('move', (3, 6)), ('double', ()), ('drop', ())]",
        # gnubg holds a beaver as Black's redouble, then White's take
        "GAME [('move', (3, 6)), ('double', ()), ('double', ()), ('take', ()), ('move', (1, 2)),"
        " ('resign', ())]",
    ], done.stdout + done.stderr


def test_an_old_file_gives_its_ansi_names_and_an_in_progress_game_no_result() -> None:
    data = xg.pack(
        [
            xg.match_header("Ørjan", "Zoë", 3, crawford=False, version=20),
            xg.game_header(1),
            xg.move(1, xg.START, (3, 1), W1),
        ]
    )
    (record,) = _games(data)
    assert (record.tags["White"], record.tags["Black"], record.tags["Match"]) == (
        "Ørjan",
        "Zoë",
        "3",
    )
    assert (record.tags["Crawford"], record.tags["Event"], record.tags["Site"]) == (
        "Off",
        "Club night",
        "Oslo",
    )
    assert record.result is None and len(record.plays) == 1
    assert record.analyser is None and record.plays[0].analysis is None


@pytest.mark.parametrize(
    ("records", "said"),
    [
        ([xg.game_header(1)], "the first record is not a match header (record 1 of temp.xg"),
        ([xg.match_header(), xg.move(1, xg.START, (3, 1), W1)], "before its header (record 2"),
        (
            [xg.match_header(), xg.game_header(1), xg.move(1, xg.START, (3, 1), [(8, 9)])],
            "a move that is not one of XG's points (record 3 of temp.xg, at its byte 5120)",
        ),
        (
            [xg.match_header(), xg.game_header(1), xg.move(1, xg.START, (7, 1), W1)],
            "a move that is not one of XG's points",
        ),
        ([xg.match_header(), xg.game_header(1), xg.game_header(2)], "a game header inside a game"),
    ],
)
def test_records_out_of_place_refuse_the_file(records: list[bytes], said: str) -> None:
    with pytest.raises(NotationError, match=re.escape(said)):
        _games(xg.pack(records))


@pytest.mark.integration
def test_a_folder_and_standard_input_are_read_as_xg(tmp_path: Path) -> None:
    folder = tmp_path / "matches"
    folder.mkdir()
    (folder / "one.xg").write_bytes(_match())
    done = run("validate", str(folder))
    assert "2 games: 2 valid" in done.stdout + done.stderr, done.stdout + done.stderr
    piped = subprocess.run(
        [sys.executable, "-m", "jacquet_notation", "validate", "-"],
        input=_match(),
        capture_output=True,
        timeout=300,
    )
    assert piped.returncode == 0 and b"2 games: 2 valid" in piped.stdout + piped.stderr


def test_hits_are_found_on_xgs_board() -> None:
    black = [(13, 7), (13, 11)]  # two blots: White's 18 and 14
    before = xg.played(xg.START, black)
    data = xg.pack(
        [
            xg.match_header(),
            xg.game_header(1),
            xg.move(-1, xg.START, (6, 2), black),
            xg.move(1, before, (6, 4), [(24, 18), (18, 14)]),
        ]
    )
    (record,) = _games(data)
    assert [m.notation() for m in record.plays[1].moves] == ["24/18*", "18/14*"]
    game = replay(record)
    assert game.is_valid, game.errors
    assert game.final.bar("black") == 2


def test_a_name_with_quotes_and_a_newline_stays_one_tag() -> None:
    data = xg.pack([xg.match_header('Al "Q"\nX'), xg.game_header(1), xg.game_footer(1, 1)])
    (record,) = _games(data)
    assert record.tags["White"] == 'Al "Q" X' and not record.errors
