"""Reading records: every form of the notation, spans, game boundaries, encodings."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from jacquet_notation.errors import JacquetError, NotationError
from jacquet_notation.notation import parse_game, parse_games, read_games, write_game
from jacquet_notation.record import Move, Span

DATA = Path(__file__).parents[1] / "data" / "notation"


def moves(text: str) -> list[tuple[int, int, int, bool]]:
    """The moves of the only play of ``1. <text>``, without spans."""
    record = parse_game(f"1. {text}", strict=True)
    assert len(record.plays) == 1
    return [(m.start, m.end, m.count, m.hit) for m in record.plays[0].moves]


@pytest.mark.parametrize(
    ("written", "expected"),
    [
        ("6-5: 24/18 24/19", [(24, 18, 1, False), (24, 19, 1, False)]),
        ("6-5: 24/18/13", [(24, 18, 1, False), (18, 13, 1, False)]),
        ("6-5: 24/13", [(24, 13, 1, False)]),
        ("4-4: 13/9(2) 24/20/16", [(13, 9, 2, False), (24, 20, 1, False), (20, 16, 1, False)]),
        ("6-1: 6/off 1/0", [(6, 0, 1, False), (1, 0, 1, False)]),
        ("4-3: bar/21 25/22", [(25, 21, 1, False), (25, 22, 1, False)]),
        ("6-6: 13/7*(2)", [(13, 7, 2, True)]),
        ("6-6: 13/7(2)*", [(13, 7, 2, True)]),
        ("5-1: 24/19*/18", [(24, 19, 1, True), (19, 18, 1, False)]),
        ("43: BAR/21 OFF/2", [(25, 21, 1, False), (0, 2, 1, False)]),
    ],
)
def test_steps_as_written(written: str, expected: list[tuple[int, int, int, bool]]) -> None:
    assert moves(written) == expected


@pytest.mark.parametrize("written", ["6-6:", "6-6: pass", "6-6: --", "66: PASS", "6-6 : --"])
def test_a_pass_with_its_dice(written: str) -> None:
    play = parse_game(f"1. {written}", strict=True).plays[0]
    assert play.dice == (6, 6)
    assert play.is_pass and play.moves == ()


@pytest.mark.parametrize("written", ["pass", "--"])
def test_a_pass_without_dice(written: str) -> None:
    play = parse_game(f"1. 6-5: 24/18 24/19 {written}", strict=True).plays[1]
    assert play.dice is None and play.is_pass and play.side == "black"


def test_dice_are_kept_high_first_and_the_text_as_written() -> None:
    play = parse_game("1. 3-5: 24/21 24/19", strict=True).plays[0]
    assert play.dice == (5, 3)
    assert play.text == "3-5: 24/21 24/19"
    assert parse_game("1. 35: 24/21 24/19", strict=True).plays[0].dice == (5, 3)


def test_sides_and_turns() -> None:
    record = parse_game(
        "1. 6-5: 24/18 24/19 5-3: 24/21 24/19\n2. 4-1: 18/14 18/17\n   2-2: 24/22(2) 19/17(2)",
        strict=True,
    )
    assert [(p.side, p.turn) for p in record.plays] == [
        ("white", 1),
        ("black", 1),
        ("white", 2),
        ("black", 2),
    ]


@pytest.mark.parametrize("opening", ["1. ... 5-3: 24/19/16", "1... 5-3: 24/19/16"])
def test_black_throws_first(opening: str) -> None:
    record = parse_game(opening + "\n2. 6-5: 24/13 4-1: 16/12 19/18", strict=True)
    assert [(p.side, p.turn) for p in record.plays] == [
        ("black", 1),
        ("white", 2),
        ("black", 2),
    ]


def test_black_numbers_written_either_way_in_one_run_of_turns() -> None:
    # "12..." is read by one comparison, "12. ..." (two words) by the general reader: both in
    # one token here, with the spans of the plays after them.
    text = (
        "1... 5-3: 24/19/16\n2. 6-5: 24/13\n2. ... 4-1: 16/12 19/18\n3. 6-6: pass\n3...\t2-1: 12/10"
    )
    record = parse_game(text, strict=True)
    assert [(p.side, p.turn) for p in record.plays] == [
        ("black", 1),
        ("white", 2),
        ("black", 2),
        ("white", 3),
        ("black", 3),
    ]
    black_two = record.plays[2]
    assert black_two.span == Span(3, 8, 3, 23)
    assert black_two.moves[1].span == Span(3, 19, 3, 23)
    assert record.plays[4].span == Span(5, 6, 5, 15)
    wrong = parse_game("1... 5-3: 24/19/16\n3... 6-5: 24/13")
    assert [e.message.splitlines()[0] for e in wrong.errors] == [
        "expected turn 2. or 2..., found 3..."
    ]
    assert (wrong.errors[0].line, wrong.errors[0].column) == (2, 1)


def test_tag_spans_on_lines_after_the_first() -> None:
    record = parse_game('[Event "E"]  [Site "S"]\n\t[White "W"]\n[Black "B"]\n1. 6-5: 24/13')
    assert record.errors == []
    assert record.tag_spans == {
        "Event": Span(1, 1, 1, 11),
        "Site": Span(1, 14, 1, 23),
        "White": Span(2, 2, 2, 12),
        "Black": Span(3, 1, 3, 11),
    }


def test_turn_numbers_are_optional_but_checked() -> None:
    record = parse_game("6-5: 24/18 24/19 5-3: 24/21 24/19 4-1: 18/14 18/17", strict=True)
    assert [(p.side, p.turn) for p in record.plays][-1] == ("white", 2)
    wrong = parse_game("1. 6-5: 24/18 24/19 5-3: 24/21 24/19 3. 4-1: 18/14 18/17")
    assert len(wrong.errors) == 1
    assert wrong.errors[0].message.startswith("expected turn 2. or 2..., found 3.")
    assert (wrong.errors[0].line, wrong.errors[0].column) == (1, 38)


def test_a_player_may_play_twice_when_the_numbers_say_so() -> None:
    # Versailles: after tied lead dice the lead is thrown again and may go to either player.
    record = parse_game("1. 3-3: 24/21(2) 3-3: 24/21(2) 2... 6-5: 21/15 21/16", strict=True)
    assert [(p.side, p.turn) for p in record.plays] == [
        ("white", 1),
        ("black", 1),
        ("black", 2),
    ]


def test_tags_escapes_and_non_ascii_kept_exactly() -> None:
    record = parse_game(
        '[Event "Le \\"grand\\" tournoi \\\\ Paris"]\n[White "محمد علي"]\n[Black "Γεώργιος"]\n'
        '[Blocks "variable-1"]\n[Opening "reroll"]\n[Custom-Tag_2 "x"]\n\n1. 6-5: 24/13',
        strict=True,
    )
    assert record.tags == {
        "Event": 'Le "grand" tournoi \\ Paris',
        "White": "محمد علي",
        "Black": "Γεώργιος",
        "Blocks": "variable-1",
        "Opening": "reroll",
        "Custom-Tag_2": "x",
    }
    assert list(record.tags) == ["Event", "White", "Black", "Blocks", "Opening", "Custom-Tag_2"]
    assert record.tag_spans["White"] == Span(2, 1, 2, 18)


def test_match_header() -> None:
    record = parse_game('[Match "7"]\n[Game "3"]\n[Score "2-1"]\n1. 6-5: 24/13', strict=True)
    header = record.match_header()
    assert header is not None
    assert (header.length, header.game, header.score) == (7, 3, (2, 1))
    assert parse_game("1. 6-5: 24/13").match_header() is None


@pytest.mark.parametrize(
    ("tag", "message"),
    [
        ('[Date "1818"]', "expected a date such as 1818.??.??"),
        ('[Match "seven"]', "expected a match length in points"),
        ('[Score "2:1"]', "expected a score before the game"),
        ('[Result "won"]', "expected a result such as 2-0 or *"),
    ],
)
def test_checked_tag_values(tag: str, message: str) -> None:
    record = parse_game(tag + "\n1. 6-5: 24/13")
    assert [e.message.splitlines()[0].startswith(message) for e in record.errors] == [True]
    assert record.errors[0].column is not None and record.errors[0].column > 1


def test_partial_dates_are_fine() -> None:
    for date in ("1818.??.??", "????.??.??", "1818.04.??", "1818.04.12"):
        assert parse_game(f'[Date "{date}"]', strict=True).tags["Date"] == date


def test_comments_annotations_glyphs() -> None:
    record = parse_game(
        "{Before the game.}\n1. 6-5: 24/18 24/19!? $1 $14 {a comment\nover two lines} "
        "; and one to the end of the line\n5-3: 24/21 24/19 ?? 2-0 {after the result}",
        strict=True,
    )
    assert record.comments == ["Before the game."]
    white, black = record.plays
    assert white.annotation == "!?" and white.nags == (1, 14)
    assert white.comments == ("a comment\nover two lines", "and one to the end of the line")
    assert black.annotation == "??" and black.comments == ("after the result",)
    assert record.result == "2-0"


def test_variations_nest_and_number_like_the_play_they_replace() -> None:
    record = parse_game(
        "1. 6-5: 24/18 24/19 (1. 6-5: 24/13 ({or} 6-5: 24/18/13)) 5-3: 24/21 24/19 "
        "(1... 5-3: 24/16 {the alternative})",
        strict=True,
    )
    white, black = record.plays
    (alternative,) = white.variations
    assert [(p.side, p.turn, p.moves) for p in alternative] == [("white", 1, (Move(24, 13),))]
    (nested,) = alternative[0].variations
    assert nested[0].comments_before == ("or",)
    assert nested[0].moves == (Move(24, 18), Move(18, 13))
    assert black.variations[0][0].side == "black"
    assert black.variations[0][0].comments == ("the alternative",)


def test_a_variation_must_start_where_the_play_it_replaces_starts() -> None:
    record = parse_game("1. 6-5: 24/18 24/19 (2. 6-5: 24/13)")
    assert record.errors[0].message.startswith("expected turn 1., found 2.")


@pytest.mark.parametrize("result", ["2-0", "0-1", "1-0", "0-2", "3-0", "0-3", "*", "12-0"])
def test_results(result: str) -> None:
    assert parse_game(f"1. 6-5: 24/13 {result}", strict=True).result == result


def test_result_must_agree_with_the_result_tag() -> None:
    record = parse_game('[Result "2-0"]\n1. 6-5: 24/13 0-2')
    assert record.errors[0].message.startswith("expected the result of the Result tag, 2-0")


def test_spans_of_plays_and_steps() -> None:
    record = parse_game('[Event "x"]\n\n1. 6-5: 24/18/13 5-3: 24/21\n   24/19 2-0', strict=True)
    white, black = record.plays
    assert white.span == Span(3, 4, 3, 16)
    assert [m.span for m in white.moves] == [Span(3, 9, 3, 13), Span(3, 12, 3, 16)]
    assert black.span == Span(3, 18, 4, 8)
    assert [m.span for m in black.moves] == [Span(3, 23, 3, 27), Span(4, 4, 4, 8)]
    assert black.text == "5-3: 24/21\n   24/19"
    assert record.span == Span(1, 1, 4, 12)


def test_spans_count_from_the_start_of_the_file() -> None:
    games = list(read_games(DATA / "club.jqt"))
    second = games[1]
    assert second.tag_spans["Event"].line == 23
    assert second.plays[0].span == Span(35, 8, 35, 20)
    assert second.text.startswith('[Event "Match à Istanbul"]')
    assert second.text.endswith("0-3")
    assert [g.index for g in games] == [1, 2, 3]
    assert {g.file for g in games} == {str(DATA / "club.jqt")}


def test_several_games_a_file_split_at_results_and_tags() -> None:
    text = (
        "1. 6-5: 24/13 2-0\n"  # a game without tags ends at its result
        "1. 5-3: 24/16 0-1\n"
        '[Event "no result"]\n1. 4-1: 24/20 24/23\n'
        '[Event "next"]\n1. 2-1: 24/22 24/23\n'
    )
    games = parse_games(text)
    assert [len(g.plays) for g in games] == [1, 1, 1, 1]
    assert [g.result for g in games] == ["2-0", "0-1", None, None]
    assert all(not g.errors for g in games)


def test_a_result_at_the_end_of_a_line_does_not_end_the_game_if_the_play_goes_on() -> None:
    games = parse_games("1. 6-5\n24/18 24/19\n")
    assert len(games) == 1
    assert games[0].errors[0].message.startswith("expected a colon after the dice")


def test_tags_with_no_moves_between_them_begin_a_new_game_when_a_tag_repeats() -> None:
    games = parse_games('[Event "a"]\n\n[Event "b"]\n1. 6-5: 24/13\n')
    assert [g.tags["Event"] for g in games] == ["a", "b"]


def test_utf8_bom_and_crlf() -> None:
    (game,) = read_games(DATA / "bom_crlf.jqt")
    assert not game.errors
    assert game.tags["Black"] == "Jérôme Lefèvre"
    assert "\r" not in game.text
    assert game.plays[1].comments == ()


def test_latin1_needs_its_encoding() -> None:
    (wrong,) = read_games(DATA / "latin1.jqt")
    first = wrong.errors[0]
    assert first.message.startswith("expected text in utf-8, found the byte e9 at offset 109")
    assert (first.line, first.column) == (2, 32)
    (right,) = read_games(DATA / "latin1.jqt", encoding="latin-1")
    assert not right.errors and right.tags["Black"] == "Jérôme Lefèvre"
    (utf8,) = read_games(DATA / "bom_crlf.jqt")
    assert right == utf8


def test_unknown_or_unsupported_encodings() -> None:
    with pytest.raises(NotationError, match="unknown encoding"):
        list(read_games(io.BytesIO(b"1. 6-5: 24/13"), encoding="klingon"))
    with pytest.raises(NotationError, match="ASCII-compatible"):
        list(read_games(io.BytesIO(b"1. 6-5: 24/13"), encoding="utf-16"))


def test_a_binary_file_is_refused_clearly() -> None:
    data = b'[Event "x"]\n1. 6-5: 24/13\n\x00\x01\x02binary'
    with pytest.raises(NotationError, match="not a text file: a NUL byte at offset 26") as error:
        list(read_games(io.BytesIO(data), "blob.bin"))
    assert (error.value.file, error.value.line, error.value.column) == ("blob.bin", 3, 1)


def test_text_streams_are_read_too() -> None:
    games = list(read_games(io.StringIO("\ufeff1. 6-5: 24/13 2-0\r\n1. 5-3: 24/16 0-1\r\n")))
    assert [g.result for g in games] == ["2-0", "0-1"]


def test_strict_raises_the_first_error_with_its_place() -> None:
    text = "1. 6-5: 24/13 2-0\n\n1. 6-5: 24/13 5-3: 24/27 0-1\n"
    with pytest.raises(NotationError) as error:
        parse_games(text, "x.jqt", strict=True)
    assert (error.value.file, error.value.game, error.value.line, error.value.column) == (
        "x.jqt",
        2,
        3,
        23,
    )
    assert isinstance(error.value, JacquetError) and isinstance(error.value, ValueError)


def test_a_record_with_an_error_keeps_its_tags_and_text() -> None:
    (game,) = parse_games('[Event "e"]\n[White "w"]\n\n1. 6-5: 24/18 $$ 24/19\n2-0')
    assert game.tags == {"Event": "e", "White": "w"}
    assert game.text == '[Event "e"]\n[White "w"]\n\n1. 6-5: 24/18 $$ 24/19\n2-0'
    assert game.errors and not game.is_valid


def test_large_numbers_are_errors_not_crashes() -> None:
    digits = "9" * 5000
    game = parse_game(f"{digits}. {digits}-1: {digits}/1({digits}) $ {digits}")
    assert game.errors
    assert all(e.line is not None and e.column is not None for e in game.errors)


def test_write_game_of_a_parsed_record_is_stable() -> None:
    for game in read_games(DATA / "club.jqt"):
        text = write_game(game)
        again = parse_game(text, strict=True)
        assert again == game
        assert write_game(again) == text


def test_the_fast_lexer_knows_every_terminal_and_agrees_with_larks_own() -> None:
    from lark import Lark

    from jacquet_notation.notation.grammar import FirstCharacterLexer, grammar_file, parser

    # the terminals of records; those of the words (all inlined, "_"-named) are never tokens
    names = {t.name for t in parser().terminals if not t.name.startswith("_")}
    named = {n for names_ in FirstCharacterLexer.FIRST.values() for n in names_} | set(
        FirstCharacterLexer.OTHERS
    )
    assert named == names
    reference = Lark(grammar_file().read_text("utf-8"), parser="lalr", lexer="contextual")
    for path in sorted(DATA.glob("*.jqt")):
        text = path.read_bytes().decode("utf-8", "replace").replace("\r\n", "\n")
        for chunk in text.split("\n\n"):
            try:
                expected = [(t.type, str(t), t.line, t.column) for t in reference.lex(chunk)]
            except Exception:
                continue
            mine = parser().parser.lexer.lex(_lexer_state(chunk), _AnyState())
            assert [(t.type, str(t), t.line, t.column) for t in mine] == expected


class _AnyState:
    """A parser state for lexing alone (only read when a character cannot be lexed)."""


def _lexer_state(text: str) -> object:
    from lark.lexer import LexerState
    from lark.utils import TextSlice

    return LexerState(TextSlice.cast_from(text))


@pytest.mark.parametrize("block", [1, 7, 64, 1 << 14])
def test_decoding_by_blocks_of_any_size_gives_the_same_games(
    block: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    import jacquet_notation.notation.decoding as notation

    expected = {}
    for path in sorted(DATA.glob("*.jqt")):
        expected[path.name] = [(g, g.text, [str(e) for e in g.errors]) for g in read_games(path)]
    monkeypatch.setattr(notation, "_BLOCK", block)
    for path in sorted(DATA.glob("*.jqt")):
        got = [(g, g.text, [str(e) for e in g.errors]) for g in read_games(path)]
        assert got == expected[path.name], path.name
    data = b'[Event "x"]\r\n1. 6-5: 24/13\r\n\xe9\x00'
    with pytest.raises(NotationError, match="NUL byte at offset 29") as error:
        list(read_games(io.BytesIO(data)))
    assert (error.value.line, error.value.column) == (3, 2)


def test_an_overlong_line_is_refused_before_it_fills_memory(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import jacquet_notation.notation.decoding as notation

    monkeypatch.setattr(notation, "MAX_LINE", 50)
    monkeypatch.setattr(notation, "_BLOCK", 16)
    data = b"1. 6-5: 24/13 2-0\n" + b"x" * 200 + b"\n"
    with pytest.raises(NotationError, match="line 2 is longer than 50 characters") as error:
        list(read_games(io.BytesIO(data)))
    assert error.value.line == 2


def test_a_second_pass_after_dice_is_the_next_play() -> None:
    # Found by hypothesis: "1-1: pass pass" once lost Black's dice-less pass.
    record = parse_game("1. 1-1: pass pass *")
    assert [(p.side, p.dice) for p in record.plays] == [("white", (1, 1)), ("black", None)]
    assert write_game(parse_game(write_game(record))) == write_game(record)


def test_larks_interactive_parser_gives_the_lexers_error_its_state() -> None:
    # The one seam with Lark's internals (grammar.parse): a character the custom lexer cannot
    # read is raised before the parser knows of it; Lark attaches its interactive parser, whose
    # state and choices() make the "expected ..." message. This fails if Lark changes that.
    from lark.exceptions import UnexpectedCharacters

    from jacquet_notation.notation.grammar import parse

    with pytest.raises(UnexpectedCharacters) as error:
        parse('[Event "x"]\n1. 6-5: 24/18 24/19 %')
    assert error.value.state is error.value.interactive_parser.parser_state
    assert {"TURN", "PLAY", "RESULT"} <= set(error.value.allowed)
    message = parse_game('[Event "x"]\n1. 6-5: 24/18 24/19 %').errors[0].message
    assert message.startswith("expected a comment, a turn number such as 12., a play such as")


def test_the_grammar_is_compiled_once_and_not_at_import() -> None:
    code = (
        "import lark\n"
        "built = []\n"
        "init = lark.Lark.__init__\n"
        "lark.Lark.__init__ = lambda self, *a, **k: (built.append(1), init(self, *a, **k))[1]\n"
        "from jacquet_notation.notation import parse_game, terminal\n"
        "assert built == [], 'compiled at import'\n"
        "parse_game('1. 6-5: 24/18 24/19 %')\n"
        "terminal('_STEP')\n"
        "print(len(built))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "1"


def test_the_tag_pattern_and_the_result_check_are_the_grammars() -> None:
    import re

    from jacquet_notation.notation import terminal
    from jacquet_notation.notation.tags import tag_pattern

    tag = re.compile(terminal("TAG"))  # one tag or more
    texts = ['[Event "x"]', '[A "x \\" y"]', '[9 "x"]', "[A x]", '[A-b_c  "v"]', '[A "a\\"]']
    for text in [*texts, '[ A "v" ]', '[A "v"\t]', '[A "\\\\"]', '[A\t"v"]']:
        found = tag_pattern().match(text)
        assert (found is not None and text[found.end() :] == "]") == bool(tag.fullmatch(text))
    # a [Result] tag holds what the grammar's RESULT reads, numbers of at most 9 digits
    for result, valid in [
        ("2-0", True),
        ("*", True),
        ("123456789-0", True),
        ("1234567890-0", False),
    ]:
        game = parse_game(f'[Result "{result}"]\n1. 6-5: 24/13 {result}')
        assert any("a result such as 2-0" in str(e) for e in game.errors) != valid, result
