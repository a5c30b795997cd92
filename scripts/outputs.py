"""Every output of the commands and the browser on the bundled corpus, written into a folder.

    python3 scripts/outputs.py OUT [--pages]

For a change that must not change behaviour (a redesign): run it before and after, then
``diff -r BEFORE AFTER``. It writes validate's text and JSON, fmt, the XML and its HTML score
sheet, the match-file export, the archive's SQL dump (import times left out), replay's text and
SVG of every game, self-play games, ``plays`` of every roll at the start of each ruleset, and,
with ``--pages``, the browser's pages of the corpus archive fetched over HTTP.
"""

from __future__ import annotations

import argparse
import re
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT / "corpus"
DICE = [f"{a}-{b}" for a in range(1, 7) for b in range(a, 7)]
#: what changes from one run to the next whatever the code: import times, temporary paths
#: a page's CSRF token, new at every start of the server
_TOKEN = re.compile(r'(name="jacquet-csrftoken" content=)"[^"]*"')
_VOLATILE = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:\+00:00|Z)?")


def jacquet(*args: str, out: Path | None = None) -> str:
    """Run ``jacquet ARGS`` from the checkout; its stdout, stderr and exit code as one text."""
    done = subprocess.run(
        [sys.executable, "-m", "jacquet_notation", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    text = f"{done.stdout}--- stderr\n{done.stderr}--- exit {done.returncode}\n"
    if out is not None:
        out.write_text(text, encoding="utf-8")
    return text


def record_files() -> list[Path]:
    return sorted(p for p in CORPUS.rglob("*") if p.suffix in (".jqt", ".mat", ".txt"))


def write_commands(out: Path) -> None:
    """Every command's output on the corpus, a file each."""
    for name in ("valid", "broken"):
        jacquet("validate", f"corpus/{name}", out=out / f"validate-{name}.txt")
        jacquet("validate", "--json", f"corpus/{name}", out=out / f"validate-{name}.json")
        jacquet("fmt", f"corpus/{name}", out=out / f"fmt-{name}.txt")
        jacquet("export", "--xml", "-", f"corpus/{name}", out=out / f"export-{name}.xml")
    with tempfile.TemporaryDirectory() as scratch:
        sheet = Path(scratch) / "sheet.html"
        jacquet(
            "export", "--xml", str(Path(scratch) / "x.xml"), "--html", str(sheet), "corpus/valid"
        )
        (out / "sheet.html").write_bytes(sheet.read_bytes() if sheet.exists() else b"")
        mats = Path(scratch) / "mat"
        mats.mkdir()
        jacquet("export", "--mat", str(mats), "corpus/valid/backgammon-mat", out=out / "mat.txt")
        for path in sorted(mats.iterdir()):
            (out / f"mat-{path.name}").write_bytes(path.read_bytes())
    replays = out / "replay"
    replays.mkdir()
    for path in record_files():
        relative = path.relative_to(CORPUS)
        stem = str(relative).replace("/", "__")
        for game in range(1, 4):
            svg = replays / f"{stem}-{game}.svg"
            text = jacquet("replay", str(path), "--game", str(game), "--svg", str(svg))
            (replays / f"{stem}-{game}.txt").write_text(text, encoding="utf-8")
    for rules in ("jacquet", "versailles", "backgammon", "murray"):
        jacquet(
            "generate",
            "--games",
            "3",
            "--seed",
            "7",
            "--rules",
            rules,
            out=out / f"gen-{rules}.txt",
        )
        plays = "".join(
            jacquet("plays", "--dice", dice, "--rules", rules, "--json") for dice in DICE
        )
        (out / f"plays-{rules}.json").write_text(plays, encoding="utf-8")


def write_archive(out: Path, db: Path) -> None:
    """The archive of the corpus as SQL, without the times of its imports."""
    jacquet("archive", str(db), "corpus/valid", "corpus/broken", out=out / "archive.txt")
    with sqlite3.connect(db) as conn:
        dump = "\n".join(conn.iterdump())
    (out / "archive.sql").write_text(_VOLATILE.sub("TIME", dump), encoding="utf-8")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_pages(out: Path, db: Path) -> None:
    """The browser's pages of the corpus archive, fetched from a real ``jacquet serve``."""
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "jacquet_notation", "serve", str(db), "--port", str(port)],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    base = f"http://127.0.0.1:{port}"
    try:
        started = time.monotonic()
        while time.monotonic() - started < 120:  # a loaded machine starts it slowly
            try:
                urllib.request.urlopen(base + "/", timeout=30).read()
                break
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                time.sleep(0.2)
        name = db.stem
        with sqlite3.connect(db) as conn:
            games = [row[0] for row in conn.execute("SELECT id FROM games ORDER BY rowid")]
            keys = [
                row[0] for row in conn.execute("SELECT key FROM positions ORDER BY key LIMIT 20")
            ]
            players = [row[0] for row in conn.execute("SELECT id FROM players ORDER BY id")]
            events = [row[0] for row in conn.execute("SELECT id FROM events ORDER BY id")]
            sources = [row[0] for row in conn.execute("SELECT id FROM sources ORDER BY id")]
        urls = ["/", f"/{name}/-/games", "/-/transcribe"]
        urls += [f"/{name}/-/game/{game}" for game in games]
        urls += [f"/{name}/-/game/{game}?ply=3" for game in games[:10]]
        urls += [f"/{name}/-/position/{key}" for key in keys]
        urls += [f"/{name}/-/player/{player}" for player in players]
        urls += [f"/{name}/-/event/{event}" for event in events]
        urls += [f"/{name}/-/source/{source}" for source in sources]
        pages = out / "pages"
        pages.mkdir()
        for url in urls:
            try:
                with urllib.request.urlopen(base + url, timeout=120) as answer:
                    body = answer.read()
                    status = answer.status
            except urllib.error.HTTPError as error:
                body, status = error.read(), error.code
            file = re.sub(r"[^A-Za-z0-9._-]+", "_", url.strip("/")) or "home"
            text = _VOLATILE.sub("TIME", body.decode("utf-8", "replace"))
            text = _TOKEN.sub(r"\1\"TOKEN\"", text).replace(str(ROOT), "ROOT")
            (pages / f"{file}.html").write_text(f"{status}\n{text}", encoding="utf-8")
    finally:
        server.terminate()
        server.wait(timeout=30)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", type=Path)
    parser.add_argument("--pages", action="store_true", help="the browser's pages too")
    options = parser.parse_args()
    out: Path = options.out
    out.mkdir(parents=True, exist_ok=False)
    write_commands(out)
    with tempfile.TemporaryDirectory() as scratch:
        db = Path(scratch) / "corpus.db"
        write_archive(out, db)
        if options.pages:
            write_pages(out, db)
    print(f"outputs written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
