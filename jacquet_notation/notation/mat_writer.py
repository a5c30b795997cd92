"""Write backgammon records as Jellyfish/GNU Backgammon match files (``.mat``), as gnubg reads them.

The layout is gnubg's own export: the header's ``; [Name "value"]`` lines, ``N point match``,
then each game's ``Game N``, its score line and one numbered line a turn, Player 1 (White) on
the left. What :mod:`.mat_reader` reads from this text is the records written (a test checks
the fixed point over real files); docs/notation.md, "Match files", says what is left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ..errors import NotationError
from ..numerals import ascii_int
from ..record import GameRecord, WrittenPlay
from .mat_header import GAME_TAGS, HEADER_TAGS, MAT_RULESET

#: where Player 2's column begins, at least (gnubg's and Galaxy's 33)
COLUMN = 33
#: the tags that name the match a game belongs to: a game whose tags differ starts a new match
MATCH_KEYS = ("Match_ID", "Match", "White", "Black", "Site", "Date")
_HEADER_NAMES = {tag: name for name, tag in HEADER_TAGS.items()}
#: the header lines written first, in gnubg's order; any other tag follows in the record's order
_HEADER_FIRST = ("Site", "Match_ID", "Player_1", "Player_2")
#: what a header's value cannot hold and is written instead: a ``"`` ends the value for our
#: reader (gnubg's reads to the last one), a line break or other control character ends the line
_HEADER_CHARACTERS = str.maketrans({'"': "'", **{chr(c): " " for c in [*range(32), 127]}})
#: a score line's name cannot hold ``:`` (gnubg's and our reader end the name at the first) nor
#: ``,`` (gnubg reads the rating from the first, ours from the last): each written as ``;``
_NAME_CHARACTERS = str.maketrans({":": ";", ",": ";"})


def split_matches(records: Iterable[GameRecord]) -> Iterator[list[GameRecord]]:
    """The records in matches: a match goes on while its tags (:data:`MATCH_KEYS`) stay the same
    and its game numbers go up."""
    match: list[GameRecord] = []
    for record in records:
        if match:
            last = match[-1]
            same = all(last.tags.get(key) == record.tags.get(key) for key in MATCH_KEYS)
            if not same or _game_number(record, 0) <= _game_number(last, 0):
                yield match
                match = []
        match.append(record)
    if match:
        yield match


def _game_number(record: GameRecord, default: int) -> int:
    value = record.tags.get("Game", "")
    number = ascii_int(value)
    return default if number is None else number


def _check(record: GameRecord) -> None:
    """Only a readable backgammon record has a match file's form."""
    file, game, line = record.file, record.index, record.span.line or None
    if record.errors:
        message = "a game with errors cannot be written as a match file"
        raise NotationError(message, file=file, game=game, line=line)
    rules = record.tags.get("Rules", "")
    if rules != MAT_RULESET:
        message = f'a match file holds backgammon games only (this game\'s Rules: "{rules}")'
        raise NotationError(message, file=file, game=game, line=line)
    for play in record.plays:
        if play.variations:
            raise NotationError(
                "a match file has no variations: remove them first",
                file=record.file,
                game=record.index,
                line=play.span.line or None,
            )


def _ply(play: WrittenPlay, cube: int) -> str:
    """A ply as a column of a move line: ``53: 8/3 6/3``, `` Doubles => 2``, `` Takes``...

    ``cube`` is the value a double or beaver makes, for one that does not state it.
    """
    if play.action == "double":
        return f" Doubles => {cube}"
    if play.action == "beaver":
        return " Beavers" + (f" => {play.cube}" if play.cube is not None else "")
    if play.action == "take":
        return " Takes"
    if play.action == "drop":
        return " Drops"
    if play.dice is None:
        raise NotationError(
            "a match file writes a pass with its dice (such as 63:), not a bare pass",
            line=play.span.line or None,
        )
    dice = f"{play.dice[0]}{play.dice[1]}:"
    if play.action == "unknown":
        return dice + " ????"
    return " ".join([dice] + [move.notation() for move in play.moves])


def _points(points: int) -> str:
    return f"{points} point" if points == 1 else f"{points} points"


def write_match(records: list[GameRecord]) -> str:
    """One match (its games in order) as a match file's text."""
    for record in records:
        _check(record)
    first = records[0]
    for record in records[1:]:
        if record.tags.get("Position") != first.tags.get("Position"):
            message = (
                "a match file's set position is its header's, for every game: this game's"
                " differs from the first's (export it as a match of its own)"
            )
            raise NotationError(
                message, file=record.file, game=record.index, line=record.span.line or None
            )
    lines = [f'; [{name} "{header_value(value)}"]' for name, value in _header(first)]
    length = first.tags.get("Match", "0")
    lines += ["", f"{length} point match", ""]
    score = (0, 0)
    for record in records:
        written = record.tags.get("Score", "")
        white, dash, black = written.partition("-")
        white_score, black_score = ascii_int(white), ascii_int(black)
        if dash and white_score is not None and black_score is not None:
            score = (white_score, black_score)
        game, score = _game(record, score, ascii_int(length) or 0)
        lines += [*game, ""]
    return "\n".join(lines)


