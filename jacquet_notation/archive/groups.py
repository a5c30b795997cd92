"""One game, many books: the groups of games that are printings of one game (docs/archive.md,
``game_groups``), found as each file is imported.

Two games are in one group when they have the same plays under other tags (the same
``fingerprint``), or when the replayed line of one is contained in the other's: a fragment
from a set position that another game reaches and then goes on with the same plays, a record
that stops early, or a printing whose line stops at a misprint or a play left out (its line up
to there is the other's). Containment is found through the position index, never by pairing
games: a game's last replayed position looked up among the turns (``turns.key_after``) for the
longer games that hold it, and each of its positions looked up among the games' last positions
(``games.final_key``) for the shorter ones it holds; each candidate's plies are then compared,
dice and positions, over the shorter line only.

A group is stored as a row a game (``game_id``, ``group_id``), and only for games in a group of
two or more: linear in the games, never a row a pair. The group's id is its earliest game's id.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .plays import GAME_LINE, PLY_SHIFT
from .store import Connection

#: the fewest replayed plies a line must have to count as contained in another: a few opening
#: plays are shared by many games, and ten plays with their dice are one game's
MIN_SHARED = 10
#: the most candidates through one position compared with a game (the rest are left out: a
#: position many games reach is no evidence of one game)
MOST_CANDIDATES = 50
#: the most game lines one refresh keeps read (each a few kilobytes)
KEPT_LINES = 2_000

#: the most lengths and digests of game lines one refresh keeps (a few dozen bytes each)
KEPT_DIGESTS = 200_000

#: one replayed ply as compared: its dice, the position before and after it
_Ply = tuple[str | None, str, str]
#: a game line's length, hash and first ply (:func:`_digest`)
_Digest = tuple[int, int, _Ply | None]


def refresh_groups(conn: Connection, import_id: int | Sequence[int] | None = None) -> None:
    """Find the groups of one import's games (every game's, from nothing, when None), or of
    several imports' in turn (a bulk import's, settling.py), with one cache of the lines read:
    a candidate reached from many games is read once, not once an import."""
    lines: dict[str, list[_Ply]] = {}  # the lines read so far: a game is a candidate often
    digests: dict[str, _Digest] = {}  # and their lengths and hashes, far more of them
    if import_id is None:
        conn.execute("DELETE FROM game_groups")
        for game_id, fingerprint in list(
            conn.execute("SELECT id, fingerprint FROM games ORDER BY rowid")
        ):
            _place(conn, game_id, fingerprint, lines, digests)
        return
    for one in [import_id] if isinstance(import_id, int) else import_id:
        rows = conn.execute(
            "SELECT g.id, g.fingerprint FROM games g WHERE g.id IN "
            "(SELECT game_id FROM occurrences WHERE import_id = ?) ORDER BY g.rowid",
            (one,),
        )
        for game_id, fingerprint in list(rows):
            _place(conn, game_id, fingerprint, lines, digests)


def _place(
    conn: Connection,
    game_id: str,
    fingerprint: str | None,
    lines: dict[str, list[_Ply]],
    digests: dict[str, _Digest],
) -> None:
    """Join ``game_id`` to every group it belongs with (``lines``: :func:`_line`'s answers
    kept, a game's turns being the same all through one refresh; ``digests``: theirs in
    short, :func:`_digest`)."""
    if fingerprint:
        same = conn.execute(
            "SELECT id FROM games WHERE fingerprint = ? AND id != ? ORDER BY rowid LIMIT 1",
            (fingerprint, game_id),
        ).fetchone()
        if same is not None:
            _join(conn, same[0], game_id)
    line = _line(conn, game_id, lines)
    if len(line) >= MIN_SHARED:
        for other in _holding(conn, game_id, line, lines):
            _join(conn, other, game_id)
    for other in _held(conn, game_id, line, lines, digests):
        _join(conn, other, game_id)


def _line(conn: Connection, game_id: str, lines: dict[str, list[_Ply]] | None = None) -> list[_Ply]:
    """A game's main line as replayed: its plies up to the first one not replayed (kept in
    ``lines``, which holds at most :data:`KEPT_LINES`)."""
    if lines is not None and game_id in lines:
        return lines[game_id]
    line: list[_Ply] = []
    for dice, before, after in conn.execute(
        GAME_LINE.format(plies=""),
        (game_id,),
    ):
        if before is None or after is None:
            break
        line.append((dice, before, after))
    if lines is not None:
        if len(lines) >= KEPT_LINES:
            lines.clear()  # a bound on the memory of a rebuild's refresh, not a cache policy
        lines[game_id] = line
    return line


def _digest(
    conn: Connection, game_id: str, digests: dict[str, _Digest], lines: dict[str, list[_Ply]]
) -> _Digest:
    """A game line's length, hash and first ply, kept for :data:`KEPT_DIGESTS` games: the few dozen
    bytes that tell a candidate of :func:`_held` from a line nearly always, where its whole
    line (:data:`KEPT_LINES` of them kept) was read again each time the cache had let it go,
    most of a refresh's work once the archive held 10,000 games."""
    found = digests.get(game_id)
    if found is None:
        line = _line(conn, game_id, lines)
        if len(digests) >= KEPT_DIGESTS:
            digests.clear()  # a bound on the memory, as for the lines
        found = digests[game_id] = (len(line), hash(tuple(line)), line[0] if line else None)
    return found


