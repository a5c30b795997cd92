"""gnubg's SGF (FF[4], GM[6]) as a tree of nodes: the stream told apart, cut into games, each
game's text read into its main line of nodes, every property with its place in the file.

Only the syntax is here; :mod:`.sgf_reader` gives the properties their backgammon meaning
(docs/notation.md, "gnubg's SGF"). The cost of a game is linear in its text: one regular
expression walks it, and a value's line is found by bisection.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from ..errors import NotationError

#: the first characters of an SGF collection: ``(;`` (gnubg writes ``(;FF[4]GM[6]``)
SGF_START = re.compile(r"\s*\(\s*;")
#: one token of a game tree: a value (escapes kept), a property's name, punctuation, or anything
#: else (an error); blanks between them are skipped
_TOKEN = re.compile(
    r"\s*(?:(?P<value>\[(?:\\.|[^\\\]])*\])|(?P<name>[A-Za-z]+)|(?P<mark>[();])|(?P<bad>\S))",
    re.DOTALL,
)
_STRUCTURE = re.compile(r"[\[()]")
#: the common node, one property of one plain value followed by the next node or the tree's
#: end (``;W[31hefe]``): read whole, without the token loop
_SIMPLE_NODE = re.compile(r"\s*;\s*([A-Z]{1,2})\[([^\\\]]*)\](?=\s*[;()])")
#: the opening of a tree and its root node, ``(;``
_ROOT_OPEN = re.compile(r"\s*\(\s*;")
#: one value of a well-formed root, after its property's name where it is the first value
#: (the name empty for the values after it): the root is read by one match a value, a loop
#: unrolled (``[^\\\]]*`` at a stretch) rather than one alternation a character
_ROOT_VALUE = re.compile(r"\s*([A-Z]*)\s*\[([^\\\]]*(?:\\.[^\\\]]*)*)\]", re.DOTALL)
#: what must follow a well-formed root: the next node or a parenthesis
_ROOT_END = re.compile(r"\s*(?=[;()])")
#: a move alone of a plain value on one line (a line break inside it is left to the token
#: loop, which counts it), and the tail of a tree made of nothing else
_MOVE_NODE = re.compile(r"(\s*);([WB]\[[^\\\]\n]*)\]")
_PLAIN_TAIL = re.compile(r"(?:\s*;[WB]\[[^\\\]\n]*\])*\s*\)\s*\Z")
_UNESCAPE = re.compile(r"\\(.)", re.DOTALL)
_SOFT_BREAK = re.compile(r"\\\r?\n")


def _escaped(match: re.Match[str]) -> str:
    """The character an escape stands for (a function: cheaper than a template's expansion)."""
    return match.group(1)


def is_sgf(lines: Iterable[str]) -> bool:
    """Whether a stream's first characters that are not blank open an SGF tree, ``(;``."""
    for line in lines:
        if line.strip():
            return SGF_START.match(line) is not None
    return False


@dataclass(slots=True)
class Property:
    """One property of a node: its name, its values (unescaped) and where its name begins (an
    offset of the game's text: the line and column are worked out only for an error)."""

    name: str
    values: list[str]
    offset: int


@dataclass(slots=True)
class Node:
    """One node (``;``) of the main line: its properties in order, and where it begins."""

    properties: list[Property] = field(default_factory=list)
    offset: int = 0

    def get(self, name: str) -> Property | None:
        for prop in self.properties:
            if prop.name == name:
                return prop
        return None


def sgf_games(lines: Iterable[str]) -> Iterator[tuple[int, list[str]]]:
    """Cut an SGF stream's numbered lines into game trees: ``(first line number, lines)``.

    A tree ends at the line where its parentheses close (values may hold ``(`` and ``)``);
    text between trees goes with the next one, whose reading reports it. An unclosed tree runs
    to the end of the stream.
    """
    chunk: list[str] = []
    first = 0
    depth = 0
    in_value = False
    opened = False  # whether the chunk's tree has begun
    for number, line in enumerate(lines, 1):
        if not chunk and not line.strip():
            continue
        if not chunk:
            first = number
        chunk.append(line)
        if (
            not in_value
            and line.endswith("]")
            and "(" not in line
            and ")" not in line
            and "\\" not in line
        ):
            # nothing opened or closed: without an escape, any value opened on the line is
            # closed by its last "]" (gnubg's move lines, ``;W[31hefe]``)
            continue
        at = 0
        while True:
            if in_value:
                end = _value_end(line, at)
                if end < 0:
                    break
                in_value, at = False, end + 1
            special = _STRUCTURE.search(line, at)  # the next [, ( or ) outside a value
            if special is None:
                break
            char, at = special.group(), special.end()
            if char == "[":
                in_value = True
            elif char == "(":
                depth += 1
                opened = True
            elif depth > 0:
                depth -= 1
                if depth == 0 and not line[at:].strip():
                    break
        if opened and depth == 0 and not in_value:
            yield first, chunk
            chunk, opened = [], False
    if chunk:
        yield first, chunk


def _value_end(line: str, at: int) -> int:
    """Where the ``]`` closing a value opened before ``at`` stands in ``line`` (-1: not here)."""
    while True:
        close = line.find("]", at)
        if close < 0:
            return -1
        slashes = 0
        while close - 1 - slashes >= at and line[close - 1 - slashes] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return close
        at = close + 1


class TreeReader:
    """Reads one game tree's text (from ``first_line`` of ``file``) into its main line."""

    def __init__(self, text: str, first_line: int, file: str | None, index: int) -> None:
        self.text = text
        self.first_line = first_line
        self.file = file
        self.index = index
        self._starts: list[int] | None = None  # where each line begins, made for an error
        #: where ``main_line(root_only=True)`` stopped: the offset of the node after the root
        self.stopped_at = len(text)

    def _plain_root(self) -> Node | None:
        """The root node read a value at a time, where it is well formed (else None: the token
        loop reads it and says what is wrong); :attr:`stopped_at` set after it."""
        text = self.text
        opened = _ROOT_OPEN.match(text)
        if opened is None:
            return None
        at = opened.end()
        node = Node(offset=at - 1)  # at its ";", as the token loop places a node
        properties = node.properties
        prop: Property | None = None
        value = _ROOT_VALUE.match
        while (found := value(text, at)) is not None:
            name, read = found.groups()
            if "\\" in read:
                read = _UNESCAPE.sub(_escaped, _SOFT_BREAK.sub("", read))
            if name:
                prop = Property(name, [read], found.start(1))
                properties.append(prop)
            elif prop is None:
                return None  # a value before any name
            else:
                prop.values.append(read)
            at = found.end()
        if _ROOT_END.match(text, at) is None:
            return None
        self.stopped_at = at  # before the blanks, which place the next node's line
        return node

    def plain_moves(self, start: int) -> Iterator[re.Match[str]] | None:
        """The nodes from ``start`` to the tree's end when every one is a move alone of a plain
        value (``;W[31hefe]``, gnubg's game without analysis or comments), each a match of
        the blanks before it and the move without its brackets' end (``W[31hefe``: one key
        for the side and its value); None for any other text, which :meth:`main_line` reads."""
        if _PLAIN_TAIL.match(self.text, start) is None:
            return None
        return _MOVE_NODE.finditer(self.text, start)

    def where(self, offset: int) -> tuple[int, int]:
        """The file's line and column (1-based) of an offset of the text."""
        if self._starts is None:
            self._starts = [0] + [m.end() for m in re.finditer("\n", self.text)]
        row = bisect.bisect_right(self._starts, offset) - 1
        return self.first_line + row, offset - self._starts[row] + 1

    def error(self, message: str, offset: int) -> NotationError:
        line, column = self.where(offset)
        return NotationError(message, file=self.file, game=self.index, line=line, column=column)

    def main_line(self, root_only: bool = False) -> list[Node]:
        """The nodes of the tree's main line (the first variation at each branch, as gnubg
        reads it); the other variations are skipped. Raises NotationError at the first fault.
        ``root_only``: the root node alone, read up to the next node (the text may end there)."""
        if root_only:
            root = self._plain_root()
            if root is not None:
                return [root]
        nodes: list[Node] = []
        depth = 0
        skipping = 0  # the depth of a variation being skipped (0: none)
        branched: set[int] = set()  # depths at which the main line has taken its branch
        node: Node | None = None
        prop: Property | None = None
        text = self.text
        position = 0
        simple, tokens = _SIMPLE_NODE.match, _TOKEN.match
        while True:
            if depth and not skipping:
                common = simple(text, position)
                if common is not None:
                    if root_only and nodes:
                        self.stopped_at = common.start()
                        return nodes
                    at = common.start(1)
                    single = Property(common.group(1), [common.group(2)], at)
                    node = Node([single], at)
                    nodes.append(node)
                    prop = single
                    position = common.end()
                    continue
            token = tokens(text, position)
            if token is None:
                break
            position = token.end()
            kind = token.lastgroup
            start = token.start(kind or 0)
            if kind == "bad":
                found = token.group("bad")
                if found == "[":
                    raise self.error("expected ] closing the value, found the end", start)
                raise self.error(f"expected a property, ; or a parenthesis, found {found}", start)
            if depth == 0 and (kind != "mark" or token.group("mark") != "("):
                raise self.error(f"expected ( opening a game, found {token.group()[:20]}", start)
            if kind == "mark":
                mark = token.group("mark")
                prop = None
                if mark == "(":
                    if depth == 0 and nodes:
                        raise self.error("expected one game tree, found a second (", start)
                    if depth > 0 and not skipping:
                        if depth in branched:
                            skipping = depth + 1
                        else:
                            branched.add(depth)
                    depth += 1
                    node = None
                elif mark == ")":
                    if skipping == depth:
                        skipping = 0
                    depth -= 1
                    node = None
                    if depth == 0:
                        rest = text[position:].strip()
                        if rest:
                            raise self.error(
                                f"expected the end of the game, found {rest[:20]}",
                                text.index(rest[0], position),
                            )
                        return nodes
                elif not skipping:
                    if root_only and nodes:
                        self.stopped_at = start
                        return nodes
                    node = Node(offset=start)
                    nodes.append(node)
                continue
            if skipping:
                continue
            if node is None:
                raise self.error(f"expected ; before the property {token.group()[:20]}", start)
            if kind == "name":
                name = token.group("name")
                if not name.isupper():
                    raise self.error(f"expected a property in capitals, found {name}", start)
                prop = Property(name, [], start)
                node.properties.append(prop)
                continue
            if prop is None:
                raise self.error("expected a property's name before its value", start)
            value = token.group("value")[1:-1]
            if "\\" in value:
                value = _UNESCAPE.sub(_escaped, _SOFT_BREAK.sub("", value))
            prop.values.append(value)
        if root_only:
            return nodes
        end = len(text.rstrip())
        raise self.error("expected ) closing the game, found the end of the file", max(end, 0))
