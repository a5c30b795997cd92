"""The archive's views: what a visitor writing SQL reads as tables (a player's record, head to
head, opening rolls, the invalid games), kept apart from the tables' layout in schema.py."""

from __future__ import annotations

from .plays import PLAY_VIEWS

#: each view's name and its SQL (created, and made again where a migration changes one, by
#: ``schema.create_views``)
VIEWS = {
    # version 11: turns and positions, read as the tables they were (plays.py)
    **PLAY_VIEWS,
    "player_records": """
SELECT p.id AS player_id, p.name AS name,
  count(g.id) AS games,
  sum(CASE WHEN g.winner = s.side THEN 1 ELSE 0 END) AS wins,
  sum(CASE WHEN g.winner IS NOT NULL AND g.winner != s.side THEN 1 ELSE 0 END) AS losses,
  sum(CASE WHEN g.winner = s.side THEN g.points ELSE 0 END) AS points_won,
  sum(CASE WHEN g.winner IS NOT NULL AND g.winner != s.side THEN g.points ELSE 0 END)
    AS points_lost
FROM players p
JOIN (SELECT id, white_id AS player_id, 'white' AS side FROM games
      UNION ALL SELECT id, black_id, 'black' FROM games) s ON s.player_id = p.id
JOIN games g ON g.id = s.id
GROUP BY p.id""",
    "head_to_head": """
SELECT s.player_id AS player_id, s.opponent_id AS opponent_id,
  p.name AS player, o.name AS opponent,
  count(*) AS games,
  sum(CASE WHEN g.winner = s.side THEN 1 ELSE 0 END) AS wins,
  sum(CASE WHEN g.winner = s.side THEN g.points
           WHEN g.winner IS NOT NULL THEN -g.points ELSE 0 END) AS points
FROM (SELECT id, white_id AS player_id, black_id AS opponent_id, 'white' AS side FROM games
      UNION ALL SELECT id, black_id, white_id, 'black' FROM games) s
JOIN games g ON g.id = s.id
JOIN players p ON p.id = s.player_id
JOIN players o ON o.id = s.opponent_id
GROUP BY s.player_id, s.opponent_id""",
    "opening_rolls": """
SELECT t.dice AS dice, t.steps AS first_play, count(*) AS games,
  sum(CASE WHEN g.winner = 'white' THEN 1 ELSE 0 END) AS white_wins,
  sum(CASE WHEN g.winner = 'black' THEN 1 ELSE 0 END) AS black_wins,
  sum(CASE WHEN g.winner IS NULL THEN 1 ELSE 0 END) AS unfinished
FROM turns t JOIN games g ON g.id = t.game_id
WHERE t.ply = 1 AND g.status = 'valid' AND g.start_key IS NULL
GROUP BY t.dice, t.steps""",
    "player_matches": """
SELECT p.id AS player_id, p.name AS name,
  count(m.id) AS matches,
  sum(CASE WHEN m.winner = s.side THEN 1 ELSE 0 END) AS won,
  sum(CASE WHEN m.winner IS NOT NULL AND m.winner != s.side THEN 1 ELSE 0 END) AS lost,
  sum(CASE WHEN m.winner IS NULL THEN 1 ELSE 0 END) AS unfinished
FROM players p
JOIN (SELECT id, white_id AS player_id, 'white' AS side FROM matches
      UNION ALL SELECT id, black_id, 'black' FROM matches) s ON s.player_id = p.id
JOIN matches m ON m.id = s.id
GROUP BY p.id""",
    # version 6: a view where a table held a row for every pair of games sharing a fingerprint
    # (2,000 copies of one game made two million rows); a game's group is its fingerprint,
    # indexed, and the pairs are told only when asked. ``reason`` as the table's was worded.
    "duplicates": """
SELECT later.id AS game_id, earlier.id AS other_id,
  CASE
    WHEN later.tags IS NOT earlier.tags THEN 'tags differ: ' || (
      SELECT group_concat(name, ', ') FROM (
        SELECT name FROM (
          SELECT key AS name FROM json_each(later.tags)
          UNION SELECT key FROM json_each(earlier.tags))
        WHERE json_extract(later.tags, '$."' || name || '"')
          IS NOT json_extract(earlier.tags, '$."' || name || '"')
        ORDER BY name))
      || CASE WHEN later.comments IS NOT earlier.comments THEN '; comments differ' ELSE '' END
    WHEN later.comments IS NOT earlier.comments THEN 'comments differ'
    ELSE 'annotations or variations differ'
  END AS reason
FROM games later
JOIN games earlier ON earlier.fingerprint = later.fingerprint AND earlier.rowid < later.rowid
WHERE later.fingerprint IS NOT NULL""",
    "invalid_games": """
SELECT id, white, black, date, file, error, status
FROM games WHERE status != 'valid'""",
}
