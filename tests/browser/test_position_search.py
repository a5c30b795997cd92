"""In Chromium: a backgammon position found by pasting its XGID, then its gnubg Position ID,
into the home page's search box; the position page shows both IDs and copies one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import ROOT, build_archive, reached_backgammon_position

from jacquet_notation.position_ids import gnubg_id, xgid


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("search") / "archive.db"
    build_archive(db, [ROOT / "corpus" / "valid" / "backgammon.jqt"])
    return db


def test_pasting_an_xgid_or_a_gnubg_id_finds_the_position(
    server: str, archive: Path, page: Any
) -> None:
    position = reached_backgammon_position(archive)
    for spec in (xgid(position), gnubg_id(position)):
        page.goto(f"{server}/")
        page.fill("#jacquet-home-q", spec)
        page.press("#jacquet-home-q", "Enter")
        page.wait_for_url(f"**/-/position/{position.key()}")
        assert page.locator("code.jacquet-gnubg-id").inner_text() == gnubg_id(position)
        assert page.locator("code.jacquet-xgid").inner_text() == xgid(position)
    assert page.locator("button.jacquet-copy").count() == 2
