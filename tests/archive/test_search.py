"""Positions found by what they look like (docs/browse.md, "Searching positions"): every
answer checked against a scan written here (each stored position's features computed from
``Position.from_key``, filtered in Python), the query language's errors with their columns,
the indexes each indexed criterion reads, the step from version 10, ``jacquet search``'s exit
codes."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, SHARED_MAT, rows, run

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive, rebuild
from jacquet_notation.archive.search import QueryError, read_query, search, search_sql
from jacquet_notation.position import Position

#: a few of the shared match files: real backgammon, with hits and the bar
SHARED_FILES = sorted((SHARED_MAT / "Llabba").glob("*.txt"))[:4] if SHARED_MAT else []


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("search") / "archive.db"
    import_paths(db, [str(ROOT / "corpus" / "valid"), *map(str, SHARED_FILES)])
    return db


def _blocks(position: Position) -> bool:
    """The test's own contact: some man stands on a point the other side's man must still
    cross, each side's way walked point by point in White's numbering."""
    direction = position.direction
    if position.bar("white") or position.bar("black"):
        return bool(position.men("white")) and bool(position.men("black"))
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
    """Every stored position with what the criteria ask of it, computed here."""
    rules: dict[str, set[str]] = {}
    for key, name in rows(
        db,
        "SELECT t.key_before, g.rules FROM turns t JOIN games g ON g.id = t.game_id "
        "UNION SELECT t.key_after, g.rules FROM turns t JOIN games g ON g.id = t.game_id "
        "UNION SELECT final_key, rules FROM games",
    ):
        if key is not None:
            rules.setdefault(key, set()).add(name or "")
    found = {}
    for (key,) in rows(db, "SELECT key FROM positions"):
        position = Position.from_key(key)
        white, black = position.men("white"), position.men("black")
        pips = {side: position.pips(side) for side in ("white", "black")}
        mover = position.turn
        found[key] = {
            "turn": mover,
            "rules": rules.get(key, set()),
            "pips": pips,
            "diff": pips[mover] - pips["black" if mover == "white" else "white"],
            "contact": _blocks(position),
            "off": {side: position.off(side) for side in ("white", "black")},
            "bar": {side: position.bar(side) for side in ("white", "black")},
            "men": {"white": white, "black": black},
            "courier": {side: position.in_courier_phase(side) for side in ("white", "black")},
        }
    return found


#: queries and what they mean, as the scan reads a position
QUERIES: dict[str, Callable[[dict[str, Any]], bool]] = {
    "": lambda f: True,
    "turn:white": lambda f: f["turn"] == "white",
    "rules:backgammon": lambda f: "backgammon" in f["rules"],
    "rules:murray turn:black": lambda f: "murray" in f["rules"] and f["turn"] == "black",
    "pips-white:<60": lambda f: f["pips"]["white"] < 60,
    "pips-black:100..150": lambda f: 100 <= f["pips"]["black"] <= 150,
    "diff:>20 race": lambda f: f["diff"] > 20 and not f["contact"],
    "diff:-5..5 contact": lambda f: -5 <= f["diff"] <= 5 and f["contact"],
    "off-black:>=5": lambda f: f["off"]["black"] >= 5,
    "off-white:3": lambda f: f["off"]["white"] == 3,
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
}


@pytest.fixture(scope="module")
def scanned(archive: Path) -> dict[str, dict[str, Any]]:
    return _scan(archive)


@pytest.mark.integration
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
        keys.extend(row["key"] for row in found.rows)
        assert found.total == len(expected)
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
        if query:
            assert any(meets(f) for f in scanned.values()), query
            assert not all(meets(f) for f in scanned.values()), query


@pytest.mark.integration
def test_a_page_says_how_many_more(archive: Path) -> None:
    conn = sqlite3.connect(archive)
    found = search(conn, read_query("turn:white"), limit=7, offset=3)
    assert len(found.rows) == 7 and found.offset == 3
    assert found.more == found.total - 10
    games = [row["games"] for row in found.rows]
    assert games == sorted(games, reverse=True)


#: each indexed criterion and the index it reads
INDEXED = {
    "rules:backgammon": "position_features_rules_turn",
    "pips-white:<60": "position_features_white_pips",
    "pips-black:>=200": "position_features_black_pips",
    "diff:>100": "position_features_diff",
    "off-white:>=14": "position_features_white_off",
    "off-black:15": "position_features_black_off",
}


@pytest.mark.integration
@pytest.mark.parametrize("query", list(INDEXED))
def test_an_indexed_criterion_is_read_from_its_index(archive: Path, query: str) -> None:
    parsed = read_query(query)
    page, count = search_sql(parsed)
    conn = sqlite3.connect(archive)
    for statement, arguments in ((page, (*parsed.arguments, 50, 0)), (count, parsed.arguments)):
        plan = " | ".join(
            row[3] for row in conn.execute(f"EXPLAIN QUERY PLAN {statement}", arguments)
        )
        assert f"USING INDEX {INDEXED[query]}" in plan or (
            f"USING COVERING INDEX {INDEXED[query]}" in plan
        ), plan
    conn.close()


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
def test_the_step_from_version_10_fills_the_features(archive: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    source = sqlite3.connect(archive)
    source.execute(f"VACUUM INTO '{old}'")
    source.close()
    expected = rows(old, "SELECT * FROM position_features ORDER BY key, rules")
    conn = sqlite3.connect(old)
    conn.execute("DROP TABLE position_features")
    conn.execute("PRAGMA user_version = 10")
    conn.commit()
    conn.close()
    open_archive(old).close()
    assert rows(old, "PRAGMA user_version") == [(SCHEMA_VERSION,)]
    assert rows(old, "SELECT * FROM position_features ORDER BY key, rules") == expected
    assert len(expected) >= len(rows(old, "SELECT key FROM positions"))


@pytest.mark.integration
def test_a_rebuild_writes_the_same_features(archive: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.db"
    source = sqlite3.connect(archive)
    source.execute(f"VACUUM INTO '{copy}'")
    source.close()
    expected = rows(copy, "SELECT * FROM position_features ORDER BY key, rules")
    rebuild(copy)
    assert rows(copy, "SELECT * FROM position_features ORDER BY key, rules") == expected


@pytest.mark.integration
def test_jacquet_search_exit_codes(archive: Path, tmp_path: Path) -> None:
    found = run("search", str(archive), "turn:white", "race", "--limit", "2")
    assert found.returncode == 0, found.stderr
    lines = found.stdout.splitlines()
    assert len(lines) == 3 and lines[-1].endswith("more after these")
    none = run("search", str(archive), "diff:>400")
    assert none.returncode == 1 and none.stdout.startswith("0 positions")
    bad = run("search", str(archive), "turn:green")
    assert bad.returncode == 2
    assert bad.stderr.startswith("jacquet: query:1:6: cannot read 'green'")
    assert "Traceback" not in bad.stderr and len(bad.stderr.splitlines()) == 1
    missing = run("search", str(tmp_path / "none.db"), "race")
    assert missing.returncode == 2 and "no such archive" in missing.stderr
