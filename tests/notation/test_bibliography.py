"""The bibliographic tags (docs/notation.md, "Sources"): their order in the canonical form, the
citation a source is filed under, and the order of pages and plates."""

from __future__ import annotations

import pytest
from helpers import generated

from jacquet_notation.bibliography import SOURCE_TAGS, citation, page_order, source_name
from jacquet_notation.notation import parse_game, write_game


@pytest.mark.parametrize(
    ("page", "order"),
    [
        ("42", 42),
        ("p. 42", 42),
        ("pp. 42-43", 42),
        ("pl. III", 3),
        ("Plate xiv", 14),
        ("pl. IV.", 4),
        ("frontispiece", None),
        ("", None),
        (None, None),
        ("p. ٤٢", None),  # not ASCII digits: no number (numerals.ascii_int)
        ("p. " + "9" * 30, None),  # past the digits a number may have
    ],
)
def test_page_order(page: str | None, order: int | None) -> None:
    assert page_order(page) == order


def test_pages_and_plates_sort_in_the_books_order() -> None:
    pages = ["p. 12", "pl. III", "p. 4", "frontispiece", "p. 100"]
    ranked = sorted(pages, key=lambda p: (page_order(p) is None, page_order(p) or 0, p))
    assert ranked == ["pl. III", "p. 4", "p. 12", "p. 100", "frontispiece"]


def test_citation_and_the_source_a_game_is_filed_under() -> None:
    assert citation("Marchand", "Recueil de parties", "1821") == (
        "Marchand, Recueil de parties (1821)"
    )
    assert citation(None, "Recueil", None) == "Recueil"
    assert citation("Marchand", None, "1821") == "Marchand (1821)"
    assert citation(None, " ", "?") is None
    parts = {"SourceAuthor": "Marchand", "SourceTitle": "Recueil de parties"}
    assert source_name(parts) == "Marchand, Recueil de parties"
    assert source_name({**parts, "Source": "Le Jacquet, 1820"}) == "Le Jacquet, 1820"
    assert source_name({"Source": "  "}) is None


def test_the_writer_puts_the_source_tags_last_in_their_order() -> None:
    record = generated(1)[0]
    record.tags.clear()
    record.tags.update(
        {
            "Annotator": "A",
            "SourcePage": "p. 4",
            "White": "W",
            "SourceYear": "1821",
            "Transcriber": "T",
            "SourceTitle": "Recueil",
            "Black": "B",
            "Source": "Le Jacquet",
            "SourceAuthor": "Marchand",
            "Opening": "ordinary",
        }
    )
    written = write_game(record)
    names = [line[1:].split(" ")[0] for line in written.splitlines() if line.startswith("[")]
    assert names == ["White", "Black", "Opening", *SOURCE_TAGS, "Transcriber", "Annotator"]
    assert parse_game(written).tags == record.tags
