"""Properties: only records and NotationErrors come out; generated records parse; round trips."""

from __future__ import annotations

import io
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from jacquet_notation.errors import NotationError
from jacquet_notation.notation import parse_game, parse_games, read_games, write_game, write_games
from jacquet_notation.record import GameRecord, Span

#: hundreds of generated files a test: out of the unit tier (docs/development.md)
pytestmark = [pytest.mark.slow]

DATA = Path(__file__).parents[1] / "data" / "notation"
FIXTURES = [path.read_bytes() for path in sorted(DATA.glob("*.jqt"))]
# The characters that matter to the grammar, so that mutations reach its corners.
NOTATION_CHARACTERS = '0123456789/-:.*()[]{}";!?$ \n\tbarofps\x00\xe9'
SETTINGS = settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def check_outcome(data: bytes, encoding: str = "utf-8") -> list[GameRecord]:
    """Read every game: records (each error placed) or one NotationError with its place."""
    try:
        games = list(read_games(io.BytesIO(data), "fuzz.jqt", encoding=encoding))
    except NotationError as error:
        assert error.line is not None and error.column is not None, error
        return []
    for game in games:
        for problem in game.errors:
            assert isinstance(problem, NotationError)
            assert problem.file == "fuzz.jqt" and problem.game == game.index
            assert problem.line is not None and problem.column is not None, problem
            assert problem.message.startswith("expected "), problem.message
        if not game.errors:
            # Whatever parses cleanly also writes and reads back to the same record.
            again = parse_game(write_game(game), strict=True)
            assert again == game
    return games


@SETTINGS
@given(st.text())
def test_random_text(text: str) -> None:
    check_outcome(text.encode("utf-8", "surrogatepass"))


@SETTINGS
@given(st.text(alphabet=NOTATION_CHARACTERS, max_size=200))
def test_random_text_made_of_notation_characters(text: str) -> None:
    check_outcome(text.encode("utf-8"))


@SETTINGS
@given(st.binary(max_size=300))
def test_random_bytes(data: bytes) -> None:
    check_outcome(data)
    check_outcome(data, "latin-1")


@st.composite
def mutations(draw: st.DrawFn) -> bytes:
    data = bytearray(draw(st.sampled_from(FIXTURES)))
    for _ in range(draw(st.integers(1, 8))):
        at = draw(st.integers(0, len(data)))
        action = draw(st.sampled_from(["insert", "delete", "replace", "duplicate"]))
        character = draw(st.sampled_from(NOTATION_CHARACTERS)).encode("utf-8")
        if action == "insert":
            data[at:at] = character
        elif action == "delete":
            del data[at : at + draw(st.integers(1, 20))]
        elif action == "replace":
            data[at : at + 1] = character
        else:
            length = draw(st.integers(1, 40))
            data[at:at] = data[at : at + length]
    return bytes(data)


@SETTINGS
@given(mutations())
def test_mutated_fixtures(data: bytes) -> None:
    check_outcome(data)


# -- records generated from the grammar's shape ---------------------------------------------

TAG_VALUES = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="\n\r"),
    max_size=12,
)
COMMENT_TEXT = st.text(
    alphabet=st.characters(blacklist_categories=("Cs", "Cc"), blacklist_characters="{}")
    | st.just("\n"),
    max_size=15,
)


@st.composite
def point(draw: st.DrawFn) -> str:
    number = draw(st.integers(0, 25))
    if number == 25 and draw(st.booleans()):
        return draw(st.sampled_from(["bar", "BAR", "Bar"]))
    if number == 0 and draw(st.booleans()):
        return draw(st.sampled_from(["off", "OFF"]))
    return str(number)


@st.composite
def step(draw: st.DrawFn) -> str:
    points = draw(st.lists(point(), min_size=2, max_size=4))
    text = points[0] + "".join("/" + p + draw(st.sampled_from(["", "", "*"])) for p in points[1:])
    if draw(st.integers(0, 4)) == 0:
        text += f"({draw(st.integers(1, 15))})"
    return text


@st.composite
def play(draw: st.DrawFn) -> str:
    high, low = draw(st.integers(1, 6)), draw(st.integers(1, 6))
    dice = draw(st.sampled_from([f"{high}-{low}:", f"{high}{low}:", f"{high}-{low} :"]))
    kind = draw(st.integers(0, 9))
    if kind == 0:
        body = dice + draw(st.sampled_from(["", " pass", " --", " PASS"]))
    elif kind == 1:
        body = draw(st.sampled_from(["pass", "--"]))
    else:
        separator = draw(st.sampled_from([" ", "  ", "\n  "]))
        body = dice + " " + separator.join(draw(st.lists(step(), min_size=1, max_size=4)))
    if kind != 1 and draw(st.integers(0, 3)) == 0:
        # Versailles: the opponent's share of the dice, after " + " (docs/notation.md)
        separator = draw(st.sampled_from([" ", "\n  "]))
        share = draw(st.lists(step(), min_size=1, max_size=3))
        body += separator + "+ " + separator.join(share)
    if draw(st.integers(0, 5)) == 0:
        body += draw(st.sampled_from(["!", "?", "!!", "??", "!?", "?!", " !?"]))
    for _ in range(draw(st.integers(0, 2)) if draw(st.integers(0, 3)) == 0 else 0):
        body += f" ${draw(st.integers(0, 255))}"
    return body


