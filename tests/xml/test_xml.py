"""XML export and import: the schema, the round trip, the derived data, flat memory."""

from __future__ import annotations

import io
import itertools
import tracemalloc
from collections.abc import Callable, Iterable
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from lxml import etree

from jacquet_notation.errors import NotationError
from jacquet_notation.generate import generate_records
from jacquet_notation.notation import parse_game, read_games, write_game
from jacquet_notation.record import GameRecord, Move, Span, WrittenPlay
from jacquet_notation.replay import ReplayedPly, replay
from jacquet_notation.rules import RULESET_NAMES, Rules
from jacquet_notation.xml import (
    MAX_VARIATION_DEPTH,
    NAMESPACE,
    game_element,
    read_xml,
    record_from_element,
    record_text,
    schema,
    write_xml,
)

DATA = Path(__file__).parents[1] / "data" / "notation"
NS = {"j": NAMESPACE}
HEADER = '[Event "xml"]\n[White "Ann"]\n[Black "Bob"]\n\n'


def export(records: Iterable[GameRecord], **options: object) -> bytes:
    out = io.BytesIO()
    write_xml(records, out, **options)  # type: ignore[arg-type]
    return out.getvalue()


def assert_valid(document: bytes) -> etree._Element:
    root = etree.fromstring(document)
    validator = schema()
    assert validator.validate(root), validator.error_log
    return root


def data_records() -> list[GameRecord]:
    records: list[GameRecord] = []
    for path in sorted(DATA.glob("*.jqt")):
        encoding = "latin-1" if path.name == "latin1.jqt" else "utf-8"
        records.extend(read_games(path, path.name, encoding=encoding))
    return records


def odd_records() -> list[GameRecord]:
    """Records built in code with what XML cannot carry or easily loses."""
    play = WrittenPlay(
        "white",
        1,
        (6, 5),
        (Move(24, 18), Move(24, 19, 1, True), Move(13, 7, 2)),
        annotation="!?",
        nags=(1, 300),
        comments=("a\x0bvertical tab", "back\\slash \\x41 not an escape", "  "),
        comments_before=("cr\r\nlf", ""),
        text="6-5:\x1f24/18",
        span=Span(3, 4, 3, 20),
    )
    reply = WrittenPlay("black", 1, None, (), text="pass")
    return [
        GameRecord(
            tags={"Event": " ", "White": "<script>alert(1)</script>", "Site": "tab\there\x00"},
            plays=[play, reply],
            result="*",
            comments=["game \ufffe comment", "emoji 🎲"],
            file="dir\\with\nnewline\x01.jqt",
            index=7,
            span=Span(1, 1, 9, 2),
        ),
        GameRecord(tags={}, plays=[], result=None, index=0),
    ]


def test_namespace_and_shape() -> None:
    records = list(generate_records(2, 3, Rules.named("jacquet")))
    root = assert_valid(export(records))
    assert root.tag == f"{{{NAMESPACE}}}games"
    assert root.nsmap == {None: NAMESPACE}
    assert root.get("version") == "1"
    games = root.findall("j:game", NS)
    assert len(games) == 2
    assert [g.get("status") for g in games] == ["valid", "valid"]
    # each game inherits the namespace rather than declaring it again
    assert b"<game xmlns" not in export(records)
    first = games[0]
    assert [t.get("name") for t in first.findall("j:tags/j:tag", NS)][:2] == ["Event", "Site"]
    assert first.find("j:rules", NS).get("name") == "jacquet"  # type: ignore[union-attr]
    options = {o.get("name"): o.get("value") for o in first.findall("j:rules/j:option", NS)}
    assert options == {k: v for k, v in Rules.named("jacquet").options().items() if k != "ruleset"}
    assert len(first.findall("j:plays/j:play", NS)) == len(records[0].plays)


@pytest.mark.parametrize("name", RULESET_NAMES)
def test_generated_games_validate_and_round_trip(name: str) -> None:
    records = list(generate_records(4, 17, Rules.named(name), "greedy"))
    document = export(records)
    assert_valid(document)
    back = list(read_xml(io.BytesIO(document)))
    assert back == records
    assert export(back) == document


def test_data_files_validate_and_round_trip_byte_for_byte() -> None:
    generated = generate_records(2, 9, Rules.named("jacquet"))
    text = "\n".join(write_game(record) for record in generated)
    records = data_records() + list(read_games(io.StringIO(text), "generated.jqt"))
    document = export(records)
    root = assert_valid(document)
    assert {g.get("status") for g in root} == {"valid", "invalid", "unreadable"}
    back = list(read_xml(io.BytesIO(document), "doc.xml"))
    assert back == records
    for old, new in zip(records, back, strict=True):
        assert (new.file, new.index, new.span, new.text) == (
            old.file,
            old.index,
            old.span,
            old.text,
        )
        assert new.tag_spans == old.tag_spans
        assert [(e.line, e.column) for e in new.errors] == [(e.line, e.column) for e in old.errors]
        assert [p.span for p in new.plays] == [p.span for p in old.plays]
        assert [p.text for p in new.plays] == [p.text for p in old.plays]
    assert export(back) == document


