"""The games list's ``consistent`` filter: the games every play of which fits one named ruleset
(``game_rules``, schema version 7), served by a real ``jacquet serve`` and checked against SQL of
the test's own on the archive file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from helpers import build_archive, fetch, query

from jacquet_notation.generate import generate_records
from jacquet_notation.notation import write_game
from jacquet_notation.rules import RULESET_NAMES, Rules

pytestmark = [pytest.mark.slow]


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Untagged games of four rulesets, so that each filter chooses another set of games."""
    folder = tmp_path_factory.mktemp("consistent")
    texts = []
    for seed, name in enumerate(("jacquet", "murray", "versailles", "backgammon")):
        for record in generate_records(4, seed, Rules.named(name)):
            del record.tags["Rules"]
            texts.append(write_game(record))
    path = folder / "mixed.jqt"
    path.write_text("\n".join(texts), encoding="utf-8")
    db = folder / "archive.db"
    build_archive(db, [path])
    return db


def total_shown(html: str) -> int:
    found = re.search(r'class="jacquet-total-games">([0-9,]+)<', html)
    assert found, "the list shows no total"
    return int(found.group(1).replace(",", ""))


def game_ids(html: str) -> set[str]:
    return set(re.findall(r'class="jacquet-game-link" href="[^"]*/-/game/([0-9a-f]+)"', html))


@pytest.mark.parametrize("name", ["jacquet", "bouchon", "murray", "versailles", "backgammon"])
def test_each_ruleset_chooses_the_games_consistent_with_it(
    server: str, archive: Path, name: str
) -> None:
    expected = {
        row[0]
        for row in query(archive, "select id, consistent_rules from games")
        if name in (row[1] or "").split()
    }
    assert expected  # every ruleset here fits some game
    status, html = fetch(f"{server}/archive/-/games?consistent={name}")
    assert status == 200
    assert total_shown(html) == len(expected)
    assert game_ids(html) == expected
    # shown as chosen, in the form and as a chip that removes it
    assert f'<option value="{name}" selected>{name}</option>' in html
    assert f"consistent with {name} ✕" in html


def test_with_another_filter_and_an_unknown_ruleset(server: str, archive: Path) -> None:
    expected = {
        row[0]
        for row in query(archive, "select id, consistent_rules, status from games")
        if "murray" in (row[1] or "").split() and row[2] == "invalid"
    }
    _, html = fetch(f"{server}/archive/-/games?consistent=murray&status=invalid")
    assert game_ids(html) == expected and total_shown(html) == len(expected)
    every = query(archive, "select count(*) from games")[0][0]
    status, html = fetch(f"{server}/archive/-/games?consistent=chess")
    assert status == 200
    assert "is not a named ruleset: ignored" in html
    assert total_shown(html) == every
    # every named ruleset is offered
    for name in RULESET_NAMES:
        assert f'<option value="{name}">{name}</option>' in html