def comment(draw: st.DrawFn) -> str:
    text = draw(COMMENT_TEXT)
    if "\n" not in text and draw(st.booleans()):
        return f"; {text}\n"
    return "{" + text + "}"


@st.composite
def line_of_play(draw: st.DrawFn, turn: int, side: str, depth: int, first: bool) -> str:
    """Plays from (turn, side), numbered as a transcriber might, with comments and variations."""
    pieces: list[str] = []
    previous_side = None
    for index in range(draw(st.integers(1, 6 if depth == 0 else 3))):
        if side == "white":
            pieces.append(f"{turn}.")
        elif previous_side != "white" or draw(st.booleans()) or (first and index == 0):
            pieces.append(draw(st.sampled_from([f"{turn}...", f"{turn}. ..."])))
        if first and index == 0 and depth > 0 and draw(st.booleans()):
            pieces.insert(0, comment(draw))
        body = draw(play())
        if pieces and pieces[-1].endswith(":") and body.lower().startswith(("pass", "--")):
            # "6-6: pass" is one play (a pass with its dice): a play of dice alone followed by a
            # pass without dice is written "6-6: pass pass", as the writer does.
            pieces[-1] += " pass"
        pieces.append(body)
        if draw(st.integers(0, 5)) == 0:
            pieces.append(comment(draw))
        if depth < 2 and draw(st.integers(0, 6)) == 0:
            pieces.append("(" + draw(line_of_play(turn, side, depth + 1, True)) + ")")
        previous_side = side
        if side == "white":
            side = "black"
        else:
            side, turn = "white", turn + 1
    return " ".join(pieces)


@st.composite
def game_text(draw: st.DrawFn) -> str:
    names = draw(
        st.lists(
            st.sampled_from(["Event", "Site", "Date", "White", "Black", "Rules", "Blocks", "X-1"]),
            unique=True,
        )
    )
    lines = []
    for name in names:
        value = "1818.??.??" if name == "Date" else draw(TAG_VALUES)
        escaped = value.replace("\\", "\\\\").replace('"', '\\"')
        lines.append(f'[{name} "{escaped}"]')
    if draw(st.booleans()):
        lines.append(comment(draw).rstrip("\n"))
    black_first = draw(st.booleans())
    movetext = draw(line_of_play(1, "black" if black_first else "white", 0, True))
    lines.append(movetext)
    lines.append(draw(st.sampled_from(["2-0", "0-1", "1-0", "0-2", "3-0", "*"])))
    return "\n".join(lines) + "\n"


@SETTINGS
@given(game_text())
# Black's pass without dice after White's bare roll: written "1. 1-1: pass!" it read back as
# White's pass (found by this test; the writer numbers Black's turn there)
@example('[White "a"]\n[Black "b"]\n1. 1-1: 1... pass!\n*\n')
def test_generated_records_parse_and_round_trip(text: str) -> None:
    game = parse_game(text)
    assert game.errors == [], [str(e) for e in game.errors] + [text]
    canonical = write_game(game)
    again = parse_game(canonical)
    assert again.errors == []
    assert again == game  # spans and the text as written take no part in equality
    assert write_game(again) == canonical


@SETTINGS
@given(st.lists(game_text(), min_size=1, max_size=4))
def test_generated_files_split_into_their_games(texts: list[str]) -> None:
    joined = "\n".join(texts)
    games = parse_games(joined)
    assert len(games) == len(texts)
    assert all(not game.errors for game in games)
    canonical = write_games(games)
    assert write_games(parse_games(canonical)) == canonical


def _spanned(lines: list[str], span: Span) -> str:
    if span.line == span.end_line:
        return lines[span.line - 1][span.column - 1 : span.end_column]
    middle = lines[span.line : span.end_line - 1]
    return "\n".join(
        [
            lines[span.line - 1][span.column - 1 :],
            *middle,
            lines[span.end_line - 1][: span.end_column],
        ]
    )


MOVE_TEXT = re.compile(r"(\d+|bar|off)\*?/(\d+|bar|off)", re.I)


def _point(text: str) -> int:
    return {"bar": 25, "off": 0}[text.lower()] if text.isalpha() else int(text)


@SETTINGS
@given(st.lists(game_text(), min_size=1, max_size=3))
def test_spans_point_at_what_was_written(texts: list[str]) -> None:
    joined = "\n".join(texts)
    lines = joined.split("\n")
    for game in parse_games(joined):
        assert _spanned(lines, game.span).strip() == game.text.strip()
        for name, span in game.tag_spans.items():
            assert _spanned(lines, span).startswith(f"[{name} ")
        stack = [list(game.plays)]
        while stack:
            for play in stack.pop():
                assert _spanned(lines, play.span) == play.text
                for move in play.moves + play.opponent_moves:
                    found = MOVE_TEXT.match(_spanned(lines, move.span))
                    assert found, (move, _spanned(lines, move.span))
                    assert (_point(found.group(1)), _point(found.group(2))) == move[:2]
                stack.extend(list(v) for v in play.variations)
