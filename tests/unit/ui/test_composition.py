"""Composition, not mixins (issue 23): no class in ``desktop_app/ui`` has more than one base once ``Protocol`` and
``Generic[...]`` are set aside, so a Qt widget class is the only base of a widget and behaviour comes from
collaborators it holds (``window.turns``, ``view.stream``, ``card.approval``…), never from a mixin; and no import
circle runs through the UI or the composition root (``app.py`` ↔ ``ui/tray/desktop.py`` was one)."""

from __future__ import annotations

import ast
from pathlib import Path

import desktop_app.ui

UI = Path(desktop_app.ui.__file__).parent
ALLOWED_EXTRA = {"Protocol", "Generic"}


def _name(base: ast.expr) -> str:
    """``Generic[T]`` → ``Generic``; ``typing.Protocol`` → ``Protocol``; ``QtWidgets.QFrame`` → ``QFrame``."""
    if isinstance(base, ast.Subscript):
        base = base.value
    if isinstance(base, ast.Attribute):
        return base.attr
    return base.id if isinstance(base, ast.Name) else ast.unparse(base)


def mixin_classes(root: Path) -> list[str]:
    """``path:line Class(bases)`` for each class under ``root`` with more than one base besides
    Protocol/Generic."""
    found = []
    for path in sorted(root.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            if not isinstance(node, ast.ClassDef):
                continue
            bases = [_name(base) for base in node.bases if _name(base) not in ALLOWED_EXTRA]
            if len(bases) > 1:
                found.append(f"{path.relative_to(root.parent)}:{node.lineno} {node.name}({', '.join(bases)})")
    return found


def test_no_class_in_the_ui_has_a_mixin_base() -> None:
    assert mixin_classes(UI) == []


def test_the_check_sees_a_mixin_and_allows_protocol_and_generic(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "m.py").write_text(
        "class A(Slots, QScrollArea): ...\n"
        "class B(QFrame): ...\n"
        "class C(Generic[T]): ...\n"
        "class D(Base, Protocol): ...\n"
        "class E(typing.Protocol, Generic[T]): ...\n"
        "class F(QtWidgets.QFrame, extra.Mixin): ...\n",
        encoding="utf-8",
    )
    assert mixin_classes(tmp_path / "pkg") == ["pkg/m.py:1 A(Slots, QScrollArea)", "pkg/m.py:6 F(QFrame, Mixin)"]


def ui_import_circles() -> list[tuple[str, str]]:
    """``(module, imported)`` pairs of ``desktop_app.ui`` (and ``desktop_app.app``) where ``imported`` leads back
    to ``module``: an import circle (imports under ``TYPE_CHECKING`` do not run, so they do not count)."""
    import grimp

    graph = grimp.build_graph("desktop_app", exclude_type_checking_imports=True)
    inside = {m for m in graph.modules if m.startswith("desktop_app.ui")} | {"desktop_app.app"}
    return sorted(
        (module, imported)
        for module in inside
        for imported in graph.find_modules_directly_imported_by(module)
        if imported in inside and graph.chain_exists(importer=imported, imported=module)
    )


def test_the_ui_and_the_app_have_no_import_circle() -> None:
    assert ui_import_circles() == []
