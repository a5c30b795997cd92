"""Fixtures shared by several test files."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from helpers import serving, watched_page

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


# -- jacquet serve and a page in Chromium, for the modules that serve an archive -----------------
#
# A module names what it serves with its own ``archive`` fixture; it overrides ``serve_options``,
# ``serve_limit`` or ``page_options`` where its server or its page must differ.


@pytest.fixture(scope="module")
def serve_options() -> list[str]:
    """The options of ``jacquet serve`` after the archive: none unless a module says."""
    return []


@pytest.fixture(scope="module")
def serve_limit() -> Callable[[], None] | None:
    """What runs in the server's process before it starts (a memory limit): nothing."""
    return None


@pytest.fixture(scope="module")
def server(
    archive: Path, serve_options: list[str], serve_limit: Callable[[], None] | None
) -> Iterator[str]:
    """``jacquet serve`` on the module's ``archive``, on a free loopback port; its base URL."""
    with serving([str(archive), *serve_options], limit=serve_limit) as base:
        yield base


@pytest.fixture
def page_options() -> dict[str, Any]:
    """What ``page``'s browser context is made with (Playwright's ``new_context`` arguments)."""
    return {"viewport": {"width": 1280, "height": 900}}


@pytest.fixture
def page(browser: Any, page_options: dict[str, Any]) -> Iterator[Any]:
    """A fresh page that fails the test if a dialog (an injected alert) opened on it or its
    script raised."""
    with watched_page(browser, **page_options) as (page, seen):
        yield page
    assert seen.dialogs == [], f"a dialog opened: {seen.dialogs}"
    assert seen.errors == [], f"JavaScript errors: {seen.errors}"
