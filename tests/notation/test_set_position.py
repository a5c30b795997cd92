"""Games from a set position (issue 18): the ``[Position]`` tag in its two forms (the position
key, the readable form), the impossible positions it refuses, fragments numbered from any turn
and ending in ``*``, and every reader of a record honouring the tag: replay, fmt, XML, the
archive (``start_key``, the positions index), the game page and ``jacquet replay``."""

from __future__ import annotations

import json
import sqlite3
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT, as_version_10, build_archive, copy_archive, one, rows, serving
from lxml import etree
from reference import reference_plays

from jacquet_notation.archive import SCHEMA_VERSION, open_archive
from jacquet_notation.board import render_text
from jacquet_notation.cli import main
from jacquet_notation.errors import PositionError
from jacquet_notation.notation import parse_game, read_games, write_game
from jacquet_notation.position import Position
from jacquet_notation.position_specs import tag_position
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules
from jacquet_notation.xml import read_xml, schema

FRAGMENTS = ROOT / "corpus" / "valid" / "fragments"
BEAROFF = "white 6:2 5:3 4:2 3:2 2:1 off:5; black 6:3 5:3 4:3 3:2 2:1 1:1 off:2; white to move"


def _counts(men: dict[int, int]) -> list[int]:
    counts = [0] * 26
    for point, number in men.items():
        counts[point] = number
    return counts


# -- the two forms ---------------------------------------------------------------------------


def test_the_readable_form_lists_each_sides_men_and_the_mover() -> None:
    position = Position.from_text(BEAROFF)
    expected = Position.from_counts(
        _counts({0: 5, 6: 2, 5: 3, 4: 2, 3: 2, 2: 1}),
        _counts({0: 2, 6: 3, 5: 3, 4: 3, 3: 2, 2: 1, 1: 1}),
        "white",
    )
    assert position == expected
    assert position.off("white") == 5 and position.off("black") == 2
    # the clauses in any order, "off N" as a clause of its own, any case
    other = (
        "Black 6:3 5:3 4:3 3:2 2:1 1:1 off:2; WHITE TO MOVE; white 6:2 5:3 4:2 3:2 2:1; white off 5"
    )
    assert Position.from_text(other) == expected


def test_the_key_form_is_what_jacquet_plays_prints() -> None:
    """The board editor of the live page writes ``[Position "<key>"]``: the key that ``jacquet
    plays --json`` prints for a position must set exactly that position."""
    result = CliRunner().invoke(main, ["plays", "--dice", "6-5", "--json"])
    assert result.exit_code == 0, result.output
    listing = json.loads(result.output)
    for entry in listing:
        rules = Rules.named("jacquet")
        assert tag_position(entry["key"], rules) == Position.from_json(entry["position"])
        record = parse_game(f'[Position "{entry["key"]}"]\n\n1... 6-5: 24/18 18/13 *\n')
        game = replay(record)
        assert game.errors == [], game.errors
        assert game.plies[0].before.key() == entry["key"]


def test_the_backgammon_bar_in_the_readable_form() -> None:
    rules = Rules.named("backgammon")
    text = "white 24:2 13:5 8:3 6:4 bar:1; black 24:2 13:5 8:3 6:5; white to move"
    position = tag_position(text, rules)
    assert position.bar("white") == 1 and position.direction == "opposite"
    assert position.turn == "white"


@pytest.mark.parametrize(
    ("rules", "text", "message"),
    [
        ("jacquet", "white 24:14 18:2; black 24:15; white to move", "White has 16 men"),
        ("jacquet", "white 24:14; black 24:15; white to move", "White has 14 men"),
        (
            "backgammon",
            "white 24:2 13:5 8:3 6:5; black 24:2 13:5 8:3 6:4 19:1; white to move",
            "White's point 6 (Black's 19) holds men of both sides",
        ),
        (
            "jacquet",
            "white 24:13 18:1 14:1; black 24:15; black to move",
            "2 men off the 24-point and none home",
        ),
        (
            "jacquet",
            "white 24:14 bar:1; black 24:15; white to move",
            "men on the bar, but the jacquet rules have no hitting",
        ),
        ("jacquet", "white 24:15; black 24:15", "the side to move is missing"),
        ("jacquet", "white 24:15; black 24:15 27:0; white to move", "'27:0' is not point:men"),
        ("jacquet", "red 24:15; black 24:15; white to move", "begins with white or black"),
        ("jacquet", "AAAAAAAAAAAAAA", "is not a position key"),
    ],
)
def test_impossible_positions_are_refused_saying_why(rules: str, text: str, message: str) -> None:
    with pytest.raises(PositionError, match=message.replace("(", r"\(").replace(")", r"\)")):
        tag_position(text, Rules.named(rules))


