"""Plain helpers shared by several test modules: querying an archive, running the command and
its processes, a corpus and an archive to serve.

Test modules import these (and fixtures come from ``conftest.py``); no test module imports
another, so that each one can be read, run and moved on its own.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jacquet_notation.generate import generate_records
from jacquet_notation.notation import read_games, write_game
from jacquet_notation.position import Position
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules

ROOT = Path(__file__).resolve().parent.parent

# -- an archive's tables ------------------------------------------------------------------------


def rows(db: Path, sql: str, *args: Any) -> list[tuple[Any, ...]]:
    with sqlite3.connect(db) as conn:
        return conn.execute(sql, args).fetchall()


def one(db: Path, sql: str, *args: Any) -> Any:
    return rows(db, sql, *args)[0][0]


def dump(db: Path) -> dict[str, list[tuple[Any, ...]]]:
    """Every table's rows (without import times), sorted: to compare two archives."""
    tables = ["games", "turns", "positions", "players", "events", "sources", "duplicates"]
    tables += ["occurrences"]
    result = {table: sorted(rows(db, f"SELECT * FROM {table}"), key=repr) for table in tables}
    result["imports"] = rows(
        db, "SELECT id, path, sha256, games, valid, invalid, unreadable, status FROM imports"
    )
    return result


def check_consistent(db: Path) -> None:
    """What must hold after any import, interrupted or not."""
    assert one(db, "PRAGMA integrity_check") == "ok"
    assert rows(db, "PRAGMA foreign_key_check") == []
    # the search indexes, written by the import's SQLite (APSW's), read by Python's
    for table in ("games", "players", "events", "sources"):
        rows(db, f"INSERT INTO {table}_fts ({table}_fts) VALUES ('integrity-check')")
    for import_id, games, valid, invalid, unreadable, status in rows(
        db, "SELECT id, games, valid, invalid, unreadable, status FROM imports"
    ):
        assert status in ("complete", "unreadable")
        assert games == one(db, "SELECT count(*) FROM occurrences WHERE import_id = ?", import_id)
        assert games == valid + invalid + unreadable
    # Every valid game has one turn row a play, each with its positions.
    assert (
        rows(
            db,
            "SELECT g.id FROM games g WHERE g.status = 'valid' AND g.plies != "
            "(SELECT count(*) FROM turns t WHERE t.game_id = g.id AND t.key_after IS NOT NULL)",
        )
        == []
    )
    # positions.games = the distinct games reaching each position, as the turns say.
    assert (
        rows(
            db,
            """SELECT p.key FROM positions p LEFT JOIN (
                 SELECT key, count(DISTINCT game_id) AS n FROM (
                   SELECT key_before AS key, game_id FROM turns WHERE key_before IS NOT NULL
                   UNION ALL SELECT key_after, game_id FROM turns WHERE key_after IS NOT NULL
                   UNION ALL SELECT final_key, id FROM games WHERE plies = 0
                     AND final_key IS NOT NULL)
                 GROUP BY key) c ON c.key = p.key
               WHERE p.games IS NOT c.n""",
        )
        == []
    )
    assert one(db, "SELECT count(*) FROM games_fts") == one(db, "SELECT count(*) FROM games")


# -- the command and its processes -------------------------------------------------------------


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "jacquet_notation", *args],
        capture_output=True,
        text=True,
        timeout=300,
    )


