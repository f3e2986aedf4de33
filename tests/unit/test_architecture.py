"""The shape of the code (issue 23): no import circle, no class built from mixins or layer bases, no module
over the hard stop in lines.

The import graph is read from the source with ``ast``: every ``import`` and ``from … import`` counts, at module
level, inside functions and under ``TYPE_CHECKING`` alike (a circle is a circle whichever way it is imported).
An edge goes to the module named, or, for ``from package import name``, to ``package.name`` when that is a
module, else to ``package``. A circle is a strongly connected component of more than one module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator, Mapping
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "desktop_app"
# Bases that do not make a class a mixin tower: typing's markers and the exception tree's roots.
NEUTRAL_BASES = {"Protocol", "Generic", "Exception", "BaseException", "NamedTuple", "TypedDict"}


def module_files(package: Path) -> dict[str, Path]:
    """Dotted module name → file, for every ``.py`` under ``package`` (``__init__`` names the package)."""
    found: dict[str, Path] = {}
    for path in package.rglob("*.py"):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _known(name: str, modules: Mapping[str, Path]) -> str | None:
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imports_of(name: str, path: Path, modules: Mapping[str, Path]) -> set[str]:
    """The modules of ``modules`` that module ``name`` imports (itself left out)."""
    targets: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            targets.update(t for a in node.names if (t := _known(a.name, modules)))
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
                package = package[: len(package) - node.level + 1]
                base = ".".join([*package, base] if base else package)
            for alias in node.names:
                full = f"{base}.{alias.name}"
                target = full if full in modules else _known(base, modules)
                if target:
                    targets.add(target)
    targets.discard(name)
    return targets


def import_graph(package: Path, within: str = "") -> dict[str, set[str]]:
    """The import graph of ``package``, cut down to the modules named ``within`` or under it."""
    modules = module_files(package)
    inside = {name for name in modules if not within or name == within or name.startswith(within + ".")}
    return {name: imports_of(name, modules[name], modules) & inside for name in inside}


def circles(graph: Mapping[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def layered_classes(package: Path) -> list[str]:
    """Classes with more than one base besides ``Protocol``/``Generic`` and exception types."""
    out: list[str] = []
    for path in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.ClassDef):
                continue
            names = [ast.unparse(b.value if isinstance(b, ast.Subscript) else b).rpartition(".")[2] for b in node.bases]
            real = [n for n in names if n not in NEUTRAL_BASES and not n.endswith(("Error", "Exception"))]
            if len(real) > 1:
                out.append(f"{path.relative_to(package.parent)}: {node.name}({', '.join(names)})")
    return out


def test_the_checks_see_a_circle_and_a_mixin(tmp_path: Path) -> None:
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "a.py").write_text("from pkg import b\nclass A(b.B, Protocol): ...\n")
    (pkg / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from pkg.a import A\nclass B: ...\n"
    )
    (pkg / "c.py").write_text("from .a import A\nfrom . import b\nclass C(A, b.B): ...\nclass E(ValueError, A): ...\n")
    assert circles(import_graph(pkg)) == [["pkg.a", "pkg.b"]]
    assert layered_classes(pkg) == ["pkg/c.py: C(A, B)"]


def test_no_import_circle_in_the_runtime() -> None:
    assert circles(import_graph(PACKAGE, "desktop_app.runtime")) == []


def test_no_runtime_class_has_mixin_bases() -> None:
    assert layered_classes(PACKAGE / "runtime") == []


MODULE_LINES_HARD_STOP = 450


def test_no_module_is_over_the_hard_stop_in_lines() -> None:
    """Modules stay small: the house rule is ~400 lines (split by responsibility, into a collaborator or a
    cohesive module of functions, never a mixin); 450 is the hard stop this test holds."""
    over = {
        str(path.relative_to(PACKAGE.parent)): lines
        for path in sorted(PACKAGE.rglob("*.py"))
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MODULE_LINES_HARD_STOP
    }
    assert over == {}
