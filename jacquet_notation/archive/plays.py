"""Version 7's stored plays: what a play's row keeps once, and the views that read it back.

A play's row (``plies``) leaves out what its game or the play before it already says: the
game's 16-digit id (a number, ``game_numbers``), its position before (the previous play's
after, but for a game's first play and the play after a missing one), its text where it reads
``dice: steps``. A position that one game reaches has no row (``shared_positions`` holds those
several games reach). The views ``turns`` and ``positions`` read as version 6's tables did,
each search by a key an index lookup (docs/archive.md, "Version 7").
"""

from __future__ import annotations

import sqlite_utils

from ..position import Position, Side
from .stored_steps import steps_sql
from .stored_written import written_sql

#: the stored columns of a play (``plies``), of which the view ``turns`` reads as the
#: table of that name read until version 6. What a play shares with its neighbours or its game
#: is not stored again: ``game`` is the game's number (``game_numbers``) rather than its 16-digit
#: id, ``before`` is NULL where it is the previous play's ``key_after`` (every play but a game's
#: first and the play after a missing one), ``written`` NULL where it reads ``dice: steps``,
#: ``side`` 0 (White) or 1 (Black), ``dice`` 65 for ``6-5``, ``written`` empty where it reads
#: ``65: steps`` (a match file's spelling), a BLOB of the rest where it begins with its roll
#: otherwise (version 15, :mod:`.stored_written`); ``counts`` the turn, pips and men off of
#: the position after, in one integer (:func:`position_counts`), which the view ``positions``
#: reads for a position that has no row of its own
PLY_COLUMNS: tuple[str, ...] = (
    "game",
    "ply",
    "turn",
    "side",
    "dice",
    "written",
    "steps",
    "pips",
    "before",
    "key_after",
    "counts",
)
_PLY_INTS = {"game", "ply", "turn", "side", "dice", "pips", "counts"}
#: what few plays carry besides, in a table of their own (``ply_notes``): a column costs every
#: row of ``plies`` a byte even when it is NULL
NOTE_COLUMNS: tuple[str, ...] = (
    "game",
    "ply",
    "annotation",
    "nags",
    "comment",
    "error",
    "opponent_steps",
    "cube",
)
#: ``counts``' fields, lowest first: (name, width). Each side's pips (a man on the bar counts 25:
#: at most 15 x 25 = 375, 9 wide), Black to move, then the men borne off (at most 15, 4 wide),
#: last, so that a position before any man is off (most of a game) fits 3 bytes
_COUNT_FIELDS: tuple[tuple[str, int], ...] = (
    ("white_pips", 9),
    ("black_pips", 9),
    ("black_to_move", 1),
    ("white_off", 4),
    ("black_off", 4),
)
#: each field's shift in ``counts``
_SHIFTS = {
    name: sum(width for _, width in _COUNT_FIELDS[:index])
    for index, (name, _) in enumerate(_COUNT_FIELDS)
}
_WIDTHS = dict(_COUNT_FIELDS)


def position_counts(position: Position) -> int:
    """The turn, pips and men off of ``position`` as one integer (``plies.counts``), which the
    view ``positions`` reads back (:func:`count_column`).

    One integer rather than five columns: 3 or 4 bytes a play against about 8, and a position
    one game reaches (98.5% of them in self-play) needs no row of its own to be answered.
    """
    return (
        position.pips("white")
        | position.pips("black") << _SHIFTS["black_pips"]
        | (position.turn == "black") << _SHIFTS["black_to_move"]
        | position.off("white") << _SHIFTS["white_off"]
        | position.off("black") << _SHIFTS["black_off"]
    )


