"""Collation: two or more transcriptions of one game (books print a game more than once, and
differently) aligned ply by ply, each ply where they differ judged in the position the agreed
line has reached, and the readings chosen merged into one record (docs/collate.md).

A reading is judged by the replay itself (a record of the line chosen so far, the reading and
the next agreed plays, replayed), so that every rule of a game from its start holds (the
opening, the lead, dice left out) and an illegal reading carries the replay's own slip. Only
the plies that differ are replayed, each from the start: the cost is the plies times the
differences, small for printings of one game.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from ..notation import play_text
from ..position import Position, Side
from ..record import POSITION_TAG, GameRecord, WrittenPlay
from ..rules import Rules
from .alignment import Key, align
from .diagnosis import find_slip
from .game import ReplayedGame
from .walk import replay

#: how many of the agreed plays after a reading are replayed to see whether it can go on
LOOKAHEAD = 4
#: the first plies, where a reading is judged in a replay from the start (the opening's and
#: the lead's rules, a tied lead's plays): past them, from the position the agreed line reached
OPENING = 8


@dataclass(frozen=True, slots=True)
class Transcription:
    """One printing of the game: its record, and the name the collation gives it."""

    name: str
    record: GameRecord


@dataclass(slots=True)
class Reading:
    """What some transcriptions give at one ply: a play, or ``text`` None for no play there."""

    text: str | None
    sources: list[str]
    play: WrittenPlay | None
    #: where the play stands in its first transcription's plays (its neighbours: a swapped roll)
    place: tuple[Sequence[WrittenPlay], int] | None = None
    legal: bool = False
    slip: str | None = None
    #: how many of the next agreed plays replay after it (up to :data:`LOOKAHEAD`)
    continues: int = 0
    #: where the agreed line stood, and where the reading took it (None: it could not be played)
    before: Position | None = None
    after: Position | None = None

    def to_json(self) -> dict[str, object]:
        return {"text": self.text, "sources": self.sources, "legal": self.legal, "slip": self.slip}


@dataclass(slots=True)
class Difference:
    """A ply where the transcriptions differ; ``ply`` counts along the merged main line from 1
    (a play chosen absent: the number the next play of the main line takes)."""

    ply: int
    turn: int
    side: Side
    readings: list[Reading]
    chosen: Reading

    def to_json(self) -> dict[str, object]:
        return {
            "ply": self.ply,
            "turn": self.turn,
            "side": self.side,
            "readings": [reading.to_json() for reading in self.readings],
            "chosen": self.chosen.text,
        }


@dataclass(slots=True)
class Collation:
    """The differences found, and the record merged from the readings chosen."""

    transcriptions: list[Transcription]
    differences: list[Difference]
    merged: GameRecord
    #: the alignment: a row a column, each transcription's play text there (None: no play)
    columns: list[tuple[str | None, ...]] = field(default_factory=list)

    def to_json(self) -> dict[str, object]:
        return {"differences": [difference.to_json() for difference in self.differences]}


#: one column of the alignment: each transcription's play there (by the transcription's index),
#: with its index among that transcription's plays, if it has one
_Column = dict[int, tuple[int, WrittenPlay]]


def _key(play: WrittenPlay) -> Key:
    return (play.turn, play.side, play_text(play))


def _columns(transcriptions: Sequence[Transcription]) -> list[_Column]:
    """Every transcription aligned in turn against the columns so far (each column keyed by
    its most given reading), so that a play one leaves out or adds is a column of its own."""
    columns: list[_Column] = [
        {0: (at, play)} for at, play in enumerate(transcriptions[0].record.plays)
    ]
    for source, transcription in enumerate(transcriptions[1:], 1):
        plays = transcription.record.plays
        keys = [_consensus(column) for column in columns]
        merged: list[_Column] = []
        for i, j in align(keys, [_key(play) for play in plays]):
            column = dict(columns[i]) if i is not None else {}
            if j is not None:
                column[source] = (j, plays[j])
            merged.append(column)
        columns = merged
    return columns


def _consensus(column: _Column) -> Key:
    """The key most of a column's plays have (the earliest transcription's among equals)."""
    keys = Counter(_key(play) for _, play in column.values())
    return max(keys, key=lambda key: keys[key])


def _readings(column: _Column, transcriptions: Sequence[Transcription]) -> list[Reading]:
    """The column's readings in the order their first transcription comes; absent included."""
    readings: dict[str | None, Reading] = {}
    for source, transcription in enumerate(transcriptions):
        at, play = column.get(source, (0, None))
        text = play_text(play) if play is not None else None
        if text not in readings:
            place = (transcription.record.plays, at) if play is not None else None
            readings[text] = Reading(text, [], play, place)
        readings[text].sources.append(transcription.name)
    return list(readings.values())


