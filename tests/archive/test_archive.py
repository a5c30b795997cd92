"""The SQLite archive on real files: schema, identity, re-import, duplicates, rebuild, migration."""

from __future__ import annotations

import json
import sqlite3
import string
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import check_consistent, dump, one, rows, run

from jacquet_notation import archive, stored_text
from jacquet_notation.archive import (
    SCHEMA_VERSION,
    ArchiveError,
    import_paths,
    iso_date,
    normalise_name,
    open_archive,
    rebuild,
)
from jacquet_notation.archive import rows as archive_rows
from jacquet_notation.archive import store as archive_store
from jacquet_notation.archive.search_index import FIELDS, SEARCH_INDEXES
from jacquet_notation.cli import main
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import READER, parse_game, write_game
from jacquet_notation.position import Position, key_from_bits, side_key_bits, unpack
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules
from jacquet_notation.validation import validate_paths

CORPUS = Path(__file__).parents[2] / "corpus"

GOOD = (
    '[Event "Café de la Régence"]\n[Site "Paris"]\n[Date "1818.??.??"]\n'
    '[White "Jean  DUPRÉ"]\n[Black "Ann"]\n[Source "Le Jacquet, 1820"]\n\n'
    "{A fine opening} 1. 6-5: 24/13 4-3: 24/17 {the courier runs} *\n"
)
# The same game in another layout: the same canonical text, so the same game.
GOOD_RELAID = (
    '[Event "Café de la Régence"]  [Site "Paris"]\n[Date "1818.??.??"]\n'
    '[White "Jean  DUPRÉ"] [Black "Ann"]\n[Source "Le Jacquet, 1820"]\n'
    "{A fine opening}\n1. 6-5: 24/13\n1... 4-3: 24/17 {the courier runs}\n*\n"
)
# Another transcription of it: other tags and names spelled otherwise, the same plays.
GOOD_OTHER = (
    '[Event "Regence"]\n[Date "1818.05.??"]\n[White "jean dupre"]\n[Black "ANN"]\n\n'
    "1. 6-5: 24/13 4-3: 24/17 *\n"
)
BAD = (
    '[Event "bad"]\n[White "Cy"]\n[Black "Di"]\n[Date "1902.03.??"]\n\n'
    "1. 6-5: 24/13 4-3: 24/17\n2. 6-1: 13/7 24/23 *\n"
)
BROKEN = '[Event "broken"]\n[White "Ed"]\n[Black "Flo"]\n\n1. 4-7: 24/20 *\n'


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder of three files of legal generated games."""
    folder = tmp_path_factory.mktemp("generated")
    records = list(generate_records(60, 5, Rules.named("jacquet")))
    for number, start in enumerate(range(0, 60, 20)):
        text = "\n".join(write_game(record) for record in records[start : start + 20])
        (folder / f"part{number}.jqt").write_text(text, encoding="utf-8")
    return folder


# -- small pieces -------------------------------------------------------------------------------


KEY_ALPHABET = string.ascii_uppercase + string.ascii_lowercase + string.digits + "-_"


def spelled_key(position: Position) -> str:
    """The key as its format is written down, spelled slowly: the turn bit, then for each side
    its counts from location 0 (off) to 25 (the bar) in unary, each closed by a zero, padded to
    14 characters of 6 bits."""
    bits = "1" if position.turn == "black" else "0"
    for packed in (position.packed_white, position.packed_black):
        bits += "".join("1" * count + "0" for count in unpack(packed))
    bits = bits.ljust(84, "0")
    return "".join(KEY_ALPHABET[int(bits[at : at + 6], 2)] for at in range(0, 84, 6))


def test_fast_keys_equal_the_key_as_specified() -> None:
    seen = 0
    for record in generate_records(8, 3, Rules.named("jacquet-unrestricted")):
        for ply in replay(record).plies:
            for position in (ply.before, ply.after):
                assert position is not None
                bits = side_key_bits(position.packed_white), side_key_bits(position.packed_black)
                assert key_from_bits(position.turn, *bits) == position.key()
                assert position.key() == spelled_key(position)
                seen += 1
    assert seen > 500


@pytest.mark.parametrize("name", ["jacquet", "murray", "versailles", "spanish"])
def test_rows_carry_keys_and_pips_exactly_through_every_play(tmp_path: Path, name: str) -> None:
    """Every key a play reached is stored; a position several games reach has its own row, its
    turn, pips and men off read from the key; one that a single game reaches is a row of the
    view alone, its counts read off its play (version 11): each equals a fresh count."""
    db = tmp_path / "a.db"
    records = tmp_path / "games.jqt"
    games = list(generate_records(12, 11, Rules.named(name)))
    records.write_text("\n".join(write_game(record) for record in games), encoding="utf-8")
    assert import_paths(db, [str(records)]).valid == 12
    connection = sqlite3.connect(db)
    positions = connection.execute(
        "SELECT key, turn, white_pips, black_pips, white_off, black_off FROM positions"
    ).fetchall()
    assert len(positions) > 300
    shared = {row[0] for row in connection.execute("SELECT key FROM shared_positions")}
    assert Position.start(Rules.named(name)).key() in shared
    assert 0 < len(shared) < len(positions)
    for key, turn, white_pips, black_pips, white_off, black_off in positions:
        position = Position.from_key(key)
        assert (turn, white_pips, black_pips, white_off, black_off) == (
            position.turn,
            position.pips("white"),
            position.pips("black"),
            position.off("white"),
            position.off("black"),
        )
    expected = {
        (ply.after.key() if ply.after else None) for record in games for ply in replay(record).plies
    }
    found = {row[0] for row in connection.execute("SELECT key_after FROM turns")}
    assert found == expected
    if name == "murray":
        assert connection.execute("SELECT count(*) FROM turns WHERE steps LIKE '%*%'").fetchone()[0]
    connection.close()


@pytest.mark.parametrize(
    ("name", "key"),
    [
        ("  Jean  DUPRÉ ", "jean dupre"),
        ("jean\tdupre", "jean dupre"),
        ("Ñuñez", "nunez"),
        ("STRASSE", "strasse"),
        ("Straße", "strasse"),
    ],
)
def test_normalised_names(name: str, key: str) -> None:
    assert normalise_name(name) == key


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1818.??.??", ("1818-??-??", 1818)),
        ("1902.03.??", ("1902-03-??", 1902)),
        ("1902.03.15", ("1902-03-15", 1902)),
        ("1902-03-15", ("1902-03-15", 1902)),
        ("1750", ("1750-??-??", 1750)),
        ("????.??.??", (None, None)),
        ("1902.13.01", (None, 1902)),
        ("about 1800", (None, None)),
        (None, (None, None)),
    ],
)
def test_iso_dates_keep_partial_dates(
    text: str | None, expected: tuple[str | None, int | None]
) -> None:
    assert iso_date(text) == expected


# -- importing ----------------------------------------------------------------------------------


def test_a_game_lands_with_its_tags_names_turns_and_positions(tmp_path: Path) -> None:
    path = tmp_path / "good.jqt"
    path.write_text(GOOD, encoding="utf-8")
    db = tmp_path / "a.db"
    summary = import_paths(db, [str(path)])
    assert (summary.games, summary.valid, summary.new_games) == (1, 1, 1)
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    assert one(db, "PRAGMA journal_mode") == "wal"
    (game,) = rows(
        db,
        "SELECT id, event, site, date, year, white, black, rules, status, error, turns, plies, "
        "winner, points, result, computed_result, comments, canonical, original, file, "
        "game_index, (SELECT o.options FROM rule_options o WHERE o.id = games.options) "
        "FROM games",
    )
    # version 7 keeps the record's text once, packed; the id is the hash of its canonical text
    assert game[17] is None
    original = stored_text.unpack(game[18])
    assert original == GOOD.rstrip("\n")
    assert isinstance(game[18], bytes) and len(game[18]) < len(original.encode())
    assert game[0] == archive_rows.game_hash(write_game(parse_game(original)))
    assert game[1:9] == (
        "Café de la Régence",
        "Paris",
        "1818-??-??",
        1818,
        "Jean  DUPRÉ",
        "Ann",
        "jacquet",
        "valid",
    )
    assert game[9:16] == (None, 1, 2, None, None, "*", None)
    assert game[16] == "A fine opening\nthe courier runs"
    assert game[19:21] == (str(path), 1)
    assert json.loads(game[21]) == Rules.named("jacquet").options()
    assert rows(db, "SELECT name, normalised FROM players ORDER BY id") == [
        ("Jean  DUPRÉ", "jean dupre"),
        ("Ann", "ann"),
    ]
    assert rows(db, "SELECT name FROM sources") == [("Le Jacquet, 1820",)]
    turns = rows(
        db,
        "SELECT ply, turn, side, dice, written, steps, pips, key_before, key_after, comment "
        "FROM turns ORDER BY ply",
    )
    record_game = replay(parse_game(GOOD))
    assert [t[:7] for t in turns] == [
        (1, 1, "white", "6-5", "6-5: 24/13", "24/18 18/13", 11),
        (2, 1, "black", "4-3", "4-3: 24/17", "24/20 20/17", 7),
    ]
    assert [(t[7], t[8]) for t in turns] == [
        (p.before.key(), p.after.key() if p.after else None) for p in record_game.plies
    ]
    assert turns[1][9] == "the courier runs"
    assert turns[0][8] == turns[1][7]
    assert one(db, "SELECT count(*) FROM positions") == 3
    start = record_game.plies[0].before
    # reached by this game alone and by no play: a row of its own, its counts the key's
    assert rows(db, "SELECT * FROM positions WHERE key = ?", start.key()) == [
        (start.key(), "white", 360, 360, 0, 0, 1)
    ]
    assert rows(db, "SELECT key FROM shared_positions") == [(start.key(),)]
    # reached by this game's first play alone: no row of its own, its counts the play's
    assert rows(db, "SELECT * FROM positions WHERE key = ?", turns[0][8]) == [
        (turns[0][8], "black", 349, 360, 0, 0, 1)
    ]
    # Full-text search over players, events, sources and comments.
    for word in ("dupré", "régence", "courier", "jacquet"):
        assert one(db, "SELECT count(*) FROM games_fts WHERE games_fts MATCH ?", word) == 1, word
    check_consistent(db)


def test_statuses_and_errors_agree_with_validate(tmp_path: Path) -> None:
    db = tmp_path / "corpus.db"
    summary = import_paths(db, [str(CORPUS)])
    reports = [r for r in validate_paths([str(CORPUS)]) if r.index]
    assert summary.games == len(reports) > 20
    by_status = {s: sum(r.status == s for r in reports) for s in ("valid", "invalid")}
    assert (summary.valid, summary.invalid) == (by_status["valid"], by_status["invalid"])
    assert summary.unreadable == sum(r.status == "unreadable" for r in reports)
    stored = dict(rows(db, "SELECT file || ':' || game_index, error FROM games"))
    for report in reports:
        assert stored[f"{report.file}:{report.index}"] == (
            report.errors[0] if report.errors else None
        )
    invalid = rows(db, "SELECT id, error FROM invalid_games")
    assert len(invalid) == summary.invalid + summary.unreadable
    assert all(error for _, error in invalid)
    # An illegal play keeps its error on its turn; the plays after it were not replayed.
    illegal = rows(
        db,
        "SELECT t.ply, t.key_before, t.key_after, t.error FROM turns t "
        "JOIN games g ON g.id = t.game_id WHERE g.file LIKE '%illegal-courier.jqt' "
        "ORDER BY t.ply",
    )
    assert illegal[-1][1] is not None and illegal[-1][2] is None
    assert "courier" in illegal[-1][3]
    check_consistent(db)


def test_reimport_adds_nothing_and_reports_the_same(generated: Path, tmp_path: Path) -> None:
    db = tmp_path / "g.db"
    first = import_paths(db, [str(generated)])
    assert (first.files, first.games, first.valid, first.new_games) == (3, 60, 60, 60)
    before = dump(db)
    second = import_paths(db, [str(generated)])
    assert (second.skipped_files, second.games, second.valid, second.new_games) == (3, 60, 60, 0)
    assert dump(db) == before
    check_consistent(db)


def test_skipped_file_reports_its_stored_errors(tmp_path: Path) -> None:
    path = tmp_path / "bad.jqt"
    path.write_text(BAD + "\n" + BROKEN, encoding="utf-8")
    db = tmp_path / "b.db"
    first = import_paths(db, [str(path)])
    second = import_paths(db, [str(path)])
    assert (first.invalid, first.unreadable) == (1, 1)
    assert second.skipped_files == 1
    assert second.errors == first.errors and len(first.errors) == 2
    assert (second.invalid, second.unreadable, second.ok) == (1, 1, False)


def test_same_game_in_another_layout_is_one_game_seen_twice(tmp_path: Path) -> None:
    (tmp_path / "a.jqt").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.jqt").write_text(GOOD_RELAID, encoding="utf-8")
    db = tmp_path / "l.db"
    summary = import_paths(db, [str(tmp_path / "a.jqt"), str(tmp_path / "b.jqt")])
    assert (summary.games, summary.new_games) == (2, 1)
    assert one(db, "SELECT count(*) FROM games") == 1
    assert one(db, "SELECT count(DISTINCT import_id) FROM occurrences") == 2
    assert one(db, "SELECT count(DISTINCT game_id) FROM occurrences") == 1
    check_consistent(db)


def test_near_duplicates_are_linked_not_merged(tmp_path: Path) -> None:
    (tmp_path / "a.jqt").write_text(GOOD, encoding="utf-8")
    (tmp_path / "b.jqt").write_text(GOOD_OTHER + "\n" + BAD, encoding="utf-8")
    db = tmp_path / "d.db"
    import_paths(db, [str(tmp_path / "a.jqt"), str(tmp_path / "b.jqt")])
    assert one(db, "SELECT count(*) FROM games") == 3
    ((later, earlier, reason),) = rows(db, "SELECT game_id, other_id, reason FROM duplicates")
    assert one(db, "SELECT file FROM games WHERE id = ?", earlier).endswith("a.jqt")
    assert one(db, "SELECT file FROM games WHERE id = ?", later).endswith("b.jqt")
    assert reason == "tags differ: Black, Date, Event, Site, Source, White; comments differ"
    # The names differ only in case and accents: one player each, the first spelling shown.
    assert rows(db, "SELECT name FROM players ORDER BY id")[:2] == [("Jean  DUPRÉ",), ("Ann",)]
    assert one(db, "SELECT count(DISTINCT white_id) FROM games WHERE fingerprint IS NOT NULL") == 2
    check_consistent(db)


def test_views_count_records_head_to_head_and_openings(tmp_path: Path) -> None:
    db = tmp_path / "v.db"
    summary = import_paths(db, [str(CORPUS / "valid")])
    finished = rows(db, "SELECT white, black, winner, points FROM games WHERE winner IS NOT NULL")
    assert finished
    records = {r[1]: r for r in rows(db, "SELECT * FROM player_records")}
    for name, record in records.items():
        wins = sum(1 for w, b, winner, _ in finished if (w, b)[winner == "black"] == name)
        points = sum(p for w, b, winner, p in finished if (w, b)[winner == "black"] == name)
        assert (record[3], record[5]) == (wins, points), name
    total = sum(r[0] for r in rows(db, "SELECT games FROM head_to_head"))
    both = one(db, "SELECT count(*) FROM games WHERE white_id AND black_id")
    assert total == 2 * both > 0
    openings = rows(db, "SELECT dice, first_play, games, white_wins, black_wins FROM opening_rolls")
    # every valid game opens, but one from a set position (corpus/valid/fragments)
    set_positions = one(db, "SELECT count(*) FROM games WHERE start_key IS NOT NULL")
    assert sum(r[2] for r in openings) == summary.valid - set_positions
    assert all(r[0] and r[1] for r in openings)


def test_unreadable_files_are_recorded_once(tmp_path: Path) -> None:
    binary = tmp_path / "binary.jqt"
    binary.write_bytes(b'[Event "x"]\n\x00\x01\x02')
    empty = tmp_path / "empty.jqt"
    empty.write_text("\n\n", encoding="utf-8")
    missing = tmp_path / "missing.jqt"
    db = tmp_path / "u.db"
    paths = [str(binary), str(empty), str(missing)]
    summary = import_paths(db, paths)
    assert (summary.unreadable_files, summary.unreadable, summary.ok) == (3, 3, False)
    assert any("NUL" in line for line in summary.errors)
    stored = rows(db, "SELECT path, status, error FROM imports ORDER BY id")
    assert [(p, s) for p, s, _ in stored] == [(p, "unreadable") for p in paths]
    assert all(error for _, _, error in stored)
    again = import_paths(db, paths)
    assert again.unreadable == 3
    assert one(db, "SELECT count(*) FROM imports") == 3
    check_consistent(db)


EXPECTED_KEY_INDEXES = sorted(
    [
        (
            "idx_plies_before",
            "CREATE INDEX idx_plies_before ON plies (before) WHERE before IS NOT NULL",
        ),
        ("idx_plies_key_after", "CREATE INDEX idx_plies_key_after ON plies (key_after, ply)"),
        # the position search's (version 12), dropped and built again with them
        *(
            (
                index.name,
                f"CREATE INDEX {index.name} ON plies ({FIELDS[index.field]}) WHERE {index.where}",
            )
            for index in SEARCH_INDEXES
        ),
    ]
)


def key_indexes(db: Path) -> list[tuple[str, str]]:
    found = rows(
        db,
        "SELECT name, sql FROM sqlite_master WHERE type = 'index' AND tbl_name = 'plies' "
        "AND name LIKE 'idx_plies_%' ORDER BY name",
    )
    return [(name, " ".join(sql.replace("[", "").replace("]", "").split())) for name, sql in found]


@pytest.fixture
def key_index_drops(monkeypatch: pytest.MonkeyPatch) -> list[bool]:
    """Each decision of ``_key_indexes_deferred`` (True: the key indexes were dropped), in order.

    The importing process decides (the writer process drops), so the decisions are seen here.
    """
    dropped: list[bool] = []
    real_decision = archive_store.key_indexes_deferred

    def decide(conn: sqlite3.Connection, new_bytes: int) -> bool:
        dropped.append(real_decision(conn, new_bytes))
        return dropped[-1]

    monkeypatch.setattr(archive_store, "key_indexes_deferred", decide)
    return dropped


def test_a_large_file_is_written_before_its_key_indexes_are_built(
    generated: Path, tmp_path: Path, key_index_drops: list[bool]
) -> None:
    """A file that at least doubles the turns goes in without the key indexes, built after;
    a small file into a large archive keeps them; a rebuild always builds them at the end.
    Files that together double them are one bulk import, asked once (settling.py)."""
    db = tmp_path / "bulk.db"
    parts = [str(path) for path in sorted(generated.iterdir())]
    import_paths(db, parts[:1])
    import_paths(db, parts[1:])
    small = tmp_path / "small.jqt"
    small.write_text(GOOD, encoding="utf-8")
    import_paths(db, [str(small)])
    # 20 games into none (one file: no bulk), 40 more in two files (doubling the turns: bulk),
    # then one game
    assert key_index_drops == [True, True, False]
    assert rows(db, "SELECT DISTINCT status FROM imports") == [("complete",)]
    assert key_indexes(db) == EXPECTED_KEY_INDEXES
    plan = rows(db, "EXPLAIN QUERY PLAN SELECT game_id FROM turns WHERE key_after = 'x'")
    assert "idx_plies_key_after" in " ".join(str(step[-1]) for step in plan)
    check_consistent(db)
    before = dump(db)
    rebuild(db)
    assert key_index_drops[-1] is True
    assert key_indexes(db) == EXPECTED_KEY_INDEXES
    assert dump(db) == before


def test_a_file_is_atomic(
    generated: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, key_index_drops: list[bool]
) -> None:
    """A failure in the middle of a file leaves none of its games; the files before it stay."""
    monkeypatch.setattr(archive_store, "BATCH", 4)
    files = sorted(str(p) for p in generated.iterdir())
    calls = 0

    def fail_in_second_file(count: int) -> None:
        nonlocal calls
        calls += 1
        if calls == 7:  # batches 1-5 are the first file's 20 games; 7 is inside the second
            raise KeyboardInterrupt

    db = tmp_path / "atomic.db"
    with pytest.raises(KeyboardInterrupt):
        import_paths(db, files, progress=fail_in_second_file)
    assert rows(db, "SELECT path FROM imports") == [(files[0],)]
    assert one(db, "SELECT count(*) FROM games") == 20
    # the three files are a bulk import, written without the key indexes: the interrupted
    # import settled the file it committed
    assert key_index_drops == [True]
    assert rows(db, "SELECT status FROM imports") == [("complete",)]
    assert key_indexes(db) == EXPECTED_KEY_INDEXES
    check_consistent(db)
    summary = import_paths(db, files)
    assert (summary.skipped_files, summary.new_games) == (1, 40)
    check_consistent(db)


# -- rebuild and migration ----------------------------------------------------------------------


def test_rebuild_rederives_every_table(generated: Path, tmp_path: Path) -> None:
    db = tmp_path / "r.db"
    import_paths(db, [str(generated), str(CORPUS)])
    for path in (tmp_path / "a.jqt", tmp_path / "b.jqt"):
        path.write_text(GOOD if path.name == "a.jqt" else GOOD_OTHER, encoding="utf-8")
    import_paths(db, [str(tmp_path / "a.jqt"), str(tmp_path / "b.jqt")])
    fresh = dump(db)
    # What a bug in an older version might have left: wrong statuses, lost derived rows.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE games SET status = 'valid', error = NULL, points = 99")
        conn.execute("DELETE FROM ply_notes")
        conn.execute("DELETE FROM plies")
        conn.execute("UPDATE shared_positions SET games = 0")
        conn.execute("UPDATE imports SET valid = 0")
    summary = rebuild(db)
    assert summary.games == len(fresh["games"])
    assert dump(db) == fresh
    check_consistent(db)


def test_rebuild_gives_a_game_its_new_id_and_keeps_its_sightings(tmp_path: Path) -> None:
    """As after a fix to the canonical writer: the stored id no longer matches the text."""
    (tmp_path / "a.jqt").write_text(GOOD + "\n" + BAD, encoding="utf-8")
    (tmp_path / "b.jqt").write_text(GOOD_RELAID, encoding="utf-8")
    db = tmp_path / "id.db"
    import_paths(db, [str(tmp_path / "a.jqt"), str(tmp_path / "b.jqt")])
    fresh = dump(db)
    good_id = one(db, "SELECT id FROM games WHERE status = 'valid'")
    with sqlite3.connect(db) as conn:
        conn.execute("PRAGMA foreign_keys = OFF")
        conn.execute("DELETE FROM ply_notes")
        conn.execute("DELETE FROM plies")
        conn.execute("UPDATE games SET id = 'stale' WHERE id = ?", (good_id,))
        conn.execute("UPDATE game_numbers SET game_id = 'stale' WHERE game_id = ?", (good_id,))
        conn.execute("UPDATE occurrences SET game_id = 'stale' WHERE game_id = ?", (good_id,))
    rebuild(db)
    assert dump(db) == fresh
    assert one(db, "SELECT count(*) FROM occurrences WHERE game_id = ?", good_id) == 2
    check_consistent(db)


def test_rebuild_under_other_rules_keeps_every_game(generated: Path, tmp_path: Path) -> None:
    db = tmp_path / "rr.db"
    import_paths(db, [str(generated)])
    ids = rows(db, "SELECT id FROM games ORDER BY id")
    summary = rebuild(db, rules=Rules.named("bouchon"))
    assert summary.games == len(ids)
    assert rows(db, "SELECT id FROM games ORDER BY id") == ids
    assert set(rows(db, "SELECT DISTINCT rules FROM games")) == {("bouchon",)}
    check_consistent(db)


def write_version_0(db: Path, texts: list[tuple[str, str]]) -> None:
    """An archive in the layout before versioning (see docs/archive.md, Migrations)."""
    with sqlite3.connect(db) as conn:
        conn.execute(
            "CREATE TABLE games (id TEXT PRIMARY KEY, white TEXT, black TEXT, date TEXT, "
            "result TEXT, status TEXT, text TEXT, file TEXT)"
        )
        conn.execute(
            "CREATE TABLE imports (id INTEGER PRIMARY KEY, path TEXT, sha256 TEXT, games INTEGER)"
        )
        files = sorted({file for file, _ in texts})
        for number, file in enumerate(files, 1):
            count = sum(f == file for f, _ in texts)
            conn.execute(
                "INSERT INTO imports VALUES (?, ?, ?, ?)", (number, file, f"sha{number}", count)
            )
        for number, (file, text) in enumerate(texts):
            conn.execute(
                "INSERT INTO games VALUES (?, 'w', 'b', NULL, NULL, 'ok', ?, ?)",
                (f"old{number}", text, file),
            )
    assert one(db, "PRAGMA user_version") == 0


def test_version_0_archive_is_migrated(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    write_version_0(db, [("a.jqt", GOOD), ("a.jqt", BAD), ("b.jqt", BROKEN), ("b.jqt", GOOD_OTHER)])
    open_archive(db).close()
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION
    assert rows(db, "SELECT status FROM games ORDER BY rowid") == [
        ("valid",),
        ("invalid",),
        ("unreadable",),
        ("valid",),
    ]
    assert rows(db, "SELECT id, path, sha256, games, valid, invalid, unreadable FROM imports") == [
        (1, "a.jqt", "sha1", 2, 1, 1, 0),
        (2, "b.jqt", "sha2", 2, 1, 0, 1),
    ]
    assert one(db, "SELECT count(*) FROM duplicates") == 1
    assert one(db, "SELECT count(*) FROM turns") > 0
    assert "_v0_games" not in {r[0] for r in rows(db, "SELECT name FROM sqlite_master")}
    check_consistent(db)
    # A migrated archive takes imports like any other.
    path = tmp_path / "more.jqt"
    path.write_text(GOOD_RELAID, encoding="utf-8")
    assert import_paths(db, [str(path)]).new_games == 0


# -- bad archive files, and the command ---------------------------------------------------------


@pytest.fixture
def small_archive(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "good.jqt"
    path.write_text(GOOD, encoding="utf-8")
    db = tmp_path / "small.db"
    import_paths(db, [str(path)])
    yield db


def test_unusable_archive_files_give_one_clean_line(tmp_path: Path, small_archive: Path) -> None:
    record = tmp_path / "good.jqt"
    text = tmp_path / "notes.db"
    text.write_text("hello, not a database\n", encoding="utf-8")
    truncated = tmp_path / "truncated.db"
    with sqlite3.connect(small_archive) as conn:
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = small_archive.read_bytes()
    truncated.write_bytes(data[: len(data) // 2])
    short = tmp_path / "short.db"
    short.write_bytes(data[:40])
    other = tmp_path / "other.db"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x)")
    newer = tmp_path / "newer.db"
    newer.write_bytes(data)
    with sqlite3.connect(newer) as conn:
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    expected = {
        text: "not an SQLite file",
        truncated: "truncated",
        short: "truncated",
        other: "not a jacquet archive",
        newer: "newer",
        tmp_path: "folder",
    }
    for db, words in expected.items():
        with pytest.raises(ArchiveError, match=words):
            open_archive(db)
        result = run("archive", str(db), str(record))
        assert result.returncode == 2, (db, result.stderr)
        assert "Traceback" not in result.stderr
        assert len(result.stderr.strip().splitlines()) == 1, result.stderr
        assert words in result.stderr and result.stderr.startswith("jacquet: ")
    assert text.read_text(encoding="utf-8") == "hello, not a database\n"


def test_command_exit_codes_summary_and_no_progress_bar(tmp_path: Path) -> None:
    good, bad = tmp_path / "good.jqt", tmp_path / "bad.jqt"
    good.write_text(GOOD, encoding="utf-8")
    bad.write_text(BAD, encoding="utf-8")
    db = tmp_path / "c.db"
    result = run("archive", str(db), str(good))
    assert result.returncode == 0, result.stderr
    assert (
        result.stdout == "1 file: 1 game: 1 valid, 0 invalid, 0 unreadable; 1 new in the archive\n"
    )
    assert result.stderr == ""  # no progress bar in a pipe
    result = run("archive", str(db), str(good), str(bad))
    assert result.returncode == 1
    lines = result.stdout.splitlines()
    assert lines[0].startswith(f"{bad}:7:14: game 1 (Cy v Di, 1902.03.??), turn 2")
    assert lines[-1] == (
        "2 files (1 already imported): 2 games: 1 valid, 1 invalid, 0 unreadable; "
        "1 new in the archive"
    )
    result = run("archive", str(db), "--rebuild")
    assert result.returncode == 1
    assert result.stdout.splitlines()[-1] == "rebuilt 2 games: 1 valid, 1 invalid, 0 unreadable"
    for args in (["archive", str(db)], ["archive", str(db), str(good), "--rebuild"]):
        result = run(*args)
        assert result.returncode == 2 and "Traceback" not in result.stderr


def test_command_progress_bar_only_on_a_terminal(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from jacquet_notation.commands import common as command

    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    monkeypatch.delenv("CI", raising=False)
    assert command.show_progress()
    monkeypatch.setenv("CI", "true")
    assert not command.show_progress()
    good = tmp_path / "good.jqt"
    good.write_text(GOOD, encoding="utf-8")
    result = CliRunner().invoke(main, ["archive", str(tmp_path / "p.db"), str(good)])
    assert result.exit_code == 0, result.output


def test_an_archive_without_the_result_index_gets_it_when_opened(tmp_path: Path) -> None:
    db = tmp_path / "a.db"
    archive.open_archive(db).conn.close()
    with sqlite3.connect(db) as conn:
        conn.execute("DROP INDEX idx_games_result")
    archive.open_archive(db).conn.close()
    with sqlite3.connect(db) as conn:
        plan = " ".join(
            row[-1]
            for row in conn.execute("EXPLAIN QUERY PLAN SELECT id FROM games WHERE result = '1-0'")
        )
    assert "idx_games_result" in plan


def test_games_stored_by_another_reader_are_read_again(tmp_path: Path) -> None:
    # Debian 12's Python 3.11.2 read Versailles shares wrongly (a possessive repetition bug);
    # an archive it built kept its wrong rows, because an unchanged file is skipped. Each import
    # now notes its reader, and games stored by another reader are derived again from their
    # texts by the next import, even of nothing new.
    versailles = Path(__file__).parents[2] / "corpus" / "valid" / "versailles.jqt"
    db = tmp_path / "r.db"
    first = import_paths(db, [str(versailles)])
    assert first.ok and first.games >= 1
    assert rows(db, "SELECT DISTINCT reader FROM imports") == [(READER,)]
    right = dump(db)
    # What the broken reader left: no reader noted, the games unreadable with an error.
    with sqlite3.connect(db) as conn:
        conn.execute("UPDATE imports SET reader = NULL")
        conn.execute("UPDATE games SET status = 'unreadable', errors = '[]'")
    assert one(db, "SELECT count(*) FROM games WHERE status = 'valid'") == 0
    again = import_paths(db, [str(versailles)])
    assert again.ok and (again.games, again.valid) == (first.games, first.valid)
    assert dump(db)["games"] == right["games"]
    assert rows(db, "SELECT DISTINCT reader FROM imports") == [(READER,)]
    # read by this reader: skipped as before
    assert import_paths(db, [str(versailles)]).skipped_files == 1


def test_a_file_another_reader_could_not_read_is_read_again(tmp_path: Path) -> None:
    path = tmp_path / "g.jqt"
    path.write_text(GOOD, encoding="utf-8")
    db = tmp_path / "u.db"
    import_paths(db, [str(path)])
    with sqlite3.connect(db) as conn:
        conn.execute("DELETE FROM occurrences")
        conn.execute("DELETE FROM ply_notes")
        conn.execute("DELETE FROM plies")
        conn.execute("DELETE FROM game_numbers")
        conn.execute("DELETE FROM games")
        conn.execute("DELETE FROM shared_positions")
        conn.execute(
            "UPDATE imports SET reader = 'an older reader', status = 'unreadable', "
            "games = 0, valid = 0, error = 'g.jqt: could not be read'"
        )
    summary = import_paths(db, [str(path)])
    assert (summary.skipped_files, summary.games, summary.new_games) == (0, 1, 1)
    check_consistent(db)
