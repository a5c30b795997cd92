"""Datasette plugin: board diagrams in table cells, and game, position and player pages.

Registered through the ``datasette`` entry point, so plain ``datasette archive.db`` shows it once
the package is installed; ``jacquet serve`` adds the project's metadata on top. Every text that
comes from a record reaches the page through Jinja's autoescaping or :func:`markupsafe.escape`;
the diagrams are built by lxml from a decoded position, never from record text.

Pages (``DB`` is the database's route, as in Datasette's own URLs):

- ``/DB/-/game/ID?ply=N``: tags, score sheet, a board stepping through the game;
- ``/DB/-/position/KEY``: the board, the plays made from it, the games reaching it;
- ``/DB/-/player/ID``: record, points, head-to-head, games;
- ``/-/jacquet/board/KEY.svg``: one diagram (what the game page's script fetches).

A package so that Datasette finds its ``templates/`` and serves its ``static/`` folder
(``/-/static-plugins/jacquet-notation/jacquet.css``, ``jacquet.js``). The hooks are in
:mod:`.hooks`, each page in its own module over :mod:`.shared`; :mod:`.server` assembles and runs
``jacquet serve``'s server.
"""

from .hooks import (
    extra_css_urls,
    handle_exception,
    prepare_connection,
    prepare_jinja2_environment,
    register_routes,
    render_cell,
    startup,
)

__all__ = [
    "extra_css_urls",
    "handle_exception",
    "prepare_connection",
    "prepare_jinja2_environment",
    "register_routes",
    "render_cell",
    "startup",
]
