"""One player under many spellings in the pages: ``jacquet serve`` on an archive where three
spellings of Jean Dupré were merged, read over HTTP; every figure checked against the archive."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import alias_records, fetch, query

from jacquet_notation.archive import import_paths
from jacquet_notation.archive.aliases import merge

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("spellings")
    db = folder / "archive.db"
    import_paths(db, [str(alias_records(folder / "aliases.jqt"))])
    merge(db, "Jean Dupré", "J. Dupré")
    merge(db, "Jean Dupré", "Dupré, Jean")
    return db


def _id(archive: Path, name: str) -> int:
    return int(query(archive, "select id from players where name = ?", [name])[0]["id"])


def _text(html: str) -> str:
    return re.sub(r"\s+", " ", re.sub(r"<[^>]+>", " ", html))


def test_the_player_page_lists_every_spelling_and_where(server: str, archive: Path) -> None:
    status, html = fetch(f"{server}/archive/-/player/{_id(archive, 'Jean Dupré')}")
    assert status == 200
    table = html.split('class="jacquet-spelling-list"')[1].split("</table>")[0]
    spellings = re.findall(r'class="jacquet-spelling">([^<]*)<', table)
    assert spellings == ["Jean Dupré", "Dupré, Jean", "J. Dupré"]  # most games first
    rows = table.split("<tr>")[2:]
    assert "<td>2</td>" in rows[0] and "<td>1</td>" in rows[1]
    (event,) = query(archive, "select id from events where name = 'Café de la Régence'")
    assert all(f'/archive/-/event/{event["id"]}"' in row for row in rows)
    assert all("Le Jacquet, 1820" in row for row in rows)
    # the record counts the four games once
    assert "in all 4 " in _text(html.split('class="jacquet-record-table"')[1])


def test_a_merged_player_counts_once_elsewhere(server: str, archive: Path) -> None:
    status, home = fetch(f"{server}/")
    assert status == 200
    players = query(archive, "select count(*) as n from players")[0]["n"]
    assert players == 7  # nine names written, three of them one man
    assert f"{players} players" in _text(home)
    assert _text(home).count("Jean Dupré 4") == 1
    # head to head, from an opponent's page: one row for him, with both games
    status, html = fetch(f"{server}/archive/-/player/{_id(archive, 'Pierre Lefèvre')}")
    head = _text(html.split('class="jacquet-head-to-head"')[1].split("</section>")[0])
    assert head.count("Jean Dupré") == 1 and "Jean Dupré 2 " in head
    assert "J. Dupré" not in head
    (event,) = query(archive, "select id from events where name = 'Café de la Régence'")
    status, page = fetch(f"{server}/archive/-/event/{event['id']}")
    cross = page.split('class="jacquet-crosstable"')[1].split("</table>")[0]
    named = re.findall(r'<th scope="row">[0-9]+\. <a[^>]*>([^<]*)</a>', cross)
    assert named.count("Jean Dupré") == 1 and len(named) == 3
    dupre = _id(archive, "Jean Dupré")
    (row,) = re.findall(rf'<tr data-player="{dupre}">.*?</tr>', cross, re.S)
    assert '<td class="games">4</td>' in row
    assert "J. Dupré" not in cross and "Dupré, Jean" not in cross


def test_one_spelling_shows_no_spellings_table(server: str, archive: Path) -> None:
    status, html = fetch(f"{server}/archive/-/player/{_id(archive, 'Paul Roux')}")
    assert status == 200 and "jacquet-spelling-list" not in html
