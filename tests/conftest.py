"""Fixtures shared by several test files."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="session")
def built_wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The project's wheel, built once for every test that inspects or installs it."""
    out = tmp_path_factory.mktemp("dist")
    command = [sys.executable, "-m", "build", "--wheel", "--outdir", str(out)]
    if importlib.util.find_spec("hatchling") is not None:
        command.append("--no-isolation")  # no network needed
    subprocess.run([*command, str(ROOT)], check=True, capture_output=True, cwd=out)
    (wheel,) = out.glob("jacquet_notation-*.whl")
    return wheel


#: Debian's Chromium, which scripts/test.sh installs; Playwright drives it (never a browser build
#: of its own, which this machine cannot download)
CHROMIUM = "/usr/bin/chromium"
#: as root, headless, and with nothing that reaches for the network
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Chromium driven by Playwright, one per test module. Without it the browser tests are
    skipped on a workstation but fail under CI, where scripts/test.sh installs it."""
    if not os.path.exists(CHROMIUM):
        message = f"{CHROMIUM} is missing (scripts/test.sh installs it with apt-get)"
        if os.environ.get("CI", "").lower() in ("true", "1"):
            pytest.fail(message)
        pytest.skip(message)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            yield chromium
        finally:
            chromium.close()
