"""Files that blow up: sizes and counts that must grow with the input, not its square (a long
match's texts, copies of one game), and the caps on a game's size and an import's growth.

Real SQLite files and real subprocesses; the long match is made of the corpus' real games
(``bench/big_match.py``). Timings are the benches' (bench/), never these tests'.
"""

from __future__ import annotations

import importlib.util
import json
import os
import sqlite3
import subprocess
import sys
import urllib.request
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from helpers import as_version_10, one, rows, serving
from lxml import html

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive, rebuild, store
from jacquet_notation.notation import read_games

ROOT = Path(__file__).resolve().parents[2]
CORPUS_MATCHES = ROOT / "corpus" / "valid" / "backgammon-mat"


def _big_match_module() -> ModuleType:
    spec = importlib.util.spec_from_file_location("big_match", ROOT / "bench" / "big_match.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


BIG_MATCH = _big_match_module()


def big_match(tmp_path: Path, games: int) -> Path:
    """A match of ``games`` real games of the corpus, written to ``tmp_path``."""
    out: Path = BIG_MATCH.write_big_match(games, tmp_path / f"big{games}.mat", CORPUS_MATCHES)
    return out


def jacquet(*args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "jacquet_notation", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


# -- 1. a match game's text, once ---------------------------------------------------------------


def test_a_match_games_texts_together_are_about_the_files_size(tmp_path: Path) -> None:
    path = big_match(tmp_path, 300)
    size = path.stat().st_size
    records = list(read_games(path))
    assert len(records) == 300 and all(not r.errors for r in records)
    header = len(records[0].text) - len(records[0].text.split("\n Game 1")[1])
    # each game's own lines once, and the header again: not one newline per earlier line
    assert sum(len(r.text) for r in records) <= size + 300 * header


def test_a_match_games_lines_are_read_through_its_record_at_the_files_lines(
    tmp_path: Path,
) -> None:
    path = big_match(tmp_path, 120)
    lines = path.read_text(encoding="utf-8").split("\n")
    for record in list(read_games(path))[::17]:
        assert record.text_line(1) == lines[0]  # the header, from line 1
        for play in record.plays[::5]:
            line = record.text_line(play.span.line)
            assert line == lines[play.span.line - 1]
            assert line[play.span.column - 1 :].startswith(play.text)
        assert record.text_line(record.tag_spans["Game"].line - 1) in (None, "")


def test_an_error_late_in_a_long_match_names_its_line_column_and_text(tmp_path: Path) -> None:
    path = big_match(tmp_path, 150)
    lines = path.read_text(encoding="utf-8").split("\n")
    game_140 = lines.index(" Game 140")
    bad = game_140 + 3  # the game's second numbered line
    column = lines[bad].index(":") + 2
    lines[bad] = lines[bad][:column] + "7/7/q" + lines[bad][column + 4 :]
    path.write_text("\n".join(lines), encoding="utf-8")
    done = jacquet("validate", "--json", "--jobs", "1", str(path))
    assert done.returncode == 1, done.stderr
    reports = [json.loads(line) for line in done.stdout.splitlines() if line.startswith("{")]
    broken = [r for r in reports if r["status"] != "valid"]
    assert [r["game"] for r in broken] == [140]
    assert broken[0]["errors"][0]["line"] == bad + 1
    assert broken[0]["errors"][0]["column"] == column + 1
    shown = jacquet("validate", "--format", "text", "--jobs", "1", str(path))
    assert lines[bad].strip() in shown.stdout  # the file's own line, under the error
    assert "Traceback" not in done.stderr + shown.stderr


def test_the_archive_of_a_long_match_grows_with_the_file(tmp_path: Path) -> None:
    path = big_match(tmp_path, 400)
    size = path.stat().st_size
    db = tmp_path / "a.db"
    import_paths(db, [str(path)])
    stored = one(db, "SELECT sum(length(original)) FROM games")
    assert one(db, "SELECT count(*) FROM games") == 400
    assert stored <= 2 * size
    # the stored texts read again at their lines: a rebuild changes nothing of the games
    before = rows(db, "SELECT id, line, gap, status, errors FROM games ORDER BY rowid")
    rebuild(db)
    assert rows(db, "SELECT id, line, gap, status, errors FROM games ORDER BY rowid") == before


def test_a_rebuild_reports_a_late_match_games_error_at_its_line(tmp_path: Path) -> None:
    path = big_match(tmp_path, 60)
    text = path.read_text(encoding="utf-8")
    at = text.index(" Game 50\n")
    play = text.index(": ", text.index("2)", at)) + 2
    path.write_text(text[:play] + "9/9/q" + text[play + 4 :], encoding="utf-8")
    db = tmp_path / "a.db"
    import_paths(db, [str(path)])
    (errors,) = rows(db, "SELECT errors FROM games WHERE game_index = 50")[0]
    line = text.count("\n", 0, play) + 1
    assert json.loads(errors)[0]["line"] == line
    rebuild(db)
    (again,) = rows(db, "SELECT errors FROM games WHERE game_index = 50")[0]
    assert again == errors


# -- 2. copies of one game: a group, not a row per pair ---------------------------------------

COPY = """[Event "Copies"]
[Round "{n}"]
[White "Ann"]
[Black "Bob"]
[Rules "backgammon"]

1. 3-1: 8/5 6/5 6-4: 24/18 13/9
2. 5-2: 13/8 13/11 *
"""


def _copies(tmp_path: Path, count: int) -> Path:
    path = tmp_path / "copies.jqt"
    path.write_text("\n".join(COPY.format(n=n) for n in range(1, count + 1)), encoding="utf-8")
    return path


def _stored_rows(db: Path) -> int:
    """Every row the archive stores, in every table and index (sqlite's dbstat)."""
    return int(one(db, "SELECT sum(ncell) FROM dbstat WHERE pagetype = 'leaf'"))


def test_copies_of_one_game_store_rows_linear_in_the_copies(tmp_path: Path) -> None:
    small, large = tmp_path / "s", tmp_path / "l"
    small.mkdir()
    large.mkdir()
    counts = []
    for folder, copies in ((small, 50), (large, 200)):
        db = folder / "a.db"
        import_paths(db, [str(_copies(folder, copies))])
        assert one(db, "SELECT count(*) FROM games") == copies
        counts.append(_stored_rows(db))
    # four times the copies: about four times the rows (a row per pair was sixteen)
    assert counts[1] < 5 * counts[0]


def test_the_duplicates_view_answers_as_the_table_did(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    import_paths(db, [str(_copies(tmp_path, 4))])
    ids = [r[0] for r in rows(db, "SELECT id FROM games ORDER BY rowid")]
    pairs = rows(db, "SELECT game_id, other_id, reason FROM duplicates ORDER BY 1, 2")
    expected = sorted(
        (ids[later], ids[earlier], "tags differ: Round")
        for later in range(4)
        for earlier in range(later)
    )
    assert pairs == expected


def test_an_archive_of_version_5_is_migrated_to_groups(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    import_paths(db, [str(_copies(tmp_path, 3))])
    expected = rows(db, "SELECT game_id, other_id, reason FROM duplicates ORDER BY 1, 2")
    # what version 5 wrote: the pairs in a table, no gap column
    with sqlite3.connect(db) as conn:
        as_version_10(conn)
        conn.execute("DROP VIEW duplicates")
        conn.execute(
            "CREATE TABLE duplicates (game_id TEXT REFERENCES games(id), other_id TEXT "
            "REFERENCES games(id), reason TEXT, PRIMARY KEY (game_id, other_id))"
        )
        conn.executemany("INSERT INTO duplicates VALUES (?, ?, ?)", expected)
        conn.execute("ALTER TABLE games DROP COLUMN gap")
        conn.execute("PRAGMA user_version = 5")
    open_archive(db).conn.close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    kinds = dict(rows(db, "SELECT name, type FROM sqlite_master WHERE name = 'duplicates'"))
    assert kinds == {"duplicates": "view"}
    assert rows(db, "SELECT game_id, other_id, reason FROM duplicates ORDER BY 1, 2") == expected
    assert "gap" in {r[1] for r in rows(db, "PRAGMA table_info(games)")}


@pytest.mark.integration  # a real server: out of the quick unit tier
def test_the_game_page_links_the_games_that_share_its_plays(tmp_path: Path) -> None:
    db = tmp_path / "copies.db"
    import_paths(db, [str(_copies(tmp_path, 3))])
    import_paths(db, [str(CORPUS_MATCHES / "galaxy-1988527.mat")])  # games of another group
    ids = [r[0] for r in rows(db, "SELECT id FROM games WHERE event = 'Copies' ORDER BY rowid")]
    lonely = one(db, "SELECT id FROM games WHERE event IS NOT 'Copies' AND plies > 0 LIMIT 1")
    with serving([str(db)], tmp_path) as server:
        with urllib.request.urlopen(f"{server}/copies/-/game/{ids[0]}", timeout=30) as response:
            tree: Any = html.fromstring(response.read())
        shares = "//section[@class='jacquet-shares']//a[not(@class)]/@href"
        links = [str(link) for link in tree.xpath(shares)]
        assert sorted(link.rsplit("/", 1)[1] for link in links) == sorted(ids[1:])
        assert "2 other games share" in tree.text_content()
        # each listed once: the printings with the same plays are not listed again under
        # "Also in", though their group is the same (game_groups)
        assert (
            one(
                db,
                "SELECT COUNT(DISTINCT group_id) FROM game_groups WHERE game_id IN "
                f"({','.join('?' * len(ids))})",
                *ids,
            )
            == 1
        )
        assert tree.xpath("//a[@class='jacquet-also-game']") == []
        compare = tree.xpath("//section[@class='jacquet-shares']//a[@class='jacquet-compare-link']")
        assert len(compare) == 2
        with urllib.request.urlopen(f"{server}{compare[0].get('href')}", timeout=30) as response:
            page: Any = html.fromstring(response.read())
        assert "0 plies differing." in page.text_content()
        with urllib.request.urlopen(f"{server}/copies/-/game/{lonely}", timeout=30) as response:
            alone: Any = html.fromstring(response.read())
        assert alone.xpath("//section[@class='jacquet-shares']") == []


# -- 3. a match game's size, capped as a .jqt game's --------------------------------------------

MAT_HEADER = '; [Player 1 "Ann"]\n; [Player 2 "Bob"]\n\n0 point match\n\n'


def _mat_game(number: int, lines: int) -> str:
    body = "".join(
        f"  {n}) 31: 8/5 6/5                 63: 24/18 18/15\n" for n in range(1, lines + 1)
    )
    return f" Game {number}\n Ann : 0                          Bob : 0\n{body}\n"


def test_a_match_game_past_the_plays_limit_is_one_error_and_the_others_are_read(
    tmp_path: Path,
) -> None:
    from jacquet_notation.notation.parsing import MAX_PLAYS_TEXT

    big_lines = MAX_PLAYS_TEXT // 30 + 10  # each line ~32 characters of plays, runs as one
    path = tmp_path / "huge.mat"
    text = MAT_HEADER + _mat_game(1, 3) + _mat_game(2, big_lines) + _mat_game(3, 3)
    path.write_text(text, encoding="utf-8")
    records = list(read_games(path))
    assert [r.index for r in records] == [1, 2, 3]
    assert not any(
        "characters of plays" in str(e) for r in (records[0], records[2]) for e in r.errors
    )
    (limit,) = [e for e in records[1].errors if "characters of plays" in str(e)]
    assert records[1].errors == [limit] and records[1].plays == []
    assert records[1].tags["White"] == "Ann" and records[1].tags["Game"] == "2"
    lines = text.split("\n")
    assert limit.line is not None and limit.column is not None
    assert lines.index(" Game 2") + 1 < limit.line < lines.index(" Game 3")
    assert records[1].text_line(limit.line) == lines[limit.line - 1]
    done = jacquet("validate", "--json", "--jobs", "1", str(path))
    assert done.returncode == 1 and "Traceback" not in done.stderr
    reports = [json.loads(line) for line in done.stdout.splitlines()]
    assert [r["status"] for r in reports][1] == "unreadable"
    assert reports[1]["errors"][0]["line"] == limit.line


def test_a_match_game_under_the_plays_limit_is_read(tmp_path: Path) -> None:
    from jacquet_notation.notation.parsing import MAX_PLAYS_TEXT

    lines = MAX_PLAYS_TEXT // 40  # under the limit however the spaces are counted
    path = tmp_path / "long.mat"
    path.write_text(MAT_HEADER + _mat_game(1, lines), encoding="utf-8")
    (record,) = read_games(path)
    assert not any("characters of plays" in str(e) for e in record.errors)
    assert len(record.plays) > lines


# -- 4. an import's growth, capped --------------------------------------------------------------


def test_a_file_growing_the_archive_past_its_cap_is_rolled_back_and_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first, middle, last = tmp_path / "a.jqt", tmp_path / "b.mat", tmp_path / "c.jqt"
    first.write_text(COPY.format(n=1), encoding="utf-8")
    big_match(tmp_path, 80).rename(middle)
    last.write_text(COPY.format(n=2).replace("Ann", "Cy"), encoding="utf-8")
    refused_size = middle.stat().st_size
    # the cap of the middle file only is tiny: what the real cap does to a file that blows up
    real_cap = store.growth_cap
    monkeypatch.setattr(
        store, "growth_cap", lambda size: 1000 if size == refused_size else real_cap(size)
    )
    db, alone = tmp_path / "a.db", tmp_path / "alone.db"
    summary = import_paths(db, [str(first), str(middle), str(last)])
    import_paths(alone, [str(first), str(last)])
    assert summary.files == 3 and summary.unreadable_files == 1 and not summary.ok
    (line,) = [e for e in summary.errors if "not imported" in e]
    assert line.startswith(f"{middle}: not imported: it would grow the archive by more than 1,000")
    assert "\n" not in line
    # nothing of it kept but its imports row; the other two files as if imported alone
    assert rows(db, "SELECT status, error, games FROM imports WHERE path = ?", str(middle)) == [
        ("unreadable", line, 0)
    ]
    for table in ("games", "turns", "positions", "players", "occurrences", "matches"):
        count = f"SELECT count(*) FROM {table}"
        assert one(db, count) == one(alone, count), table
    # importing it again skips it, and says the same
    again = import_paths(db, [str(middle)])
    assert again.skipped_files == 1 and line in again.errors


def test_real_collections_stay_well_inside_the_growth_cap(tmp_path: Path) -> None:
    for folder in (CORPUS_MATCHES, ROOT / "corpus" / "valid"):
        files = [p for p in folder.iterdir() if p.suffix in (".jqt", ".mat", ".txt")]
        size = sum(p.stat().st_size for p in files)
        db = tmp_path / f"{folder.name}.db"
        open_archive(db).close()
        empty = db.stat().st_size
        summary = import_paths(db, [str(p) for p in files])
        assert summary.unreadable_files == 0
        with sqlite3.connect(db) as conn:
            conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        grown = db.stat().st_size - empty
        assert grown < store.growth_cap(size) and grown < store.GROWTH_FACTOR / 2 * size + (
            store.GROWTH_ALLOWANCE
        )


def test_the_desk_shows_the_match_game_at_the_cursor(tmp_path: Path) -> None:
    from jacquet_notation.browse.desk import check_text

    text = MAT_HEADER + _mat_game(1, 2) + _mat_game(2, 3) + _mat_game(3, 1)
    lines = text.split("\n")
    in_game_2 = lines.index(" Game 2") + 3
    answer = check_text(text, in_game_2, 8)
    assert {ply["line"] for ply in answer["plies"]} == set(
        range(lines.index(" Game 2") + 3, lines.index(" Game 3"))
    )
