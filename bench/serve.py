"""Benchmark of the Datasette browser on a large archive: latency of the plugin's pages.

A generated archive (100,000 games by default; built once, cached under ``bench/out/serve/``)
is served on loopback by ``jacquet serve`` in a subprocess: a real Datasette, with the project's
metadata and the plugin loaded through its entry point, read-only (a reader of the archive's
write-ahead log, as ``jacquet serve`` always serves: an import may write meanwhile), with the SQL
time limit and jacquet's server processes (one per core, ``--workers`` to choose). For each page
kind, N clients (threads with keep-alive HTTP connections) request pages for S seconds; the
median and 95th percentile are printed side by side with Datasette's own plain table page on
the same archive (the floor).

Targets (issue 6): p95 <= 150 ms on every page, and each of the project's pages at most twice the
plain table page. Issue 19, the front door: the home page and the games list (unfiltered,
filtered, sorted) p95 <= 150 ms and <= 1.0x the floor; the list with its filters' counts
<= 1.5x. Issue 18, the transcriber's desk: its check endpoint (a POST of a 100-ply record, as the
page sends it, with its CSRF token) p95 <= 100 ms (``--only desk``); with ``--costly N``, the
same check for the S seconds after N costly checks are posted at once (each a body near the size
limit of backgammon plays written without dice from an open position, answered 503 at the time
limit).

    python3 bench/serve.py                    # 100,000 games, 4 clients, 30 s per page kind
    python3 bench/serve.py --games 20000 --seconds 10
    python3 bench/serve.py --games 1000000 --matches 20   # issue 28: a million games and more
"""

from __future__ import annotations

import argparse
import http.client
import multiprocessing
import os
import random
import socket
import sqlite3
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path
from urllib.parse import quote

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from jacquet_notation.browse.desk import CHECK_PATH  # noqa: E402
from jacquet_notation.generate import generate_records  # noqa: E402
from jacquet_notation.notation import write_game  # noqa: E402
from jacquet_notation.rules import Rules  # noqa: E402

OUT = ROOT / "bench" / "out" / "serve"
#: the real match files, repeated under new ids by ``--matches K`` (a million-game archive)
MATCHES = ROOT.parent / "shared" / "data" / "backgammon-mat"
#: the games list's sorts the benchmark asks for (both directions)
SORTS = [
    f"{sign}{column}"
    for column in ("date", "event", "white", "black", "result", "rules", "plies", "status")
    for sign in ("", "-")
]
GAMES_PER_FILE = 1000
#: the search page's queries (docs/browse.md, "Searching positions"): indexed ranges, ranges
#: outside the indexes, and criteria read from the key
SEARCHES = [
    "pips-white:<20 off-white:>=10",
    "diff:>40 race",
    "turn:black pips-black:<40 contact",
    "off-black:5..9 bar-white:>=1",
    "point:6-white>=4 rules:jacquet",
    "pips-white:100..110 pips-black:100..110",
]
#: rulesets of the generated collection, by weight (Murray's hitting game is long: fewer)
RULESETS = [
    ("jacquet", 10),
    ("jacquet-variable", 2),
    ("bouchon", 2),
    ("spanish", 2),
    ("versailles", 2),
    ("five-max", 1),
    ("jacquet-unrestricted", 1),
    ("murray", 1),
]
FIRST = [
    "Jean",
    "Marie",
    "Louis",
    "Anne",
    "Pierre",
    "Claire",
    "Henri",
    "Sophie",
    "Paul",
    "Jeanne",
    "Jacques",
    "Louise",
    "Charles",
    "Hélène",
    "Émile",
    "Camille",
    "Victor",
    "Adèle",
    "Gustave",
    "Berthe",
]
LAST = [
    "Dupré",
    "Martin",
    "Bernard",
    "Dubois",
    "Moreau",
    "Laurent",
    "Simon",
    "Michel",
    "Lefèvre",
    "Leroy",
    "Roux",
    "David",
    "Bertrand",
    "Morel",
    "Fournier",
    "Girard",
    "Bonnet",
    "Dupont",
    "Lambert",
    "Fontaine",
]
CLUBS = [
    "Cercle de Versailles",
    "Café de la Régence",
    "Club de Lyon",
    "Salon Marseillais",
    "Cercle de Bordeaux",
    "Société de Nantes",
    "Club de Lille",
    "Café Procope",
]


