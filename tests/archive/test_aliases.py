"""One player under many spellings: the likely aliases ranked, a merge kept through re-import
and rebuild, and undone (docs/archive.md, "One player, many spellings")."""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path

import pytest
from helpers import alias_records, as_version_10, check_consistent, generated, one, rows, run

from jacquet_notation.archive import ArchiveError, import_paths, open_archive, rebuild
from jacquet_notation.archive.aliases import merge, unmerge
from jacquet_notation.archive.likely import likely_aliases, name_score, name_words
from jacquet_notation.notation import write_game

DUPRE = {"Jean Dupré", "J. Dupré", "Dupré, Jean"}


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "a.db"
    import_paths(path, [str(alias_records(tmp_path / "aliases.jqt"))])
    return path


def _pairs(db: Path) -> list[tuple[int, frozenset[str], str]]:
    database = open_archive(db)
    try:
        found = likely_aliases(database.conn)
    finally:
        database.close()
    return [(c.score, frozenset((c.first.name, c.second.name)), c.evidence()) for c in found]


def _player_of(db: Path, spelling: str) -> int:
    return int(one(db, "SELECT white_id FROM games WHERE white = ?", spelling))


def _player_of_black(db: Path, spelling: str) -> int:
    return int(one(db, "SELECT black_id FROM games WHERE black = ?", spelling))


def test_name_words_fold_accents_case_titles_and_order() -> None:
    assert name_words("Mr. Jean  DUPRÉ") == ("jean", "dupre")
    assert name_score(name_words("Dupré, Jean"), name_words("jean dupre")) == 100
    assert name_score(name_words("J. Dupré"), name_words("Jean Dupré")) == 95
    assert name_score(name_words("Monsieur Dupré"), name_words("Jean Dupré")) == 85
    assert name_score(name_words("Paul Roux"), name_words("Jean Dupré")) < 50


def test_the_true_aliases_rank_above_close_names_of_other_men(db: Path) -> None:
    pairs = _pairs(db)
    true = [pair for pair in pairs if pair[1] <= DUPRE]
    assert len(true) == 3
    lowest_true = min(score for score, _, _ in true)
    others = [pair for pair in pairs if not pair[1] <= DUPRE]
    # Jean Dupuis (close to Jean Dupré, elsewhere) and the Martins (close, met) are listed below
    assert {frozenset({"Jean Martin", "Jeanne Martin"})} <= {names for _, names, _ in others}
    assert any("Jean Dupuis" in names for _, names, _ in others)
    assert all(score < lowest_true for score, _, _ in others)
    martins = next(why for _, names, why in others if "Jeanne Martin" in names)
    assert "they played each other" in martins
    best = pairs[0][2]
    assert "1 shared event" in best and "1 shared source" in best


def test_a_merge_counts_the_games_once_and_survives_reimport_and_rebuild(
    db: Path, tmp_path: Path
) -> None:
    done = merge(db, "Jean Dupré", "J. Dupré")
    assert (done.player, done.spelling, done.games) == ("Jean Dupré", "J. Dupré", 1)
    merge(db, "jean dupre", "DUPRÉ, Jean")  # any spelling of either finds him
    kept = _player_of(db, "Jean Dupré")
    assert {_player_of(db, spelling) for spelling in DUPRE} == {kept}
    assert one(db, "SELECT count(*) FROM players WHERE normalised LIKE '%dupre%'") == 1
    assert one(db, "SELECT games FROM player_records WHERE player_id = ?", kept) == 4
    lefevre = _player_of_black(db, "Pierre Lefèvre")
    assert rows(
        db, "SELECT games FROM head_to_head WHERE player_id = ? AND opponent_id = ?", kept, lefevre
    ) == [(2,)]
    check_consistent(db)
    # a new file with a merged spelling: its game goes to the same player
    later = generated(1, seed=23)[0]
    later.tags.update(White="Pierre Lefèvre", Black="J. DUPRÉ", Event="Café de la Régence")
    (tmp_path / "later.jqt").write_text(write_game(later) + "\n", "utf-8")
    import_paths(db, [str(tmp_path / "later.jqt")])
    assert one(db, "SELECT black_id FROM games WHERE black = 'J. DUPRÉ'") == kept
    rebuild(db)
    assert {_player_of(db, spelling) for spelling in DUPRE} == {kept}
    assert one(db, "SELECT games FROM player_records WHERE player_id = ?", kept) == 5
    assert len(rows(db, "SELECT * FROM player_aliases")) == 2
    check_consistent(db)
    # the merged pairs are no longer listed
    assert not [pair for pair in _pairs(db) if pair[1] <= DUPRE]


