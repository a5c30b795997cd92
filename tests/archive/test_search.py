"""Positions found by what they look like (docs/browse.md, "Searching positions"), on a real
archive (the corpus and shared match files): every criterion's answer checked against a scan
written here (each position a play reaches read from its key, filtered in Python), the
indexes each indexed criterion reads (EXPLAIN QUERY PLAN), the row budget's "at least", the
index sizes, the step from version 11, the query language's errors with their columns,
``jacquet search``'s exit codes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, SHARED_MAT, rows, run

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive
from jacquet_notation.archive import search as search_module
from jacquet_notation.archive.search import QueryError, read_query, search, walk_sql
from jacquet_notation.archive.search_index import SEARCH_INDEXES
from jacquet_notation.position import SIDES, Position

#: a few of the shared match files: real backgammon, with hits and the bar
SHARED_FILES = sorted((SHARED_MAT / "Llabba").glob("*.txt"))[:4]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("search") / "archive.db"
    import_paths(db, [str(ROOT / "corpus" / "valid"), *map(str, SHARED_FILES)])
    return db


def _blocks(position: Position) -> bool:
    """The test's own contact: some man stands on a point the other side's man must still
    cross, each side's way walked point by point in White's numbering."""
    direction = position.direction
    if position.bar("white") or position.bar("black"):  # behind every man of the other side
        return all(position.men(side) or position.bar(side) for side in SIDES)
    white = set(position.men("white"))
    black = {Position.to_absolute("black", q, direction) for q in position.men("black")}
    for p in position.men("white"):
        if any(point in black for point in range(1, p)):
            return True
    for q in position.men("black"):
        way = {Position.to_absolute("black", step, direction) for step in range(1, q)}
        if way & white:
            return True
    return False


def _scan(db: Path) -> dict[str, dict[str, Any]]:
    """Every position a play reaches, with what the criteria ask of it, computed here."""
    rules: dict[str, set[str]] = {}
    for key, name in rows(
        db,
        "SELECT t.key_after, g.rules FROM turns t JOIN games g ON g.id = t.game_id "
        "WHERE t.key_after IS NOT NULL",
    ):
        rules.setdefault(key, set()).add(name or "")
    found = {}
    for key, names in rules.items():
        position = Position.from_key(key)
        pips = {side: position.pips(side) for side in SIDES}
        mover = position.turn
        found[key] = {
            "turn": mover,
            "rules": names,
            "pips": pips,
            "diff": pips[mover] - pips["black" if mover == "white" else "white"],
            "contact": _blocks(position),
            "off": {side: position.off(side) for side in SIDES},
            "bar": {side: position.bar(side) for side in SIDES},
            "men": {"white": position.men("white"), "black": position.men("black")},
            "courier": {side: position.in_courier_phase(side) for side in SIDES},
        }
    return found


#: queries and what they mean, as the scan reads a position
QUERIES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "": lambda f: True,
    "turn:white": lambda f: f["turn"] == "white",
    "rules:backgammon": lambda f: "backgammon" in f["rules"],
    "rules:murray turn:black": lambda f: "murray" in f["rules"] and f["turn"] == "black",
    "rules:murray rules:five-max": lambda f: bool({"murray", "five-max"} & f["rules"]),
    "pips-white:<60": lambda f: f["pips"]["white"] < 60,
    "pips-black:<=20 pips-black:>5": lambda f: 5 < f["pips"]["black"] <= 20,
    "pips-black:100..150": lambda f: 100 <= f["pips"]["black"] <= 150,
    "diff:>20 race": lambda f: f["diff"] > 20 and not f["contact"],
    "diff:<=-40": lambda f: f["diff"] <= -40,
    "diff:-5..5 contact": lambda f: -5 <= f["diff"] <= 5 and f["contact"],
    "off-black:>=5": lambda f: f["off"]["black"] >= 5,
    "off-white:3": lambda f: f["off"]["white"] == 3,
    "off-white:0 off-black:0 race": lambda f: (
        not f["off"]["white"] and not f["off"]["black"] and not f["contact"]
    ),
    "bar-white:>=1 rules:backgammon": lambda f: (
        f["bar"]["white"] >= 1 and "backgammon" in f["rules"]
    ),
    "bar-black:2": lambda f: f["bar"]["black"] == 2,
    "point:6-white>=3": lambda f: f["men"]["white"].get(6, 0) >= 3,
    "point:24-black=15": lambda f: f["men"]["black"].get(24, 0) == 15,
    "table:home-white>=10": lambda f: sum(f["men"]["white"].get(p, 0) for p in range(1, 7)) >= 10,
    "table:first-black<=2 turn:white": lambda f: (
        sum(f["men"]["black"].get(p, 0) for p in range(19, 25)) <= 2 and f["turn"] == "white"
    ),
    "courier:white rules:jacquet": lambda f: f["courier"]["white"] and "jacquet" in f["rules"],
    "courier:none": lambda f: not f["courier"]["white"] and not f["courier"]["black"],
    "pips-white:<10 pips-white:>20": lambda f: False,
}


@pytest.fixture(scope="module")
def scanned(archive: Path) -> dict[str, dict[str, Any]]:
    return _scan(archive)


@pytest.fixture
def unbounded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Budgets past the test archive's plays, so that every answer is whole."""
    monkeypatch.setattr(search_module, "ROW_BUDGET", 10**7)
    monkeypatch.setattr(search_module, "KEY_BUDGET", 10**7)