def _ruleset(part: int) -> str:
    names = [name for name, weight in RULESETS for _ in range(weight)]
    return names[part % len(names)]


def write_part(args: tuple[Path, int]) -> Path:
    """One file of GAMES_PER_FILE generated games, with players, events and dates of a club."""
    folder, part = args
    path = folder / f"part-{part:04d}.jqt"
    if path.exists():
        return path
    rng = random.Random(part)
    rules = Rules.named(_ruleset(part))
    texts = []
    for record in generate_records(GAMES_PER_FILE, 1000 + part, rules, "random"):
        white, black = rng.sample(range(len(FIRST) * len(LAST)), 2)
        record.tags["White"] = f"{FIRST[white % 20]} {LAST[white // 20]}"
        record.tags["Black"] = f"{FIRST[black % 20]} {LAST[black // 20]}"
        year = rng.randint(1800, 1950)
        record.tags["Event"] = f"{rng.choice(CLUBS)} {year}"
        month = rng.choice(["??", *(f"{m:02d}" for m in range(1, 13))])
        record.tags["Date"] = f"{year}.{month}.??"
        texts.append(write_game(record))
    partial = path.with_suffix(".tmp")
    partial.write_text("\n\n".join(texts) + "\n", encoding="utf-8")
    partial.rename(path)
    return path


def match_copies(copies: int, data: Path = MATCHES) -> list[str]:
    """The real match files, ``copies`` times over, each copy under a folder of its own.

    A copy is a file of its own: one ``; [Copy "NNN"]`` tag line, then the original's bytes.
    An unchanged file is skipped by its sha256 and a game's id is the hash of its canonical
    text, so a bare link to the original would add nothing; the tag, carried by every game
    of the copy, makes each copy's games new games, as another server's record of the same
    matches would be.
    """
    files = sorted(data.rglob("*.txt")) if copies else []  # the match files are .txt
    made = []
    for copy in range(copies):
        folder = OUT / "matches" / f"copy-{copy:03d}"
        folder.mkdir(parents=True, exist_ok=True)
        tag = f'; [Copy "{copy:03d}"]\n'.encode("ascii")
        for number, source in enumerate(files):
            target = folder / f"{number:04d}.txt"
            if target.is_symlink():
                target.unlink()  # an earlier run's link: the original's sha256, skipped
            if not target.exists():
                target.write_bytes(tag + source.read_bytes())
            made.append(str(target))
    return made