def collate(transcriptions: Sequence[Transcription], rules: Rules | None = None) -> Collation:
    """Align ``transcriptions``, judge each ply where they differ, and merge the readings chosen.

    A reading is chosen legal first, then given by more transcriptions, then the one after
    which more of the next agreed plays replay, then the earliest transcription's.
    """
    if len(transcriptions) < 2:
        raise ValueError("a collation needs two transcriptions or more")
    base = _merged_tags(transcriptions)
    columns = _columns(transcriptions)
    agreed = [_agreed(column, transcriptions) for column in columns]
    line: list[WrittenPlay] = []
    judge = _Judge(base, rules)
    differences: list[Difference] = []
    pending: list[WrittenPlay] = []  # added plays set aside, shown beside the next play
    for number, column in enumerate(columns):
        readings = _readings(column, transcriptions)
        if len(readings) == 1:
            line.append(_with_pending(next(iter(column.values()))[1], pending))
            continue
        following = [play for play in agreed[number + 1 : number + 1 + LOOKAHEAD] if play]
        for reading in readings:
            judge.judge(reading, line, following)
        chosen = min(
            readings,
            key=lambda r: (not r.legal, -len(r.sources), -r.continues, readings.index(r)),
        )
        some = chosen.play or next(r.play for r in readings if r.play is not None)
        assert some is not None
        differences.append(Difference(len(line) + 1, some.turn, some.side, readings, chosen))
        others = [reading for reading in readings if reading is not chosen]
        if chosen.play is None:
            pending.extend(_aside(reading, "added in ") for reading in others)
            continue
        play = _with_variations(chosen.play, others)
        line.append(_with_pending(play, pending))
        judge.played(len(line), chosen)
    if pending and line:
        # plays added after the last play agreed: beside it, each a variation of its own
        added = tuple((aside,) for aside in pending)
        line[-1] = replace(line[-1], variations=(*line[-1].variations, *added))
    merged = replace(base, plays=line)
    texts = [
        tuple(play_text(c[s][1]) if s in c else None for s in range(len(transcriptions)))
        for c in columns
    ]
    return Collation(list(transcriptions), differences, merged, texts)


def _agreed(column: _Column, transcriptions: Sequence[Transcription]) -> WrittenPlay | None:
    """The play most transcriptions give in a column (None if most give none there)."""
    readings = _readings(column, transcriptions)
    best = max(readings, key=lambda reading: len(reading.sources))
    return best.play


