"""Load test of ``jacquet serve`` while ``jacquet archive`` imports into the same file.

Loopback only (127.0.0.1), bounded in requests and seconds. An archive of generated games (the
cached one of ``bench/serve.py``, copied) is served by ``jacquet serve``; N clients (threads
with keep-alive connections) ask for game pages of games known to exist and for table pages:

1. the peer: the same pages, with no import running;
2. during an import of more files of new games into the served file: a game of a new file is
   asked for only once its file has committed (a reader of the archive polls ``imports``);
3. after the import, every new game's page once.

It counts 5xx answers and false 404s (a game known to exist answered 404) and prints the
request count and the p95 of phase 2 beside the peer's, as a ratio. The games each new file
brings are known beforehand from an archive of those files alone (cached).

    python3 bench/serve_during_import.py                  # 5,000 games served, 4 files added
    python3 bench/serve_during_import.py --games 20000 --files 8 --clients 4
"""

from __future__ import annotations

import argparse
import http.client
import os
import random
import shutil
import sqlite3
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

# the archive, its record files and the server as bench/serve.py makes and starts them
from serve import (  # noqa: E402
    GAMES_PER_FILE,
    OUT,
    build,
    free_port,
    percentile,
    start_datasette,
    write_part,
)

from jacquet_notation.archive import import_paths  # noqa: E402

TABLES = ["games", "turns", "positions", "players", "imports", "occurrences"]


@dataclass
class Tally:
    """What the clients saw in one phase."""

    latencies: list[float] = field(default_factory=list)
    server_errors: list[str] = field(default_factory=list)
    false_404: list[str] = field(default_factory=list)
    other: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def record(self, path: str, status: int, seconds: float) -> None:
        with self.lock:
            self.latencies.append(seconds)
            if status >= 500:
                self.server_errors.append(f"{status} {path}")
            elif status == 404 and "/-/game/" in path:
                self.false_404.append(path)
            elif status != 200:
                self.other.append(f"{status} {path}")

    def line(self, name: str) -> str:
        p95 = percentile(self.latencies, 0.95) * 1000 if self.latencies else 0.0
        return (
            f"{name:<34} {len(self.latencies):>8} {len(self.server_errors):>5} "
            f"{len(self.false_404):>9} {len(self.other):>6} {p95:>8.1f}"
        )


def new_files(games: int, files: int, jobs: int) -> list[str]:
    """``files`` record files of games not in the archive of ``games`` (bench/serve.py's parts
    after that archive's)."""
    folder = OUT / "records"
    first = (games + GAMES_PER_FILE - 1) // GAMES_PER_FILE
    return [str(write_part((folder, part))) for part in range(first, first + files)]


def game_ids(db: Path, where: str = "") -> dict[str, list[str]]:
    """The games of each import of ``db``, by the imported file's path."""
    found: dict[str, list[str]] = {}
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True, timeout=30)
    try:
        for path, game in connection.execute(
            "SELECT i.path, o.game_id FROM occurrences o JOIN imports i ON i.id = o.import_id "
            f"{where} ORDER BY o.import_id, o.game_index"
        ):
            found.setdefault(path, []).append(game)
    finally:
        connection.close()
    return found


def reference(paths: list[str]) -> dict[str, list[str]]:
    """The games each of ``paths`` brings, from an archive of those files alone (cached)."""
    db = OUT / f"during-import-{Path(paths[0]).stem}-{len(paths)}.db"
    if not db.exists():
        partial = db.with_suffix(".tmp")
        partial.unlink(missing_ok=True)
        import_paths(partial, paths)
        sqlite3.connect(partial).execute("PRAGMA wal_checkpoint(TRUNCATE)").connection.close()
        partial.rename(db)
    return game_ids(db)


