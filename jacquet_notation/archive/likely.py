"""The likely aliases of an archive: pairs of players whose names are close and whose games
say they could be one man (the same events, the same sources, the same opponents).

Names are compared by RapidFuzz only within blocks: two names are compared when they share a
block key, the first :data:`PREFIX` letters of a word of the name (titles and initials left
out), so the cost grows with the archive's names, not with their square. A block that holds
more than :data:`MAX_BLOCK` names is split by a longer prefix, so no block costs more than
``MAX_BLOCK²`` comparisons; a word as long as its key can be whose block is still too large
(thousands of "Martin") is skipped, and said so in docs/archive.md.
"""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from .names import normalise_name

#: letters of a word that make its block key, and the most names a block may hold before its
#: key grows by a letter
PREFIX = 3
MAX_BLOCK = 200
#: the name score (0-100) below which a pair is not listed, whatever its games say
NAME_FLOOR = 75
#: words that are a title, not a name (compared after accents and case are folded)
TITLES = frozenset(
    [
        "mr",
        "mrs",
        "ms",
        "miss",
        "mister",
        "monsieur",
        "mme",
        "madame",
        "mlle",
        "mademoiselle",
        "dr",
        "doctor",
        "sir",
        "lord",
        "lady",
        "herr",
        "frau",
        "sr",
        "sra",
        "don",
        "dona",
        "capt",
        "captain",
        "col",
        "rev",
    ]
)
_WORDS = re.compile(r"[^\W_]+(?:['-][^\W_]+)*")


@dataclass
class PlayerFacts:
    """What the games say of one player: his events, sources, opponents and games."""

    id: int
    name: str
    words: tuple[str, ...]
    games: int = 0
    events: set[int] = field(default_factory=set)
    sources: set[int] = field(default_factory=set)
    opponents: set[int] = field(default_factory=set)


@dataclass(frozen=True)
class Candidate:
    """Two players who may be one: the score (0-100) that ranks them, and why."""

    score: int
    name_score: int
    first: PlayerFacts
    second: PlayerFacts
    shared_events: int
    shared_sources: int
    shared_opponents: int
    met: bool

    def evidence(self) -> str:
        """Why, in a line: the name's closeness, then what their games share."""
        parts = [f"names {self.name_score}% alike"]
        for count, what in (
            (self.shared_events, "event"),
            (self.shared_sources, "source"),
            (self.shared_opponents, "opponent"),
        ):
            if count:
                parts.append(f"{count} shared {what}{'' if count == 1 else 's'}")
        if self.met:
            parts.append("they played each other")
        return "; ".join(parts)


def name_words(name: str) -> tuple[str, ...]:
    """A name's words as compared: accents and case folded (``normalise_name``), titles left
    out, in their order (``"Mr. Jean DUPRÉ"`` -> ``("jean", "dupre")``)."""
    words = _WORDS.findall(normalise_name(name))
    return tuple(word for word in words if word not in TITLES)


def _initials_score(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """How well two names agree once an initial may stand for a word (``J. Dupré``, ``Jean
    Dupré``): 95 when every word of the shorter is the other's or its initial, 85 when one name
    is the other's surname alone; 0 otherwise (the two share no whole word)."""
    short, long = sorted((a, b), key=lambda name: (sum(len(w) > 1 for w in name), len(name)))
    rest = list(long)
    whole = 0
    for word in (w for w in short if len(w) > 1):
        if word not in rest:
            return 0
        rest.remove(word)
        whole += 1
    if not whole:
        return 0
    for initial in (w for w in short if len(w) == 1):
        match = next((w for w in rest if w[0] == initial), None)
        if match is None:
            return 0
        rest.remove(match)
    return 95 if len(short) > whole or len(short) == len(long) else 85


def name_score(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """How alike two names are, 0-100: RapidFuzz's token-sort ratio (words in any order, so a
    transposed ``Dupré, Jean`` is ``Jean Dupré``), or the initials' agreement if higher."""
    ratio = fuzz.token_sort_ratio(" ".join(a), " ".join(b))
    return max(round(ratio), _initials_score(a, b))


def _blocks(players: Iterable[PlayerFacts]) -> list[list[PlayerFacts]]:
    """The groups of players whose names are compared: keyed by a word's first letters, a
    group of more than :data:`MAX_BLOCK` keyed again by one letter more."""
    pending: list[tuple[int, list[PlayerFacts]]] = [(PREFIX, list(players))]
    done: list[list[PlayerFacts]] = []
    while pending:
        length, group = pending.pop()
        keyed: dict[str, list[PlayerFacts]] = defaultdict(list)
        for player in group:
            for key in {word[:length] for word in player.words if len(word) >= PREFIX}:
                keyed[key].append(player)
        for key, members in keyed.items():
            if len(members) < 2:
                continue
            if len(members) <= MAX_BLOCK:
                done.append(members)
            elif len(key) == length:  # a longer key can still tell them apart
                pending.append((length + 1, members))
    return done


def read_players(conn: sqlite3.Connection) -> dict[int, PlayerFacts]:
    """Every player with the facts of his games: one pass over the narrow games list."""
    players = {
        int(id_): PlayerFacts(int(id_), str(name), name_words(str(name)))
        for id_, name in conn.execute("SELECT id, name FROM players")
    }
    for white, black, event, source in conn.execute(
        "SELECT white_id, black_id, event_id, source_id FROM game_list"
    ):
        for me, them in ((white, black), (black, white)):
            facts = players.get(me)
            if facts is None:
                continue
            facts.games += 1
            if event is not None:
                facts.events.add(event)
            if source is not None:
                facts.sources.add(source)
            if them is not None:
                facts.opponents.add(them)
    return players


def _judge(a: PlayerFacts, b: PlayerFacts) -> Candidate | None:
    score = name_score(a.words, b.words)
    if score < NAME_FLOOR:
        return None
    events, sources = len(a.events & b.events), len(a.sources & b.sources)
    opponents = len((a.opponents & b.opponents) - {a.id, b.id})
    met = b.id in a.opponents
    context = min(30, 10 * events + 10 * sources + 5 * opponents)
    total = round(score * 0.7) + context - (60 if met else 0)
    first, second = sorted((a, b), key=lambda p: (-p.games, p.name))
    return Candidate(max(total, 0), score, first, second, events, sources, opponents, met)


def likely_aliases(conn: sqlite3.Connection, limit: int | None = None) -> list[Candidate]:
    """The pairs of players that may be one, best first (score, then names)."""
    players = read_players(conn)
    seen: set[tuple[int, int]] = set()
    found: list[Candidate] = []
    for block in _blocks(players.values()):
        for i, a in enumerate(block):
            for b in block[i + 1 :]:
                pair = (min(a.id, b.id), max(a.id, b.id))
                if pair in seen:
                    continue
                seen.add(pair)
                judged = _judge(a, b)
                if judged is not None:
                    found.append(judged)
    found.sort(key=lambda c: (-c.score, c.first.name, c.second.name))
    return found if limit is None else found[:limit]