def build(games: int, jobs: int, copies: int = 0) -> Path:
    """The cached archive of ``games`` generated games and ``copies`` of the real matches."""
    from jacquet_notation.archive import import_paths

    # parts are shared between sizes: the first 20 of a 100,000-game run make the 20,000 one
    folder = OUT / "records"
    folder.mkdir(parents=True, exist_ok=True)
    db = OUT / (f"archive-{games}.db" if not copies else f"archive-{games}-matches-{copies}.db")
    parts = [(folder, part) for part in range((games + GAMES_PER_FILE - 1) // GAMES_PER_FILE)]
    started = time.perf_counter()
    with multiprocessing.Pool(jobs) as pool:
        files = [str(path) for path in pool.imap(write_part, parts)]
    files += match_copies(copies)
    generated = time.perf_counter()
    print(f"records: {len(files)} files in {generated - started:.0f} s", file=sys.stderr)
    done = [0]

    def progress(count: int) -> None:
        done[0] += count
        if done[0] % 10000 < count:
            elapsed = time.perf_counter() - generated
            print(f"  imported {done[0]} games at {elapsed:.0f} s", file=sys.stderr)

    summary = import_paths(db, files, progress=progress)
    print(
        f"archive: {summary.games} games read, {summary.skipped_files} files unchanged, "
        f"in {time.perf_counter() - generated:.0f} s; {db.stat().st_size / 1e9:.2f} GB",
        file=sys.stderr,
    )
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    connection.close()
    return db


# -- the server and the clients ------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_datasette(db: Path, port: int, workers: int | None) -> subprocess.Popen[bytes]:
    """``jacquet serve DB``: Datasette on the archive (read-only, time limit, metadata, plugin).

    Started as a user starts it, so the server processes (``--workers``) are jacquet's default
    unless the benchmark is told otherwise.
    """
    jacquet = Path(sys.executable).with_name("jacquet")
    command = [str(jacquet)] if jacquet.exists() else [sys.executable, "-m", "jacquet_notation"]
    process = subprocess.Popen(
        [
            *command,
            "serve",
            str(db),
            "--port",
            str(port),
            *(["--workers", str(workers)] if workers else []),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise SystemExit(f"datasette exited with {process.returncode}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/-/versions.json", timeout=5):
                return process
        except OSError:
            time.sleep(0.5)
    process.kill()
    raise SystemExit("datasette did not start")


def load(
    port: int,
    paths: Callable[[random.Random], str],
    clients: int,
    seconds: float,
    post: tuple[bytes, dict[str, str]] | None = None,
) -> tuple[list[float], int]:
    """``clients`` threads requesting ``paths(rng)`` for ``seconds``: latencies (s), errors.
    With ``post`` (a body and its headers), each request is that POST instead of a GET."""
    latencies: list[float] = []
    errors = [0]
    lock = threading.Lock()
    stop = time.monotonic() + seconds

    def client(number: int) -> None:
        rng = random.Random(number)
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        mine: list[float] = []
        while time.monotonic() < stop:
            path = paths(rng)
            began = time.perf_counter()
            try:
                if post is None:
                    connection.request("GET", path)
                else:
                    connection.request("POST", path, post[0], post[1])
                response = connection.getresponse()
                response.read()
                ok = response.status == 200
            except OSError:
                connection.close()
                connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
                ok = False
            mine.append(time.perf_counter() - began)
            if not ok:
                with lock:
                    errors[0] += 1
        connection.close()
        with lock:
            latencies.extend(mine)

    threads = [threading.Thread(target=client, args=(n,)) for n in range(clients)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return latencies, errors[0]


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def connection_start_key(db: Path) -> str:
    """The position every game starts from (the one with the most plays made from it)."""
    connection = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        from jacquet_notation.browse.metadata import START_KEYS

        counts = {
            key: connection.execute(
                "select count(*) from turns where key_before = ?", [key]
            ).fetchone()[0]
            for key in START_KEYS
        }
        return max(counts, key=lambda key: counts[key])
    finally:
        connection.close()


# -- the collection's pages (issue 19): events and sources -------------------------------------


def collection_kinds(db: Path, name: str) -> list[tuple[str, Callable[[random.Random], str]]]:
    """The event and source pages, on events and sources of the archive drawn at random (a
    source page only when the archive names sources: the generated records of this benchmark
    carry events but no source)."""
    connection = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    try:
        events = [row[0] for row in connection.execute("select id from events")]
        sources = [row[0] for row in connection.execute("select id from sources")]
    finally:
        connection.close()
    kinds: list[tuple[str, Callable[[random.Random], str]]] = []
    if events:
        kinds.append(("event page", lambda rng: f"/{name}/-/event/{rng.choice(events)}"))
    if sources:
        kinds.append(("source page", lambda rng: f"/{name}/-/source/{rng.choice(sources)}"))
    return kinds


# -- the transcriber's desk (issue 18): its check endpoint ---------------------------------------

#: plies of the record the desk's endpoint checks
DESK_PLIES = 100


def desk_record(plies: int = DESK_PLIES) -> str:
    """A legal Jacquet game cut to its first ``plies`` plies: a fragment being transcribed."""
    for record in generate_records(50, 18, Rules.named("jacquet")):
        if len(record.plays) >= plies:
            record.plays = record.plays[:plies]
            record.result = None
            return write_game(record)
    raise SystemExit(f"no generated game has {plies} plies")


def desk_post(port: int) -> tuple[bytes, dict[str, str]]:
    """The body and headers the desk's page sends: the record, the cursor on its last line, and
    the CSRF token and cookie the page was given."""
    import json
    import re

    from jacquet_notation.browse.desk import DESK_PATH

    with urllib.request.urlopen(f"http://127.0.0.1:{port}{DESK_PATH}", timeout=30) as page:
        cookie = page.headers["set-cookie"].split(";", 1)[0]
        found = re.search(r'name="jacquet-csrftoken" content="([^"]+)"', page.read().decode())
    if not found:
        raise SystemExit("the desk's page carries no CSRF token")
    text = desk_record()
    lines = text.rstrip("\n").split("\n")
    body = json.dumps({"text": text, "line": len(lines), "column": len(lines[-1])}).encode()
    headers = {"content-type": "application/json", "x-csrftoken": found.group(1), "cookie": cookie}
    return body, headers


def costly_post(headers: dict[str, str], size: int = 228_000) -> tuple[bytes, dict[str, str]]:
    """A costly check as the desk's page would send it: ``size`` bytes of one-play backgammon
    fragments written without dice, from an open position (every man a blot or a pair), one in
    four not legal (tests/browse/test_desk.py's ``costly_fragments``: the same kind of text)."""
    import json

    from jacquet_notation.engine import ROLLS, legal_plays
    from jacquet_notation.position import Position

    backgammon = Rules.named("backgammon")
    counts = [0] * 26
    for point in range(13, 25):
        counts[point] = 1
    counts[22] = counts[23] = counts[24] = 2
    start = Position.from_counts(counts, list(counts), "white", backgammon.direction)
    head = f'[Rules "backgammon"]\n[Position "{start.key()}"]\n\n1. ?-?: '
    parts: list[str] = []
    number = written = 0
    while written < size:
        plays = legal_plays(start, ROLLS[number % len(ROLLS)], backgammon)
        play = "13/12" if number % 4 == 3 else plays[number * 7 % len(plays)].notation()
        parts.append(f"{head}{play}\n\n")
        written += len(parts[-1])
        number += 1
    return json.dumps({"text": "".join(parts)}).encode(), headers


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=100_000)
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    parser.add_argument("--build-only", action="store_true")
    parser.add_argument(
        "--matches",
        type=int,
        default=0,
        help="also import the real match files (../shared/data/backgammon-mat) this many "
        "times, each copy under new ids (the million-game run: --games 1000000 --matches 20)",
    )
    parser.add_argument(
        "--workers", type=int, help="server processes (default: what jacquet serve chooses)"
    )
    parser.add_argument(
        "--costly",
        type=int,
        default=0,
        help="also measure the desk's check while this many clients post costly checks",
    )
    parser.add_argument(
        "--only",
        help="comma-separated words: run only the page kinds whose label holds one "
        "(the floor always runs first), e.g. --only 'home,games list'",
    )
    args = parser.parse_args()

    db = build(args.games, args.jobs, args.matches)
    if args.build_only:
        return
    connection = sqlite3.connect(f"file:{db}?immutable=1", uri=True)
    name = db.stem
    games = [
        row[0]
        for row in connection.execute(
            "select id from games where status = 'valid' order by random() limit 2000"
        )
    ]
    plies = dict(
        connection.execute(
            f"select id, plies from games where id in ({','.join('?' * len(games))})", games
        )
    )
    # positions a collector looks up: early and middle positions of random games, each reached
    # by one game or by thousands (the first plies)
    positions = [
        row[0]
        for row in connection.execute(
            "select key_after from turns where game_id in "
            f"({','.join('?' * 200)}) and ply <= 12 and key_after is not null",
            games[:200],
        )
    ]
    players = [row[0] for row in connection.execute("select id from players")]
    years = [
        row[0]
        for row in connection.execute("select distinct year from games where year is not null")
    ]
    rulesets = [row[0] for row in connection.execute("select distinct rules from games")]
    total = connection.execute("select count(*) from games").fetchone()[0]
    pages = max(1, total // 50)  # the games list's pages: any of them, deep ones too
    plays = connection.execute("select sum(plies) from game_list").fetchone()[0]
    connection.close()

    start_key = connection_start_key(db)
    kinds: list[tuple[str, Callable[[random.Random], str]]] = [
        # the floor: Datasette's own page of the games table, without facets
        ("games table, no facets (floor)", lambda rng: f"/{name}/games?_nofacet=1"),
        ("players table (plain)", lambda rng: f"/{name}/players"),
        (
            "game page",
            lambda rng: f"/{name}/-/game/{(g := rng.choice(games))}?ply={rng.randint(0, plies[g])}",
        ),
        ("position page", lambda rng: f"/{name}/-/position/{rng.choice(positions)}"),
        ("player page", lambda rng: f"/{name}/-/player/{rng.choice(players)}"),
        (
            "faceted games table",
            lambda rng: f"/{name}/games?year={rng.choice(years)}&_facet=event_id",
        ),
        ("games table, all facets", lambda rng: f"/{name}/games"),
        ("start position (worst)", lambda rng: f"/{name}/-/position/{start_key}"),
        # the front door (issue 19): counts=0 leaves out the filters' counts
        ("home page", lambda rng: "/"),
        (
            "games list, unfiltered",
            lambda rng: f"/{name}/-/games?counts=0&page={rng.randint(1, pages)}",
        ),
        (
            "games list, filtered",
            lambda rng: (
                f"/{name}/-/games?counts=0&year_from={(y := rng.choice(years))}"
                f"&year_to={y + 9}&rules={rng.choice(rulesets)}"
            ),
        ),
        (
            "games list, sorted",
            lambda rng: (
                f"/{name}/-/games?counts=0&sort={rng.choice(SORTS)}&page={rng.randint(1, pages)}"
            ),
        ),
        (
            "games list + counts, player",
            lambda rng: f"/{name}/-/games?player={rng.choice(players)}",
        ),
        (
            "games list + counts, filtered",
            lambda rng: (
                f"/{name}/-/games?status=valid&year_from={(y := rng.choice(years))}"
                f"&year_to={y + rng.randint(0, 30)}"
            ),
        ),
    ]
    kinds += collection_kinds(db, name)
    # issue 28: positions found by what they look like, and the tree narrowed to a player
    kinds += [
        ("search page", lambda rng: f"/{name}/-/search?q={quote(rng.choice(SEARCHES))}"),
        (
            "position, tree by player",
            lambda rng: (
                f"/{name}/-/position/{rng.choice(positions)}?player={rng.choice(players)}"
                f"&side={rng.choice(['white', 'black'])}"
            ),
        ),
    ]
    #: POST kinds: the desk's endpoint checks a 100-ply record (issue 18: p95 <= 100 ms)
    desk_label = f"desk check, {DESK_PLIES} plies"
    posts = {desk_label}
    kinds.append((desk_label, lambda rng: CHECK_PATH))
    if args.only:
        words = [word.strip() for word in args.only.split(",") if word.strip()]
        kinds = kinds[:1] + [kind for kind in kinds[1:] if any(w in kind[0] for w in words)]
    port = free_port()
    process = start_datasette(db, port, args.workers)
    try:
        desk = desk_post(port)
        for label, paths in kinds:  # warm up: the OS cache and Datasette's first queries
            load(port, paths, 1, 2, desk if label in posts else None)
        print(
            f"\n{total} games, {plays} plays; {args.clients} clients, {args.seconds:.0f} s per "
            f"page kind; jacquet serve on loopback (a WAL reader, time limit, "
            f"{args.workers or 'default'} workers)\n"
        )
        print(
            f"{'page':<32}{'requests':>9}{'errors':>7}{'median ms':>11}{'p95 ms':>9}"
            f"{'p95 / floor':>13}"
        )
        floor = None
        for label, paths in kinds:
            latencies, errors = load(
                port, paths, args.clients, args.seconds, desk if label in posts else None
            )
            median = statistics.median(latencies) * 1000
            p95 = percentile(latencies, 0.95) * 1000
            if floor is None:
                floor = p95
            print(
                f"{label:<32}{len(latencies):>9}{errors:>7}{median:>11.1f}{p95:>9.1f}"
                f"{p95 / floor:>12.2f}x"
            )
        if args.costly:
            # the desk's check, one client, for --seconds after N costly checks are posted at
            # once (the two POSTs); each costly one posted once
            costly = costly_post(desk[1])
            spent: list[tuple[list[float], int]] = []
            background = [
                threading.Thread(
                    target=lambda: spent.append(
                        load(port, lambda rng: CHECK_PATH, 1, 0.001, costly)
                    )
                )
                for _ in range(args.costly)
            ]
            for thread in background:
                thread.start()
            time.sleep(0.1)  # the costly ones first
            latencies, errors = load(port, lambda rng: CHECK_PATH, 1, args.seconds, desk)
            for thread in background:
                thread.join()
            label = f"desk check, after {args.costly} costly"
            median = statistics.median(latencies) * 1000
            p95 = percentile(latencies, 0.95) * 1000
            print(
                f"{label:<32}{len(latencies):>9}{errors:>7}{median:>11.1f}{p95:>9.1f}"
                f"{p95 / (floor or p95):>12.2f}x"
            )
            late = [seconds for latencies, _ in spent for seconds in latencies]
            refused = sum(errors for _, errors in spent)
            print(
                f"{'  the costly checks':<32}{len(late):>9}{refused:>7}"
                f"{statistics.median(late) * 1000:>11.1f}{percentile(late, 0.95) * 1000:>9.1f}"
            )
    finally:
        process.terminate()
        process.wait(timeout=30)


if __name__ == "__main__":
    main()