def test_an_impossible_position_is_an_error_at_its_tag_and_the_file_goes_on(
    tmp_path: Path,
) -> None:
    path = tmp_path / "two.jqt"
    path.write_text(
        '[White "A"]\n[Position "white 24:14 18:2; black 24:15; white to move"]\n\n'
        "10. 6-5: 18/12 18/13 *\n\n"
        f'[White "B"]\n[Position "{BEAROFF}"]\n\n31. 6-5: 6/off 5/off *\n',
        encoding="utf-8",
    )
    result = CliRunner().invoke(main, ["validate", "--jobs", "1", str(path)])
    assert result.exit_code == 1
    first, last = result.output.splitlines()[0], result.output.splitlines()[-1]
    assert first.startswith(f"{path}:2:1: game 1 (A v ?, ?): the [Position] tag sets no position")
    assert "White has 16 men" in first
    assert "Traceback" not in result.output
    assert last == "2 games: 1 valid, 1 invalid, 0 unreadable"
    games = [replay(record) for record in read_games(path)]
    assert games[0].errors[0].kind == "bad-position"
    assert games[1].is_valid


# -- fragments --------------------------------------------------------------------------------


def test_a_fragment_may_start_at_any_turn_and_end_without_a_result() -> None:
    base = f'[Position "{BEAROFF}"]\n\n'
    for ending in ("*", ""):
        record = parse_game(base + f"31. 6-5: 6/off 5/off 4-3: 4/off 3/off {ending}\n")
        assert record.errors == []
        assert [play.turn for play in record.plays] == [31, 31]
        game = replay(record)
        assert game.is_valid, game.errors
        assert game.plies[0].before == Position.from_text(BEAROFF)
    # Black first, numbered as Black's: "31..."
    black = parse_game(base.replace("white to move", "black to move") + "31... 6-5: 6/off 5/off *")
    assert black.errors == [] and black.plays[0].side == "black"
    assert replay(black).is_valid


def test_numbering_still_checked_after_the_first_number() -> None:
    record = parse_game(
        f'[Position "{BEAROFF}"]\n\n31. 6-5: 6/off 5/off 4-3: 4/off 3/off\n40. 2-1: 2/off 3/2 *'
    )
    assert [error.message.splitlines()[0] for error in record.errors] == [
        "expected turn 32. or 32..., found 40."
    ]


def test_without_a_position_tag_a_game_still_starts_at_turn_1() -> None:
    record = parse_game("23. 6-5: 24/18 18/13 *")
    assert record.errors and "expected turn 1." in record.errors[0].message


def test_a_claimed_result_of_a_fragment_not_over_is_still_ends_early() -> None:
    record = parse_game(f'[Position "{BEAROFF}"]\n\n31. 6-5: 6/off 5/off 2-0')
    assert [error.kind for error in replay(record).errors] == ["ends-early"]


def test_a_fragment_played_to_the_end_is_scored_from_the_set_position() -> None:
    # White has two men left on its 1-point: 2-1 bears both off, a single game (Black has men off)
    text = "white 1:2 off:13; black 6:3 5:3 4:3 3:2 2:1 1:1 off:2; white to move"
    game = replay(parse_game(f'[Position "{text}"]\n\n40. 2-1: 1/off(2) 1-0'))
    assert game.is_valid, game.errors
    assert game.winner == "white" and game.computed_result == "1-0"


# -- the corpus of fragments: validate, fmt, XML, the reference generator ----------------------


def _fragments() -> list[Path]:
    return sorted(FRAGMENTS.glob("*.jqt"))


def test_the_fragments_cover_several_rulesets_borne_off_men_and_a_courier() -> None:
    games = [replay(record) for path in _fragments() for record in read_games(path)]
    starts = [game.set_position for game in games if game.set_position is not None]
    assert {game.rules.name for game in games if game.set_position} >= {"jacquet", "backgammon"}
    assert any(start.off("white") and start.off("black") for start in starts)
    assert any(
        start.in_courier_phase("white") and start.counts("white")[24] == 14 for start in starts
    )
    assert any(start.bar("white") for start in starts)


@pytest.mark.parametrize("path", _fragments(), ids=lambda p: p.name)
def test_each_fragment_validates_and_round_trips_through_fmt_and_xml(
    path: Path, tmp_path: Path
) -> None:
    result = CliRunner().invoke(main, ["validate", "--jobs", "1", str(path)])
    assert result.exit_code == 0, result.output
    (record,) = read_games(path)
    written = write_game(record)
    again = parse_game(written)
    assert again == record and again.errors == []
    assert write_game(again) == written
    # fmt (with its inferred rolls shown) is stable too
    formatted = CliRunner().invoke(main, ["fmt", str(path)]).output
    source = tmp_path / "formatted.jqt"
    source.write_text(formatted, encoding="utf-8")
    assert CliRunner().invoke(main, ["fmt", str(source)]).output == formatted
    assert CliRunner().invoke(main, ["validate", str(source)]).exit_code == 0
    # XML: valid against the schema, the start position on <plays>, the record read back equal
    xml = tmp_path / "game.xml"
    exported = CliRunner().invoke(main, ["export", "--xml", str(xml), str(path)])
    assert exported.exit_code == 0, exported.output
    document = etree.parse(str(xml))
    assert schema().validate(document), schema().error_log
    game = replay(record)
    plays = document.getroot()[0].find("{urn:jacquet-notation:games:1}plays")
    assert plays is not None
    expected = game.set_position.key() if game.set_position is not None else None
    assert plays.get("start-position") == expected
    (back,) = read_xml(xml)
    assert back == record


