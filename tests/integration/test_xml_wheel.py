"""The schema and the stylesheet ship in the wheel, where ``jacquet_notation.xml`` reads them."""

from __future__ import annotations

import zipfile
from importlib import resources
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_package_data_is_found_through_importlib_resources() -> None:
    package = resources.files("jacquet_notation")
    assert package.joinpath("schema", "jacquet.rng").is_file()
    assert package.joinpath("xslt", "scoresheet.xsl").is_file()


@pytest.mark.slow
def test_the_wheel_carries_the_schema_and_the_stylesheet(built_wheel: Path) -> None:
    wheel = built_wheel
    names = zipfile.ZipFile(wheel).namelist()
    assert "jacquet_notation/schema/jacquet.rng" in names
    assert "jacquet_notation/xslt/scoresheet.xsl" in names
    assert "jacquet_notation/xml.py" in names
    assert "jacquet_notation/commands/export.py" in names
