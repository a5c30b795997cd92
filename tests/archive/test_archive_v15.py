"""Schema version 15: each set of rules options stored once (``rule_options``), and a play's
text stored without the roll its row keeps beside it (docs/archive.md, "Version 15")."""

from __future__ import annotations

import importlib.util
import io
import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
import sqlite_utils
from helpers import copy_archive, one, rows

from jacquet_notation.archive import SCHEMA_VERSION, import_paths, open_archive, rebuild
from jacquet_notation.archive.schema import _GAME_TYPES, GAME_COLUMNS, GAME_REFERENCES
from jacquet_notation.archive.store import ArchiveError
from jacquet_notation.archive.stored_steps import steps_sql
from jacquet_notation.archive.stored_written import (
    POINTS_AS_NUMBERS,
    SPELLED_ROLL,
    pack_written,
    written_sql,
)
from jacquet_notation.errors import NotationError
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_chunk, split_games, write_game
from jacquet_notation.record import Move
from jacquet_notation.rules import Rules

ROOT = Path(__file__).resolve().parents[2]
MATCHES = ROOT / "tests" / "data" / "mat"

#: what the documented join reads of a game's options
_OPTIONS = (
    "SELECT g.id, o.options FROM games g LEFT JOIN rule_options o ON o.id = g.options ORDER BY g.id"
)


#: a play's stored cells but its text
_PLAYS = (
    "SELECT id, turn, side, dice, steps, pips, before, key_after, counts FROM plies ORDER BY id"
)


def _tables(lines: list[str]) -> dict[str, list[str]]:
    """A dump's lines by table, ``plies`` left out."""
    tables: dict[str, list[str]] = {}
    name = ""
    for line in lines:
        if line.startswith("== "):
            name = line[3:].split(" (")[0]
        tables.setdefault(name, []).append(line)
    tables.pop("plies")
    return tables