def counts_after(counts: int, mover: Side, moved: int, borne_off: int, after: Side) -> int:
    """:func:`position_counts` of the position a play reaches, from ``counts``, those of the
    position it was played from: the mover's pips less ``moved``, ``borne_off`` more of its men
    off, ``after`` to move (a cube action's play leaves the turn where it was). Only for a play
    that hits nothing and shares nothing, so that the opponent's counts stay as they were: the
    archive's loop of plays knows these already, and a play's counts then cost no look at its
    position."""
    if mover == "black":
        moved <<= _SHIFTS["black_pips"]
        borne_off <<= _SHIFTS["black_off"]
    else:
        borne_off <<= _SHIFTS["white_off"]
    counts = (counts - moved + borne_off) & ~_BLACK_TO_MOVE
    return counts | _BLACK_TO_MOVE if after == "black" else counts


#: the bit of ``counts`` that says Black is to move
_BLACK_TO_MOVE = 1 << _SHIFTS["black_to_move"]


def count_column(name: str, counts: str = "p.counts") -> str:
    """The SQL reading one field of ``counts`` back (``white_pips``, ``turn``, ...)."""
    if name == "turn":
        bit = count_column("black_to_move", counts)
        return f"CASE {bit} WHEN 1 THEN 'black' WHEN 0 THEN 'white' END"
    return f"(({counts} >> {_SHIFTS[name]}) & {(1 << _WIDTHS[name]) - 1})"


#: the SQL of ``counts`` from a position's columns (``{v}``: the table's alias), NULL where
#: a cell is not a count that fits (a damaged cell of version 10 keeps a row of its own)
_PACKED_FROM_COLUMNS = (
    "CASE WHEN {v}.turn IN ('white', 'black') AND "
    + " AND ".join(
        f"typeof({{v}}.{name}) = 'integer' "
        f"AND {{v}}.{name} BETWEEN 0 AND {(1 << _WIDTHS[name]) - 1}"
        for name in ("white_pips", "black_pips", "white_off", "black_off")
    )
    + " THEN "
    + " | ".join(
        f"({{v}}.{name} << {_SHIFTS[name]})"
        for name in ("white_pips", "black_pips", "white_off", "black_off")
    )
    + f" | (({{v}}.turn = 'black') << {_SHIFTS['black_to_move']}) END"
)


#: version 13: a play's row is keyed by one integer, its game's number shifted left by this much
#: and its ply (``(game << 12) | ply``): a rowid table, appended to in its key's order, fills its
#: pages where a ``WITHOUT ROWID`` table's splits left an eighth of them unused
PLY_SHIFT = 12
#: the most plays of a game ``plies`` keeps (a game's main line past it stays in its text)
MAX_STORED_PLY = (1 << PLY_SHIFT) - 1
#: the cells of a play's row stored beside its key (``PLY_COLUMNS`` but the game and the ply)
_STORED = PLY_COLUMNS[2:]


def plays_of(number: str, alias: str = "p") -> str:
    """SQL: the plays of the game numbered ``number`` (SQL), a range of ``plies``' rowid."""
    return (
        f"{alias}.id BETWEEN ({number} << {PLY_SHIFT}) AND ({number} << {PLY_SHIFT}) + "
        f"{MAX_STORED_PLY}"
    )


#: a play's row inserted from ``PLY_COLUMNS``' values (``?1`` the game's number, ``?2`` the ply),
#: nothing for a ply past :data:`MAX_STORED_PLY`
PLY_INSERT = (
    f"INSERT INTO plies (id, {', '.join(_STORED)}) SELECT (?1 << {PLY_SHIFT}) | ?2, "
    + ", ".join(f"?{number}" for number in range(3, len(PLY_COLUMNS) + 1))
    + f" WHERE ?2 BETWEEN 1 AND {MAX_STORED_PLY}"
)
#: a play's notes inserted from ``NOTE_COLUMNS``' values, for the plays ``plies`` keeps
NOTE_INSERT = (
    f"INSERT INTO ply_notes ({', '.join(NOTE_COLUMNS)}) SELECT "
    + ", ".join(f"?{number}" for number in range(1, len(NOTE_COLUMNS) + 1))
    + f" WHERE ?2 BETWEEN 1 AND {MAX_STORED_PLY}"
)