def children(pid: int) -> set[int]:
    """The live (not zombie) child processes of ``pid``, from /proc."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", encoding="ascii", errors="replace") as handle:
                stat = handle.read()
        except OSError:
            continue
        # "pid (command) state ppid ...": the command may hold spaces, so split after ")"
        state, ppid = stat.rsplit(")", 1)[1].split()[:2]
        if int(ppid) == pid and state != "Z":
            found.add(int(entry))
    return found


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def jacquet_command() -> list[str]:
    """The installed ``jacquet`` script, or the same entry point through this interpreter."""
    script = shutil.which("jacquet")
    if script:
        return [script]
    return [sys.executable, "-c", "from jacquet_notation.cli import main; main()"]


def wait_until_up(url: str, process: subprocess.Popen[bytes], seconds: float = 180) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if process.poll() is not None:
            output = process.stdout.read().decode() if process.stdout else ""
            raise AssertionError(f"the server exited with {process.returncode}: {output}")
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                if response.status == 200:
                    return
        except OSError:
            time.sleep(0.2)
    raise AssertionError(f"{url} did not answer within {seconds} s")


# -- a corpus with hostile names, and its archive --------------------------------------------------

EVIL = "<script>alert(1)</script>"
TRICKY = 'Jean "Q" & <b>Dupré</b>'


def make_corpus(folder: Path, games: int = 12) -> list[Path]:
    """Record files as a collector keeps them: generated games, one game between players with
    hostile names, and a broken record from the project's corpus."""
    folder.mkdir(parents=True, exist_ok=True)
    records = generated(games)
    (folder / "generated.jqt").write_text(
        "\n\n".join(write_game(record) for record in records) + "\n", encoding="utf-8"
    )
    evil = generated(1, seed=99)[0]
    evil.tags["White"], evil.tags["Black"] = EVIL, TRICKY
    evil.tags["Event"] = "<img src=x onerror=alert(2)>"
    (folder / "evil.jqt").write_text(write_game(evil) + "\n", encoding="utf-8")
    shutil.copy(ROOT / "corpus" / "broken" / "illegal-landing.jqt", folder / "broken.jqt")
    return sorted(folder.glob("*.jqt"))


def build_archive(db: Path, paths: Iterable[Path]) -> None:
    """The archive of ``paths``, through the archive's own import when it exists."""
    try:
        from jacquet_notation.archive import import_paths  # type: ignore[attr-defined]
    except ImportError:
        records = [record for path in paths for record in read_games(path)]
        write_archive(db, records)
        return
    import_paths(db, [str(path) for path in paths])


# -- a stand-in archive, written by hand after docs/SCHEMA until archive.import_paths lands --------

_SCHEMA = """
PRAGMA foreign_keys = ON;
CREATE TABLE players (id INTEGER PRIMARY KEY, name TEXT, normalised TEXT UNIQUE);
CREATE TABLE events (id INTEGER PRIMARY KEY, name TEXT, normalised TEXT UNIQUE);
CREATE TABLE sources (id INTEGER PRIMARY KEY, name TEXT, normalised TEXT UNIQUE);
CREATE TABLE imports (id INTEGER PRIMARY KEY, path TEXT, sha256 TEXT, started TEXT,
  finished TEXT, games INTEGER, valid INTEGER, invalid INTEGER, unreadable INTEGER, status TEXT);
CREATE TABLE games (
  id TEXT PRIMARY KEY, event_id INTEGER REFERENCES events(id), site TEXT, date TEXT,
  year INTEGER, round TEXT, white_id INTEGER REFERENCES players(id),
  black_id INTEGER REFERENCES players(id), white TEXT, black TEXT, rules TEXT, options TEXT,
  source_id INTEGER REFERENCES sources(id), transcriber TEXT, annotator TEXT, result TEXT,
  computed_result TEXT, status TEXT, error TEXT, errors TEXT, turns INTEGER, plies INTEGER,
  winner TEXT, points INTEGER, final_key TEXT, canonical TEXT, original TEXT, file TEXT,
  game_index INTEGER, import_id INTEGER REFERENCES imports(id), event TEXT, source TEXT,
  tags TEXT, comments TEXT);
CREATE TABLE turns (
  game_id TEXT REFERENCES games(id), ply INTEGER, turn INTEGER, side TEXT, dice TEXT,
  written TEXT, steps TEXT, pips INTEGER, key_before TEXT, key_after TEXT, annotation TEXT,
  nags TEXT, comment TEXT, error TEXT, PRIMARY KEY (game_id, ply));
CREATE INDEX turns_key_before ON turns(key_before);
CREATE INDEX turns_key_after ON turns(key_after);
CREATE INDEX games_white_id ON games(white_id);
CREATE INDEX games_black_id ON games(black_id);
CREATE TABLE positions (key TEXT PRIMARY KEY, turn TEXT, white_pips INTEGER,
  black_pips INTEGER, white_off INTEGER, black_off INTEGER, games INTEGER);
CREATE VIEW player_records AS
  SELECT p.id AS player_id, p.name AS name, count(g.id) AS games,
    sum(CASE WHEN (g.winner = 'white' AND g.white_id = p.id)
              OR (g.winner = 'black' AND g.black_id = p.id) THEN 1 ELSE 0 END) AS wins,
    sum(CASE WHEN (g.winner = 'black' AND g.white_id = p.id)
              OR (g.winner = 'white' AND g.black_id = p.id) THEN 1 ELSE 0 END) AS losses,
    0 AS points_won, 0 AS points_lost
  FROM players p JOIN games g ON p.id IN (g.white_id, g.black_id) GROUP BY p.id;
CREATE VIEW invalid_games AS
  SELECT id, white, black, date, file, error FROM games WHERE status != 'valid';
"""


