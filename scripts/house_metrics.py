"""The shape of the code in numbers (issue 23's closing note): modules per folder, import floors and circles
of ``desktop_app.runtime``, the biggest modules, and the size of the big classes.

Run from the repository root: ``.venv/bin/python scripts/house_metrics.py``. Everything is read from the
source with ``ast`` (nothing is imported, no Qt): the import graph is the one ``tests/unit/test_architecture.py``
checks (every ``import`` at any level, ``TYPE_CHECKING`` included). An import *floor* is a module's level in
that graph: a module importing nothing of the graph is on floor 1, any other on one floor above the highest
module it imports; the number of floors is the longest import chain. A class's *attributes* are the names it
assigns on ``self`` in its methods plus its class-level names; its *methods* are the functions in its body.
"""

from __future__ import annotations

import ast
import sys
from collections import Counter
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tests.unit.test_architecture import PACKAGE, circles, import_graph  # noqa: E402

CLASSES = {
    "Runtime": "runtime/service/facade.py",
    "Host": "runtime/host/host.py",
    "MainWindow": "ui/window/main_window.py",
    "ChatView": "ui/chat/view.py",
    "ToolCard": "ui/chat/tool_card.py",
}


def modules_per_folder() -> Counter[str]:
    counts: Counter[str] = Counter()
    for path in PACKAGE.rglob("*.py"):
        if path.name != "__init__.py":
            counts[str(path.parent.relative_to(PACKAGE.parent))] += 1
    return counts


def floors(graph: dict[str, set[str]]) -> tuple[int, list[str]]:
    """The number of floors (longest import chain, in modules) and one chain that long."""

    @cache
    def chain(module: str) -> tuple[str, ...]:
        longest: tuple[str, ...] = ()
        for imported in graph[module]:
            below = chain(imported)
            if len(below) > len(longest):
                longest = below
        return (module, *longest)

    best = max((chain(m) for m in graph), key=len)
    return len(best), list(best)


def class_size(path: Path, name: str) -> tuple[int, int, list[str]]:
    """(attributes, methods, bases) of class ``name`` in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    node = next(n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == name)
    methods = [n for n in node.body if isinstance(n, ast.FunctionDef | ast.AsyncFunctionDef)]
    attributes: set[str] = set()
    for item in node.body:
        if isinstance(item, ast.Assign):
            attributes |= {t.id for t in item.targets if isinstance(t, ast.Name)}
        elif isinstance(item, ast.AnnAssign) and isinstance(item.target, ast.Name):
            attributes.add(item.target.id)
    for method in methods:
        for sub in ast.walk(method):
            targets = (
                sub.targets if isinstance(sub, ast.Assign) else [sub.target] if isinstance(sub, ast.AnnAssign) else []
            )
            for target in targets:
                for leaf in ast.walk(target):
                    if isinstance(leaf, ast.Attribute) and isinstance(leaf.value, ast.Name) and leaf.value.id == "self":
                        attributes.add(leaf.attr)
    attributes -= {m.name for m in methods}
    return len(attributes), len(methods), [ast.unparse(b) for b in node.bases]


def main() -> None:
    counts = modules_per_folder()
    print("modules per folder (without __init__.py):")
    for folder in sorted(counts):
        print(f"  {folder:40} {counts[folder]}")
    runtime = import_graph(PACKAGE, "desktop_app.runtime")
    whole = import_graph(PACKAGE)
    height, chain = floors(runtime)
    print(f"\nimport floors in desktop_app.runtime: {height}")
    print("  one longest chain: " + " -> ".join(m.removeprefix("desktop_app.runtime.") for m in chain))
    print(f"import circles: desktop_app.runtime {len(circles(runtime))}, desktop_app {len(circles(whole))}")
    sizes = sorted(
        (
            (len(p.read_text(encoding="utf-8").splitlines()), str(p.relative_to(PACKAGE.parent)))
            for p in PACKAGE.rglob("*.py")
        ),
        reverse=True,
    )
    over_400, over_450 = sum(n > 400 for n, _ in sizes), sum(n > 450 for n, _ in sizes)
    print(f"\nmodules: {len(sizes)}; over 400 lines: {over_400}; over 450: {over_450}")
    for lines, path in sizes[:5]:
        print(f"  {lines:5} {path}")
    print("\nbig classes (attributes, methods, bases):")
    for name, relative in CLASSES.items():
        attributes, methods, bases = class_size(PACKAGE / relative, name)
        print(f"  {name:11} {attributes:3} attributes {methods:3} methods  ({', '.join(bases)})")


if __name__ == "__main__":
    main()
