"""Benchmark: does compiling the hot modules with mypyc pay? The compiled build beside pure Python.

    python3 bench/compiled.py [--games 1000] [--data ../shared/data/backgammon-mat] [--repeat 3]

Issue 28 allows compiling the engine's hot modules if it pays. This measures it rather than
guessing: the package is copied into a temporary folder, the modules of ``HOT`` (the ones the
profile of ``bench/validate.py`` and ``bench/mat.py`` names) compiled there with mypyc, and the
same work timed in two fresh processes taking turns, one importing the compiled copy, the other
this tree (pure Python, the peer): ``validate_paths`` on seeded self-play ``.jqt`` games and on
the shared ``.mat`` files, and ``read_games`` on the ``.jqt`` file. CPU time, best of
``--repeat`` (other work only ever adds). The ratio is pure ÷ compiled: above 1, compiling pays.

Three constructions of the pure path are rewritten in the copy only, because mypyc's native
classes refuse them: the plain twins whose class is swapped for ``Position`` and ``Play``
(engine/plays.py), and ``WrittenPlay.__slots__`` (notation/words.py); the copy
builds those objects with their plain constructors, which compiled code calls natively. Each
rewrite asserts the text it replaces, so that a change to those files fails here loudly.

Needs mypy (mypyc), setuptools and a C compiler with the Python headers; says so and stops
otherwise. The build takes about a minute on an idle core.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
# bench/xml.py would shadow the standard library's xml if this folder stayed first on the path
sys.path[:] = [entry for entry in sys.path if Path(entry or ".").resolve() != HERE]
DATA = ROOT.parent / "shared" / "data" / "backgammon-mat"

#: the modules compiled: the validation profile's hot path, with what it calls per ply
HOT = [
    "bits.py",
    "keys.py",
    "board_terms.py",
    "position.py",
    "record.py",
    "engine/plays.py",
    "engine/facts.py",
    "engine/context.py",
    "engine/search.py",
    "engine/quick.py",
    "engine/legal.py",
    "replay/marks.py",
    "replay/walk.py",
    "notation/words.py",
    "notation/messages.py",
    "notation/play_words.py",
    "notation/reader.py",
    "notation/mat_pieces.py",
    "notation/mat_reader.py",
]

_PLAIN_CONSTRUCTORS = """
def make_position(white: int, black: int, turn: Side, direction: Direction = "same") -> Position:
    return Position(white, black, turn, direction)


def make_play(
    steps: tuple[Step, ...], position: Position, opponent_steps: tuple[Step, ...] = ()
) -> Play:
    return Play(steps, position, opponent_steps)


def play_after(
    steps: tuple[Step, ...], mover: int, opp: int, white_moves: bool, direction: Direction
) -> Play:
    if white_moves:
        return Play(steps, Position(mover, opp, "black", direction))
    return Play(steps, Position(opp, mover, "white", direction))


def plays_of_states(
    paths_by_state: dict[int, tuple[Step, ...]],
    mover_side: Side,
    hitting: bool,
    opp: int,
    direction: Direction,
) -> list[Play]:
    white_moves = mover_side == "white"
    turn: Side = "black" if white_moves else "white"
    plays = []
    for state, path in paths_by_state.items():
        mover = state
        if hitting:
            mover, opp = state & MOVER, state >> OPP_SHIFT
        if white_moves:
            plays.append(Play(path, Position(mover, opp, turn, direction)))
        else:
            plays.append(Play(path, Position(opp, mover, turn, direction)))
    return plays


"""


def _cut(text: str, begin: str, end: str, new: str, *, through: bool = False) -> str:
    """``text`` with the part from ``begin`` up to ``end`` (kept, or cut too ``through`` it)
    replaced by ``new``."""
    first = text.index(begin)  # ValueError: the file changed, and this bench with it must
    last = text.index(end, first) + (len(end) if through else 0)
    return text[:first] + new + text[last:]


def mypyc_ready_copy(target: Path) -> Path:
    """The package and its grammar copied to ``target``, the rewrites above applied."""
    package = target / "jacquet_notation"
    shutil.copytree(ROOT / "jacquet_notation", package, ignore=shutil.ignore_patterns("*.so"))
    shutil.copytree(ROOT / "grammar", target / "grammar")
    plays = package / "engine" / "plays.py"
    text = _cut(plays.read_text(), "class _PositionTwin:", "def notation_of(", "")
    text = text.replace("def notation_of(", _PLAIN_CONSTRUCTORS.lstrip() + "def notation_of(")
    plays.write_text(text)
    words = package / "notation" / "words.py"
    text = _cut(words.read_text(), "_SET = {name:", "def new_play(", "")
    text = _cut(
        text,
        "    play: WrittenPlay = object.__new__(WrittenPlay)",
        "    return play\n",
        "    return WrittenPlay(\n        side, turn, dice, moves, text=text, span=span,"
        " opponent_moves=opponent_moves\n    )\n",
        through=True,
    )
    text = _cut(text, "    _setters: tuple[Any, ...] = _SETTERS,\n", ")", "")
    words.write_text(text)
    return target


def compile_copy(target: Path, names: list[str]) -> None:
    """mypyc on ``names`` (of ``HOT``) in ``target``, the extension modules beside the sources;
    stops the bench with mypyc's words if it fails."""
    modules = [f"jacquet_notation/{name}" for name in names]
    result = subprocess.run(
        [sys.executable, "-m", "mypyc", *modules],
        cwd=target,
        capture_output=True,
        text=True,
        env={**os.environ, "MYPYC_OPT_LEVEL": "3"},
    )
    if result.returncode != 0:
        raise SystemExit(f"mypyc failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}")


