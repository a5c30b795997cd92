"""The reader never crashes and loses nothing: malformed words, lone turn numbers, foreign digits,
empty games, resynchronising after a syntax error, and runs of line comments."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from jacquet_notation.cli import main
from jacquet_notation.errors import NotationError
from jacquet_notation.notation import parse_game, parse_games, read_games, write_game

GOOD = """[Event "Fine"]
[White "A"]
[Black "B"]

1. 6-5: 24/18 18/13 5-3: 24/19 19/16
*
"""

#: words that ran into one another or carry a slip; each used to raise ValueError in the reader
RUN_TOGETHER = [
    "1. 6-5: 24/18--",
    "1. 6-5: 24/7--",
    "1. 6-5: 24/18off",
    "1. 6-5: 24/7pass",
    "1. 6-5: 24/14*7.",
    "1. 6-5: 24/13pass 5-3: 24/21 24/19",
    "1. 6-5: 24/18 24/13--",
]


def _first_lines(errors: list[NotationError]) -> list[str]:
    return [f"{e.line}:{e.column}: {e.message.splitlines()[0]}" for e in errors]


@pytest.mark.parametrize("text", RUN_TOGETHER)
def test_a_malformed_step_is_a_located_syntax_error(text: str) -> None:
    (game,) = parse_games(text + "\n*\n", "bad.jqt")
    assert game.errors, text
    error = game.errors[0]
    assert (error.file, error.game, error.line) == ("bad.jqt", 1, 1)
    word = next(w for w in text.split() if w[0] != "1" and w not in ("6-5:", "24/18"))
    assert error.column == text.index(word) + 1
    assert error.message.startswith("expected a turn number, dice, a pass or a step")
    assert f"found {word}" in error.message.splitlines()[0]


@pytest.mark.parametrize(
    ("text", "found"),
    [
        ("1.6-5: 24/18 24/19", "1.6-5:"),
        ("1. 6-5:24/18 24/19", "6-5:24/18"),
        ("1. 6-5: 24/18 24/19 5-3: 24/21 2.4-1: 13/9", "2.4-1:"),
    ],
)
def test_words_run_together_are_not_read_with_a_part_dropped(text: str, found: str) -> None:
    # These used to lose the dice or a step without a word ("6-5:24/18" became a play of 24/19).
    game = parse_game(text)
    assert [m.splitlines()[0].rsplit(", found ", 1)[1] for m in map(str, game.errors)] == [found]


def test_the_other_games_of_the_file_are_read(tmp_path: Path) -> None:
    path = tmp_path / "mixed.jqt"
    path.write_text(GOOD + "\n" + GOOD.replace("19/16", "19/16--") + "\n" + GOOD)
    games = list(read_games(path))
    assert [bool(g.errors) for g in games] == [False, True, False]
    assert [len(g.plays) for g in (games[0], games[2])] == [2, 2]


@pytest.mark.parametrize(
    "text",
    [
        "1. ٦-٥: 24/18 24/19",
        "١. 6-5: 24/18 24/19",
        "1. 6-5: 24/18 24/19 ٢. 5-3: 24/21 24/19",
        "1. 6-5: ٢٤/18 24/19",
        "1. 6-5: 24/18 24/19 5-3: 24/21 24/19 ۲. 4-1: 13/9 13/12",
    ],
)
def test_digits_of_other_scripts_are_an_error(text: str) -> None:
    game = parse_game(text)
    assert (
        _first_lines(game.errors)[0]
        .split(": ", 1)[1]
        .startswith("expected the digits 0 to 9, found ")
    )
    assert not game.plays


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1.", ["1:1: expected a play after the turn number 1., found the end of the game"]),
        (
            "1. 6-5: 24/13\n2.",
            ["2:1: expected a play after the turn number 2., found the end of the game"],
        ),
        (
            "1. 6-5: 24/13 2... 3. 6-5: 24/13",
            ["1:15: expected a play after the turn number 2..., found 3."],
        ),
        ("1. 1... 5-3: 24/21", ["1:1: expected a play after the turn number 1., found 1..."]),
        ("1. 6-5: 24/13 2. 2-0", ["1:15: expected a play after the turn number 2., found 2-0"]),
        (
            "1. 6-5: 24/13 2. (1. 6-5: 24/18 18/13)",
            ["1:15: expected a play after the turn number 2., found ("],
        ),
        (
            "1. 6-5: 24/13 (1. 6-5: 24/18 2...)",
            ["1:30: expected a play after the turn number 2..., found )"],
        ),
        ("1. {a comment between} 6-5: 24/13 2. ; and here\n 5-3: 24/21", []),
    ],
)
def test_a_turn_number_without_its_play_is_reported(text: str, expected: list[str]) -> None:
    assert _first_lines(parse_game(text).errors) == expected


def test_a_lone_turn_number_is_not_dropped_by_fmt(tmp_path: Path) -> None:
    path = tmp_path / "lone.jqt"
    path.write_text("1.\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["fmt", str(path)])
    assert (result.exit_code, result.stdout) == (1, "1.\n")  # written back as it was
    checked = CliRunner().invoke(main, ["validate", "--jobs", "1", str(path)])
    assert checked.exit_code == 1
    assert "0 valid" in checked.output


def test_an_unclosed_comment_after_a_result_makes_no_empty_game() -> None:
    games = parse_games('6-5{\n[d "')
    assert len(games) == 2
    assert all(game.errors for game in games)
    assert [game.errors[0].line for game in games] == [1, 2]


def test_every_slip_of_a_game_is_reported_in_one_run() -> None:
    text = (
        '[Event "x"]\n[Date "18"]\n'
        "1. 6-5: 24/27 24/19 5-3: 24/21 24/19\n"
        "2. 7-1: x 5-5: 13/8\n"
        "3. 6-5 24/13\n"
        "4. 6-5: 24/18-- 5-3: 24/21 24/19\n"
        "5. 4-1: 13/9 13/30 3. 4-1: 13/9\n"
        "2-0\n"
    )
    game = parse_game(text, "g.jqt")
    assert [(e.line, e.column) for e in game.errors] == [
        (2, 7),  # the date, in the tags before the first syntax error
        (3, 12),  # point 27, before it
        (4, 9),  # the first syntax error: x
        (5, 8),  # resumed at 3.: the missing colon
        (6, 9),  # resumed at 4.: 24/18--
        (7, 17),  # resumed at 5.: point 30
        (7, 20),  # and the turn number 3.
    ]
    assert "found 24/18--" in str(game.errors[4])
    assert not game.plays  # still unreadable as a whole


def test_resynchronising_skips_variations_and_unclosed_comments() -> None:
    game = parse_game("1. 6-5: 24/13 (1. 6-5: 24/18 x 2. 6-5: 24/27) 5-3: 24/21 2. 4-1: 13/9/30")
    assert [(e.line, e.column) for e in game.errors] == [(1, 30), (1, 71)]
    game = parse_game("1. 6-5: 24/13 {unclosed 2. x 3. 6-5: 24/30")
    assert len(game.errors) == 1


def test_syntax_errors_in_a_game_are_bounded() -> None:
    text = "".join(f"{n}. 6-5: x 5-3: 24/21\n" for n in range(1, 300))
    assert len(parse_game(text).errors) == 100


def _folder(tmp_path: Path) -> tuple[Path, list[Path]]:
    folder = tmp_path / "records"
    folder.mkdir()
    bad = GOOD.replace("19/16", "19/16--")
    files = [folder / name for name in ("a.jqt", "b.jqt", "c.jqt")]
    third = GOOD.replace("Fine", "Fine too")
    for path, text in zip(files, (GOOD, bad, third), strict=True):
        path.write_text(text, encoding="utf-8")
    return folder, files


def test_validate_reports_a_malformed_step_and_goes_on(tmp_path: Path) -> None:
    folder, files = _folder(tmp_path)
    result = CliRunner().invoke(main, ["validate", "--jobs", "1", str(folder)])
    assert result.exit_code == 1
    assert "Traceback" not in result.output
    errors = [line for line in result.output.splitlines() if line.startswith(str(folder))]
    assert len(errors) == 1
    assert errors[0].startswith(f"{files[1]}:5:32: game 1 (A v B, ?): expected a turn number")
    assert result.output.splitlines()[-1] == "3 games: 2 valid, 0 invalid, 1 unreadable"


def test_archive_imports_every_file_of_the_folder(tmp_path: Path) -> None:
    folder, files = _folder(tmp_path)
    db = tmp_path / "a.db"
    result = CliRunner().invoke(main, ["archive", str(db), str(folder)])
    assert result.exit_code == 1, result.output
    with sqlite3.connect(db) as conn:
        rows = conn.execute("SELECT path, games, unreadable FROM imports ORDER BY path").fetchall()
    assert rows == [(str(files[0]), 1, 0), (str(files[1]), 1, 1), (str(files[2]), 1, 0)]


def test_a_run_of_line_comments_stays_one_comment() -> None:
    text = "1. 6-5: 24/18 24/19 ; White hesitates,\n  ; then plays on.\n\n; A new thought.\n*\n"
    game = parse_game(text)
    assert game.plays[0].comments == ("White hesitates,\nthen plays on.", "A new thought.")
    canonical = write_game(game)
    assert canonical == (
        "1. 6-5: 24/18 24/19 {White hesitates,\nthen plays on.} {A new thought.}\n*\n"
    )
    assert parse_game(canonical) == game


def test_a_comment_that_braces_cannot_hold_is_written_as_line_comments() -> None:
    game = parse_game('1. 6-5: 24/18 24/19 ; a } here\n; [Site "x"] quoted\n*\n')
    (comment,) = game.plays[0].comments
    assert comment == 'a } here\n[Site "x"] quoted'
    canonical = write_game(game)
    assert canonical == '1. 6-5: 24/18 24/19 ; a } here\n; [Site "x"] quoted\n*\n'
    (again,) = parse_games(canonical)
    assert again == game
