"""``infer``: every named ruleset a game's plays fit, and each other one's first broken ply,
checked against the ordinary replay under each ruleset one by one (the reference), on random
games written without a ``[Rules]`` tag, and on hand-made records."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from jacquet_notation.generate import game_record
from jacquet_notation.notation import parse_game, write_game
from jacquet_notation.record import GameRecord
from jacquet_notation.replay import Exclusion, ReplayedGame, infer, replay, scoring_twins
from jacquet_notation.rules import RULESET_NAMES, Rules
from jacquet_notation.selfplay import Bot, play_game
from jacquet_notation.validation import report_record

#: the options a generated record may carry as tags besides [Rules]: all dropped, so that
#: nothing but the plays (and the result) says which rules were played
_OPTION_TAGS = {option.capitalize() for option in Rules().options()} | {"Rules"}


def untagged(name: str, seed: int, bot: Bot = "random") -> GameRecord:
    """A self-play game under ``name``, written and read back without a word of its rules."""
    record = game_record(play_game(Rules.named(name), random.Random(seed), bot), 1, seed, bot)
    for tag in _OPTION_TAGS & set(record.tags):
        del record.tags[tag]
    return parse_game(write_game(record), "random.jqt")


def first_error(game: ReplayedGame) -> tuple[int | None, int | None, int | None, str] | None:
    """The reference: the first error of the replay's main line (ply counted from 1), else
    its first error of the game as a whole (the result), as (ply, line, column, message)."""
    for number, ply in enumerate(game.plies, start=1):
        if ply.error is not None:
            return number, ply.error.line, ply.error.column, ply.error.message
    if game.errors:
        error = game.errors[0]
        return None, error.line, error.column, error.message
    return None


def expected(record: GameRecord) -> dict[str, tuple[int | None, int | None, int | None, str]]:
    """Each ruleset the ordinary validation path refuses, and where first, one by one."""
    found = {}
    for name in RULESET_NAMES:
        rules = Rules.named(name)
        verdict = first_error(replay(record, rules))
        report = report_record(record, rules)
        # the same replay as validate's own report: valid exactly where nothing was found
        assert (report.status == "valid") == (verdict is None), (name, report.errors)
        if verdict is not None:
            found[name] = verdict
    return found


def assert_matches_reference(record: GameRecord) -> None:
    inference = infer(record)
    reference = expected(record)
    assert inference.consistent == tuple(n for n in RULESET_NAMES if n not in reference)
    got = {e.rules: (e.ply, e.line, e.column, e.reason) for e in inference.excluded}
    assert got == reference
    assert [e.rules for e in inference.excluded] == [n for n in RULESET_NAMES if n in reference]


def corrupted(record: GameRecord, rng: random.Random) -> GameRecord:
    """``record`` with one play's moves replaced by another's of the same side: a slip that
    most rulesets refuse somewhere, at a ply the test does not choose."""
    plays = list(record.plays)
    if len(plays) < 4:
        return record
    target = rng.randrange(1, len(plays))
    donors = [p for p in plays if p.side == plays[target].side and p.moves != plays[target].moves]
    if not donors:
        return record
    donor = rng.choice(donors)
    plays[target] = type(plays[target])(
        side=plays[target].side,
        turn=plays[target].turn,
        dice=plays[target].dice,
        moves=donor.moves,
    )
    text = write_game(GameRecord(tags=record.tags, plays=plays, result=record.result))
    return parse_game(text, "corrupted.jqt")


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_a_game_fits_the_rules_it_was_played_by_and_the_reference_elsewhere(name: str) -> None:
    record = untagged(name, 7)
    assert "Rules" not in record.tags
    inference = infer(record)
    assert name in inference.consistent
    assert inference.declared is None
    assert_matches_reference(record)


@pytest.mark.slow
@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True
)
@given(
    st.sampled_from(RULESET_NAMES),
    st.integers(min_value=0, max_value=10**6),
    st.sampled_from(["random", "greedy"]),
    st.booleans(),
)
def test_random_games_match_the_one_by_one_reference(
    name: str, seed: int, bot: Bot, corrupt: bool
) -> None:
    record = untagged(name, seed, bot)
    if corrupt:
        record = corrupted(record, random.Random(seed))
    else:
        assert name in infer(record).consistent
    assert_matches_reference(record)


HAND = """[Event "hand"]
[Rules "jacquet"]