def _group(conn: Connection, game_id: str) -> str:
    found = conn.execute(
        "SELECT group_id FROM game_groups WHERE game_id = ?", (game_id,)
    ).fetchone()
    return str(found[0]) if found else game_id


#: the games of one group but the game named, left out of a lookup in SQL, so that copies
#: of the game already in its group (2,000 of a tournament's file) take no candidate's place
_OUTSIDE = "NOT IN (SELECT game_id FROM game_groups WHERE group_id = ?) AND {column} != ?"
#: the plays that reach a key at or after a ply, outside a group and not of a game: a range of
#: ``idx_plies_key_after`` (plies back, key, position, group, game, limit), each with the dice
#: and the key after of the game's ply that many plies back, where a line of that length ending
#: there starts (a few rowids away: a game's plies are one run of ``plies``' rowid)
HOLDING = (
    "SELECT n.game_id, p.ply, f.dice, f.key_after FROM plies p "
    "JOIN game_numbers n ON n.number = p.game LEFT JOIN plies f ON f.id = p.id - ? "
    "WHERE p.key_after = ? AND p.ply >= ? AND n.game_id "
    + _OUTSIDE.format(column="n.game_id")
    + " ORDER BY p.ply, p.id LIMIT ?"
)


def _holding(
    conn: Connection, game_id: str, line: list[_Ply], lines: dict[str, list[_Ply]]
) -> list[str]:
    """The other games whose lines hold ``line`` whole: through its last position, then the
    same plies back to its first (from ``lines``, where the candidate's is kept).

    Asked of ``plies`` itself, whose index on ``(key_after, ply)`` (version 14) seeks straight
    to the plays that reach the last position late enough: through the view ``turns`` and an
    index on the key alone, every play reaching a final position that many games share was
    read, a cost growing with the archive for each game imported. The candidates come in the
    index's order: by the ply that reaches the position, then as the games arrived. Each comes
    with the first ply of its window, and only those whose first ply is the line's are compared
    ply by ply (:func:`_holds`): nearly every candidate parts from the line there (another roll
    at the opening), and was a query of its own."""
    rows = conn.execute(
        HOLDING,
        (len(line) - 1, line[-1][2], len(line), _group(conn, game_id), game_id, MOST_CANDIDATES),
    )
    return [
        other
        for other, end, dice, after in list(rows)
        if _may_hold(line, dice, after)
        and _holds(conn, other, end - len(line) + 1, end, line, lines.get(other))
    ]


def _may_hold(line: list[_Ply], dice: str | None, after: str | None) -> bool:
    """Whether a candidate window whose first ply has ``dice`` and ``after`` (its key after)
    can be ``line``: the dice and the key after of its first ply are the line's. The position
    before it is left to :func:`_holds` (read from the ply before where it is not stored)."""
    return dice == line[0][0] and after == line[0][2]


#: the games that end at one of a list of keys, outside a group and not of a game, at most a
#: number a key, the earliest: for each key one range of ``idx_games_final_key`` that stops at
#: the limit (json list, group, game, limit). A window numbering each key's games read every
#: game ending there first, and the final positions of self-play are shared by hundreds of
#: games at 10,000 and by thousands at a million: that read grew with the archive.
#: Each comes with its first ply (dice, before, after: a rowid away), which tells nearly every
#: candidate from the line before its line is read (:func:`_may_be_held`).
HELD = (
    "SELECT g.id, g.final_key, f.dice, f.before, f.key_after FROM json_each(?) k "
    "JOIN games g ON g.rowid IN "
    "(SELECT rowid FROM games WHERE final_key = k.value AND id "
    + _OUTSIDE.format(column="id")
    + " ORDER BY rowid LIMIT ?) "
    "LEFT JOIN game_numbers n ON n.game_id = g.id "
    f"LEFT JOIN plies f ON f.id = (n.number << {PLY_SHIFT}) | 1"
)