def header_value(value: str) -> str:
    """A tag's value as a header line can carry it (:data:`_HEADER_CHARACTERS`)."""
    return value.translate(_HEADER_CHARACTERS)


def player_name(name: str) -> str:
    """A player's name as both readers read it back from the score line and the header."""
    return header_value(name).translate(_NAME_CHARACTERS).strip()


def _header(record: GameRecord) -> list[tuple[str, str]]:
    tags = dict(record.tags)
    # the header names the players as the score lines do, unless the record says otherwise
    tags.setdefault("Player_1", player_name(tags.get("White", "")))
    tags.setdefault("Player_2", player_name(tags.get("Black", "")))
    names = [name for name in _HEADER_FIRST if name in tags]
    names += [name for name in tags if name not in names and name not in GAME_TAGS]
    names = [name for name in names if name not in ("Result",)]
    header = []
    for name in names:
        written = _HEADER_NAMES.get(name) or name.removeprefix("Tag_").replace("_", " ")
        header.append((written, tags[name]))
    return header


def _game(
    record: GameRecord, score: tuple[int, int], length: int
) -> tuple[list[str], tuple[int, int]]:
    """A game's lines, and the score after it."""
    number = record.tags.get("Game", str(record.index))
    white = _named(record, "White")
    left = f" {white} : {score[0]}"
    width = max(COLUMN, len(left) + 1)
    lines = [f" Game {number}", left.ljust(width) + f"{_named(record, 'Black')} : {score[1]}"]
    turns: dict[int, list[str]] = {}
    cube = 1
    for play in record.plays:
        if play.action in ("double", "beaver"):
            cube = play.cube if play.cube is not None else cube * 2
        slots = turns.setdefault(play.turn, ["", ""])
        slots[0 if play.side == "white" else 1] = _ply(play, cube)
    rows = sorted(turns.items())
    result = record.result or ""
    wins = ""
    winner = 0
    if "-" in result:
        points = [int(p) for p in result.split("-")]
        winner = 0 if points[0] > 0 else 1
        after = (score[0] + points[0], score[1] + points[1])
        wins = f"Wins {_points(points[winner])}"
        if length and after[winner] >= length:
            wins += " and the match"
        score = after
    # Player 2's Wins goes beside Player 1's last action where that line's right column is free,
    # as gnubg writes it: on a line of its own there, gnubg reads it as Player 2 doubling and
    # Player 1 resigning (docs/notation.md, "Match files")
    last = rows[-1][1] if rows else None
    beside = bool(wins) and winner == 1 and last is not None and not last[1]
    if beside and last is not None:
        last[1] = " " + wins
    elif wins and winner == 0 and last is not None and not last[1] and _ends_cube(last[0]):
        # Player 2 resigning after Player 1 took (or beavered) the cube: gnubg reads a bare Wins
        # after that line as Player 2 doubling again; Galaxy's Losses beside the take it reads
        # as the resignation, and the reader checks Losses against Wins
        last[1] = " Losses" + wins.removeprefix("Wins").removesuffix(" and the match")
    # a match file's lines are numbered from 1 whatever the first turn (a game from a set position
    # may start at any turn): the reader checks that numbering
    for line_number, (_, (white_ply, black_ply)) in enumerate(rows, 1):
        head = f"{line_number:>3}) "
        if black_ply:
            left = head + white_ply
            lines.append((left.ljust(width) if len(left) < width else left + " ") + black_ply)
        else:
            lines.append(head + white_ply)
    if wins and not beside:
        lines.append(" " * 6 + wins if winner == 0 else " " * (width + 1) + wins)
    return lines, score


def _ends_cube(ply: str) -> bool:
    """Whether a column's ply is a take or a beaver (after which the doubler rolls or resigns)."""
    return ply in (" Takes", " Beavers") or ply.startswith(" Beavers =>")


def _named(record: GameRecord, side: str) -> str:
    name = player_name(record.tags.get(side, ""))
    elo = record.tags.get(f"{side}Elo")
    return f"{name},{elo}" if elo else name


def write_matches(records: Iterable[GameRecord]) -> Iterator[str]:
    """Each match of the records (:func:`split_matches`) as a match file's text."""
    for match in split_matches(records):
        yield write_match(match)