def _dump() -> Any:
    """scripts/archive_dump.py's dump (every stored row, sorted), as its own test loads it."""
    spec = importlib.util.spec_from_file_location("archive_dump", ROOT / "scripts/archive_dump.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.dump


def _records(folder: Path) -> list[Path]:
    """Games of three rulesets (three sets of options), some of whose plays the .jqt writes
    otherwise than their steps (``5-5: 24/19(2)``), and match files' (``65: 24/13``,
    ``53: 25/20 11/8``)."""
    texts = [
        write_game(record)
        for seed, name in enumerate(("jacquet", "backgammon", "murray"))
        for record in generate_records(3, seed, Rules.named(name))
    ]
    path = folder / "games.jqt"
    path.write_text("\n".join(texts), encoding="utf-8")
    bar = folder / "bar.mat"  # a match file that writes the bar as 25
    bar.write_text(
        " 1 point match\n\n Game 1\n anna : 0                        bert : 0\n"
        "  1) 21: 13/11 6/5                64: 24/20* 13/7\n"
        "  2) 53: 25/20 11/8               21: 13/11 6/5\n",
        encoding="utf-8",
    )
    return [path, bar, *sorted(MATCHES.glob("*.mat"))]


def _archive(folder: Path, name: str = "a.db") -> Path:
    db = folder / name
    import_paths(db, [str(path) for path in _records(folder)])
    return db


def test_a_new_archive_stores_each_set_of_options_once_and_games_point_at_it(
    tmp_path: Path,
) -> None:
    db = _archive(tmp_path)
    assert one(db, "PRAGMA user_version") == SCHEMA_VERSION >= 15
    sets = rows(db, "SELECT options FROM rule_options ORDER BY id")
    assert sorted(json.loads(text)["ruleset"] for (text,) in sets) == [
        "backgammon",
        "jacquet",
        "murray",
    ]
    # every game's id of its set, declared as a reference, read back as its rules' options
    assert ("games", "options", "rule_options", "id") in {
        ("games", row[3], row[2], row[4]) for row in rows(db, "PRAGMA foreign_key_list(games)")
    }
    assert one(db, "SELECT count(*) FROM games WHERE typeof(options) != 'integer'") == 0
    for rules, options in rows(
        db, "SELECT g.rules, o.options FROM games g JOIN rule_options o ON o.id = g.options"
    ):
        assert json.loads(options) == Rules.named(rules).options()
    # the column is last, as the step from version 14 leaves it
    assert [row[1] for row in rows(db, "PRAGMA table_info(games)")][-1] == "options"
    # a second import of the same rules adds no set
    more = tmp_path / "more.jqt"
    more.write_text(
        "\n".join(write_game(r) for r in generate_records(2, 9, Rules.named("jacquet"))),
        encoding="utf-8",
    )
    import_paths(db, [str(more)])
    assert rows(db, "SELECT options FROM rule_options ORDER BY id") == sets


def test_a_play_written_otherwise_is_stored_without_its_roll_and_read_back_whole(
    tmp_path: Path,
) -> None:
    from jacquet_notation.archive.stored_steps import counted_as_parts

    assert counted_as_parts()  # a move of several men spelled as packed_sql spells it
    db = _archive(tmp_path)
    kinds = dict(
        rows(
            db,
            "SELECT typeof(written) || CASE WHEN typeof(written) = 'integer' THEN "
            "CASE WHEN written < 0 THEN '-' ELSE '+' END WHEN typeof(written) = 'blob' THEN "
            "CASE WHEN substr(written, 1, 1) = CAST('-' AS BLOB) THEN '-' ELSE '+' END "
            "ELSE '' END, count(*) FROM plies GROUP BY 1",
        )
    )
    # the moves packed after a match file's 65: (+) and a .jqt's 6-5: (-), else the rest
    assert {"integer+", "integer-", "blob+", "blob-"} <= set(kinds), kinds
    flagged = "SELECT count(*) FROM plies WHERE typeof(written) = 'integer' AND abs(written) & ?"
    assert one(db, flagged, POINTS_AS_NUMBERS) == 1  # bar.mat's 25/20 11/8
    rests = rows(
        db,
        "SELECT p.written, p.dice, t.written FROM plies p JOIN game_numbers n ON n.number = "
        "p.game JOIN turns t ON t.game_id = n.game_id AND t.ply = p.ply "
        "WHERE typeof(p.written) = 'blob'",
    )
    for rest, dice, text in rests:
        high, low = divmod(dice, 10)
        if rest.startswith(b"-"):  # after a .jqt's 5-5:
            assert text == f"{high}-{low}: " + rest[1:].decode()
        else:  # after a match file's 65:
            assert text == f"{high}{low}: " + rest.decode()
    # what turns reads of each game is every play as the reader read it from its file
    expected = []
    for path in _records(tmp_path):
        data = path.read_bytes()
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:  # fibs-latin1.mat, as the import reads it
            text = data.decode("latin-1")
        try:  # a file cut in its header is refused whole (no play stored)
            chunks = list(split_games(io.StringIO(text), str(path)))
        except NotationError:
            continue
        records = [parse_chunk(chunk) for chunk in chunks]
        expected += [play.text for record in records if not record.errors for play in record.plays]
    expected.sort()
    assert sorted(text for (text,) in rows(db, "SELECT written FROM turns")) == expected


#: version 14's games: the options JSON in every row, after ``rules``
_V14_COLUMNS = [column for column in GAME_COLUMNS if column != "options"]
_V14_COLUMNS.insert(_V14_COLUMNS.index("rules") + 1, "options")


def _as_version_14(db: Path) -> None:
    """Lay ``games`` out again as version 14 made it (no ``rule_options``), and the plays'
    texts as it stored them (whole, where it did not read ``dice: steps``)."""
    conn = sqlite3.connect(db)  # foreign_keys off: the rename leaves other tables' references
    # plies with a TEXT written, holding each text whole
    spelled = written_sql("written", "dice", steps_sql("steps"))
    plies = str(conn.execute("SELECT sql FROM sqlite_master WHERE name = 'plies'").fetchone()[0])
    assert ", written," in plies
    indexes = conn.execute(
        "SELECT sql FROM sqlite_master WHERE tbl_name = 'plies' AND type = 'index' "
        "AND sql IS NOT NULL"
    ).fetchall()
    conn.execute("PRAGMA legacy_alter_table = ON")
    conn.execute("ALTER TABLE plies RENAME TO _v15_plies")
    conn.execute(plies.replace(", written,", ", written TEXT,"))
    conn.execute(
        f"INSERT INTO plies SELECT id, turn, side, dice, CASE WHEN typeof(written) IN "
        f"('integer', 'blob') THEN {spelled} ELSE written END, steps, pips, before, key_after, "
        "counts FROM _v15_plies ORDER BY id"
    )
    conn.execute("DROP TABLE _v15_plies")
    for (sql,) in indexes:
        conn.execute(sql)
    kept = conn.execute(
        "SELECT sql FROM sqlite_master WHERE tbl_name = 'games' AND type IN ('index', 'trigger') "
        "AND sql IS NOT NULL ORDER BY type, rowid"
    ).fetchall()
    conn.execute("ALTER TABLE games RENAME TO _v15_games")
    sqlite_utils.Database(conn).table("games").create(
        {
            column: _GAME_TYPES.get(column, str) if column != "options" else str
            for column in _V14_COLUMNS
        },
        pk="id",
        foreign_keys=[reference for reference in GAME_REFERENCES if reference[0] != "options"],
    )
    columns = ", ".join(f"g.{column}" for column in _V14_COLUMNS).replace("g.options", "o.options")
    conn.execute(
        f"INSERT INTO games (rowid, {', '.join(_V14_COLUMNS)}) SELECT g.rowid, {columns} "
        "FROM _v15_games g LEFT JOIN rule_options o ON o.id = g.options ORDER BY g.rowid"
    )
    conn.execute("DROP TABLE _v15_games")
    for (sql,) in kept:
        conn.execute(sql)
    conn.execute("DROP TABLE rule_options")
    conn.execute("PRAGMA user_version = 14")
    conn.commit()
    conn.close()


@pytest.mark.integration
def test_the_step_from_version_14_stores_the_options_once_as_a_new_archive_does(
    tmp_path: Path,
) -> None:
    dump = _dump()
    new = _archive(tmp_path, "new.db")
    old = tmp_path / "old.db"
    copy_archive(new, old)
    _as_version_14(old)
    assert "rule_options" not in {row[0] for row in rows(old, "SELECT name FROM sqlite_master")}
    assert one(old, "SELECT typeof(options) FROM games LIMIT 1") == "text"
    assert one(old, "SELECT count(*) FROM plies WHERE typeof(written) != 'text'") == one(
        old, "SELECT count(*) FROM plies WHERE written IS NULL"
    )
    open_archive(old).close()
    assert one(old, "PRAGMA user_version") == SCHEMA_VERSION
    # plies made again with written untyped, its indexes built again
    types = {row[1]: row[2] for row in rows(old, "PRAGMA table_info(plies)")}
    assert types["written"] == types["steps"] == ""
    index = "SELECT name FROM sqlite_master WHERE tbl_name = 'plies' AND type = 'index' ORDER BY 1"
    assert rows(old, index) == rows(new, index)
    assert one(old, "PRAGMA integrity_check") == "ok"
    assert rows(old, "PRAGMA foreign_key_check") == []
    # nothing names the table the step worked on, and every trigger is back
    named = "SELECT count(*) FROM sqlite_master WHERE instr(sql, ?) > 0"
    assert one(old, named, "_v15_games") == one(old, named, " _options ") == 0
    triggers = "SELECT name, sql FROM sqlite_master WHERE type = 'trigger' ORDER BY name"
    assert rows(old, triggers) == rows(new, triggers)
    # every row a new archive stores, but the plays' texts kept whole, which read the same
    assert _tables(dump(old)) == _tables(dump(new))
    assert rows(old, _PLAYS) == rows(new, _PLAYS)
    assert rows(old, _OPTIONS) == rows(new, _OPTIONS)
    assert dump(old, "view") == dump(new, "view")
    # the triggers still keep game_list and the search: a game's row changed shows there
    with sqlite3.connect(old) as conn:
        conn.execute("UPDATE games SET white = 'Renamed Player' WHERE rowid = 1")
    assert (
        one(old, "SELECT white FROM game_list WHERE id = (SELECT id FROM games WHERE rowid = 1)")
        == "Renamed Player"
    )
    assert one(old, "SELECT count(*) FROM games_fts WHERE games_fts MATCH 'Renamed'") == 1
    # a rebuild stores the texts anew: then every row is a new archive's
    rebuild(new)
    rebuild(old)
    assert dump(old) == dump(new)


@pytest.mark.parametrize(
    ("text", "moves", "kind"),
    [
        ("63: 22/13", [Move(22, 13)], "integer"),
        ("6-3: 22/13", [Move(22, 13)], "integer"),
        ("55: 13/8(2) 6/1*(2)", [Move(13, 8, 2), Move(6, 1, 2, True)], "integer"),
        ("33: 6/3 6/3 3/0 3/0", [Move(6, 3), Move(6, 3), Move(3, 0), Move(3, 0)], "integer"),
        ("53: 25/20 11/8", [Move(25, 20), Move(11, 8)], "integer"),
        ("5-3: bar/20 6/off", [Move(25, 20), Move(6, 0)], "integer"),
        ("21: 6/off 6/0", [Move(6, 0), Move(6, 0)], "blob"),  # spelled two ways: kept
        ("44: 8/4 8/4 8/4 8/4 4/0", [Move(8, 4)] * 4 + [Move(4, 0)], "blob"),  # five moves
        ("6-6: pass", [], "blob"),
        ("65: Cannot Move", [], "blob"),
        ("65: -1", [], "text"),  # a rest that would read as the .jqt's mark: kept whole
        ("?-?: 24/13", [Move(24, 13)], "text"),
    ],
)
def test_a_text_packed_reads_back_as_written(text: str, moves: list[Move], kind: str) -> None:
    """:func:`pack_written` and the SQL of :func:`written_sql`, round trip, without a replay:
    the steps are NULL (not replayed), so that only the text's own forms are used."""
    stored = pack_written(text, "6-5: ", "65: ", None, moves)  # a roll it does not begin with
    dice = 65
    for high in range(1, 7):
        for low in range(1, high + 1):
            if text.startswith((f"{high}{low}: ", f"{high}-{low}: ")):
                dice = high * 10 + low
                dashed, plain, _ = SPELLED_ROLL[high][low]
                stored = pack_written(text, dashed, plain, None, moves)
    conn = sqlite3.connect(":memory:")
    conn.execute("CREATE TABLE p (written, dice INTEGER, steps)")
    conn.execute("INSERT INTO p VALUES (?, ?, NULL)", (stored, dice))
    spelled = written_sql("written", "dice", steps_sql("steps"))
    assert conn.execute(f"SELECT typeof(written), {spelled} FROM p").fetchone() == (kind, text)


@pytest.mark.integration
def test_an_sqlite_too_old_for_the_step_says_so_and_leaves_the_archive_as_it_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    old = _archive(tmp_path, "old.db")
    _as_version_14(old)
    before = rows(old, "SELECT name, sql FROM sqlite_master ORDER BY name")
    monkeypatch.setattr(sqlite3, "sqlite_version_info", (3, 34, 1))
    monkeypatch.setattr(sqlite3, "sqlite_version", "3.34.1")
    with pytest.raises(ArchiveError) as raised:
        open_archive(old)
    assert str(raised.value).startswith(f"{old}: the archive is of version 14")
    assert "needs SQLite 3.35.0 or newer" in str(raised.value)
    assert "3.34.1" in str(raised.value) and "\n" not in str(raised.value)
    assert one(old, "PRAGMA user_version") == 14
    assert rows(old, "SELECT name, sql FROM sqlite_master ORDER BY name") == before