def test_what_xml_cannot_carry_is_escaped_and_comes_back() -> None:
    records = odd_records()
    document = export(records)
    root = assert_valid(document)
    assert b"\x0b" not in document and b"\x00" not in document
    game = root.find("j:game", NS)
    assert game is not None and game.get("escaped") == "yes"
    site = game.find("j:tags/j:tag[@name='Site']", NS)
    assert site is not None and site.get("escaped") == "yes" and site.text == "tab\there\\x00"
    back = list(read_xml(io.BytesIO(document)))
    assert back == records
    first = back[0]
    assert first.file == records[0].file
    assert first.tags["Site"] == "tab\there\x00"
    assert first.plays[0].comments == ("a\x0bvertical tab", "back\\slash \\x41 not an escape", "  ")
    assert first.plays[0].comments_before == ("cr\r\nlf", "")
    assert first.plays[0].text == "6-5:\x1f24/18"
    assert first.plays[0].span == Span(3, 4, 3, 20)
    assert first.tags["Event"] == " "
    assert export(back) == document


def test_imported_games_replay_to_the_exported_positions() -> None:
    records = list(generate_records(3, 5, Rules.named("murray"), "random"))
    records.append(parse_game(HEADER + "1. 6-5: 24/13 (1. 6-5: 24/18 24/19) 4-3: 24/17 *"))
    document = export(records)
    root = assert_valid(document)
    for element, record in zip(root, read_xml(io.BytesIO(document)), strict=True):
        written = [r.get("position-after") for r in element.iterfind(".//j:resolved", NS)]
        game = replay(record)
        keys: list[str] = []

        def walk(plies: list[ReplayedPly], keys: list[str] = keys) -> None:
            for ply in plies:
                if ply.after is not None:
                    keys.append(ply.after.key())
                for branch in ply.variations:
                    walk(branch)

        walk(game.plies)
        assert written == keys and keys
        final = element.find("j:outcome", NS)
        assert final is not None and final.get("final-position") == game.final.key()


def test_a_combined_move_is_resolved_into_steps() -> None:
    record = parse_game(HEADER + "1. 6-5: 24/13 *")
    element = game_element(record)
    (play,) = element.findall("j:plays/j:play", NS)
    assert [(m.get("from"), m.get("to")) for m in play.findall("j:move", NS)] == [("24", "13")]
    steps = play.findall("j:resolved/j:step", NS)
    assert len(steps) == 2
    assert {s.get("die") for s in steps} == {"6", "5"}
    assert steps[0].get("from") == "24" and steps[-1].get("to") == "13"
    assert play.find("j:written", NS).text == "6-5: 24/13"  # type: ignore[union-attr]


def test_an_illegal_play_is_exported_with_its_error_and_the_rest_of_the_game() -> None:
    text = HEADER + "1. 6-5: 24/13 4-3: 24/20 24/21\n2. 6-1: 13/7 13/12 *"
    record = parse_game(text, file="t.jqt")
    element = game_element(record)
    assert element.get("status") == "invalid"
    plays = element.findall("j:plays/j:play", NS)
    assert len(plays) == 3
    assert plays[0].find("j:resolved", NS) is not None
    error = plays[1].find("j:error", NS)
    assert error is not None
    assert error.get("kind") == "illegal-play"
    assert (error.get("line"), error.get("column")) == ("5", "26")  # the step 24/21
    assert "courier" in (error.findtext("j:message", namespaces=NS) or "")
    assert error.findall("j:legal-play", NS)
    assert plays[1].find("j:resolved", NS) is None
    assert plays[2].find("j:resolved", NS) is None and plays[2].find("j:error", NS) is None
    # the play's error is not repeated among the game's errors
    assert element.find("j:errors", NS) is None


def test_an_unreadable_game_keeps_its_text_and_syntax_errors() -> None:
    text = HEADER + "1. 6-5 24/18 24/19 *"
    record = parse_game(text, file="bad.jqt")
    assert record.errors
    element = game_element(record, source_text=False)
    assert element.get("status") == "unreadable"
    assert element.findtext("j:source-text", namespaces=NS) == record.text
    (error,) = element.findall("j:errors/j:error", NS)
    assert error.get("kind") == "syntax"
    assert (int(error.get("line", "0")), int(error.get("column", "0"))) == (
        record.errors[0].line,
        record.errors[0].column,
    )
    back = record_from_element(element)
    assert isinstance(back.errors[0], NotationError)
    assert back.errors[0].message == record.errors[0].message.splitlines()[0]
    assert record_text(back) == record.text + "\n"  # written back as found, nothing lost


def test_source_text_can_be_left_out_of_readable_games() -> None:
    record = parse_game(HEADER + "1. 6-5: 24/18 24/19 *")
    assert game_element(record).find("j:source-text", NS) is not None
    assert game_element(record, source_text=False).find("j:source-text", NS) is None


def test_forced_rules_are_recorded() -> None:
    record = parse_game(HEADER + "1. 6-5: 24/18 24/19 *")
    element = game_element(record, Rules.named("bouchon"))
    assert element.find("j:rules", NS).get("name") == "bouchon"  # type: ignore[union-attr]