_CHILD = """
import gc, json, sys, time
sys.path.insert(0, {root!r})
from jacquet_notation.notation import read_games
from jacquet_notation.validation import validate_paths
import jacquet_notation.engine.quick as quick
def cpu(work):
    start = time.process_time()
    count = work()
    return time.process_time() - start, count
verdicts = {{}}  # each file's games that are not valid, to compare the builds' verdicts
def validate(path):
    reports = list(validate_paths([path], jobs=1))
    verdicts[path] = [[r.file, r.index, r.status] for r in reports if r.status != "valid"]
    return sum(report.plies for report in reports)
def read(path):
    with open(path, "rb") as handle:
        return sum(len(record.plays) for record in read_games(handle, path))
validate({jqt!r})  # the grammar built and the modules warm, as in a long run
figures = {{"build": "compiled" if not quick.__file__.endswith(".py") else "pure"}}
for name, work, path in (("validate .jqt", validate, {jqt!r}), ("validate .mat", validate,
        {mat!r}), ("read .jqt", read, {jqt!r})):
    gc.collect()
    figures[name] = cpu(lambda: work(path))
figures["verdicts"] = verdicts
print(json.dumps(figures))
"""


def run_build(root: Path, jqt: Path, mat: Path) -> dict[str, object]:
    """One round of the three measures in a fresh process importing the package at ``root``."""
    code = _CHILD.format(root=str(root), jqt=str(jqt), mat=str(mat))
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    if result.returncode != 0:
        raise SystemExit(f"the run on {root} failed:\n{result.stderr[-3000:]}")
    figures: dict[str, object] = json.loads(result.stdout)
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="self-play games (bench/out)")
    parser.add_argument("--data", type=Path, default=DATA, help="the .mat files' folder")
    parser.add_argument("--repeat", type=int, default=3, help="rounds; the best of each is kept")
    parser.add_argument(
        "--skip",
        nargs="*",
        default=[],
        metavar="PREFIX",
        help="leave out the modules of HOT starting so (notation/: compile no reader)",
    )
    args = parser.parse_args()
    compiler = os.environ.get("CC", "cc").split()[0]
    missing = [
        what
        for what, there in (
            ("mypyc (pip install mypy)", shutil.which("mypyc") or _importable("mypyc")),
            ("setuptools", _importable("setuptools")),
            (f"a C compiler ({compiler})", shutil.which(compiler)),
        )
        if not there
    ]
    if missing:
        raise SystemExit(f"bench/compiled.py needs {', '.join(missing)}")
    # bench/validate.py's cached self-play file, loaded by path as bench/mat.py loads it
    spec = importlib.util.spec_from_file_location("bench_validate", HERE / "validate.py")
    assert spec is not None and spec.loader is not None
    peer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(peer)
    jqt, mat = peer.jacquet_file(args.games), args.data
    if not mat.is_dir():
        raise SystemExit(f"bench/compiled.py: no folder of match files at {mat} (--data)")
    names = [name for name in HOT if not name.startswith(tuple(args.skip))]
    load = os.getloadavg()
    with tempfile.TemporaryDirectory(prefix="jacquet-mypyc-") as folder:
        copy = mypyc_ready_copy(Path(folder))
        compile_copy(copy, names)
        rounds: dict[str, list[dict[str, object]]] = {"pure": [], "compiled": []}
        for _ in range(args.repeat):  # in turn, so that a neighbour's burst hits both builds
            for build, root in (("pure", ROOT), ("compiled", copy)):
                figures = run_build(root, jqt, mat)
                assert figures["build"] == build, figures  # the import took the build meant
                rounds[build].append(figures)
    print(f"{args.games} self-play games ({jqt.stat().st_size / 1e6:.1f} MB), {mat}")
    print(f"load average before the run: {load[0]:.2f} on {os.cpu_count()} cores")
    print(f"modules compiled: {len(names)} ({', '.join(names)}); CPU s, best of {args.repeat}")
    print(f"{'':16} {'plies':>8} {'pure (peer)':>12} {'compiled':>9} {'pure/compiled':>14}")
    summary = {}
    for name in ("validate .jqt", "validate .mat", "read .jqt"):
        pure = min(_seconds(figures[name]) for figures in rounds["pure"])
        built = min(_seconds(figures[name]) for figures in rounds["compiled"])
        plies = _count(rounds["pure"][0][name])
        assert plies == _count(rounds["compiled"][0][name]), "the builds read different plies"
        assert rounds["pure"][0]["verdicts"] == rounds["compiled"][0]["verdicts"], "verdicts"
        print(f"{name:16} {plies:8d} {pure:12.2f} {built:9.2f} {pure / built:14.2f}")
        summary[name] = pure / built
    print(json.dumps(summary))


def _importable(name: str) -> bool:
    return importlib.util.find_spec(name) is not None


def _seconds(figure: object) -> float:
    assert isinstance(figure, list)
    return float(figure[0])


def _count(figure: object) -> int:
    assert isinstance(figure, list)
    return int(figure[1])


if __name__ == "__main__":
    main()