def _normalise(name: str) -> str:
    return " ".join(name.lower().split())


def write_archive(path: Path, records: Iterable[GameRecord]) -> None:
    """Write the archive tables for ``records`` (the schema contract, by hand)."""
    connection = sqlite3.connect(path)
    connection.executescript(_SCHEMA)
    ids: dict[tuple[str, str], int] = {}

    def entity(table: str, name: str | None) -> int | None:
        if not name:
            return None
        key = (table, _normalise(name))
        if key not in ids:
            cursor = connection.execute(
                f"INSERT INTO {table} (name, normalised) VALUES (?, ?)", (name, key[1])
            )
            ids[key] = cursor.lastrowid or 0
        return ids[key]

    reached: dict[str, set[str]] = {}
    for record in records:
        game = replay(record)
        canonical = write_game(record)
        game_id = hashlib.sha256(canonical.encode()).hexdigest()[:16]
        tags = record.tags
        date = tags.get("Date", "????.??.??").replace(".", "-")
        year = int(date[:4]) if date[:4].isdigit() else None
        errors = [{"kind": type(e).__name__, "message": e.message} for e in game.errors]
        connection.execute(
            f"INSERT INTO games VALUES ({','.join('?' * 34)})",
            (
                game_id,
                entity("events", tags.get("Event")),
                tags.get("Site"),
                date,
                year,
                tags.get("Round"),
                entity("players", tags.get("White")),
                entity("players", tags.get("Black")),
                tags.get("White"),
                tags.get("Black"),
                game.rules.name,
                json.dumps(game.rules.options()),
                entity("sources", tags.get("Source")),
                None,
                None,
                record.result,
                game.computed_result,
                "valid" if game.is_valid else "invalid",
                game.errors[0].message if game.errors else None,
                json.dumps(errors),
                max((p.written.turn for p in game.plies), default=0),
                len(game.plies),
                game.winner,
                game.points,
                game.final.key(),
                canonical,
                record.text or canonical,
                record.file,
                record.index,
                None,
                tags.get("Event"),
                tags.get("Source"),
                json.dumps(tags),
                "\n".join(record.comments),
            ),
        )
        for ply in game.plies:
            written = ply.written
            before, after = ply.before.key(), ply.after.key() if ply.after else None
            connection.execute(
                "INSERT INTO turns VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
                (
                    game_id,
                    ply.index + 1,
                    written.turn,
                    written.side,
                    f"{written.dice[0]}-{written.dice[1]}" if written.dice else None,
                    " ".join(m.notation() for m in written.moves),
                    ply.play.notation() if ply.play else None,
                    sum(s.start - s.end for s in ply.play.steps) if ply.play else None,
                    before,
                    after,
                    written.annotation,
                    None,
                    None,
                    ply.error.message if ply.error else None,
                ),
            )
            for key in (before, after):
                if key:
                    reached.setdefault(key, set()).add(game_id)
    for key, games in reached.items():
        position = Position.from_key(key)
        connection.execute(
            "INSERT INTO positions VALUES (?,?,?,?,?,?,?)",
            (
                key,
                position.turn,
                position.pips("white"),
                position.pips("black"),
                position.off("white"),
                position.off("black"),
                len(games),
            ),
        )
    connection.commit()
    connection.close()
    import sqlite_utils

    sqlite_utils.Database(path)["games"].enable_fts(["white", "black", "event", "comments"])


def generated(games: int, seed: int = 7) -> list[GameRecord]:
    return list(generate_records(games, seed, Rules.named("jacquet")))


def query(db: Path, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    try:
        return connection.execute(sql, tuple(params)).fetchall()
    finally:
        connection.close()
