"""Write backgammon records as gnubg's SGF (one game tree a game, FF[4], GM[6]), as gnubg loads
it with ``load match``.

An exporter: it reads replayed games, for what the record leaves to the rules (a result on a
game not over is a resignation, gnubg's ``RE[W+2R]``; the ``[Position]`` tag as gnubg's
``AE``/``AW``/``AB``; the Crawford game, ``RU[Crawford:CrawfordGame]``). The moves are written
as the record has them (gnubg applies each pair of letters as it stands), each repeat of
``13/11(2)`` a pair of its own. What :mod:`.notation.sgf_reader` reads back is the same games
(a test checks it over the shared match files); docs/notation.md, "gnubg's SGF", says what is
left out.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from . import __version__
from .engine import Step
from .errors import NotationError
from .match import is_crawford_game, outcome
from .notation import split_matches
from .numerals import ascii_int
from .position import Position
from .record import BAR, OFF, GameRecord, Side, WrittenPlay
from .replay import replay

#: the tags written as the root's own properties (and those the reader makes from the root)
_ROOT_TAGS = {
    "Event": "EV",
    "Round": "RO",
    "Site": "PC",
    "Annotator": "AN",
    "WhiteElo": "WR",
    "BlackElo": "BR",
}
#: the tags the root says in its own way; any other tag goes into ``GC`` as ``[Name "value"]``,
#: as gnubg keeps a match file's header lines it has no property for
_SAID = {
    "Rules",
    "Match",
    "Game",
    "Score",
    "White",
    "Black",
    "Date",
    "Crawford",
    "Jacoby",
    "Cube",
    "Position",
    "Dice",
    "Result",
    *_ROOT_TAGS,
}


#: the rolls the replay found a play without dice fits
Rolls = tuple[tuple[int, int], ...]


def letter(point: int, side: Side) -> str:
    """A point of the mover's own numbering as gnubg's letter (``y`` the bar, ``z`` off)."""
    if point == BAR:
        return "y"
    if point == OFF:
        return "z"
    return chr(96 + point) if side == "white" else chr(121 - point)


def escape(value: str) -> str:
    """A property's value as SGF holds it: ``\\`` and ``]`` escaped."""
    return value.replace("\\", "\\\\").replace("]", "\\]")


def _fail(record: GameRecord, message: str, play: WrittenPlay | None = None) -> NotationError:
    line = (play.span.line if play is not None else record.span.line) or None
    return NotationError(message, file=record.file, game=record.index, line=line)


def _check(record: GameRecord) -> None:
    if record.errors:
        raise _fail(record, "a game with errors cannot be written as SGF")
    rules = record.tags.get("Rules", "")
    if rules != "backgammon":
        raise _fail(
            record, f"gnubg's SGF holds backgammon games only (this game's Rules: \"{rules}\")"
        )


def _moves(record: GameRecord, play: WrittenPlay, steps: tuple[Step, ...] | None) -> str:
    """The play's moves as gnubg's pairs of letters: one a die, from the replayed play's steps
    (``24/13`` with 6-5 as the two steps the replay settled); as written where it has none."""
    if steps is not None:
        pairs = [letter(step.start, play.side) + letter(step.end, play.side) for step in steps]
    else:
        pairs = [
            letter(move.start, play.side) + letter(move.end, play.side)
            for move in play.moves
            for _ in range(move.count)
        ]
    if len(pairs) > 4:
        raise _fail(record, f"{play.text or 'a play'}: more than four moves for gnubg", play)
    return "".join(pairs)


def _node(
    record: GameRecord,
    play: WrittenPlay,
    steps: tuple[Step, ...] | None,
    rolls: Rolls,
    unplayed: bool = False,
) -> str:
    """One ply's node: a roll with its pairs of letters (none for a pass), a cube action, or a
    roll whose play is not given as gnubg's dice set (``PL[W]DI[63]``): an ``unknown`` play,
    and the roll the replay kept ``unplayed`` at the game's end (``63: ????``), which gnubg's
    import of a match file and its ``save match`` keep as dice set. A play written without dice
    takes the roll the replay inferred (``rolls``), where it found one only."""
    colour = "B" if play.side == "black" else "W"
    if play.variations:
        raise _fail(record, "gnubg's SGF has no variations here: remove them first", play)
    if play.opponent_moves:
        raise _fail(record, "gnubg's SGF has no opponent's share of the dice", play)
    if play.action == "beaver":
        raise _fail(record, "gnubg's SGF has no beaver", play)
    if play.action in ("double", "take", "drop"):
        node = f";{colour}[{play.action}]"
    elif play.dice is None and len(rolls) != 1:
        message = "gnubg's SGF needs every roll's dice: this play has none, nor one roll it fits"
        raise _fail(record, message, play)
    else:
        high, low = play.dice or rolls[0]
        if play.action == "unknown" or unplayed:
            node = f";PL[{colour}]DI[{high}{low}]"
        else:
            node = f";{colour}[{high}{low}{_moves(record, play, steps)}]"
    comments = "\n".join(play.comments)
    return node + (f"C[{escape(comments)}]" if comments else "")


