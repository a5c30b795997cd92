"""Plain helpers shared by several test modules: querying an archive, running the command and
its processes, fetching its pages, a corpus and an archive to serve, a page in Chromium.

Test modules import these (and fixtures come from ``conftest.py``); no test module imports
another, so that each one can be read, run and moved on its own.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from jacquet_notation.archive import import_paths
from jacquet_notation.archive.plays import PLY_KEY_INDEXES
from jacquet_notation.archive.schema import VIEWS
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.position import Position
from jacquet_notation.record import GameRecord
from jacquet_notation.rules import Rules

ROOT = Path(__file__).resolve().parent.parent

# -- the shared backgammon match files, read straight from their text ---------------------------

#: the shared match files: ``../shared`` beside the repository, or one level higher (a worktree)
SHARED_MAT = next(
    (
        found
        for found in (
            ROOT.parent / "shared" / "data" / "backgammon-mat",
            ROOT.parent.parent / "shared" / "data" / "backgammon-mat",
        )
        if found.is_dir()
    ),
    ROOT.parent / "shared" / "data" / "backgammon-mat",
)

_GAME = re.compile(r"^ Game \d+")
_SCORE = re.compile(r"^ *(.*?) ?: (\d+)( +)(.*?) ?: (\d+)\s*$")
_WINS = re.compile(r"Wins (\d+) point")
_LENGTH = re.compile(r"^\s*(\d+) point match", re.MULTILINE)


_DOUBLE = re.compile(r"Doubles => (\d+)")


def stated(path: Path) -> list[tuple[str, str, str | None, int | None]]:
    """Each game of a match file as its lines state it: the first and second player's names,
    the winner's name (by the column its ``Wins N point`` stands in) and the points; the
    winner None where no such line is written. No reader of the project's: the tests' own.

    The points are the line's, but for those no game can give: more than a backgammon (3 x
    the cube, the cube read from the game's ``Doubles => N`` lines) and not exactly what the
    winner needed to end the match (Backgammon Studio's ``Wins 4016 point`` for a player who
    left), which the rules score at 3 x the cube (docs/rules.md, "Matches")."""
    games: list[tuple[str, str, str | None, int | None]] = []
    right = None
    names = ("", "")
    score = (0, 0)
    cube = 1
    text = path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")
    found = _LENGTH.search(text)
    length = int(found[1]) if found else 0
    for line in text.split("\n"):
        if _GAME.match(line):
            if right is not None:
                games.append((*names, None, None))
            right = None
            cube = 1
            continue
        written = _SCORE.match(line)
        if written and right is None:
            right = written.end(3)
            names = (written.group(1).strip(), written.group(4).strip())
            score = (int(written.group(2)), int(written.group(5)))
            continue
        double = _DOUBLE.search(line)
        if double:
            cube = int(double.group(1))
        wins = _WINS.search(line)
        if wins and right is not None:
            first = wins.start() < right - 1
            winner = names[0] if first else names[1]
            points = int(wins.group(1))
            needed = length - score[0 if first else 1]
            if points > 3 * cube and points != needed:
                points = 3 * cube
            games.append((*names, winner, points))
            right = None
    if right is not None:
        games.append((*names, None, None))
    return games


def stated_match(path: Path) -> tuple[str, str, str | None]:
    """A match file's two players and the one whose stated points reach the length written in
    its ``N point match`` line (None: neither did, the match unfinished)."""
    games = stated(path)
    first, second = games[0][:2]
    length = _LENGTH.search(path.read_bytes().decode("utf-8", "replace"))
    points = {first: 0, second: 0}
    for _, _, winner, scored in games:
        if winner is not None:
            points[winner] += scored or 0
    reached = [name for name in (first, second) if length and points[name] >= int(length[1])]
    return first, second, reached[0] if reached else None


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


def copy_archive(archive: Path, copy: Path) -> None:
    """A copy of ``archive`` at ``copy``, through SQLite's backup (its WAL's pages included)."""
    source, target = sqlite3.connect(archive), sqlite3.connect(copy)
    source.backup(target)
    source.close()
    target.close()


def as_version_1(archive: Path, old: Path) -> None:
    """A copy of ``archive`` at ``old``, laid out as schema version 1 wrote it (no games list
    table): what a migration starts from."""
    copy_archive(archive, old)
    target = sqlite3.connect(old)
    with target:
        as_version_10(target)
        for trigger in ("game_list_insert", "game_list_update", "game_list_delete"):
            target.execute(f"drop trigger {trigger}")
        target.execute("drop table game_list")
        target.execute("pragma user_version = 1")
    target.close()


#: version 10's stored turns and positions, as its schema (and every one before) made them
_V6_TABLES = (
    "CREATE TABLE turns (game_id TEXT REFERENCES games(id), ply INTEGER, turn INTEGER, "
    "side TEXT, dice TEXT, written TEXT, steps TEXT, pips INTEGER, key_before TEXT, "
    "key_after TEXT, annotation TEXT, nags TEXT, comment TEXT, error TEXT, "
    "opponent_steps TEXT, cube TEXT, PRIMARY KEY (game_id, ply))",
    "CREATE TABLE positions (key TEXT PRIMARY KEY, turn TEXT, white_pips INTEGER, "
    "black_pips INTEGER, white_off INTEGER, black_off INTEGER, games INTEGER)",
)


def as_version_10(conn: sqlite3.Connection) -> None:
    """Lay an archive out as schema version 10 wrote it (``turns`` and ``positions`` tables, a
    position's counts in every row), from what its views say: what the migration to version 11
    starts from, and the step earlier versions are made from."""
    turns = conn.execute("SELECT * FROM turns ORDER BY game_id, ply").fetchall()
    positions = conn.execute("SELECT * FROM positions").fetchall()
    for view in ("opening_rolls", "turns", "positions"):
        conn.execute(f"DROP VIEW {view}")
    for table in ("ply_notes", "plies", "shared_positions", "game_numbers"):
        conn.execute(f"DROP TABLE {table}")
    for sql in _V6_TABLES:
        conn.execute(sql)
    conn.executemany(f"INSERT INTO turns VALUES ({', '.join('?' * 16)})", turns)
    conn.executemany("INSERT INTO positions VALUES (?, ?, ?, ?, ?, ?, ?)", positions)
    conn.execute("CREATE INDEX idx_turns_key_before ON turns (key_before)")
    conn.execute("CREATE INDEX idx_turns_key_after ON turns (key_after)")
    conn.execute(f"CREATE VIEW opening_rolls AS {VIEWS['opening_rolls'].strip()}")
    as_before_16(conn)
    conn.execute("PRAGMA user_version = 10")


def as_before_16(conn: sqlite3.Connection) -> None:
    """A player's games indexed as before version 16: one column a side."""
    for side in ("white", "black"):
        for kind in ("sums", "newest", "analysed"):
            conn.execute(f"DROP INDEX IF EXISTS idx_games_{side}_{kind}")
        conn.execute(f"DROP INDEX IF EXISTS idx_game_list_{side}_id_{side}_event_id_source_id_year")
        conn.execute(f"CREATE INDEX idx_games_{side}_id ON games ({side}_id)")
        conn.execute(f"CREATE INDEX idx_game_list_{side}_id ON game_list ({side}_id)")


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
        # pending: a bulk import's file committed, the import killed before it settled
        assert status in ("complete", "unreadable", "pending")
        assert games == one(db, "SELECT count(*) FROM occurrences WHERE import_id = ?", import_id)
        assert games == valid + invalid + unreadable
    if one(db, "SELECT count(*) FROM imports WHERE status = 'pending'"):
        # its positions' counts and key indexes wait for the next import (archive/settling.py),
        # which settles them before any file that is not a bulk import's: they are the last
        assert (
            one(
                db,
                "SELECT count(*) FROM imports WHERE status != 'pending' AND games > 0 AND id > "
                "(SELECT min(id) FROM imports WHERE status = 'pending')",
            )
            == 0
        )
        return
    indexes = {row[0] for row in rows(db, "SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {name for name, _, _ in PLY_KEY_INDEXES} <= indexes
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
                   UNION ALL SELECT key_after, game_id FROM turns WHERE key_after IS NOT NULL)
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
    """The ``jacquet`` script installed beside this interpreter, or the same entry point through
    it (never another install's script found on the PATH)."""
    script = shutil.which("jacquet", path=str(Path(sys.executable).parent))
    if script:
        return [script]
    return [sys.executable, "-c", "from jacquet_notation.cli import main; main()"]


def stop(process: subprocess.Popen[bytes]) -> None:
    """End a server the test started: asked to stop, then killed if it has not within 10 s."""
    process.terminate()
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def serving(
    args: list[str], cwd: Path | None = None, limit: Callable[[], None] | None = None
) -> Iterator[str]:
    """``jacquet serve ARGS`` on a free loopback port, up and answering; its base URL. Run from
    ``cwd``; ``limit`` runs in the child before the server starts (a memory limit, say).

    The server's output goes to a file, printed when it stops (pytest shows it for a test that
    failed): a pipe that nobody reads fills with a few dozen tracebacks, and the server then
    blocks mid-answer, so a test would see a request hang rather than the error."""
    port = free_port()
    with tempfile.TemporaryFile() as log:
        process = subprocess.Popen(
            [*jacquet_command(), "serve", *args, "--port", str(port)],
            cwd=cwd,
            stdout=log,
            stderr=subprocess.STDOUT,
            preexec_fn=limit,
        )
        base = f"http://127.0.0.1:{port}"
        try:
            try:
                wait_until_up(f"{base}/-/versions.json", process)
            except AssertionError as error:
                raise AssertionError(f"{error}\n{_end_of(log)}") from None
            yield base
        finally:
            stop(process)
            said = _end_of(log)
            if said:
                print(f"jacquet serve said (its last {len(said):,} characters):\n{said}")


def _end_of(log: IO[bytes], most: int = 20_000) -> str:
    """The last ``most`` bytes a server wrote to ``log``, as text."""
    log.seek(0)
    return log.read()[-most:].decode("utf-8", errors="replace")


def fetch(url: str, timeout: float = 30) -> tuple[int, str]:
    """The status and text of ``url`` over real HTTP, an error's too."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode()


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
    """The archive of ``paths``, through the archive's own import."""
    import_paths(db, [str(path) for path in paths])


def corpus_archive(folder: Path, games: int = 12, extra: Iterable[Path] = ()) -> Path:
    """``folder/archive.db``: the archive of :func:`make_corpus`'s records (``games`` generated
    games, written to ``folder/records``) and of the ``extra`` paths after them."""
    db = folder / "archive.db"
    build_archive(db, [*make_corpus(folder / "records", games), *extra])
    return db


def generated(games: int, seed: int = 7) -> list[GameRecord]:
    return list(generate_records(games, seed, Rules.named("jacquet")))


def query(db: Path, sql: str, params: Iterable[Any] = ()) -> list[sqlite3.Row]:
    connection = sqlite3.connect(db)
    connection.row_factory = sqlite3.Row
    try:
        return connection.execute(sql, tuple(params)).fetchall()
    finally:
        connection.close()


# -- a page in Chromium ----------------------------------------------------------------------------


@dataclass
class PageTroubles:
    """What went wrong on a page: the dialogs it opened (each dismissed) and its script errors."""

    dialogs: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


@contextmanager
def watched_page(browser: Any, **options: Any) -> Iterator[tuple[Any, PageTroubles]]:
    """A page in a fresh context of ``browser`` (``options``: Playwright's ``new_context``
    arguments), and what goes wrong on it; the context is closed after."""
    context = browser.new_context(**options)
    try:
        page = context.new_page()
        seen = PageTroubles()

        def on_dialog(dialog: Any) -> None:
            seen.dialogs.append(dialog.message)
            dialog.dismiss()

        page.on("dialog", on_dialog)
        page.on("pageerror", lambda error: seen.errors.append(str(error)))
        yield page, seen
    finally:
        context.close()


# -- one player under many spellings (docs/archive.md) ------------------------------------------

#: (event, source, white, black): Jean Dupré under three spellings in one event, and names close
#: to his or to each other that are other men (Jean Martin played Jeanne Martin; Jean Dupuis
#: played elsewhere)
ALIAS_GAMES = (
    ("Café de la Régence", "Le Jacquet, 1820", "Jean Dupré", "Pierre Lefèvre"),
    ("Café de la Régence", "Le Jacquet, 1820", "J. Dupré", "Pierre Lefèvre"),
    ("Café de la Régence", "Le Jacquet, 1820", "Dupré, Jean", "Marc Aubert"),
    ("Café de la Régence", "Le Jacquet, 1820", "Jean Dupré", "Marc Aubert"),
    ("Tournoi de Lyon", "Gazette de Lyon", "Jean Martin", "Jeanne Martin"),
    ("Tournoi de Lyon", "Gazette de Lyon", "Jean Dupuis", "Paul Roux"),
)


def alias_records(path: Path) -> Path:
    """A record file of :data:`ALIAS_GAMES` (generated plays, the names and places above)."""
    records = generated(len(ALIAS_GAMES), seed=11)
    for record, (event, source, white, black) in zip(records, ALIAS_GAMES, strict=True):
        record.tags.update(Event=event, Source=source, White=white, Black=black)
    path.write_text("\n\n".join(write_game(record) for record in records) + "\n", "utf-8")
    return path


def replay_ids(match: Path, number: int) -> list[tuple[str, str]]:
    """(gnubg ID, XGID) at the start and after each ply of game ``number`` of ``match``, as
    ``jacquet replay --ids`` prints them (a real subprocess): what the pages and the XML must
    say too."""
    done = run("replay", str(match), "--game", str(number), "--ids")
    assert done.returncode == 0, done.stderr
    lines = [line.split() for line in done.stdout.splitlines() if line.startswith("gnubg ID:")]
    return [(words[2], words[3]) for words in lines]


def gnubg_match_id(gnubg: Any, state: Any) -> str:
    """gnubg's own Match ID of a ``position_ids.MatchState`` (gnubg's Python module, GPL,
    optional: the caller imports it). gnubg's player 0 is O (Black), 1 is X (White); with a
    double pending its player on move is the doubler, on roll the one to decide."""
    player = {"black": 0, "white": 1}
    owner = -1 if state.owner is None else player[state.owner]
    cube = gnubg.cubeinfo(
        state.cube,
        owner,
        player[state.mover],
        state.length,
        (state.score[1], state.score[0]),
        int(state.crawford),
        0,
    )
    turn = 1 - player[state.mover] if state.doubled else player[state.mover]
    position = gnubg.posinfo(turn, 0, int(state.doubled), 1, state.dice or (0, 0))
    return str(gnubg.matchid(cube, position))


def reached_backgammon_position(db: Path) -> Position:
    """A backgammon position a game of archive ``db`` reached, White on roll, past the start:
    one a visitor would paste an ID of (the ID lookups' tests, in HTTP and in Chromium)."""
    with sqlite3.connect(db) as conn:
        keys = [row[0] for row in conn.execute("select key from positions order by key")]
    for key in keys:
        position = Position.from_key(key)
        past_start = position.pips("white") != 167
        if position.direction == "opposite" and position.turn == "white" and past_start:
            return position
    raise AssertionError("no backgammon position in the archive")
