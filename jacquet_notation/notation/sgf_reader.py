"""Read gnubg's SGF (``save match``: one game tree a game, FF[4], GM[6]) into game records.

Each game becomes the :class:`~jacquet_notation.record.GameRecord` the ``.mat`` reader would
give for it: the same tags (``Rules``, ``Match``, ``Game``, ``Score``, ``White``, ``Black``,
``Crawford``, ``Date``, ``Event``, ``Site``...), plies in turns as a match file numbers them,
the cube's actions, the result (a resignation is a result on a game not over), comments, a set
position as the ``[Position]`` tag, and gnubg's analysis on ``WrittenPlay.analysis``. What is
kept, ignored and refused is docs/notation.md's "gnubg's SGF". The match's properties that
gnubg writes in the first game only (date, event, place, ratings) are carried to every game.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import replace

from ..analysis import Analyser, Decision, PlyAnalysis
from ..errors import NotationError
from ..numerals import ascii_int
from ..record import GameRecord, Side, Span, WrittenPlay
from .mat_header import MAT_RULESET, tag_name
from .sgf_analysis import cube_decision, letter_point, move_decision
from .sgf_moves import (
    CUBE_ACTIONS,
    PLAIN_KEPT,
    PLAIN_READ,
    UNREAD,
    dice_of,
    plain_play,
    play_moves,
    play_text,
)
from .sgf_syntax import Node, Property, TreeReader
from .words import new_play, new_tuple

#: the root's properties a match file's header would hold, as the record's tags
ROOT_TAGS = {
    "EV": "Event",
    "RO": "Round",
    "PC": "Site",
    "AN": "Annotator",
    "WR": "WhiteElo",
    "BR": "BlackElo",
}
#: the root's properties read for their meaning; any other is ignored (docs/notation.md)
_ROOT_READ = {"FF", "GM", "CA", "AP", "MI", "PW", "PB", "DT", "RU", "RE", "GC", *ROOT_TAGS}
#: the match's properties gnubg writes in its first game only, carried to the games after it
MATCH_PROPERTIES = ("DT", "GC", *ROOT_TAGS)
#: gnubg's rules words that jacquet does not play: refused
_VARIANTS = ("Nackgammon", "Hypergammon1", "Hypergammon2", "Hypergammon3")
#: a header line gnubg keeps in the game comment (``[ClockType "Speed"]``): a tag again
_KEPT_HEADER = re.compile(r'\[([^"\]]+?) "([^"]*)"\]\Z')
_DATE = re.compile(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})\Z")
_RESULT = re.compile(r"([WB])\+([0-9]{1,9})(R?)\Z", re.IGNORECASE)
_ANNOTATED = ("A", "DA", "LU")
_OTHER: dict[Side, Side] = {"white": "black", "black": "white"}


class SgfGame(TreeReader):
    """One game tree read into its record."""

    #: the program that wrote the file (``AP``), named as the analyser of its analysis
    application = "GNU Backgammon"
    #: the root node as the tree's root alone reads it (None: not read), which is the match's
    #: properties where this is the file's first game
    root_node: Node | None = None

    def read(self, match: dict[str, Property]) -> GameRecord:
        record = GameRecord(file=self.file, index=self.index, text=self.text)
        lines = self.text.count("\n")
        record.span = Span(self.first_line, 1, self.first_line + lines, 1)
        try:
            root = self.main_line(root_only=True)
            self.root_node = root[0] if root else Node()
            plain = self.plain_moves(self.stopped_at) if root else None
            nodes = root if plain is not None else self.main_line()
            if not nodes:
                raise self.error("expected a game's root node ;, found none", 0)
            self.root(record, nodes[0], match)
            if plain is not None:
                self.plain(record, plain)
            else:
                self.nodes(record, nodes[1:])
        except NotationError as error:
            record.errors.append(error)
        return record

    def fail(self, message: str, prop: Property | Node) -> NotationError:
        return self.error(message, prop.offset)

    def root(self, record: GameRecord, root: Node, match: dict[str, Property]) -> None:
        tags = record.tags
        tags["Rules"] = MAT_RULESET
        properties = {p.name: p for p in root.properties if p.name in _ROOT_READ}
        game = properties.get("GM")
        if game is None or game.values[:1] != ["6"]:
            found = f"GM[{game.values[0]}]" if game and game.values else "no GM"
            raise self.fail(f"expected GM[6], a backgammon game, found {found}", game or root)
        for name in MATCH_PROPERTIES:
            if name in properties:
                match[name] = properties[name]
            elif name in match:
                properties[name] = match[name]
        info = properties.get("MI")
        score = [0, 0]
        for value in info.values if info else ():
            key, _, number = value.partition(":")
            count = ascii_int(number)
            if count is None:
                continue
            if key == "length" and count > 0:
                tags["Match"] = str(count)
            elif key == "game":
                tags["Game"] = str(count + 1)
            elif key in ("ws", "bs"):
                score[key == "bs"] = count
        for name, tag in (("PW", "White"), ("PB", "Black")):
            if name in properties:
                tags[tag] = properties[name].values[0].strip()
        tags["Score"] = f"{score[0]}-{score[1]}"
        if "DT" in properties:
            date = _DATE.match(properties["DT"].values[0].strip())
            if date is not None:
                year, month, day = date.groups()
                tags["Date"] = f"{year}.{ascii_int(month) or 0:02}.{ascii_int(day) or 0:02}"
        for name, tag in ROOT_TAGS.items():
            if name in properties and properties[name].values[0].strip():
                tags[tag] = properties[name].values[0].strip()
        self.rules(tags, properties.get("RU"))
        if "GC" in properties:
            self.game_comment(record, properties["GC"].values[0])
        if "RE" in properties:
            self.result(record, properties["RE"])
        if "AP" in properties and properties["AP"].values:
            self.application = properties["AP"].values[0].split(":")[0]

    def rules(self, tags: dict[str, str], rules: Property | None) -> None:
        words = rules.values[0].split(":") if rules and rules.values else []
        for word in words:
            if word in _VARIANTS:
                assert rules is not None
                raise self.fail(f"RU[{word}]: jacquet reads standard backgammon only", rules)
            if word == "Crawford":
                tags["Crawford"] = "On"
            elif word == "Jacoby":
                tags["Jacoby"] = "On"
            elif word == "NoCube":
                tags["Cube"] = "Off"

    def game_comment(self, record: GameRecord, text: str) -> None:
        """``GC``: the header lines gnubg kept there become tags again, the rest a comment."""
        kept = []
        for line in text.split("\n"):
            header = _KEPT_HEADER.match(line.strip())
            if header is not None:
                record.tags.setdefault(tag_name(header.group(1)), header.group(2))
            elif line.strip():
                kept.append(line.strip())
        if kept:
            record.comments = ["\n".join(kept)]

    def result(self, record: GameRecord, prop: Property) -> None:
        found = _RESULT.match(prop.values[0].strip())
        if found is None:
            raise self.fail(f"expected RE[W+2] or RE[B+1R], found RE[{prop.values[0][:20]}]", prop)
        points = ascii_int(found.group(2)) or 0
        record.result = f"{points}-0" if found.group(1).upper() == "W" else f"0-{points}"

    def plain(self, record: GameRecord, moves: Iterator[re.Match[str]]) -> None:
        """The moves of a game whose nodes are moves alone (:meth:`plain_moves`): each read
        as :meth:`ply` reads it, the turns as :meth:`nodes` numbers them, with less work."""
        plays = record.plays
        append = plays.append
        turn, last_side = 1, ""
        # the line and its start where the root ended (its values may run over lines: GC)
        line = self.first_line + self.text.count("\n", 0, self.stopped_at)
        line_start = self.text.rfind("\n", 0, self.stopped_at) + 1
        known = PLAIN_READ
        if len(known) > PLAIN_KEPT:
            known.clear()
        for node in moves:
            blank, key = node.groups()
            read = known.get(key, UNREAD)
            if read is UNREAD:
                read = known[key] = plain_play(key)
            offset = node.start(2)
            if "\n" in blank:  # the blanks before the node: gnubg writes a node a line
                line += blank.count("\n")
                line_start = node.start(1) + blank.rfind("\n") + 1
            column = offset - line_start + 1
            span = new_tuple(Span, (line, column, line, column + 1))
            if read is None:  # not a roll of two dice and up to four moves: ply says why
                side: Side = "black" if key[0] == "B" else "white"
                if plays:
                    turn = turn if last_side == "white" and side == "black" else turn + 1
                last_side = side
                place = Property(key[0], [key[2:]], offset)
                append(self.ply(Node([place], offset), place, None, side, turn))
                continue
            side = read[0]
            if plays:
                turn = turn if last_side == "white" and side == "black" else turn + 1
            last_side = side
            if read[1] is None:
                append(WrittenPlay(side, turn, None, action=read[2], text=read[4], span=span))
            else:
                append(new_play(side, turn, read[1], read[3], read[4], span))

    def nodes(self, record: GameRecord, nodes: list[Node]) -> None:
        """The moves: one ply a node, in turns as a match file numbers its lines."""
        plays = record.plays
        turn = 1
        side: Side = "white"
        setup: Node | None = None
        settings = ""
        for node in nodes:
            alone = node.properties[0] if len(node.properties) == 1 else None
            if alone is not None and alone.name in ("W", "B"):
                # the common node, a move alone (``;W[31hefe]``): no comment, no analysis
                mover_side: Side = "black" if alone.name == "B" else "white"
                if plays:
                    last = plays[-1]
                    same_turn = last.side == "white" and mover_side == "black"
                    turn = last.turn if same_turn else last.turn + 1
                plays.append(self.ply(node, alone, None, mover_side, turn))
                side = mover_side
                continue
            mover = next((p for p in node.properties if p.name in ("W", "B")), None)
            dice_set = node.get("DI")
            if mover is None and dice_set is None:
                if any(p.name in ("AE", "AB", "AW") for p in node.properties):
                    if plays:
                        raise self.fail("a set position only before the first move", node)
                    setup = node
                continue
            ply_side: Side = (
                ("black" if mover.name == "B" else "white")
                if mover is not None
                else self.player(node, side)
            )
            if plays:
                last = plays[-1]
                same_turn = last.side == "white" and ply_side == "black"
                turn = last.turn if same_turn else last.turn + 1
            play = self.ply(node, mover, dice_set, ply_side, turn)
            analysis, found = self.analysis(node, play, ply_side)
            if analysis is not None:
                settings = settings or found
                play = replace(play, analysis=analysis)
            plays.append(play)
            side = ply_side
        if plays and plays[-1].action == "unknown":
            # gnubg's dice set as the game's last node (``PL[B]DI[61]``, what its ``save
            # match`` writes of a roll left unplayed before a resignation) is the roll alone,
            # as a match file's ``61: ????``: the replay keeps it unplayed
            last = plays[-1]
            bare = new_play(last.side, last.turn, last.dice, (), last.text + ":", last.span)
            plays[-1] = replace(bare, comments=last.comments, analysis=last.analysis)
        if setup is not None:
            record.tags["Position"] = self.position(setup, plays[0].side if plays else "white")
        if settings or any(p.analysis for p in plays):
            record.analyser = Analyser(name=self.application, settings=settings)

    def player(self, node: Node, default: Side) -> Side:
        turn = node.get("PL")
        if turn is None or not turn.values:
            return default
        return "black" if turn.values[0].upper().startswith("B") else "white"

    def ply(
        self, node: Node, mover: Property | None, dice_set: Property | None, side: Side, turn: int
    ) -> WrittenPlay:
        place = mover or dice_set
        assert place is not None
        line, column = self.where(place.offset)
        span = new_tuple(Span, (line, column, line, column + len(place.name)))
        value = place.values[0].strip() if place.values else ""
        comment = node.get("C") if len(node.properties) > 1 else None
        comments = (comment.values[0].strip(),) if comment and comment.values[0].strip() else ()
        action = CUBE_ACTIONS.get(value) if mover is not None else None
        if action is not None:
            return WrittenPlay(
                side, turn, None, action=action, text=value, span=span, comments=comments
            )
        dice = dice_of(value[:2])
        if dice is None:
            raise self.fail(
                f"expected two dice 1 to 6 such as 63, found {value[:2] or 'none'}", place
            )
        if mover is None:  # PL[W]DI[63]: a roll whose play is not given
            return WrittenPlay(
                side, turn, dice, action="unknown", text=value, span=span, comments=comments
            )
        moves = play_moves(value[2:], side)
        if moves is None:
            raise self.fail(
                f"expected up to four moves of two letters a to z, found {value[2:][:20]}", place
            )
        # a roll that moves nothing is a bare roll (``63:``): the replay tells a pass from a
        # roll left unplayed at the end, as for a match file's
        text = value if moves else value + ":"
        play = new_play(side, turn, dice, moves, text, span)
        if comments:
            play = replace(play, comments=comments)
        return play

    def analysis(self, node: Node, play: WrittenPlay, side: Side) -> tuple[PlyAnalysis | None, str]:
        if not any(p.name in _ANNOTATED for p in node.properties):
            return None, ""
        decisions: list[Decision] = []
        settings = ""
        cube = node.get("DA")
        if cube is not None and cube.values:
            chosen = {"double": -1, "take": 1, "drop": 2}.get(play.action or "", 0)
            decision = cube_decision(cube.values[0], chosen)
            if decision is not None:
                decisions.append(decision)
        moves = node.get("A")
        luck = node.get("LU")
        lucky = _float(luck.values[0]) if luck and luck.values else None
        if moves is not None:
            found = move_decision(moves.values, side, play_text)
            if found is not None:
                decision, settings = found
                decisions.append(replace(decision, luck=lucky))
                lucky = None
        if lucky is not None and decisions:
            decisions[-1] = replace(decisions[-1], luck=lucky)
        return (PlyAnalysis(tuple(decisions)) if decisions else None), settings

    def position(self, node: Node, mover: Side) -> str:
        """``AE``/``AW``/``AB`` (and ``PL``) as the readable ``[Position]``: every man listed.

        As gnubg loads them (sgf.c's RestoreNode, in the node's order): ``AW`` are the men of
        the side on roll at that point (``PL``'s, White before any), lettered ``a`` for its
        1-point; ``AB`` the other side's, lettered ``x`` for its 1-point; ``y`` the bar."""
        men: dict[Side, dict[int, int]] = {"white": {}, "black": {}}
        on_roll: Side = "white"
        for prop in node.properties:
            if prop.name == "AE":
                men = {"white": {}, "black": {}}
            elif prop.name == "PL":
                on_roll = self.player(node, on_roll) if prop.values else on_roll
            elif prop.name in ("AW", "AB"):
                lettering: Side = "white" if prop.name == "AW" else "black"
                owner: Side = on_roll if prop.name == "AW" else _OTHER[on_roll]
                for value in prop.values:
                    first, _, last = value.partition(":")
                    for letter in _letters(first, last or first):
                        point = letter_point(letter, lettering)
                        if point is None or point == 0:
                            raise self.fail(f"expected a point a to y, found {value[:5]}", prop)
                        men[owner][point] = men[owner].get(point, 0) + 1
        mover = self.player(node, mover)
        clauses = []
        for owner in ("white", "black"):
            listed = men["white" if owner == "white" else "black"]
            on = sum(listed.values())
            if on > 15:
                raise self.fail(f"{owner} has {on} men on the board, more than 15", node)
            # the points from the highest, then the bar and off, as the readable form is typed
            pairs = [(str(p), n) for p, n in sorted(listed.items(), reverse=True) if p != 25]
            if 25 in listed:
                pairs.append(("bar", listed[25]))
            if on < 15:
                pairs.append(("off", 15 - on))
            clauses.append(f"{owner} " + " ".join(f"{p}:{n}" for p, n in pairs))
        return "; ".join([*clauses, f"{mover} to move"])


def _letters(first: str, last: str) -> list[str]:
    if len(first) != 1 or len(last) != 1 or last < first:
        return [first + last]  # not a point: refused by the caller
    return [chr(c) for c in range(ord(first), ord(last) + 1)]


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


#: the match properties of the last preamble read, by its text: every game of a file has the
#: same (its first game), read once (the reader copies from them, never changes them)
_LAST_MATCH: dict[str, dict[str, Property]] = {}


def match_properties(preamble: str) -> dict[str, Property]:
    """The match's properties (:data:`MATCH_PROPERTIES`) of the first game's root node, its
    text ``preamble``; empty where it cannot be read (its own game says why)."""
    if not preamble:
        return {}
    cached = _LAST_MATCH.get(preamble)
    if cached is not None:
        return dict(cached)
    _LAST_MATCH.clear()
    _LAST_MATCH[preamble] = found = _match_properties(preamble)
    return dict(found)


def _match_properties(preamble: str) -> dict[str, Property]:
    try:
        nodes = TreeReader(preamble, 1, None, 1).main_line(root_only=True)
    except NotationError:
        return {}
    return _of_root(nodes[0] if nodes else Node())


def _of_root(root: Node) -> dict[str, Property]:
    return {p.name: p for p in root.properties if p.name in MATCH_PROPERTIES}


def parse_sgf_game(
    text: str, first_line: int, file: str | None, index: int, preamble: str = ""
) -> GameRecord:
    """The record of one game tree of an SGF file (its text from ``first_line``), with the
    match's properties of the first game's root node, ``preamble`` (the first game's text)."""
    if preamble and text == preamble:
        # the file's first game: the match's properties are its own root's, read once, as
        # its reading reads it, for the games after it (match_properties reads it no more)
        game = SgfGame(text, first_line, file, index)
        record = game.read({})
        if game.root_node is not None:
            _LAST_MATCH.clear()
            _LAST_MATCH[preamble] = _of_root(game.root_node)
        return record
    return SgfGame(text, first_line, file, index).read(match_properties(preamble))
