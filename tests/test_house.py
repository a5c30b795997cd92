"""The house's rules, over the whole package, read from its source (docs/architecture.md): no
import circle, the layers that may not read the packing of a side import nothing from ``bits``,
no escape hatch holding an import order, modules and functions short, and no private name taken
from another module. Each rule fails on the code that broke it before the redesign."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "jacquet_notation"
#: the functions allowed past the length limit (docs/architecture.md says why): the engine's
#: inline fast path, written out so that validating a common play costs no calls, and the
#: reader's inner loop over a token's words, whose open play lives in locals; the second is
#: to be split (issue 25 left it at 143 lines)
LONG_ALLOWED = {("engine/quick.py", "accept_quickly")}
MOST_LINES = 450
MOST_FUNCTION_LINES = 100


def modules() -> Iterator[tuple[str, Path]]:
    """Every module of the package, by its dotted name."""
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        yield ".".join(parts), path


def imported(name: str, path: Path) -> Iterator[tuple[str, list[str]]]:
    """What a module imports, anywhere in it: each module named, with the names taken from it."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield alias.name, []
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[: len(base) - node.level + 1]
                source = ".".join([*base, node.module] if node.module else base)
            else:
                source = node.module or ""
            yield source, [alias.name for alias in node.names]


def graph() -> dict[str, set[str]]:
    """The package's modules, each with the package modules it imports (a name imported from a
    package that is itself a module counts as that module)."""
    names = {name for name, _ in modules()}
    edges: dict[str, set[str]] = {}
    for name, path in modules():
        targets = edges.setdefault(name, set())
        for source, taken in imported(name, path):
            if source not in names:
                continue
            submodules = {f"{source}.{item}" for item in taken} & names
            targets.update(submodules or {source})
            if not submodules or len(submodules) < len(taken):
                targets.add(source)
        targets.discard(name)
    return edges


def test_the_package_has_no_import_circle() -> None:
    edges = graph()
    # a package's __init__ re-exports its modules: the arrows into it from inside are the
    # modules' own imports of their package, which Python resolves through the modules
    for name in edges:
        edges[name] = {
            target for target in edges[name] if not (name.startswith(target + ".") and target)
        }
    seen: dict[str, int] = {}  # 1: on the path, 2: done
    circles: list[list[str]] = []

    def visit(node: str, path: list[str]) -> None:
        seen[node] = 1
        for target in sorted(edges.get(node, ())):
            if seen.get(target) == 1:
                circles.append([*path[path.index(target) :], target])
            elif target not in seen:
                visit(target, [*path, target])
        seen[node] = 2

    for name in sorted(edges):
        if name not in seen:
            visit(name, [name])
    assert circles == []


@pytest.mark.parametrize("layer", ["archive", "browse", "replay"])
def test_layers_above_the_engine_read_no_packed_int(layer: str) -> None:
    found = [
        name
        for name, path in modules()
        if name.startswith(f"jacquet_notation.{layer}")
        for source, _ in imported(name, path)
        if source == "jacquet_notation.bits"
    ]
    assert found == []


def test_no_escape_hatch_holds_an_import_order() -> None:
    found = [
        f"{path.relative_to(PACKAGE)}:{number}"
        for _, path in modules()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1)
        if "noqa: E402" in line or "isort: split" in line
    ]
    assert found == []


def test_modules_and_functions_are_short() -> None:
    long_modules = []
    long_functions = []
    for _, path in modules():
        where = str(path.relative_to(PACKAGE))
        text = path.read_text(encoding="utf-8")
        if len(text.splitlines()) > MOST_LINES and where != "engine/quick.py":
            long_modules.append((where, len(text.splitlines())))
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                length = (node.end_lineno or node.lineno) - node.lineno + 1
                if length > MOST_FUNCTION_LINES and (where, node.name) not in LONG_ALLOWED:
                    long_functions.append((where, node.name, length))
    assert long_modules == []
    assert long_functions == []


def test_no_private_name_is_taken_from_another_module() -> None:
    found = [
        f"{name} takes {item} from {source}"
        for name, path in modules()
        for source, taken in imported(name, path)
        if source.startswith("jacquet_notation")
        for item in taken
        if item.startswith("_") and not item.startswith("__")
    ]
    assert found == []
