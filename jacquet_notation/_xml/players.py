"""``<players>``: the players an archive knows under several spellings, written before the
games of an export (``jacquet export --players DB``; docs/xml.md)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .format import NAME, PLAYER, PLAYERS, SPELLING, write_text


def write_players(
    xf: Any, players: Sequence[tuple[str, Sequence[str]]], indents: Sequence[str]
) -> None:
    """Each player's name, then his other spellings, through the incremental writer ``xf``;
    ``indents`` the line breaks of the three depths (the list, a player, his names)."""
    if not players:
        return
    outer, player, names = indents
    xf.write(outer)
    with xf.element(PLAYERS):
        for name, spellings in players:
            xf.write(player)
            with xf.element(PLAYER):
                for tag, value in ((NAME, name), *((SPELLING, s) for s in spellings)):
                    xf.write(names)
                    write_text(xf, tag, value)
                xf.write(player)
        xf.write(outer)