class _Judge:
    """Each reading replayed with the next agreed plays where the agreed line stands: past the
    opening from a ``[Position]`` record of the position it reached (kept as the line grows,
    each stretch of agreed plays replayed once), so that a collation's cost is linear in its
    plies; within the first :data:`OPENING` plies, or where the agreed line cannot be replayed,
    the line is replayed from the start, where the opening's and the lead's rules hold."""

    def __init__(self, base: GameRecord, rules: Rules | None) -> None:
        self.base, self.rules = base, rules
        #: a ply's index in the agreed line and the position before it, once known
        self.known: tuple[int, Position] | None = None

    def _replayed(self, plays: Sequence[WrittenPlay], start: Position | None) -> ReplayedGame:
        tags = self.base.tags if start is None else {**self.base.tags, POSITION_TAG: start.key()}
        record = replace(self.base, tags=tags, plays=[_bare(p) for p in plays], result=None)
        return replay(record, self.rules)

    def _position(self, line: list[WrittenPlay]) -> Position | None:
        """Where the agreed line stands after ``line``, None to judge from the start."""
        if len(line) < OPENING:
            return None
        index, start = self.known if self.known is not None else (0, None)
        if index < len(line):
            game = self._replayed(line[index:], start)
            if game.errors or not game.complete:
                self.known = None
                return None
            self.known = (len(line), game.final)
        return self.known[1] if self.known is not None else None

    def played(self, length: int, chosen: Reading) -> None:
        """The agreed line grew to ``length`` plies by ``chosen``, whose position is known."""
        if chosen.legal and chosen.after is not None and self.known is not None:
            self.known = (length, chosen.after)

    def judge(
        self, reading: Reading, line: list[WrittenPlay], following: list[WrittenPlay]
    ) -> None:
        """Is the reading legal where the agreed line stands (for no play: does the next play
        replay without it), its slip, and how many of the next agreed plays replay after it."""
        own = [reading.play] if reading.play is not None else []
        start = self._position(line)
        if start is None:
            game = self._replayed([*line, *own, *following], None)
            plies = game.plies[len(line) :]
        else:
            game = self._replayed([*own, *following], start)
            plies = game.plies
        if not plies:  # nothing after a play left out: the game may as well end there
            reading.legal = True
            return
        first = plies[0]
        reading.legal = first.after is not None and first.error is None
        reading.before, reading.after = first.before, first.after
        if first.error is not None and reading.play is not None and reading.place is not None:
            wrong = first.error.kind == "illegal-play"
            # the slip as the replay names it, but among the reading's own neighbours (the
            # roll of the next play in the same printing), where the agreed line stands
            plays, at = reading.place
            found = first.error.slip or find_slip(game.rules, reading.play, first.before, plays, at)
            reading.slip = found if wrong else first.error.slip
        for ply in plies[1:] if reading.play is not None else plies:
            if ply.after is None or ply.error is not None:
                break
            reading.continues += 1


def _bare(play: WrittenPlay) -> WrittenPlay:
    return replace(play, variations=()) if play.variations else play


def _with_variations(play: WrittenPlay, others: list[Reading]) -> WrittenPlay:
    """The chosen play, each other reading beside it as a variation naming its transcriptions,
    and those that leave the play out named in a comment after it."""
    variations = [_aside(r, "reading of ") for r in others if r.play is not None]
    left_out = [name for reading in others if reading.play is None for name in reading.sources]
    comments = play.comments
    if left_out:
        comments += ("left out in " + ", ".join(left_out),)
    return replace(
        play, variations=play.variations + tuple((v,) for v in variations), comments=comments
    )


def _aside(reading: Reading, words: str) -> WrittenPlay:
    """A reading not chosen, as the one play of a variation, its transcriptions named."""
    assert reading.play is not None
    return replace(
        reading.play,
        variations=(),
        comments_before=(words + ", ".join(reading.sources),),
    )


def _with_pending(play: WrittenPlay, pending: list[WrittenPlay]) -> WrittenPlay:
    """``play`` with the plays added by some transcriptions just before it, as variations."""
    if not pending:
        return play
    added = tuple((aside,) for aside in pending)
    pending.clear()
    return replace(play, variations=play.variations + added)


def _merged_tags(transcriptions: Sequence[Transcription]) -> GameRecord:
    """The first transcription's record with each tag and the result most transcriptions give
    (a tag some leave out is kept only where most give it: a fragment's ``[Position]`` does
    not set the whole game's start); among equals, the earliest transcription's."""
    first = transcriptions[0].record
    tags: dict[str, str] = {}
    names = dict.fromkeys(name for t in transcriptions for name in t.record.tags)
    for name in names:
        values = Counter(t.record.tags.get(name) for t in transcriptions)
        value = max(values, key=lambda given: values[given])
        if value is not None:
            tags[name] = value
    results = Counter(t.record.result for t in transcriptions)
    result = max(results, key=lambda value: results[value])
    return replace(first, tags=tags, result=result, plays=[], errors=[])