def clients(
    port: int,
    name: str,
    known: list[str],
    tally: Tally,
    count: int,
    until: threading.Event,
    limit: int,
    deadline: float,
) -> None:
    """``count`` threads asking for pages until ``until`` is set, ``limit`` requests are made
    or ``deadline`` passes; ``known`` may grow meanwhile (games whose file committed)."""

    def client(number: int) -> None:
        rng = random.Random(number)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        while not until.is_set() and time.monotonic() < deadline:
            with tally.lock:
                if len(tally.latencies) >= limit:
                    break
            if rng.random() < 2 / 3:
                path = f"/{name}/-/game/{rng.choice(known)}"
            else:
                path = f"/{name}/{rng.choice(TABLES)}"
            began = time.perf_counter()
            try:
                connection.request("GET", path)
                response = connection.getresponse()
                response.read()
                status = response.status
            except OSError:
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
                status = 0
            tally.record(path, status, time.perf_counter() - began)
        connection.close()

    threads = [threading.Thread(target=client, args=(n,)) for n in range(count)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5000, help="games served at the start")
    parser.add_argument("--files", type=int, default=4, help=f"files of {GAMES_PER_FILE} added")
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--seconds", type=float, default=20, help="of the peer, no import")
    parser.add_argument("--requests", type=int, default=20000, help="at most, per phase")
    parser.add_argument("--timeout", type=float, default=600, help="at most, of the import")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--workers", type=int, help="server processes (default: jacquet's)")
    args = parser.parse_args()

    base = build(args.games, args.jobs)
    paths = new_files(args.games, args.files, args.jobs)
    expected = reference(paths)
    db = OUT / "during-import.db"
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    shutil.copyfile(base, db)
    known = [game for games in game_ids(db).values() for game in games]

    port = free_port()
    server = start_datasette(db, port, args.workers)
    try:
        peer = Tally()
        clients(
            port, db.stem, known, peer, args.clients, threading.Event(), args.requests,
            time.monotonic() + args.seconds,
        )  # fmt: skip

        during = Tally()
        done = threading.Event()
        committed: set[str] = set()

        def watch() -> None:
            """Add a file's games to those asked for once its import has committed."""
            while not done.is_set():
                for path, games in game_ids(db, "WHERE i.status = 'complete'").items():
                    if path in expected and path not in committed:
                        committed.add(path)
                        known.extend(games)
                time.sleep(0.05)

        jacquet = Path(sys.executable).with_name("jacquet")
        command = [str(jacquet)] if jacquet.exists() else [sys.executable, "-m", "jacquet_notation"]
        began = time.perf_counter()
        importing = subprocess.Popen(
            [*command, "archive", str(db), *paths],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        watcher = threading.Thread(target=watch)
        watcher.start()

        def wait() -> None:
            importing.wait()
            done.set()

        waiter = threading.Thread(target=wait)
        waiter.start()
        clients(
            port, db.stem, known, during, args.clients, done, args.requests,
            time.monotonic() + args.timeout,
        )  # fmt: skip
        if not done.is_set():
            importing.kill()
        waiter.join()
        done.set()
        watcher.join()
        seconds = time.perf_counter() - began
        errors = importing.stderr.read() if importing.stderr else ""

        after = Tally()
        new_games = [game for games in expected.values() for game in games]
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
        for game in new_games:
            path = f"/{db.stem}/-/game/{game}"
            started = time.perf_counter()
            connection.request("GET", path)
            response = connection.getresponse()
            response.read()
            after.record(path, response.status, time.perf_counter() - started)
        connection.close()
    finally:
        server.terminate()
        server.wait(timeout=30)

    print(
        f"jacquet serve of {len(game_ids(base))} files ({args.games} games) on 127.0.0.1, "
        f"{args.clients} clients; import of {len(paths)} files ({len(new_games)} games) in "
        f"{seconds:.1f} s, exit code {importing.returncode}"
    )
    print(f"{'phase':<34} {'requests':>8} {'5xx':>5} {'false 404':>9} {'other':>6} {'p95 ms':>8}")
    print(peer.line("no import (peer)"))
    print(during.line("during the import"))
    print(after.line("after: every new game once"))
    if peer.latencies and during.latencies:
        ratio = percentile(during.latencies, 0.95) / percentile(peer.latencies, 0.95)
        print(f"p95 during the import / p95 with no import: {ratio:.2f}x")
    for problem in (during.server_errors + during.false_404 + after.false_404)[:10]:
        print(f"  {problem}")
    if importing.returncode != 0:
        print(f"the import failed: {errors.strip()}")


if __name__ == "__main__":
    main()