def _setup(position: Position) -> str:
    """A set position as gnubg's setup node: who is on roll, the board cleared, every man; as
    gnubg loads it, ``AW`` the men of the side on roll (``a`` its 1-point), ``AB`` the other's
    (``x`` its 1-point), whichever colour is on roll (docs/notation.md)."""
    on_roll: Side = position.turn
    other: Side = "black" if on_roll == "white" else "white"
    parts = [f";PL[{'B' if on_roll == 'black' else 'W'}]AE[a:y]"]
    roles: tuple[tuple[Side, Side, str], ...] = ((on_roll, "white", "AW"), (other, "black", "AB"))
    for side, lettering, name in roles:
        men = position.men(side)
        points = [(point, count) for point, count in men.items() if count]
        letters = [letter(p, lettering) for p, count in sorted(points) for _ in range(count)]
        letters += ["y"] * position.bar(side)
        if letters:
            parts.append(name + "".join(f"[{c}]" for c in letters))
    return "".join(parts)


def _root(
    record: GameRecord, number: int, score: tuple[int, int], crawford_game: bool, resigned: int
) -> str:
    """The game's root node: match, players, the match's tags, rules, result (``resigned``: the
    cube of a game resigned, 0 for one played out or dropped)."""
    tags = record.tags
    length = ascii_int(tags.get("Match", "")) or 0
    parts = [
        f"(;FF[4]GM[6]CA[UTF-8]AP[jacquet-notation:{__version__}]",
        f"MI[length:{length}][game:{number}][ws:{score[0]}][bs:{score[1]}]",
        f"PW[{escape(tags.get('White', ''))}]PB[{escape(tags.get('Black', ''))}]",
    ]
    for tag, name in _ROOT_TAGS.items():
        if tags.get(tag):
            parts.append(f"{name}[{escape(tags[tag])}]")
    date = tags.get("Date", "")
    pieces = [ascii_int(piece) for piece in date.split(".")]
    if len(pieces) == 3 and None not in pieces:
        parts.append(f"DT[{pieces[0]:04}-{pieces[1]:02}-{pieces[2]:02}]")
    kept = [f'[{name} "{value}"]' for name, value in tags.items() if name not in _SAID]
    comment = "\n".join([*record.comments, *kept])
    if comment:
        parts.append(f"GC[{escape(comment)}]")
    rules = []
    if tags.get("Cube", "").lower() == "off":
        rules.append("NoCube")
    if tags.get("Crawford", "").strip().lower() in ("on", "yes", "true", "1"):
        rules.append("Crawford")
        if crawford_game:
            rules.append("CrawfordGame")
    if tags.get("Jacoby", "").strip().lower() in ("on", "yes", "true", "1"):
        rules.append("Jacoby")
    if rules:
        parts.append(f"RU[{':'.join(rules)}]")
    result = record.result or ""
    white, dash, black = result.partition("-")
    white_points, black_points = ascii_int(white) or 0, ascii_int(black) or 0
    if dash and max(white_points, black_points) > 0:
        winner = "W" if white_points > 0 else "B"
        won = max(white_points, black_points)
        if resigned:
            # gnubg keeps a resignation as 1, 2 or 3 times the cube (RE's points over the cube,
            # rounded down) and its import of a match file rounds a match-winning one up: 3
            # points at a cube of 2 are a gammon's 4 to gnubg
            won = resigned * min(3, -(-won // resigned))
        parts.append(f"RE[{winner}+{won}{'R' if resigned else ''}]")
    return "".join(parts)


def write_sgf_match(records: list[GameRecord]) -> str:
    """One match (its games in order) as gnubg's SGF: a game tree a game."""
    for record in records:
        _check(record)
    trees = []
    score = (0, 0)
    previous: tuple[int, int] | None = None
    for number, record in enumerate(records):
        written = record.tags.get("Score", "")
        white, dash, black = written.partition("-")
        if dash and ascii_int(white) is not None and ascii_int(black) is not None:
            score = (ascii_int(white) or 0, ascii_int(black) or 0)
        game = replay(record)
        length = ascii_int(record.tags.get("Match", "")) or 0
        crawford = record.tags.get("Crawford", "").strip().lower() in ("on", "yes", "true", "1")
        crawford_game = is_crawford_game(crawford, length, score, previous)
        ended = outcome(game)
        resigned = ended.cube if ended.ending == "resignation" else 0
        nodes = [_root(record, number, score, crawford_game, resigned)]
        if game.set_position is not None:
            nodes.append(_setup(game.set_position))
        steps: list[tuple[Step, ...] | None] = [None] * len(record.plays)
        rolls: list[Rolls] = [()] * len(record.plays)
        unplayed = [False] * len(record.plays)
        if len(game.plies) == len(record.plays):
            steps = [ply.play.steps if ply.play is not None else None for ply in game.plies]
            rolls = [ply.rolls for ply in game.plies]
            unplayed = [ply.unplayed for ply in game.plies]
        nodes += [
            _node(record, play, steps[i], rolls[i], unplayed[i])
            for i, play in enumerate(record.plays)
        ]
        trees.append("\n".join(nodes) + ")\n")
        previous = score
        if ended.winner is not None and ended.points:
            won = ended.points
            score = (
                (score[0] + won, score[1])
                if ended.winner == "white"
                else (score[0], score[1] + won)
            )
    return "".join(trees)


def write_sgf_matches(records: Iterable[GameRecord]) -> Iterator[str]:
    """Each match of the records (``split_matches``, as ``--mat`` cuts them) as SGF."""
    for match in split_matches(records):
        yield write_sgf_match(match)


__all__ = ["escape", "letter", "write_sgf_match", "write_sgf_matches"]