def _held(
    conn: Connection,
    game_id: str,
    line: list[_Ply],
    lines: dict[str, list[_Ply]],
    digests: dict[str, _Digest],
) -> list[str]:
    """The other games (of ``MIN_SHARED`` plies or more) whose whole replayed line is a stretch
    of ``line``: looked up by their last position among ``line``'s, all of them in one query
    (a game's hundred positions were a hundred lookups), at most ``MOST_CANDIDATES`` a
    position. A candidate is weighed by its line's length, first ply and hash (:func:`_digest`),
    and its line compared ply by ply only where they match."""
    ends: dict[str, list[int]] = {}
    for end in range(MIN_SHARED, len(line) + 1):
        ends.setdefault(line[end - 1][2], []).append(end)
    if not ends:
        return []
    rows = conn.execute(
        HELD, (json.dumps(list(ends)), _group(conn, game_id), game_id, MOST_CANDIDATES)
    )
    starts: dict[_Ply, int] = {}  # each ply of the line, at its first place in it
    for index, ply in enumerate(line):
        starts.setdefault(ply, index)
    found = []
    for other, key, dice, before, after in list(rows):
        if not _may_be_held(starts, ends[key], (dice, before, after)):
            continue
        length, digest, first = _digest(conn, other, digests, lines)
        for end in ends[key]:
            # its first ply first: most part from ``line`` there, told without a slice
            if MIN_SHARED <= length <= end and line[end - length] == first:
                stretch = line[end - length : end]
                if hash(tuple(stretch)) == digest and stretch == _line(conn, other, lines):
                    found.append(other)
                    break
    return found


def _may_be_held(starts: dict[_Ply, int], ends: list[int], first: _Ply) -> bool:
    """Whether a candidate whose first ply is ``first`` can be a stretch of the line ending at
    one of ``ends``: its first ply is one of the line's (``starts``: where each first is), far
    enough before an end to leave :data:`MIN_SHARED` plies. Never wrong where it says no, and
    it says no without reading the candidate: the final positions of self-play are shared by
    thousands of games at a million, whose lines were read (a dozen a game) only to be told
    from the line by their first ply (measured: 3.2 ms a game at a million, most of it that)."""
    if first[1] is None or first[2] is None:
        return False  # no first ply replayed: an empty line, shorter than MIN_SHARED
    start = starts.get(first)
    return start is not None and start <= max(ends) - MIN_SHARED


def _holds(
    conn: Connection,
    game_id: str,
    first: int,
    last: int,
    line: list[_Ply],
    kept: list[_Ply] | None = None,
) -> bool:
    """Whether plies ``first`` to ``last`` (1-based) of a game are ``line``, read in order only
    until one differs: most candidates through a position part from the line at its first ply
    (another roll), and a whole window read for each was most of an import's groups. ``kept``:
    the game's line as :func:`_line` read it, which answers without a query where the window
    lies within it (its plies 1 to its length are the game's own)."""
    if kept is not None and last <= len(kept):
        return kept[first - 1 : last] == line
    plies = conn.execute(
        GAME_LINE.format(plies=" AND p.ply BETWEEN ? AND ?"), (game_id, first, last)
    )
    count = 0
    try:
        for dice, before, after in plies:
            if count == len(line) or (dice, before, after) != line[count]:
                return False
            count += 1
    finally:
        plies.close()
    return count == len(line)


def _join(conn: Connection, one: str, another: str) -> None:
    """Put two games in one group (two groups met: made one), named by its earliest game."""
    groups = {_group(conn, one), _group(conn, another)}
    if len(groups) == 1:
        return
    earliest = conn.execute(
        "SELECT id FROM games WHERE id IN (?, ?) ORDER BY rowid LIMIT 1", tuple(groups)
    ).fetchone()
    kept = str(earliest[0]) if earliest else min(groups)
    (merged,) = groups - {kept}
    conn.execute("UPDATE game_groups SET group_id = ? WHERE group_id = ?", (kept, merged))
    for game in (one, another, kept, merged):
        conn.execute(
            "INSERT OR REPLACE INTO game_groups (game_id, group_id) VALUES (?, ?)", (game, kept)
        )