@pytest.mark.integration
@pytest.mark.usefixtures("unbounded")
@pytest.mark.parametrize("query", list(QUERIES))
def test_every_answer_is_the_scans(
    archive: Path, scanned: dict[str, dict[str, Any]], query: str
) -> None:
    expected = {key for key, features in scanned.items() if QUERIES[query](features)}
    conn = sqlite3.connect(archive)
    parsed, offset = read_query(query), 0
    keys: list[str] = []
    while True:
        found = search(conn, parsed, limit=500, offset=offset)
        assert found.exact and found.total == len(expected)
        keys.extend(row["key"] for row in found.rows)
        for row in found.rows:  # what a row says is the scan's too
            features = scanned[row["key"]]
            assert row["turn"] == features["turn"]
            assert (row["white_pips"], row["black_pips"]) == (
                features["pips"]["white"],
                features["pips"]["black"],
            )
            assert row["contact"] == features["contact"]
            assert set(row["rules"].split()) <= features["rules"]
        if not found.more:
            break
        offset += len(found.rows)
    conn.close()
    assert sorted(keys) == sorted(expected)
    assert len(keys) == len(set(keys))


@pytest.mark.integration
def test_the_archive_holds_what_the_queries_tell_apart(scanned: dict[str, Any]) -> None:
    # each criterion is tried on positions it keeps and positions it leaves out
    for query, meets in QUERIES.items():
        if query and query != "pips-white:<10 pips-white:>20":
            assert any(meets(f) for f in scanned.values()), query
            assert not all(meets(f) for f in scanned.values()), query


@pytest.mark.integration
def test_a_budget_spent_says_at_least(
    archive: Path, scanned: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(search_module, "ROW_BUDGET", 300)
    conn = sqlite3.connect(archive)
    found = search(conn, read_query("turn:white"), limit=7, offset=3)
    assert not found.exact and len(found.rows) == 7 and found.offset == 3
    assert found.more == found.total - 10 and found.total < 300
    assert {row["key"] for row in found.rows} <= {
        key for key, f in scanned.items() if f["turn"] == "white"
    }
    monkeypatch.setattr(search_module, "KEY_BUDGET", 20)
    spelled = search(conn, read_query("race"), limit=50)
    assert not spelled.exact and spelled.total <= 20
    conn.close()


#: each indexed criterion and the index it reads
INDEXED = {
    "pips-white:<60": "idx_plies_search_white_pips",
    "turn:black pips-black:10..50": "idx_plies_search_black_pips",
    "diff:>100": "idx_plies_search_diff",
    "diff:-90..-30": "idx_plies_search_diff",
    "off-white:>=14": "idx_plies_search_white_off",
    "off-black:15": "idx_plies_search_black_off",
}


@pytest.mark.integration
@pytest.mark.parametrize("query", list(INDEXED))
def test_an_indexed_criterion_is_read_from_its_index(archive: Path, query: str) -> None:
    parsed = read_query(query)
    index = next(index for index in SEARCH_INDEXES if index.name == INDEXED[query])
    assert search_module.narrowest_index(sqlite3.connect(archive), parsed) == index
    statement, arguments = walk_sql(parsed, index)
    with sqlite3.connect(archive) as conn:
        plan = " | ".join(
            row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}", (*arguments, 9))
        )
    assert f"USING INDEX {index.name} (<expr>>? AND <expr><?)" in plan, plan
    assert "TEMP B-TREE" not in plan, plan  # walked in the index's order, never sorted


@pytest.mark.integration
@pytest.mark.parametrize("query", ["rules:backgammon", "rules:jacquet race pips-black:>70"])
def test_one_ruleset_walks_its_games_through_their_index(archive: Path, query: str) -> None:
    parsed = read_query(query)
    assert search_module.narrowest_index(sqlite3.connect(archive), parsed) is None
    statement, arguments = walk_sql(parsed, None)
    with sqlite3.connect(archive) as conn:
        plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}", (*arguments, 9))]
    assert plan[0] == "SEARCH g USING INDEX idx_games_rules (rules=?)", plan
    assert not any("TEMP B-TREE" in step for step in plan), plan


