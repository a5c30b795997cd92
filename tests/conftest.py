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
TESTS = Path(__file__).resolve().parent

#: the folders whose tests are of their own tier; every other folder's are ``unit``
TIER_FOLDERS = {"browser": "browser", "integration": "integration"}
#: a unit test that takes longer than this (seconds, setup and teardown included) is reported
UNIT_BUDGET = 2.0


def tier_of(item: pytest.Item) -> str:
    """The one tier a test runs in: its folder's, unless it drives Chromium (``browser``) or is
    marked ``slow`` or ``integration`` by hand, which takes it out of the quick unit tier."""
    folder = Path(str(item.path)).resolve().relative_to(TESTS).parts[0]
    if folder in TIER_FOLDERS:
        return TIER_FOLDERS[folder]
    fixtures = getattr(item, "fixturenames", ())
    if item.get_closest_marker("browser") or "browser" in fixtures or "page" in fixtures:
        return "browser"
    if item.get_closest_marker("integration") or item.get_closest_marker("slow"):
        return "integration"
    return "unit"


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test with its tier, so that ``-m unit`` (CI's quick legs) selects by cost."""
    for item in items:
        item.add_marker(tier_of(item))


#: the unit tests over UNIT_BUDGET in this run: node id -> seconds (setup, call and teardown)
_unit_seconds: dict[str, float] = {}


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    """Add up each unit test's phases; under xdist this runs in the controller too."""
    if "unit" in report.keywords:
        _unit_seconds[report.nodeid] = _unit_seconds.get(report.nodeid, 0.0) + report.duration


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """List the unit tests over budget at the end of a run: a report for CI's log to show drift,
    never a failure (a slow machine must not turn the suite red)."""
    over = sorted(
        ((seconds, nodeid) for nodeid, seconds in _unit_seconds.items() if seconds > UNIT_BUDGET),
        reverse=True,
    )
    if not over:
        return
    terminalreporter.section(f"unit tests over {UNIT_BUDGET:g} s (move them or mark them slow)")
    for seconds, nodeid in over:
        terminalreporter.write_line(f"{seconds:6.2f} s  {nodeid}")


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
