"""The layout of the archive, the XML and validation, read from their source (issue "The house,
redesigned"): small modules and functions, no import circle, no private name imported from
another module, the archive reading no packed int, no dead helper left."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "jacquet_notation"
#: the files of this part of the package
FILES = sorted(
    [
        *(PACKAGE / "archive").glob("*.py"),
        *(PACKAGE / "_xml").glob("*.py"),
        *(PACKAGE / name for name in ("xml.py", "validation.py", "reporting.py", "sources.py")),
    ]
)
MOST_LINES = 450
MOST_FUNCTION_LINES = 100


def _tree(path: Path) -> ast.Module:
    return ast.parse(path.read_text(encoding="utf-8"), filename=str(path))


def _name(path: Path) -> str:
    return path.relative_to(PACKAGE.parent).with_suffix("").as_posix()


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_module_and_its_functions_are_small(path: Path) -> None:
    lines = len(path.read_text(encoding="utf-8").splitlines())
    assert lines <= MOST_LINES, f"{_name(path)}: {lines} lines"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > MOST_FUNCTION_LINES
    ]
    assert not long, f"{_name(path)}: {', '.join(long)}"


@pytest.mark.parametrize("path", FILES, ids=_name)
def test_no_private_name_is_imported(path: Path) -> None:
    private = [
        f"line {node.lineno}: {alias.name}"
        for node in ast.walk(_tree(path))
        if isinstance(node, ast.ImportFrom)
        for alias in node.names
        if alias.name.startswith("_") and not alias.name.startswith("__")
    ]
    assert not private, f"{_name(path)}: {'; '.join(private)}"


def test_the_archive_reads_no_packed_int() -> None:
    # keys, pips and men off come through Position's public methods, never from bits.py
    mentions = [
        f"{_name(path)}:{number}"
        for path in sorted((PACKAGE / "archive").glob("*.py"))
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "bits" in line
    ]
    assert not mentions


def _archive_imports() -> dict[str, set[str]]:
    """Each module of ``archive/`` and the modules of ``archive/`` it imports, anywhere in it."""
    modules = {path.stem for path in (PACKAGE / "archive").glob("*.py")} - {"__init__"}
    graph: dict[str, set[str]] = {}
    for module in modules:
        found: set[str] = set()
        for node in ast.walk(_tree(PACKAGE / "archive" / f"{module}.py")):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module in modules:
                    found.add(node.module)
                found.update(alias.name for alias in node.names if alias.name in modules)
        graph[module] = found - {module}
    return graph


def test_no_import_circle_in_the_archive() -> None:
    graph = _archive_imports()
    assert "rebuilding" in graph["importer"]  # the walk below sees lazy imports too

    def reaches(start: str, goal: str, seen: set[str]) -> bool:
        for step in graph[start] - seen:
            seen.add(step)
            if step == goal or reaches(step, goal, seen):
                return True
        return False

    circles = sorted(module for module in graph if reaches(module, module, set()))
    assert not circles


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("validation", "_batched"),
        ("_xml/export", "_point_text"),
        ("_xml/format", "_text_element"),
    ],
)
def test_dead_helpers_are_gone(module: str, name: str) -> None:
    defined = {
        node.name
        for node in ast.walk(_tree(PACKAGE / f"{module}.py"))
        if isinstance(node, ast.FunctionDef)
    }
    assert name not in defined