@pytest.mark.integration
@pytest.mark.parametrize(
    "query",
    ["", "race", "pips-white:<70", "diff:>20", "off-white:0", "rules:five-max rules:murray"],
)
def test_a_range_no_index_holds_walks_the_plays_in_order(archive: Path, query: str) -> None:
    parsed = read_query(query)
    assert search_module.narrowest_index(sqlite3.connect(archive), parsed) is None
    statement, _ = walk_sql(parsed, None)
    with sqlite3.connect(archive) as conn:
        plan = [row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}", (9,))]
    assert plan == ["SCAN p"], plan


@pytest.mark.integration
def test_each_index_holds_only_the_plays_of_its_ranges(archive: Path) -> None:
    # what keeps the indexes small (docs/browse.md: their bytes against the text's): an entry
    # for each play whose position's field is in the index's ranges, none for the others
    reached = [key for (key,) in rows(archive, "SELECT key_after FROM turns") if key]
    fields: dict[str, Callable[[Position], int]] = {
        "white_pips": lambda p: p.pips("white"),
        "black_pips": lambda p: p.pips("black"),
        "white_off": lambda p: p.off("white"),
        "black_off": lambda p: p.off("black"),
        "diff": lambda p: p.pips(p.turn) - p.pips("black" if p.turn == "white" else "white"),
    }
    positions = [Position.from_key(key) for key in reached]
    for index in SEARCH_INDEXES:
        held = rows(
            archive, f"SELECT count(*) FROM plies INDEXED BY {index.name} WHERE {index.where}"
        )[0][0]
        expected = sum(
            1
            for p in positions
            if any(lo <= fields[index.field](p) <= hi for lo, hi in index.ranges)
        )
        assert 0 < held == expected < len(positions), index.name


@pytest.mark.integration
def test_the_step_from_version_11_makes_the_indexes(archive: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    source = sqlite3.connect(archive)
    source.execute(f"VACUUM INTO '{old}'")
    source.close()
    expected = rows(old, "SELECT name, sql FROM sqlite_master WHERE name LIKE 'idx_plies_s%'")
    conn = sqlite3.connect(old)
    for index in SEARCH_INDEXES:
        conn.execute(f"DROP INDEX {index.name}")
    conn.execute("PRAGMA user_version = 11")
    conn.commit()
    conn.close()
    open_archive(old).close()
    assert rows(old, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert sorted(expected) == sorted(
        rows(old, "SELECT name, sql FROM sqlite_master WHERE name LIKE 'idx_plies_s%'")
    )
    assert len(expected) == len(SEARCH_INDEXES)


@pytest.mark.unit
@pytest.mark.parametrize(
    ("query", "column", "words"),
    [
        ("foo:3", 1, "cannot read 'foo:3'"),
        ("turn:white colour:red", 12, "cannot read 'colour:red'"),
        ("turn:", 6, "ends inside a criterion"),
        ("turn:green", 6, "cannot read 'green'"),
        ("pips-white:<x", 13, "cannot read 'x'"),
        ("pips-white:<-3", 13, "-3 is not a number of 0 or more"),
        ("point:25-white>1", 7, "point 25 is not on the board"),
        ("table:middle-white>1", 7, "cannot read 'middle-white>1'"),
        ("rules:chess", 7, "no ruleset is called chess"),
        ("off-white:²", 11, "cannot read '²'"),
        ("diff:99999999999999999999", 6, "is not a whole number"),
    ],
)
def test_a_query_error_says_its_column(query: str, column: int, words: str) -> None:
    with pytest.raises(QueryError) as raised:
        read_query(query)
    assert raised.value.column == column
    assert words in str(raised.value)
    assert str(raised.value).startswith(f"query:1:{column}: ")
    assert "\n" not in str(raised.value)


@pytest.mark.unit
def test_a_query_too_long_is_refused() -> None:
    with pytest.raises(QueryError, match="at most"):
        read_query("race " * 300)


@pytest.mark.integration
def test_jacquet_search_exit_codes(archive: Path, tmp_path: Path) -> None:
    found = run("search", str(archive), "turn:white", "pips-white:<40", "--limit", "2")
    assert found.returncode == 0, found.stderr
    lines = found.stdout.splitlines()
    assert len(lines) == 3 and lines[-1].endswith("more after these"), lines
    assert " white to move " in lines[0]
    none = run("search", str(archive), "diff:>400")
    assert none.returncode == 1 and none.stdout.startswith("0 positions")
    bad = run("search", str(archive), "turn:green")
    assert bad.returncode == 2
    assert bad.stderr.startswith("jacquet: query:1:6: cannot read 'green'")
    assert "Traceback" not in bad.stderr and len(bad.stderr.splitlines()) == 1
    missing = run("search", str(tmp_path / "none.db"), "race")
    assert missing.returncode == 2 and "no such archive" in missing.stderr