#: SQL: the side of the stored play ``p`` as ``turns`` spells it
SIDE_SQL = "CASE p.side WHEN 0 THEN 'white' WHEN 1 THEN 'black' ELSE p.side END"


def dice_sql(column: str) -> str:
    """SQL: the roll stored in ``column`` as ``turns`` spells it (``6-5``; one stored as text
    is kept as it is)."""
    return (
        f"CASE WHEN typeof({column}) = 'integer' THEN ({column} / 10) || '-' || ({column} % 10) "
        f"ELSE {column} END"
    )


#: what the view ``turns`` says of a stored play, but for ``key_before`` (read by each of its
#: two halves): the columns of version 6's table, in its order
_TURN_SELECT = (
    """n.game_id AS game_id, p.ply AS ply, p.turn AS turn,
  @side@ AS side, @dice@ AS dice,
  @written@ AS written,
  @steps@ AS steps, p.pips AS pips, {before} AS key_before, p.key_after AS key_after,
  x.annotation AS annotation, x.nags AS nags, x.comment AS comment, x.error AS error,
  x.opponent_steps AS opponent_steps, x.cube AS cube""".replace(
        "@written@", written_sql("p.written", "p.dice", "@steps@")
    )
    .replace("@steps@", steps_sql("p.steps"))
    .replace("@side@", SIDE_SQL)
    .replace("@dice@", dice_sql("p.dice"))
)
#: a play's notes, if it has any
_NOTES = "LEFT JOIN ply_notes x ON x.game = p.game AND x.ply = p.ply"


#: a game's plays, joined from its number (a rowid range; from a play, ``n.number = p.game``
#: finds its game)
_PLAYS = plays_of("n.number")

#: the views over the stored plays, with the columns and meaning of version 6's tables
PLAY_VIEWS = {
    # the plays as version 6's table showed them, in two halves so that a search by either key
    # stays an index lookup: the plays whose position before is stored (a game's
    # first, the play after a missing one), and the others, whose position before is the
    # previous play's after (found through the index on key_after, then the next play)
    "turns": f"""
SELECT {_TURN_SELECT.format(before="p.before")}
FROM plies p JOIN game_numbers n ON n.number = p.game AND {_PLAYS} {_NOTES}
WHERE p.before IS NOT NULL
UNION ALL
SELECT {_TURN_SELECT.format(before="b.key_after")}
FROM plies p JOIN game_numbers n ON n.number = p.game AND {_PLAYS} {_NOTES}
LEFT JOIN plies b ON b.id = p.id - 1 AND p.id = b.id + 1
WHERE p.before IS NULL""",
    # every position a game reaches, as version 10's table held them: those with a row of
    # their own (reached by several games, or by no play: a set start, the position after a
    # missing play), and those one game's plays reach, whose turn, pips and men off its play
    # carries (``counts``)
    "positions": f"""
SELECT key, turn, white_pips, black_pips, white_off, black_off, games FROM shared_positions
UNION ALL
SELECT DISTINCT p.key_after, {count_column("turn")}, {count_column("white_pips")},
  {count_column("black_pips")}, {count_column("white_off")}, {count_column("black_off")}, 1
FROM plies p
WHERE p.key_after IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM shared_positions s WHERE s.key = p.key_after)""",
}


#: the plays made from the position ``?1``, read from ``plies`` as the two halves of ``turns``
#: find them but unspelt, for a sum over many of them: the game's number, the side (as
#: ``turns`` spells it), the dice and steps as stored (:func:`dice_sql`, ``steps_sql``: spell
#: them once a group, not once a play), the position reached
PLAYS_FROM = f"""
SELECT p.game AS game, {SIDE_SQL} AS side, p.dice AS dice, p.steps AS steps,
  p.key_after AS key_after
FROM plies p WHERE p.before = ?1 AND p.key_after IS NOT NULL
UNION ALL
SELECT p.game, {SIDE_SQL}, p.dice, p.steps, p.key_after
FROM plies b JOIN plies p ON p.id = b.id + 1
WHERE b.key_after = ?1 AND p.before IS NULL AND p.key_after IS NOT NULL"""

