"""The engine's shape, read from its source with ``ast``: no import circle, one door, the packing
named in ``bits`` alone, each truth defined once, modules and functions of a readable length.

These hold the redesign ("The house, redesigned") in place: a circle held together by an import
at the bottom of a module works until someone reorders the imports.
"""

from __future__ import annotations

import ast
import re
import subprocess
import sys
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[2] / "jacquet_notation"
ENGINE = PACKAGE / "engine"
ENGINE_MODULES = sorted(path.stem for path in ENGINE.glob("*.py") if path.stem != "__init__")
#: the one function allowed past 100 lines: the engine's inline fast path
LONG_FUNCTIONS = {("quick.py", "accept_quickly")}


def module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imported_modules(path: Path) -> set[str]:
    """The package's modules that ``path`` imports (``from . import x`` counts ``x`` too)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    here = module_name(path).split(".")
    if path.stem != "__init__":
        here = here[:-1]
    found: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.level:
            base = here[: len(here) - node.level + 1]
            target = ".".join([*base, *(node.module.split(".") if node.module else [])])
            for alias in node.names:
                candidate = f"{target}.{alias.name}"
                if (PACKAGE.parent / candidate.replace(".", "/")).with_suffix(".py").exists():
                    found.add(candidate)
                else:
                    found.add(target)
        elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(
            "jacquet_notation"
        ):
            found.add(node.module or "")
    return found


def engine_graph() -> dict[str, set[str]]:
    """Each engine module (and bits) -> the engine modules it imports."""
    paths = [*ENGINE.glob("*.py"), PACKAGE / "bits.py"]
    names = {module_name(path) for path in paths}
    return {module_name(path): imported_modules(path) & names for path in paths}


def test_the_engine_has_no_import_circle() -> None:
    graph = engine_graph()
    done: set[str] = set()

    def visit(name: str, stack: list[str]) -> None:
        if name in stack:
            pytest.fail(f"import circle: {' -> '.join([*stack[stack.index(name) :], name])}")
        if name in done:
            return
        for child in sorted(graph.get(name, ())):
            if child != "jacquet_notation.engine":  # a submodule's own package: imported first
                visit(child, [*stack, name])
        done.add(name)

    for name in sorted(graph):
        visit(name, [])


@pytest.mark.parametrize("module", ENGINE_MODULES)
def test_each_engine_module_imports_first_and_alone(module: str) -> None:
    """In a fresh interpreter, with nothing of the package imported before it."""
    result = subprocess.run(
        [sys.executable, "-c", f"import jacquet_notation.engine.{module}"],
        capture_output=True,
        text=True,
        cwd=PACKAGE.parent,
        check=False,
    )
    assert result.returncode == 0, result.stderr


def test_the_door_is_the_one_module_that_chooses_a_whole_turn() -> None:
    """``legal_plays`` and ``validate_play`` in :mod:`.legal`; only it imports ``shares``."""
    graph = engine_graph()
    importers = sorted(
        name
        for name, children in graph.items()
        if any(child == "jacquet_notation.engine.shares" for child in children)
    )
    assert importers == ["jacquet_notation.engine.legal"]
    for name in ("legal_plays", "validate_play"):
        defined = [
            path.name
            for path in ENGINE.glob("*.py")
            if re.search(rf"^def {name}\(", path.read_text(encoding="utf-8"), re.MULTILINE)
        ]
        assert defined == ["legal.py"], (name, defined)


def test_no_escape_hatch_holds_the_imports() -> None:
    for path in [*ENGINE.glob("*.py"), PACKAGE / "bits.py"]:
        text = path.read_text(encoding="utf-8")
        assert "noqa: E402" not in text and "isort: split" not in text, path.name


def test_no_private_name_is_imported_across_the_engine() -> None:
    for path in [*ENGINE.glob("*.py"), PACKAGE / "bits.py"]:
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                private = [alias.name for alias in node.names if alias.name.startswith("_")]
                assert not private, (path.name, node.module, private)


def test_engine_modules_and_functions_are_short() -> None:
    for path in [*ENGINE.glob("*.py"), PACKAGE / "bits.py"]:
        text = path.read_text(encoding="utf-8")
        assert text.count("\n") <= 450, path.name
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if (path.name, node.name) not in LONG_FUNCTIONS:
                    assert length <= 100, (path.name, node.name, length)


def test_men_and_direction_are_defined_once_in_the_package() -> None:
    definitions: dict[str, list[str]] = {"MEN": [], "Direction": []}
    for path in PACKAGE.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            targets = (
                node.targets
                if isinstance(node, ast.Assign)
                else [node.target]
                if isinstance(node, ast.AnnAssign) and node.value is not None
                else []
            )
            for target in targets:
                if isinstance(target, ast.Name) and target.id in definitions:
                    definitions[target.id].append(str(path.relative_to(PACKAGE)))
    assert definitions == {"MEN": ["bits.py"], "Direction": ["rules.py"]}


def test_the_engine_shifts_no_packed_int_by_a_raw_number() -> None:
    """``bits`` alone knows the packing: elsewhere a shift is by a name, never a literal."""
    for path in ENGINE.glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.RShift, ast.LShift)):
                assert not isinstance(node.right, ast.Constant), (
                    path.name,
                    node.lineno,
                    ast.unparse(node),
                )


def test_dead_names_are_gone() -> None:
    text = "\n".join(path.read_text(encoding="utf-8") for path in ENGINE.glob("*.py"))
    assert "may_bind" not in text
    assert "def dice_used" not in text
