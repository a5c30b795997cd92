"""The schema and the stylesheet ship in the wheel, where ``jacquet_notation.xml`` reads them."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def test_the_package_data_is_found_through_importlib_resources() -> None:
    package = resources.files("jacquet_notation")
    assert package.joinpath("schema", "jacquet.rng").is_file()
    assert package.joinpath("xslt", "scoresheet.xsl").is_file()


@pytest.mark.slow
def test_the_wheel_carries_the_schema_and_the_stylesheet(tmp_path: Path) -> None:
    command = [sys.executable, "-m", "build", "--wheel", "--outdir", str(tmp_path / "dist")]
    if importlib.util.find_spec("hatchling") is not None:
        command.append("--no-isolation")  # no network needed
    subprocess.run([*command, str(ROOT)], check=True, capture_output=True, cwd=tmp_path)
    (wheel,) = (tmp_path / "dist").glob("jacquet_notation-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert "jacquet_notation/schema/jacquet.rng" in names
    assert "jacquet_notation/xslt/scoresheet.xsl" in names
    assert "jacquet_notation/xml.py" in names
    assert "jacquet_notation/commands/export.py" in names