def test_unmerge_gives_the_spelling_its_games_back(db: Path) -> None:
    before = rows(db, "SELECT id, white_id FROM games WHERE white = 'J. Dupré'")
    merge(db, "Jean Dupré", "J. Dupré")
    done = unmerge(db, "Jean Dupré", "j. dupre")
    assert done.games == 1
    parted = _player_of(db, "J. Dupré")
    assert parted != _player_of(db, "Jean Dupré")
    assert one(db, "SELECT name FROM players WHERE id = ?", parted) == "J. Dupré"
    assert rows(db, "SELECT * FROM player_aliases") == []
    assert len(before) == 1
    rebuild(db)
    assert _player_of(db, "J. Dupré") == parted
    check_consistent(db)


@pytest.mark.parametrize(
    ("name", "other", "why"),
    [
        ("Jean Dupré", "Nobody", "no player named 'Nobody'"),
        ("Jean Martin", "Jeanne Martin", "played each other (1 game)"),
        ("Jean Dupré", "jean  DUPRE", "one player already"),
    ],
)
def test_a_merge_is_refused_with_a_reason(db: Path, name: str, other: str, why: str) -> None:
    before = rows(db, "SELECT id, white_id, black_id FROM games ORDER BY id")
    with pytest.raises(ArchiveError, match=re.escape(why)):
        merge(db, name, other)
    assert rows(db, "SELECT id, white_id, black_id FROM games ORDER BY id") == before
    with pytest.raises(ArchiveError, match="is not a spelling merged into"):
        unmerge(db, "Jean Dupré", "J. Dupré")


@pytest.mark.integration
def test_the_command_lists_merges_and_exits_as_the_others(db: Path, tmp_path: Path) -> None:
    listed = run("players", str(db))
    assert listed.returncode == 0, listed.stderr
    first = listed.stdout.splitlines()[0]
    assert "Jean Dupré" in first and "shared event" in first
    merged = run("players", str(db), "--merge", "Jean Dupré", "J. Dupré")
    assert (merged.returncode, merged.stdout) == (
        0,
        "'J. Dupré' merged into 'Jean Dupré' (1 game)\n",
    )
    refused = run("players", str(db), "--merge", "Jean Martin", "Jeanne Martin")
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert refused.stderr.count("\n") == 1 and "played each other" in refused.stderr
    missing = run("players", str(tmp_path / "none.db"))
    assert missing.returncode == 2 and "no such archive" in missing.stderr
    assert not (tmp_path / "none.db").exists()
    # jacquet archive: a file imported after the merge, then a rebuild, keep him one player
    later = generated(1, seed=29)[0]
    later.tags.update(White="j. dupré", Black="Marc Aubert")
    (tmp_path / "later.jqt").write_text(write_game(later) + "\n", "utf-8")
    for args in ([str(tmp_path / "later.jqt")], ["--rebuild"]):
        done = run("archive", str(db), *args)
        assert done.returncode == 0, done.stderr
        assert {_player_of(db, s) for s in ("Jean Dupré", "J. Dupré", "j. dupré")} == {
            _player_of(db, "Jean Dupré")
        }
    parted = run("players", str(db), "--unmerge", "Jean Dupré", "J. Dupré")
    assert parted.returncode == 0, parted.stderr
    assert parted.stdout == "'J. Dupré' parted from 'Jean Dupré' (2 games)\n"


def test_an_archive_of_version_6_gains_the_aliases_table(db: Path) -> None:
    with sqlite3.connect(db) as conn:
        as_version_10(conn)
        conn.execute("DROP TABLE player_aliases")
        conn.execute("PRAGMA user_version = 6")
    open_archive(db).close()
    assert rows(db, "SELECT * FROM player_aliases") == []
    merge(db, "Jean Dupré", "J. Dupré")
    assert len(rows(db, "SELECT * FROM player_aliases")) == 1
