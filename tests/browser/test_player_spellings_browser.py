"""In Chromium: the page of a player merged from three spellings shows each spelling, its games
and the event it was written in, and the links go to that event and to his one record."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from helpers import alias_records, query

from jacquet_notation.archive import import_paths
from jacquet_notation.archive.aliases import merge

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("spellings-browser")
    db = folder / "archive.db"
    import_paths(db, [str(alias_records(folder / "aliases.jqt"))])
    merge(db, "Jean Dupré", "J. Dupré")
    merge(db, "Jean Dupré", "Dupré, Jean")
    return db


def test_a_player_page_with_his_spellings(server: str, archive: Path, page: Any) -> None:
    (player,) = query(archive, "select id from players where name = 'Jean Dupré'")
    page.goto(f"{server}/archive/-/player/{player['id']}")
    assert page.locator("h1.jacquet-player-name").inner_text() == "Jean Dupré"
    rows = page.locator("table.jacquet-spelling-list tbody tr")
    seen = {
        rows.nth(i).locator("th").inner_text(): rows.nth(i).locator("td").first.inner_text()
        for i in range(rows.count())
    }
    written = query(
        archive,
        "select name, count(*) as n from (select white as name from games where white_id = ? "
        "union all select black from games where black_id = ?) group by name",
        [player["id"], player["id"]],
    )
    assert seen == {row["name"]: str(row["n"]) for row in written}
    assert set(seen) == {"Jean Dupré", "J. Dupré", "Dupré, Jean"}
    assert page.locator("table.jacquet-spelling-list").is_visible()
    # a spelling's event link leads to the event, where he is one row of the crosstable
    rows.filter(has_text="J. Dupré").locator("a", has_text="Café de la Régence").click()
    page.wait_for_url("**/-/event/*")
    crosstable = page.locator("table.jacquet-crosstable tbody tr")
    names = [crosstable.nth(i).locator("th a").inner_text() for i in range(crosstable.count())]
    assert names.count("Jean Dupré") == 1 and "J. Dupré" not in names
