"""The replay and the match checks as packages of one concern a module (docs/architecture.md):
modules and functions of a readable size, no circle through self-play, one error constructor."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

import jacquet_notation
from jacquet_notation.errors import KindedError, MatchError, ReplayError
from jacquet_notation.replay import written_play

PACKAGE = Path(jacquet_notation.__file__).parent
MOST_LINES = 450
MOST_FUNCTION_LINES = 100


def _modules(name: str) -> list[Path]:
    folder = PACKAGE / name
    return sorted(folder.glob("*.py")) if folder.is_dir() else [PACKAGE / f"{name}.py"]


@pytest.mark.parametrize("name", ["replay", "match"])
def test_each_module_is_under_the_size_limits(name: str) -> None:
    modules = _modules(name)
    assert len(modules) > 1, f"{name} is still one module"
    for module in modules:
        text = module.read_text(encoding="utf-8")
        assert text.count("\n") <= MOST_LINES, f"{module.name}: {text.count(chr(10))} lines"
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                assert length <= MOST_FUNCTION_LINES, f"{module.name}: {node.name}, {length} lines"


@pytest.mark.parametrize("name", ["replay", "match"])
def test_no_private_name_is_imported_across_modules(name: str) -> None:
    for module in _modules(name):
        for node in ast.walk(ast.parse(module.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module != "__future__":
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                assert not private, f"{module.name} imports {private} from {node.module}"


def test_written_play_lives_with_the_replay_not_with_self_play() -> None:
    # the replay writes plays as records (its suggestions); self-play's records reuse it
    assert written_play.__module__.startswith("jacquet_notation.replay")
    loaded = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys, jacquet_notation.replay; "
            "print('jacquet_notation.generate' in sys.modules, "
            "'jacquet_notation.selfplay' in sys.modules)",
        ],
        capture_output=True,
        text=True,
        check=True,
        cwd=PACKAGE.parent,
    )
    assert loaded.stdout.split() == ["False", "False"]


def test_replay_and_match_errors_share_one_constructor() -> None:
    replayed = ReplayError(
        "wrong-side", "Black plays", file="a.jqt", game=2, line=3, column=4, ply=5
    )
    checked = MatchError("cube", "Black doubles", file="a.mat", game=1, line=7, column=1)
    assert isinstance(replayed, KindedError) and isinstance(checked, KindedError)
    assert not isinstance(replayed, MatchError)
    assert "__init__" not in vars(MatchError)
    assert (replayed.kind, replayed.ply, str(replayed)) == (
        "wrong-side",
        5,
        "a.jqt:3:4: Black plays",
    )
    assert (checked.kind, str(checked)) == ("cube", "a.mat:7:1: Black doubles")
    assert replayed.suggestions == () and replayed.slip is None