@pytest.mark.parametrize("path", _fragments(), ids=lambda p: p.name)
def test_each_fragments_plays_agree_with_the_reference_generator(path: Path) -> None:
    for record in read_games(path):
        game = replay(record)
        for ply in game.plies:
            rolls = [ply.written.dice] if ply.written.dice else list(ply.rolls)
            assert rolls, (path, ply.index)
            assert any(
                ply.after in reference_plays(ply.before, roll, game.rules) for roll in rolls
            ), (path, ply.index)


# -- jacquet replay ----------------------------------------------------------------------------


def test_jacquet_replay_starts_from_the_set_position() -> None:
    path = FRAGMENTS / "jacquet-courier-key.jqt"
    result = CliRunner().invoke(main, ["replay", str(path)])
    assert result.exit_code == 0, result.output
    start = Position.from_key("gAAgP_8AAAIf_4")
    lines = result.output.splitlines()
    assert lines[0] == "Start (set by the [Position] tag, jacquet)"
    board = render_text(start).splitlines()
    assert lines[1 : 1 + len(board)] == board
    assert "3... Black 6-5: 20/14 14/9" in result.output
    turn = CliRunner().invoke(main, ["replay", str(path), "--turn", "0"]).output
    assert turn.splitlines()[1 : 1 + len(board)] == board


# -- the archive and the game page -------------------------------------------------------------


@pytest.fixture(scope="module")
def archive(tmp_path_factory: pytest.TempPathFactory) -> Path:
    db = tmp_path_factory.mktemp("fragments") / "archive.db"
    build_archive(db, [*_fragments(), ROOT / "corpus" / "valid" / "jacquet.jqt"])
    return db


def test_the_archive_marks_games_from_a_set_position(archive: Path) -> None:
    marked = dict(rows(archive, "select file, start_key from games"))
    for path in _fragments():
        (record,) = read_games(path)
        game = replay(record)
        expected = game.set_position.key() if game.set_position is not None else None
        assert marked[str(path)] == expected
    assert marked[str(ROOT / "corpus" / "valid" / "jacquet.jqt")] is None


def test_set_positions_join_the_position_index(archive: Path) -> None:
    for key, file in rows(archive, "select start_key, file from games where start_key is not null"):
        assert one(archive, "select games from positions where key = ?", key) >= 1
        first = one(
            archive,
            "select key_before from turns t join games g on g.id = t.game_id "
            "where g.file = ? and t.ply = 1",
            file,
        )
        assert first == key


def test_an_archive_of_version_4_gains_start_key(archive: Path, tmp_path: Path) -> None:
    old = tmp_path / "old.db"
    copy_archive(archive, old)
    target = sqlite3.connect(old)
    with target:
        as_version_10(target)
        # version 4's layout: no start_key, and opening_rolls without its condition
        (view,) = target.execute("select sql from sqlite_master where name = 'opening_rolls'")
        target.execute("drop view opening_rolls")
        target.execute("alter table games drop column start_key")
        target.execute(view[0].replace(" AND g.start_key IS NULL", ""))
        target.execute("pragma user_version = 4")
    target.close()
    open_archive(old).conn.close()
    assert one(old, "pragma user_version") == SCHEMA_VERSION >= 4
    columns = [row[1] for row in rows(old, "pragma table_info(games)")]
    assert columns[-1] == "start_key"
    assert one(old, "select count(*) from games where start_key is not null") == 0
    # the view made again: a game from a set position is no opening
    view = one(old, "select sql from sqlite_master where name = 'opening_rolls'")
    assert "start_key IS NULL" in view


def test_the_game_page_starts_from_the_set_position(archive: Path) -> None:
    game_id, key = rows(
        archive,
        "select id, start_key from games where file like '%jacquet-courier-key.jqt'",
    )[0]
    with serving([str(archive)]) as base:
        url = f"{base}/archive/-/game/{game_id}?ply=0"
        with urllib.request.urlopen(url, timeout=30) as response:
            text = response.read().decode()
    assert f'data-key="{key}"' in text


def test_opening_rolls_leave_out_games_from_a_set_position(archive: Path) -> None:
    openings = rows(archive, "select dice, first_play, games from opening_rolls")
    from_start = one(
        archive, "select count(*) from games where status = 'valid' and start_key is null"
    )
    assert sum(games for _, _, games in openings) == from_start > 0
    assert all(dice and play for dice, play, _ in openings)
