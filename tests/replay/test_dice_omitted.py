"""Plays written without dice and rolls written without their play (issue 18): the engine's
inference of a roll from the steps, the replay keeping unique and open rolls, fmt showing and
filling them in, XML carrying them, and "the play of 6-5 is missing" as its own error."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import ROOT
from lxml import etree
from reference import reference_plays

from jacquet_notation.cli import main
from jacquet_notation.engine import ROLLS, legal_plays, rolls_for_play, validate_play
from jacquet_notation.notation import parse_game, read_games, write_game
from jacquet_notation.position import Position
from jacquet_notation.replay import replay
from jacquet_notation.rules import Rules
from jacquet_notation.xml import schema

FRAGMENTS = ROOT / "corpus" / "valid" / "fragments"
OMITTED = '[Dice "omitted"]\n\n'


def _kinds(text: str) -> list[str]:
    return [error.kind for error in replay(parse_game(text)).errors]


# -- the engine ----------------------------------------------------------------------------------


def test_the_roll_of_two_steps_is_unique() -> None:
    start = Position.start()
    fits = rolls_for_play(start, [(24, 18), (18, 13)], Rules.named("jacquet"))
    assert [roll for roll, _ in fits] == [(6, 5)]


def test_a_combined_step_leaves_the_roll_open() -> None:
    # the courier's 24/18 from the start: 6-6 (its next 6 is blocked by Black's 24-point, and
    # no other man may move), 5-1 or 4-2; 3-3 would have to go on
    fits = rolls_for_play(Position.start(), [(24, 18)], Rules.named("jacquet"))
    assert [roll for roll, _ in fits] == [(6, 6), (5, 1), (4, 2)]
    assert len({play.position for _, play in fits}) == 1


def test_no_roll_fits_a_play_of_seven_and_one() -> None:
    assert rolls_for_play(Position.start(), [(24, 17), (17, 16)], Rules.named("jacquet")) == []


@pytest.mark.parametrize("ruleset", ["jacquet", "backgammon", "versailles", "murray"])
def test_inference_agrees_with_the_reference_generator(ruleset: str) -> None:
    """For every play of every roll from a ruleset's start, the rolls inferred from its steps
    include that roll, and every roll inferred reaches the same position by brute force."""
    rules = Rules.named(ruleset)
    start = Position.start(rules)
    for roll in ROLLS:
        for play in legal_plays(start, roll, rules):
            moves = [(step.start, step.end) for step in play.steps]
            share = [(step.start, step.end) for step in play.opponent_steps]
            fits = rolls_for_play(start, moves, rules, share)
            assert roll in [fit for fit, _ in fits], (roll, play.notation())
            for fit, found in fits:
                assert found.position in reference_plays(start, fit, rules)


# -- the replay ----------------------------------------------------------------------------------


def test_without_the_tag_a_play_needs_its_dice() -> None:
    record = parse_game("1. 24/18 18/13 *")
    assert [error.kind for error in record.errors] == ["syntax"]
    assert '[Dice "omitted"]' in record.errors[0].message


def test_a_unique_roll_is_recorded() -> None:
    game = replay(parse_game(OMITTED + "1. 24/18 18/13 1... 24/18 18/14\n2. 13/7 *"))
    assert game.is_valid, game.errors
    # 13/7 at last: 6 alone (Black's courier on White's 2 blocks the 5), 5-1 or 4-2
    assert [ply.rolls for ply in game.plies] == [((6, 5),), ((6, 4),), ((6, 5), (5, 1), (4, 2))]
    assert game.plies[0].play is not None and game.plies[0].play.position == game.plies[1].before


def test_an_open_roll_is_kept_with_its_candidates_and_the_game_goes_on() -> None:
    game = replay(parse_game(OMITTED + "1. 24/18 1... 24/20\n2. 18/13 *"))
    assert game.is_valid, game.errors
    assert game.plies[0].rolls == ((5, 1), (4, 2))
    assert game.plies[2].after is not None and game.complete


def test_no_roll_is_an_illegal_play_naming_why() -> None:
    game = replay(parse_game(OMITTED + "1. 24/17 17/16 *"))
    (error,) = game.errors
    assert error.kind == "illegal-play"
    assert error.message.startswith("no roll allows this play (with 6-6:")
    assert error.line == 3 and error.column == 4


def test_plays_with_and_without_dice_mix_under_the_tag() -> None:
    game = replay(parse_game(OMITTED + "1. 6-5: 24/18 18/13 1... 24/18 18/17\n2. 4-2: 13/9 9/7 *"))
    assert game.is_valid, game.errors
    assert game.plies[1].rolls == ((6, 1),) and game.plies[0].rolls == ()


# -- fmt -----------------------------------------------------------------------------------------


def _fmt(tmp_path: Path, text: str, *options: str) -> str:
    path = tmp_path / "game.jqt"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["fmt", *options, str(path)])
    assert result.exit_code == 0, result.output
    return result.output


def test_fmt_shows_the_inferred_roll_and_is_stable(tmp_path: Path) -> None:
    text = OMITTED + "1. 24/18 18/13 1... 24/20\n2. 13/7 *"
    shown = _fmt(tmp_path, text)
    assert shown.endswith(
        "\n1. 24/18 18/13 {(6-5)} 1... 24/20 {(3-1 or 1-1)}\n2. 13/7 {(4-2)}\n*\n"
    )
    assert _fmt(tmp_path, shown) == shown
    assert parse_game(shown).plays[0].comments == ("(6-5)",)


def test_fmt_fill_dice_writes_unique_rolls_in(tmp_path: Path) -> None:
    text = OMITTED + "1. 24/18 18/13 1... 24/20\n2. 13/7 7/3 *"
    filled = _fmt(tmp_path, text, "--fill-dice")
    assert "1. 6-5: 24/18 18/13 1... 24/20 {(3-1 or 1-1)}" in filled
    assert "2. 6-4: 13/7 7/3" in filled
    record = parse_game(filled)
    assert [play.dice for play in record.plays] == [(6, 5), None, (6, 4)]
    assert replay(record).is_valid


def test_fmt_without_replay_keeps_the_plays_apart(tmp_path: Path) -> None:
    text = OMITTED + "1. 24/18 18/13 1... 24/20\n2. 13/7 *"
    written = _fmt(tmp_path, text, "--no-check")
    assert "1. 24/18 18/13 1... 24/20" in written
    assert parse_game(written) == parse_game(text)


# -- Versailles and backgammon ---------------------------------------------------------------------


def test_versailles_and_backgammon_fragments_infer_their_rolls() -> None:
    (versailles,) = read_games(FRAGMENTS / "versailles-no-dice.jqt")
    game = replay(versailles)
    assert game.is_valid, game.errors
    assert [ply.rolls for ply in game.plies] == [((6, 5),), ((6, 1),), ((5, 1), (4, 2))]
    (backgammon,) = read_games(FRAGMENTS / "backgammon-bar.jqt")
    game = replay(backgammon)
    assert game.is_valid, game.errors
    assert game.plies[0].rolls == ((6, 5),)
    assert game.plies[0].play is not None
    assert game.plies[0].play.steps[0].start == 25  # entered from the bar


def test_the_xml_carries_the_inferred_rolls(tmp_path: Path) -> None:
    xml = tmp_path / "game.xml"
    path = FRAGMENTS / "versailles-no-dice.jqt"
    assert CliRunner().invoke(main, ["export", "--xml", str(xml), str(path)]).exit_code == 0
    document = etree.parse(str(xml))
    assert schema().validate(document)
    plays = document.getroot().findall(".//{urn:jacquet-notation:games:1}play")
    assert [play.get("rolls") for play in plays] == ["6-5", "6-1", "5-1 4-2"]
    assert all(play.get("dice") is None for play in plays)


# -- a missing play ------------------------------------------------------------------------------


def test_a_missing_play_is_its_own_error_and_the_game_goes_on() -> None:
    text = "1. 6-5: 24/18 18/13 4-2:\n2. 3-1: 13/10 10/9 5-3: 18/13 13/10\n3. 4-1: 9/5 5/4 *"
    game = replay(parse_game(text))
    (error,) = game.errors
    assert error.kind == "missing-play"
    assert error.message.startswith("the play of 4-2 is missing")
    assert (error.line, error.column) == (1, 21)
    assert game.complete
    # the game went on from Black's only 4-2 that lets Black later play 18/13 13/10
    assert game.plies[1].after == game.plies[2].before
    assert game.plies[1].after.men("black")[18] == 1


def test_checking_goes_on_after_a_missing_play_and_finds_a_later_error() -> None:
    text = "1. 6-5: 24/18 18/13 4-2:\n2. 3-1: 13/10 10/9 5-3: 18/13 13/10\n3. 4-1: 10/6 9/8 *"
    assert _kinds(text) == ["missing-play", "illegal-play"]


def test_a_missing_play_that_the_next_play_does_not_settle_stops_the_line() -> None:
    # Black's men are free: its 2-1 has many plays, after most of which White's 24/18 18/13 is
    # legal; the next play settles nothing
    position = "white 24:13 18:1 4:1; black 24:13 18:1 4:1; black to move"
    text = f'[Position "{position}"]\n\n1... 2-1:\n2. 6-5: 24/18 18/13 *'
    game = replay(parse_game(text))
    (error,) = game.errors
    assert error.kind == "missing-play"
    assert "so the game is checked no further" in error.message
    assert not game.complete


def test_a_bare_roll_that_cannot_be_played_is_a_pass() -> None:
    # Black's 6-6 blocked: the courier at 24 cannot land on 18 (White's 6, held) nor beyond
    position = "white 24:12 6:3; black 24:15; black to move"
    game = replay(parse_game(f'[Position "{position}"]\n\n1... 6-6:\n2. 6-5: 24/18 18/13 *'))
    assert game.is_valid, game.errors


@pytest.mark.parametrize(
    ("ruleset", "position", "roll"),
    [
        ("jacquet", "white 24:12 6:3; black 24:15; black to move", (6, 6)),
        # Black on the bar, and White holds every point it could enter on
        (
            "backgammon",
            "white 6:3 5:2 4:2 3:2 2:2 1:2 8:2; black 13:14 bar:1; black to move",
            (5, 3),
        ),
    ],
)
def test_a_bare_roll_that_cannot_be_played_is_the_pass_validation_finds(
    ruleset: str, position: str, roll: tuple[int, int]
) -> None:
    # the replay takes the pass from the search that found no play of the roll
    rules = Rules.named(ruleset)
    text = f'[Rules "{ruleset}"]\n[Position "{position}"]\n\n1... {roll[0]}-{roll[1]}: *'
    game = replay(parse_game(text))
    assert game.is_valid, game.errors
    (ply,) = game.plies
    assert ply.play == validate_play(ply.before, roll, [], rules)
    assert ply.play is not None and ply.play.steps == ()
    assert ply.after == ply.before.with_turn("white")


def test_fmt_keeps_a_bare_roll_bare_and_json_names_the_kind(tmp_path: Path) -> None:
    text = "1. 6-5: 24/18 18/13 4-2:\n2. 3-1: 13/10 10/9 5-3: 18/13 13/10 *"
    record = parse_game(text)
    assert "1. 6-5: 24/18 18/13 4-2:\n" in write_game(record)
    assert parse_game(write_game(record)) == record
    path = tmp_path / "missing.jqt"
    path.write_text(text, encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", "--json", str(path)])
    assert result.exit_code == 1
    found = json.dumps(json.loads(result.output.splitlines()[0]))
    assert '"kind": "missing-play"' in found
    assert "the play of 4-2 is missing" in found


# -- the per-play form: "?-?:" -------------------------------------------------------------------


def test_one_play_may_leave_its_roll_out_without_the_tag() -> None:
    text = "1. 6-5: 24/18 18/13 ?-?: 24/18 18/14\n2. ?-?: 13/7 {a note} ?-?: 14/10 10/4 *"
    record = parse_game(text)
    assert record.errors == [], [str(error) for error in record.errors]
    assert [play.dice for play in record.plays] == [(6, 5), None, None, None]
    game = replay(record)
    assert game.is_valid, game.errors
    assert [ply.rolls for ply in game.plies] == [(), ((6, 4),), ((6, 5), (5, 1), (4, 2)), ((6, 4),)]


def test_the_writer_keeps_the_per_play_form_where_no_tag_allows_steps_alone() -> None:
    record = parse_game("1. 6-5: 24/18 18/13 ?-?: 24/18 18/14\n2. 4-2: 13/9 9/7 *")
    written = write_game(record)
    assert "1. 6-5: 24/18 18/13 1... ?-?: 24/18 18/14\n" in written
    assert parse_game(written) == record
    tagged = parse_game(OMITTED + "1. 6-5: 24/18 18/13 ?-?: 24/18 18/14\n2. 4-2: 13/9 9/7 *")
    assert "1. 6-5: 24/18 18/13 1... 24/18 18/14\n" in write_game(tagged)
    assert parse_game(write_game(tagged)) == tagged


def test_an_annotation_question_mark_is_still_an_annotation() -> None:
    record = parse_game("1. 6-5: 24/18 18/13? {why} ?-?: 24/18 18/14 *")
    assert record.errors == []
    assert record.plays[0].annotation == "?" and record.plays[1].dice is None