#: the plays that reach the position ``?1``, the first ``?2`` in the archive's order (the least
#: keys: the games as imported, each game's plies in order), as their game's id and ply: the
#: entries of the index of ``key_after`` sorted by key, and only the ones kept joined to their
#: game (the view ``turns``, asked the same, spells every play reaching the position first)
REACHING = """
SELECT n.game_id AS game_id, t.ply AS ply
FROM (SELECT p.game AS game, p.ply AS ply, p.id AS id FROM plies p WHERE p.key_after = ?1
  ORDER BY p.id LIMIT ?2) t
JOIN game_numbers n ON n.number = t.game ORDER BY t.id"""
#: the games whose first play is made from the position ``?1`` (a start), the first ``?2`` in
#: the archive's order, each with ply 0: the index of ``before`` read in its own order
STARTING_FROM = """
SELECT n.game_id AS game_id, 0 AS ply FROM plies p JOIN game_numbers n ON n.number = p.game
WHERE p.before = ?1 AND p.ply = 1 ORDER BY p.id LIMIT ?2"""

#: :data:`PLAYS_FROM` within the games numbered in a table ``mine`` (its ``number``), found game
#: by game, for a few games (a player's) from a position many games reach, whose plays are then
#: not all read, each to be dropped once joined to its game. A play whose position before is
#: stored is an entry of its index, a game's rowid range of it; the others follow a play that
#: reached ``?1``, at one of the few plies the position is reached at (``plys``, each found by
#: one step along the index of ``key_after``), so each game is looked at once a ply, by rowid
PLAYS_FROM_GAMES = f"""
WITH RECURSIVE plys(j) AS (
  SELECT min(ply) FROM plies WHERE key_after = ?1
  UNION ALL
  SELECT (SELECT min(ply) FROM plies WHERE key_after = ?1 AND ply > plys.j) FROM plys
  WHERE plys.j IS NOT NULL
)
SELECT p.game AS game, {SIDE_SQL} AS side, p.dice AS dice, p.steps AS steps,
  p.key_after AS key_after
FROM mine m CROSS JOIN plies p
WHERE p.before = ?1 AND {plays_of("m.number")} AND p.key_after IS NOT NULL
UNION ALL
SELECT p.game, {SIDE_SQL}, p.dice, p.steps, p.key_after
FROM mine m CROSS JOIN plys CROSS JOIN plies b CROSS JOIN plies p
WHERE plys.j IS NOT NULL AND b.id = (m.number << {PLY_SHIFT}) + plys.j AND +b.key_after = ?1
  AND p.id = b.id + 1 AND p.before IS NULL AND p.key_after IS NOT NULL"""


#: the key indexes of ``plies`` (name, column, condition): a position is found through them
PLY_KEY_INDEXES: tuple[tuple[str, str, str], ...] = (
    # with the ply (version 14): a position reached at or after a ply is one range of it
    ("idx_plies_key_after", "key_after, ply", ""),
    ("idx_plies_before", "before", " WHERE before IS NOT NULL"),
)


#: the cells of ``plies`` stored with no type affinity, each as given: ``steps`` (version 13: a
#: packed integer, or a text stored before) and ``written`` (version 15: a packed integer too,
#: stored_written.py, which a TEXT column would turn into its digits)
UNTYPED = ("steps", "written")


def create_plies_table(db: sqlite_utils.Database) -> None:
    """``plies`` alone (version 13: its rowid the play's key, ``game`` and ``ply`` read from it
    by virtual columns, which take no byte), without its indexes."""
    columns = ", ".join(
        column if column in UNTYPED else f"{column} {'INTEGER' if column in _PLY_INTS else 'TEXT'}"
        for column in _STORED
    )
    db.execute(
        f"CREATE TABLE plies (id INTEGER PRIMARY KEY, {columns}, "
        f"game INTEGER GENERATED ALWAYS AS (id >> {PLY_SHIFT}) VIRTUAL, "
        f"ply INTEGER GENERATED ALWAYS AS (id & {MAX_STORED_PLY}) VIRTUAL)"
    )


