"""Sources as a bibliography: a source cited by its author, title and year, its games listed
in page order (``jacquet serve`` on an archive of the corpus' bibliography example, over HTTP;
docs/browse.md, docs/notation.md "Sources")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import corpus_archive, fetch, generated, query

from jacquet_notation.notation import write_game

pytestmark = [pytest.mark.slow]

EXAMPLE = Path(__file__).resolve().parents[2] / "corpus" / "valid" / "bibliography.jqt"
CITED = "jacquet-notation developers, Three games for the bibliographic tags (2026)"


PLAIN = "Le Jacquet, 1820"


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("sources")
    records = generated(4, seed=5)
    for record in records:
        record.tags["Source"] = PLAIN  # a free citation, no parts, no pages
    plain = folder / "plain.jqt"
    plain.write_text("\n\n".join(write_game(r) for r in records) + "\n", encoding="utf-8")
    return corpus_archive(folder, extra=[EXAMPLE, plain])


def _source(archive: Path, name: str = CITED) -> int:
    (row,) = query(archive, "select id from sources where name = ?", [name])
    return int(row["id"])


def test_a_game_without_source_is_filed_under_its_citation(archive: Path) -> None:
    games = query(
        archive,
        "select json_extract(tags, '$.SourcePage') as page from games where source_id = ? "
        "order by game_index",
        [_source(archive)],
    )
    assert [row["page"] for row in games] == ["p. 12", "pl. III", "p. 4"]  # as written


def test_the_source_page_lists_its_games_in_page_order(server: str, archive: Path) -> None:
    status, html = fetch(f"{server}/archive/-/source/{_source(archive)}")
    assert status == 200
    pages = re.findall(r'class="jacquet-source-page-number">([^<]*)<', html)
    assert pages == ["pl. III", "p. 4", "p. 12"]
    listed = re.findall(r'class="jacquet-game-link" href="[^"]*/-/game/([0-9a-f]+)"', html)
    by_page = {
        row["page"]: row["id"]
        for row in query(
            archive,
            "select id, json_extract(tags, '$.SourcePage') as page from games where source_id = ?",
            [_source(archive)],
        )
    }
    assert listed == [by_page[page] for page in pages]
    citation = html.split('class="jacquet-citation"')[1].split("</p>")[0]
    assert '<span class="jacquet-citation-author">jacquet-notation developers</span>' in citation
    assert '<cite class="jacquet-citation-title">Three games for the bibliographic tags' in citation
    assert '<span class="jacquet-citation-year">2026</span>' in citation


def test_a_source_without_pages_keeps_the_order_of_its_file(server: str, archive: Path) -> None:
    other = {"id": _source(archive, PLAIN)}
    status, html = fetch(f"{server}/archive/-/source/{other['id']}")
    assert status == 200
    listed = re.findall(r'class="jacquet-game-link" href="[^"]*/-/game/([0-9a-f]+)"', html)
    in_file = [
        row["id"]
        for row in query(
            archive,
            "select id from games where source_id = ? order by import_id, game_index",
            [other["id"]],
        )
    ]
    assert listed == in_file and len(listed) == 4
    assert 'class="jacquet-citation"' not in html  # no parts: the name alone


def test_the_home_pages_sources_read_like_a_bibliography(server: str, archive: Path) -> None:
    status, home = fetch(f"{server}/")
    assert status == 200
    items = re.findall(r'<a class="jacquet-source" href="[^"]*">(.*?)</a>', home)
    cited = [item for item in items if "Three games" in item]
    assert cited == [
        '<span class="jacquet-citation-author">jacquet-notation developers</span>, '
        "<cite>Three games for the bibliographic tags</cite> (2026)"
    ]
    plain = {row["name"] for row in query(archive, "select name from sources")} - {CITED}
    assert plain and all(item in plain for item in items if item not in cited)
