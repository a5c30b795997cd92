"""The game page in a real browser after an illegal play: it says the line stopped, and why.

``jacquet serve`` runs as a subprocess and Chromium is driven by Playwright, as in the other
browser tests; this module keeps its own small archive of one broken game.
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest
from helpers import jacquet_command, query

#: White's 2. 6-1: 13/7 24/23 moves another man while the courier (on 7) is still out
BROKEN = """[Event "Stops"]
[White "Ann"]
[Black "Bob"]

1. 6-5: 24/13 6-1: 24/17
2. 6-1: 13/7 24/23 5-2: 17/12 12/10
3. 4-3: 7/3 3/0 *
"""
STOP = "24/23: the courier (on 7) must reach the home table before any other man moves"

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """An archive holding the broken game, made by ``jacquet archive``."""
    folder = tmp_path_factory.mktemp("stops")
    (folder / "stops.jqt").write_text(BROKEN, encoding="utf-8")
    db = folder / "archive.db"
    done = subprocess.run(
        [*jacquet_command(), "archive", str(db), str(folder / "stops.jqt")], capture_output=True
    )
    assert done.returncode == 1, done.stderr  # the game is invalid, and kept
    return db


def _note(page: Any) -> str | None:
    """The stop note's text when it is visible, else None."""
    note = page.locator(".jacquet-replay .jacquet-stopped")
    if note.count() == 0 or not note.is_visible():
        return None
    return str(note.text_content())


def test_stepping_past_an_illegal_play_says_the_line_stopped(
    server: str, archive: Path, page: Any
) -> None:
    (game,) = query(archive, "select id from games where white = 'Ann'")
    page.goto(f"{server}/archive/-/game/{game['id']}?ply=0")
    seen: dict[int, str | None] = {}
    keys: dict[int, str | None] = {}
    for ply in range(0, 6):
        page.wait_for_function(
            f"document.getElementById('board').getAttribute('data-current') === '{ply}'"
            f" && document.querySelector('.jacquet-board-holder').dataset.ply === '{ply}'"
        )
        seen[ply] = _note(page)
        keys[ply] = page.locator(".jacquet-board-holder").get_attribute("data-key")
        page.keyboard.press("ArrowRight")
    assert seen[0] is None and seen[1] is None and seen[2] is None
    # the board moves with each legal play, then stays where the line stopped
    assert len({keys[0], keys[1], keys[2]}) == 3
    assert keys[3] == keys[4] == keys[5] == keys[2]
    for ply in (3, 4, 5):  # the illegal ply, and the two written after it
        note = seen[ply]
        assert note is not None, f"no note at ply {ply}"
        assert "stopped at 2. White 6-1: 13/7 24/23" in note
        assert STOP in note
    page.keyboard.press("Home")
    page.wait_for_function("document.getElementById('board').getAttribute('data-current') === '0'")
    assert _note(page) is None  # stepping back hides it again
    # without the script, the plain page of a later ply says it too
    page.goto(f"{server}/archive/-/game/{game['id']}?ply=5")
    assert STOP in (_note(page) or "")