def _create_play_tables(db: sqlite_utils.Database) -> None:
    """``plies`` (:func:`create_plies_table`), its two key indexes, and ``ply_notes``."""
    create_plies_table(db)
    for name, column, where in PLY_KEY_INDEXES:
        db.execute(f"CREATE INDEX {name} ON plies ({column}){where}")
    notes = ", ".join(
        f"{column} {'INTEGER' if column in ('game', 'ply') else 'TEXT'}" for column in NOTE_COLUMNS
    )
    db.execute(f"CREATE TABLE ply_notes ({notes}, PRIMARY KEY (game, ply)) WITHOUT ROWID")


def create_plies(db: sqlite_utils.Database) -> None:
    """Version 7's stored plays and shared positions (a new archive's, and the migration's):
    ``game_numbers``, ``plies`` and ``ply_notes`` (:func:`_create_play_tables`),
    ``shared_positions``. The views over them are made with the rest.
    """
    db.execute(
        "CREATE TABLE game_numbers (number INTEGER PRIMARY KEY, "
        "game_id TEXT NOT NULL UNIQUE REFERENCES games(id))"
    )
    _create_play_tables(db)
    db.execute(
        "CREATE TABLE shared_positions (key TEXT PRIMARY KEY, turn TEXT, white_pips INTEGER, "
        "black_pips INTEGER, white_off INTEGER, black_off INTEGER, games INTEGER) WITHOUT ROWID"
    )


def rekey_plies(db: sqlite_utils.Database) -> None:
    """Version 12's ``plies`` (``WITHOUT ROWID``, keyed ``(game, ply)``) and ``ply_notes`` made
    again as version 13's, every row as it was (a ply past :data:`MAX_STORED_PLY`, which no game
    read reaches, is left out); nothing for an archive whose plays an earlier step of the same
    migration stored in version 13's layout already. Their indexes are made again by the caller.
    """
    conn = db.conn
    if "id" in {row[1] for row in conn.execute("PRAGMA table_xinfo(plies)")}:
        return
    # the views keep reading ``plies`` (the new table, once made; made again by the caller)
    conn.execute("PRAGMA legacy_alter_table = ON")
    conn.execute("ALTER TABLE ply_notes RENAME TO _v12_notes")
    conn.execute("ALTER TABLE plies RENAME TO _v12_plies")
    conn.execute("PRAGMA legacy_alter_table = OFF")
    for (name,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = '_v12_plies' "
        "AND sql IS NOT NULL"
    ).fetchall():
        conn.execute(f"DROP INDEX {name}")
    _create_play_tables(db)
    conn.execute(
        f"INSERT INTO plies (id, {', '.join(_STORED)}) SELECT (game << {PLY_SHIFT}) | ply, "
        f"{', '.join(_STORED)} FROM _v12_plies WHERE ply BETWEEN 1 AND {MAX_STORED_PLY} "
        "ORDER BY game, ply"
    )
    conn.execute("INSERT INTO ply_notes SELECT * FROM _v12_notes ORDER BY game, ply")
    conn.execute("DROP TABLE _v12_notes")
    conn.execute("DROP TABLE _v12_plies")


def migrate_turns(db: sqlite_utils.Database) -> None:
    """Version 6's ``turns`` and ``positions`` tables carried into version 7's, by SQL: every
    row as it was (a damaged cell is kept, the views show it back), no game replayed."""
    conn = db.conn
    conn.execute("ALTER TABLE turns RENAME TO _v6_turns")
    conn.execute("ALTER TABLE positions RENAME TO _v6_positions")
    for name in ("idx_turns_key_before", "idx_turns_key_after"):
        conn.execute(f"DROP INDEX IF EXISTS {name}")
    create_plies(db)
    conn.execute("INSERT INTO game_numbers (game_id) SELECT id FROM games ORDER BY rowid")
    conn.execute(_V6_PLIES)
    conn.execute(_V6_NOTES)
    conn.execute(_V6_OWN_ROWS)
    conn.execute("DROP TABLE _v6_turns")
    conn.execute("DROP TABLE _v6_positions")


