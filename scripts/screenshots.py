"""Screenshots of every page type of ``jacquet serve``, wide (1280 px) and phone (390 px).

Serves an archive (by default one imported from the project's ``corpus/`` into a temporary
folder), opens each page type in Debian's Chromium through Playwright and writes full-page PNGs
into the folder named, ``<page>-<width>.png``. For looking at the pages before a change is
merged; the tests check what the pages say, these show how they look.

    python3 scripts/screenshots.py shots/
    python3 scripts/screenshots.py shots/ --archive games.db
    python3 scripts/screenshots.py shots/ corpus/valid more-records/
"""

from __future__ import annotations

import argparse
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from jacquet_notation.archive import import_paths
from jacquet_notation.browse.metadata import database_name

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run"]
WIDTHS = (1280, 390)
ROOT = Path(__file__).resolve().parent.parent


def _one(db: Path, sql: str) -> str | None:
    connection = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        row = connection.execute(sql).fetchone()
    finally:
        connection.close()
    return None if row is None or row[0] is None else str(row[0])


def pages(db: Path) -> dict[str, str]:
    """Each page type's address on this archive: its name -> path."""
    name = database_name(str(db))
    game = _one(db, "select id from games where status = 'valid' order by plies desc")
    invalid = _one(db, "select id from games where status != 'valid' order by id")
    plies = int(_one(db, f"select plies from games where id = '{game}'") or 0)
    key = _one(db, "select key_after from turns where key_after is not null limit 1 offset 6")
    player = _one(db, "select white_id from games group by white_id order by count(*) desc")
    event = _one(db, "select event_id from games group by event_id order by count(*) desc")
    source = _one(db, "select source_id from games where source_id is not null")
    found = {
        "home": "/",
        "transcribe": "/-/transcribe",
        "database": f"/{name}",
        "games-list": f"/{name}/-/games",
        "games-list-filtered": f"/{name}/-/games?status=invalid&sort=-plies",
        "games-table": f"/{name}/games",
        "turns-table": f"/{name}/turns",
        "canned-query": f"/{name}/invalid_games_with_errors",
        "game": f"/{name}/-/game/{game}?ply={plies // 2}",
        "game-invalid": f"/{name}/-/game/{invalid}?ply=1",
        "position": f"/{name}/-/position/{key}",
        "player": f"/{name}/-/player/{player}",
        "event": f"/{name}/-/event/{event}",
        "source": f"/{name}/-/source/{source}",
    }
    return {page: path for page, path in found.items() if "None" not in path}


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def shoot(db: Path, out: Path) -> list[Path]:
    """Serve ``db`` and write each page at each width into ``out``."""
    from playwright.sync_api import sync_playwright

    port = _free_port()
    command = [sys.executable, "-c", "from jacquet_notation.cli import main; main()"]
    server = subprocess.Popen(
        [*command, "serve", str(db), "--port", str(port), "--workers", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    written: list[Path] = []
    try:
        deadline = time.monotonic() + 120
        while True:
            try:
                urllib.request.urlopen(f"{base}/-/versions.json", timeout=2).close()
                break
            except OSError:
                if time.monotonic() > deadline or server.poll() is not None:
                    raise SystemExit("the server did not start") from None
                time.sleep(0.3)
        out.mkdir(parents=True, exist_ok=True)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            for width in WIDTHS:
                context = browser.new_context(viewport={"width": width, "height": 900})
                page = context.new_page()
                for kind, path in pages(db).items():
                    page.goto(base + path, wait_until="networkidle")
                    target = out / f"{kind}-{width}.png"
                    page.screenshot(path=str(target), full_page=True)
                    written.append(target)
                context.close()
            browser.close()
    finally:
        server.terminate()
        server.wait(timeout=10)
    return written


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("out", type=Path, help="the folder the PNGs are written into")
    parser.add_argument("records", nargs="*", type=Path, help="record files or folders")
    parser.add_argument("--archive", type=Path, help="an archive to serve as it is")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        db = args.archive
        if db is None:
            db = Path(folder) / "corpus.db"
            import_paths(db, [str(path) for path in args.records or [ROOT / "corpus"]])
        for path in shoot(db, args.out):
            print(path)


if __name__ == "__main__":
    main()
