"""The positions several games reach (``shared_positions``), counted once a file.

A position one game's plays reach has no row: its plays carry its counts (:mod:`.plays`, whose
views read both). This is the count that gives the others theirs, after a file's plays are in,
and again from nothing after a rebuild or a migration.
"""

from __future__ import annotations

from typing import Any

from ..position import Position
from .plays import PLY_SHIFT

#: the positions of the games from a number on (``?1``) that more than one game reaches, with the
#: number of games reaching each, counted afresh (both key indexes: a position is reached by a
#: play, or is the one a game's first play, or the play after a missing one, is made from); for
#: a rebuild and a migration, which count every game (from 0)
_SHARED_SQL = f"""
INSERT INTO shared_positions (key, games)
SELECT key, reached FROM (
  SELECT key, (SELECT count(*) FROM (SELECT game FROM plies WHERE key_after = k.key
                                     UNION SELECT game FROM plies WHERE before = k.key))
              AS reached
  FROM (SELECT key_after AS key FROM plies WHERE id >= (?1 << {PLY_SHIFT}) AND key_after IS NOT NULL
        UNION SELECT before FROM plies WHERE id >= (?1 << {PLY_SHIFT}) AND before IS NOT NULL) k)
WHERE reached > 1
ON CONFLICT (key) DO UPDATE SET games = excluded.games"""

#: the same for the games of one file (numbered from ``?1`` on, after every game counted before):
#: each position's new games are counted among the new plays alone, and added to what was
#: counted before, its row's ``games``, or for a position without a row (reached by one earlier
#: game at most: every position of several has one) whether an earlier play reaches it. Counting
#: afresh read every earlier game through a common position, the start's above all, for every
#: file: an import of many small files cost the square of the archive (docs/archive.md, Speed)
_SHARED_NEW_SQL = f"""
INSERT INTO shared_positions (key, games)
SELECT key, reached FROM (
  SELECT n.key AS key, n.games + coalesce(
      (SELECT s.games FROM shared_positions s WHERE s.key = n.key),
      EXISTS (SELECT 1 FROM plies a WHERE a.key_after = n.key AND a.id < (?1 << {PLY_SHIFT}))
      OR EXISTS (SELECT 1 FROM plies b WHERE b.before = n.key AND b.id < (?1 << {PLY_SHIFT}))
    ) AS reached
  FROM (SELECT key, count(DISTINCT game) AS games FROM (
          SELECT key_after AS key, id >> {PLY_SHIFT} AS game FROM plies
          WHERE id >= (?1 << {PLY_SHIFT}) AND key_after IS NOT NULL
          UNION ALL
          SELECT before, id >> {PLY_SHIFT} FROM plies
          WHERE id >= (?1 << {PLY_SHIFT}) AND before IS NOT NULL)
        GROUP BY key) n)
WHERE reached > 1
ON CONFLICT (key) DO UPDATE SET games = excluded.games"""

#: a row of its own for each position of the games from a number on that only its one game
#: reaches, and not through a play (a set start, the position after a missing play: a play's
#: ``before``, no play's ``key_after``), so that ``positions`` answers for it; a later game that
#: reaches it counts its games again (``_SHARED_SQL``)
_UNREACHED_SQL = f"""
INSERT OR IGNORE INTO shared_positions (key, games)
SELECT DISTINCT p.before, 1 FROM plies p
WHERE p.id >= (?1 << {PLY_SHIFT}) AND p.before IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM plies a WHERE a.key_after = p.before)"""


def share_positions(conn: Any, first: int) -> None:
    """Give a row of ``shared_positions`` to every position the games numbered from ``first``
    reach that more than one game reaches (or count its games again), once their plies are in.

    Called once a file (and once a rebuild, from 0): the positions one game's plays reach (98.5%
    in self-play) have no row, their plays carry their counts, and a key's games are counted by
    its two indexes rather than by an upsert a play. A file's count adds its games to the
    counts before it (``_SHARED_NEW_SQL``), which holds only if every game before ``first`` was
    counted by an earlier call and none of theirs changed since: true of an import, whose games
    are numbered after every stored game; a rebuild or a migration counts from 0. A position no
    play reaches (a set start, the position after a missing play) has a row too. The turn, pips
    and men off of a new row are read from its key.
    """
    conn.execute(_SHARED_SQL if first == 0 else _SHARED_NEW_SQL, (first,))
    conn.execute(_UNREACHED_SQL, (first,))
    new = [row[0] for row in conn.execute("SELECT key FROM shared_positions WHERE turn IS NULL")]
    stats = []
    for key in new:
        position = Position.from_key(key)
        stats.append(
            (
                position.turn,
                position.pips("white"),
                position.pips("black"),
                position.off("white"),
                position.off("black"),
                key,
            )
        )
    conn.executemany(
        "UPDATE shared_positions SET turn = ?, white_pips = ?, black_pips = ?, white_off = ?, "
        "black_off = ? WHERE key = ?",
        stats,
    )
