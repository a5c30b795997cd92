"""Rulesets as values: the named rulesets of docs/rules.md and single-option overrides."""

from __future__ import annotations

import pytest

from jacquet_notation.errors import RulesError
from jacquet_notation.rules import RULESET_NAMES, Rules


def test_named_rulesets_match_rules_md() -> None:
    assert RULESET_NAMES[0] == "jacquet"
    assert set(RULESET_NAMES) == {
        "jacquet",
        "jacquet-unrestricted",
        "jacquet-variable",
        "bouchon",
        "five-max",
        "spanish",
        "murray",
        "versailles",
        "backgammon",
    }
    table = {
        # name: hitting, doubles, courier, blocks, bear-off, scoring
        "jacquet": ("no", "four", "yes", "return-men-2", "standard", "single-double"),
        "jacquet-unrestricted": ("no", "four", "yes", "unrestricted", "standard", "single-double"),
        "jacquet-variable": ("no", "four", "yes", "variable-2", "standard", "single-double"),
        "bouchon": ("no", "four", "yes", "bouchon", "standard", "single-double"),
        "five-max": ("no", "four", "yes", "five-max", "exact", "single-double"),
        "spanish": ("no", "four", "yes", "return-men-2", "standard", "spanish"),
        "murray": ("yes", "four", "yes", "unrestricted", "rearmost", "marcia"),
        "versailles": ("no", "squared", "yes", "return-men-2", "standard", "single-double"),
        "backgammon": ("yes", "four", "no", "unrestricted", "standard", "backgammon"),
    }
    for name, row in table.items():
        options = Rules.named(name).options()
        got = tuple(
            options[k] for k in ("hitting", "doubles", "courier", "blocks", "bear-off", "scoring")
        )
        assert got == row, name
    murray = Rules.named("murray")
    assert (murray.start_table_points, murray.midpoint_men) == (2, 2)
    assert Rules.named("versailles").every_die_used
    assert not Rules.named("jacquet").every_die_used
    assert Rules() == Rules.named("jacquet")


def test_unknown_ruleset() -> None:
    with pytest.raises(RulesError, match="unknown ruleset"):
        Rules.named("tavli")


def test_overrides_from_strings() -> None:
    rules = Rules.named("jacquet").with_options({"Blocks": "variable-1", "Opening": "reroll"})
    assert rules.blocks == "variable" and rules.return_men == 1 and rules.opening == "reroll"
    assert rules.name == "jacquet"
    assert rules.options()["blocks"] == "variable-1"
    assert Rules().with_options({"bear_off": "exact"}).bear_off == "exact"
    assert Rules().with_options({"midpoint-men": "3"}).midpoint_men == 3
    assert (
        Rules.named("murray").with_options({"start-table-points": "any"}).start_table_points is None
    )
    assert Rules().with_options({"ruleset": "murray"}) == Rules.named("murray")
    assert Rules().replace(blocks="unrestricted").blocks == "unrestricted"


def test_options_round_trip() -> None:
    for name in RULESET_NAMES:
        rules = Rules.named(name).with_options({"courier": "no", "doubles": "squared"})
        assert Rules().with_options(rules.options()) == rules


@pytest.mark.parametrize(
    "options",
    [
        {"blocks": "variable-3"},
        {"hitting": "maybe"},
        {"colour": "red"},
        {"doubles": "triple"},
        {"midpoint-men": "16"},
        {"ruleset": "nope"},
    ],
)
def test_bad_options(options: dict[str, str]) -> None:
    with pytest.raises(RulesError):
        Rules().with_options(options)


def test_bad_fields() -> None:
    with pytest.raises(RulesError):
        Rules().replace(return_men=3)
    with pytest.raises(RulesError):
        Rules().replace(no_such_field=1)