#: version 6's turns as version 7's plies: a side and a roll as numbers where they are one, the
#: text as written only where it is not ``dice: steps``, the position before only where it is
#: not the previous play's after
_V6_PLIES = """
INSERT OR IGNORE INTO plies (id, {stored})
SELECT (n.number << {shift}) | t.ply, t.turn,
  CASE t.side WHEN 'white' THEN 0 WHEN 'black' THEN 1 ELSE t.side END,
  CASE WHEN t.dice GLOB '[1-6]-[1-6]' THEN substr(t.dice, 1, 1) * 10 + substr(t.dice, 3, 1)
       ELSE t.dice END,
  CASE WHEN t.dice GLOB '[1-6]-[1-6]' AND t.written IS t.dice || ': ' || t.steps THEN NULL
       WHEN t.dice GLOB '[1-6]-[1-6]'
         AND t.written IS substr(t.dice, 1, 1) || substr(t.dice, 3, 1) || ': ' || t.steps
         THEN ''
       ELSE t.written END,
  t.steps, t.pips,
  CASE WHEN t.key_before IS b.key_after THEN NULL ELSE t.key_before END,
  t.key_after,
  (SELECT {packed} FROM _v6_positions v WHERE v.key = t.key_after)
FROM _v6_turns t JOIN game_numbers n ON n.game_id = t.game_id
LEFT JOIN _v6_turns b ON b.game_id = t.game_id AND b.ply = t.ply - 1
WHERE t.ply BETWEEN 1 AND {most}
ORDER BY n.number, t.ply""".format(
    packed=_PACKED_FROM_COLUMNS.format(v="v"),
    stored=", ".join(_STORED),
    shift=PLY_SHIFT,
    most=MAX_STORED_PLY,
)

#: version 10's positions that the view cannot read off a play exactly keep a row of their own:
#: those of several games (or of a count that is not 1), those no play reaches, and those whose
#: cells do not fit ``counts`` (a damaged cell is kept as it was)
_V6_OWN_ROWS = """
INSERT OR IGNORE INTO shared_positions
SELECT key, turn, white_pips, black_pips, white_off, black_off, games FROM _v6_positions v
WHERE v.games IS NOT 1
  OR NOT EXISTS (SELECT 1 FROM plies p WHERE p.key_after = v.key AND p.counts IS NOT NULL)"""

#: version 6's turns' rarer cells, for the plays that have any
_V6_NOTES = f"""
INSERT OR IGNORE INTO ply_notes
SELECT n.number, t.ply, t.annotation, t.nags, t.comment, t.error, t.opponent_steps, t.cube
FROM _v6_turns t JOIN game_numbers n ON n.game_id = t.game_id
WHERE coalesce(t.annotation, t.nags, t.comment, t.error, t.opponent_steps, t.cube) IS NOT NULL
  AND EXISTS (SELECT 1 FROM plies p WHERE p.id = (n.number << {PLY_SHIFT}) | t.ply)
ORDER BY n.number, t.ply"""


#: a game's replayed plies, ``(dice, key_before, key_after)``, read from ``plies`` in its key's
#: order (the view ``turns``, a union of two halves, sorts them in a temporary b-tree: read
#: thus, ``groups.refresh_groups`` took less than half the CPU, 500 self-play games); ``{plies}``
#: narrows the plies; dice as stored (65), the same for every line compared
GAME_LINE = """SELECT p.dice, coalesce(p.before, b.key_after), p.key_after
FROM game_numbers n JOIN plies p ON {plays}
LEFT JOIN plies b ON p.before IS NULL AND b.id = p.id - 1
WHERE n.game_id = ?{{plies}} ORDER BY p.id""".format(plays=plays_of("n.number"))