def test_variations_deeper_than_the_format_are_kept_as_text() -> None:
    text = "1. 6-5: 24/18 24/19"
    for _ in range(MAX_VARIATION_DEPTH + 5):
        text = f"1. 6-5: 24/18 24/19 ({text})"
    record = parse_game(HEADER + text + " *")
    assert not record.errors
    document = export([record])
    root = assert_valid(document)
    game = root[0]
    assert game.get("status") == "unreadable"
    assert "nested" in (game.findtext("j:errors/j:error/j:message", namespaces=NS) or "")
    assert game.findtext("j:source-text", namespaces=NS) == record.text
    (back,) = read_xml(io.BytesIO(document))
    assert parse_game(record_text(back)) == record
    assert export([back]) == document
    # one level less is kept as elements
    shallow = "1. 6-5: 24/18 24/19"
    for _ in range(MAX_VARIATION_DEPTH - 1):
        shallow = f"1. 6-5: 24/18 24/19 ({shallow})"
    shallow_record = parse_game(HEADER + shallow + " *")
    (again,) = read_xml(io.BytesIO(export([shallow_record])))
    assert again == shallow_record


def _peak(run: Callable[[], object]) -> int:
    tracemalloc.start()
    try:
        run()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


class _Discard(io.RawIOBase):
    """A binary sink that keeps nothing, so that only the exporter's memory is measured."""

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        return len(data)


@pytest.mark.slow
def test_export_and_import_memory_stays_flat(tmp_path: Path) -> None:
    # tracemalloc slows every allocation: few games, but ten times as many in the second run
    records = list(generate_records(10, 2, Rules.named("jacquet")))
    small, large = 8, 80

    def games(count: int) -> Iterable[GameRecord]:
        return itertools.islice(itertools.cycle(records), count)

    # warm the caches (parsers, schema) outside the measurement
    write_xml(games(2), _Discard())
    list(read_xml(io.BytesIO(export(games(2)))))

    export_small = _peak(lambda: write_xml(games(small), _Discard()))
    export_large = _peak(lambda: write_xml(games(large), _Discard()))
    assert export_large < export_small * 1.5 + 200_000, (export_small, export_large)

    paths = {}
    for count in (small, large):
        paths[count] = tmp_path / f"{count}.xml"
        with open(paths[count], "wb") as out:
            write_xml(games(count), out)

    def read(count: int) -> None:
        for _ in read_xml(paths[count]):
            pass

    import_small = _peak(lambda: read(small))
    import_large = _peak(lambda: read(large))
    assert import_large < import_small * 1.5 + 200_000, (import_small, import_large)


# -- properties: whatever the reader makes of any text exports, validates and round-trips ----

_CHARACTERS = '0123456789/-:.*()[]{}";!?$ \n\t\r\x0b\x1f\\barofps\xe9\ufffe'
_SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _round_trip(data: bytes) -> None:
    records = list(read_games(io.BytesIO(data), "fuzz.jqt", encoding="latin-1"))
    document = export(records)
    assert_valid(document)
    back = list(read_xml(io.BytesIO(document)))
    assert back == records
    assert [r.text for r in back] == [r.text for r in records]
    assert [[str(e) for e in r.errors] for r in back] == [
        [str(e).splitlines()[0] for e in r.errors] for r in records
    ]
    assert export(back) == document


@_SETTINGS
@given(st.text(alphabet=_CHARACTERS, max_size=200))
def test_any_text_round_trips(text: str) -> None:
    _round_trip(text.encode("utf-8", "surrogatepass"))


@_SETTINGS
@given(st.text(max_size=120))
def test_any_tag_value_and_comment_round_trips(value: str) -> None:
    record = GameRecord(
        tags={"Event": value},
        plays=[WrittenPlay("white", 1, (6, 5), (Move(24, 13),), comments=(value,))],
        comments=[value],
        result=value,
        file=value or None,
    )
    document = export([record])
    assert_valid(document)
    (back,) = read_xml(io.BytesIO(document))
    assert back == record and back.file == record.file


def test_backgammon_plies_carry_their_gnubg_id_and_xgid_and_validate() -> None:
    """Each resolved backgammon play gives the position after it as gnubg's Position ID and an
    XGID beside our key; the schema accepts them; a Jacquet play carries neither."""
    from jacquet_notation.position import Position
    from jacquet_notation.position_ids import gnubg_id, xgid

    corpus = Path(__file__).parents[2] / "corpus" / "valid"
    for name in ("backgammon.jqt", "jacquet.jqt"):
        root = assert_valid(export(read_games(corpus / name)))
        resolved = root.findall(".//j:resolved", NS)
        assert resolved
        for element in resolved:
            after = Position.from_key(element.get("position-after", ""))
            if name == "jacquet.jqt":
                assert element.get("gnubg-id") is None and element.get("xgid") is None
            else:
                assert element.get("gnubg-id") == gnubg_id(after)
                assert element.get("xgid") == xgid(after)