1. 6-6: 24/18 5-4: 24/15
"""


def test_a_double_at_the_lead_leaves_only_the_reroll_opening() -> None:
    inference = infer(parse_game(HAND, "hand.jqt"))
    assert inference.declared == "jacquet"  # declared, and not trusted
    assert inference.consistent == ("murray",)
    jacquet = inference.excluded[0]
    assert jacquet == Exclusion(
        "jacquet",
        1,
        4,
        4,
        "the first roll of a game cannot be a double (6-6) under the ordinary opening: "
        "the lead dice are the first roll",
        "double-opening",
    )
    versailles = next(e for e in inference.excluded if e.rules == "versailles")
    assert (versailles.ply, versailles.line, versailles.column) == (1, 4, 4)
    assert versailles.reason == "Black could have played the 6 (24/18); the share is missing"
    assert inference.to_json() == {
        "file": "hand.jqt",
        "game": 1,
        "declared": "jacquet",
        "consistent": ["murray"],
        "excluded": [exclusion.to_json() for exclusion in inference.excluded],
    }
    first = inference.excluded[0].to_json()
    assert set(first) == {"rules", "ply", "line", "column", "reason"}


def test_a_later_illegal_play_is_placed_at_its_ply_line_and_column() -> None:
    # White's second play moves a man off the 24-point while its courier is on 7: only
    # backgammon, which has no courier, allows it; the error points at the move, 24/21
    text = '[Rules "jacquet"]\n\n1. 6-5: 24/13 5-4: 24/15\n2. 6-3: 13/7 24/21 4-1: 15/11 24/23\n'
    record = parse_game(text, "late.jqt")
    inference = infer(record)
    assert inference.consistent == ("backgammon",)
    reason = "24/21: the courier (on 7) must reach the home table before any other man moves"
    for exclusion in inference.excluded:
        assert (exclusion.ply, exclusion.line, exclusion.column) == (3, 4, 14), exclusion
        assert exclusion.reason == reason
    assert_matches_reference(record)


def _finished(name: str) -> GameRecord:
    for seed in range(50):
        record = untagged(name, seed, "greedy")
        if record.result not in (None, "*"):
            return record
    raise AssertionError("no finished game")


def test_the_written_result_parts_jacquet_from_spanish() -> None:
    assert scoring_twins() == (("jacquet", "spanish"),)
    record = _finished("jacquet")
    inference = infer(record)
    assert "jacquet" in inference.consistent and "spanish" not in inference.consistent
    spanish = next(e for e in inference.excluded if e.rules == "spanish")
    assert spanish.ply is None and spanish.kind == "wrong-result"
    assert spanish.line == record.span.end_line
    assert spanish.reason.startswith(f"the result {record.result} disagrees")
    assert spanish.reason.endswith("under spanish")
    assert inference.scoring_only == ()

    record = _finished("spanish")
    inference = infer(record)
    assert "spanish" in inference.consistent and "jacquet" not in inference.consistent
    assert next(e for e in inference.excluded if e.rules == "jacquet").kind == "wrong-result"


def test_without_a_result_jacquet_and_spanish_are_told_apart_by_nothing() -> None:
    record = _finished("jacquet")
    tags = {**record.tags, "Result": "*"}
    text = write_game(GameRecord(tags=tags, plays=record.plays, result="*"))
    inference = infer(parse_game(text))
    assert {"jacquet", "spanish"} <= set(inference.consistent)
    assert inference.scoring_only == (("jacquet", "spanish"),)


def test_a_record_that_does_not_parse_says_so_and_infers_nothing() -> None:
    inference = infer(parse_game("1. 6-5: 24/ZZ\n", "bad.jqt"))
    assert inference.errors and inference.consistent == () and inference.excluded == ()
    answer = inference.to_json()
    assert answer["errors"] and "24/ZZ" in str(answer["errors"])


def test_a_set_position_is_judged_under_each_ruleset_by_the_replay() -> None:
    record = untagged("jacquet", 3)
    text = write_game(record)
    position = replay(record, Rules.named("jacquet")).plies[10].before
    tagged = text.replace("\n\n", f'\n[Position "{position.key()}"]\n\n', 1)
    later = parse_game(tagged, "set.jqt")
    # the game then goes on from that position with the plays from its first: refused by all
    # rulesets somewhere, each where the replay says
    assert_matches_reference(later)


def test_a_variation_is_not_judged_only_the_main_line() -> None:
    # docs/infer.md: a commentator's alternative is not what was played
    text = '[White "A"]\n\n1. 6-5: 24/13 (1. 6-5: 24/2) 5-4: 24/15\n'
    record = parse_game(text, "variation.jqt")
    assert replay(record, Rules.named("jacquet")).errors  # validate calls it invalid
    inference = infer(record)
    assert inference.consistent == RULESET_NAMES and inference.excluded == ()
