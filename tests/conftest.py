"""Fixtures shared by several test files."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

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
