"""``jacquet plays``: the engine seen from the command line."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest
from click.testing import CliRunner

from jacquet_notation.cli import main
from jacquet_notation.position import Position


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(main, ["plays", *args])
    return result.exit_code, result.stdout, result.stderr


def test_opening_five_five_as_json() -> None:
    code, out, _ = run("--dice", "5-5", "--json")
    assert code == 0
    listing = json.loads(out)
    assert len(listing) == 1
    assert listing[0]["steps"] == "24/19 19/14 14/9 9/4"
    after = Position.from_json(listing[0]["position"])
    assert after.turn == "black" and after.men("white") == {24: 14, 4: 1}
    assert listing[0]["key"] == after.key()


def test_sorted_by_key_and_a_pass_is_an_entry_without_steps() -> None:
    position = {
        "white": {"24": 3, "23": 3, "22": 3, "21": 3, "20": 1, "2": 1, "1": 1},
        "black": {"24": 10, "6": 1, "5": 1, "4": 1, "3": 1, "2": 1},
    }
    code, out, _ = run("--dice", "2-1", "--json", "--position", json.dumps(position))
    listing = json.loads(out)
    assert code == 0 and len(listing) == 17
    assert [row["key"] for row in listing] == sorted(row["key"] for row in listing)
    blocked = {"white": {"24": 14, "15": 1}, "black": {"24": 12, "21": 1, "22": 1, "16": 1}}
    code, out, _ = run("--dice", "6-5", "--json", "--position", json.dumps(blocked))
    assert code == 0 and [row["steps"] for row in json.loads(out)] == [""]


def test_rules_and_overrides() -> None:
    position = json.dumps(
        {
            "white": {"24": 3, "23": 3, "22": 3, "21": 3, "20": 1, "2": 1, "1": 1},
            "black": {"24": 10, "6": 1, "5": 1, "4": 1, "3": 1, "2": 1},
        }
    )
    counts = {}
    for args in (
        ["--rules", "jacquet-variable"],
        ["--set", "blocks=return-men-1"],
        ["--rules", "jacquet-variable", "--set", "blocks=variable-1"],
    ):
        code, out, _ = run("--dice", "2-1", "--json", "--position", position, *args)
        assert code == 0
        counts[" ".join(args)] = len(json.loads(out))
    assert list(counts.values()) == [13, 21, 16]


def test_readable_listing() -> None:
    code, out, _ = run("--dice", "6-6")
    assert code == 0
    assert "1 distinct legal play of 6-6 for White" in out and "24/18" in out


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["--dice", "7-1"], "two dice"),
        (["--dice", "5-5", "--position", "{not json"], "not JSON"),
        (
            ["--dice", "5-5", "--position", '{"white": {"24": 15, "1": 1}, "black": {"24": 15}}'],
            "16 men",
        ),
        (
            ["--dice", "5-5", "--position", '{"white": {"24": 15}, "black": {"24": 14, "12": 1}}'],
            "both sides",
        ),
        (
            [
                "--dice",
                "5-5",
                "--position",
                '{"white": {"24": 14}, "white_bar": 1, "black": {"24": 15}}',
            ],
            "bar",
        ),
        (["--dice", "5-5", "--rules", "tavli"], "unknown ruleset"),
        (["--dice", "5-5", "--set", "blocks"], "option=value"),
        (["--dice", "5-5", "--set", "blocks=sometimes"], "blocks"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(args: list[str], words: str) -> None:
    code, out, err = run(*args)
    assert code == 2
    assert words in err and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert out == ""


def test_the_installed_command() -> None:
    """The console script itself, in a fresh process."""
    command = shutil.which("jacquet")
    if command is None:
        pytest.skip("the package is not installed (pip install -e .)")
    done = subprocess.run(
        [command, "plays", "--dice", "3-3", "--json"], capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr
    assert [row["steps"] for row in json.loads(done.stdout)] == ["24/21 21/18 18/15"]
    bad = subprocess.run(
        [command, "plays", "--dice", "3-3", "--position", "[1"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert bad.returncode == 2 and bad.stderr.startswith("jacquet: '[1' is no position")
    assert bad.stderr.count("\n") == 1 and "Traceback" not in bad.stderr
