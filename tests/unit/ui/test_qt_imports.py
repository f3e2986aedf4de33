"""PySide6's ``__feature__`` import hook, taken off: an import statement after Qt no longer calls into shiboken's
feature module (issue 27: ~9 ms on the way to ready) nor leaves the module's whole source in ``linecache``;
where the hook runs anyway, its test for PySide6 users answers as shiboken's own did."""

from __future__ import annotations

import linecache
import sys
import types

from desktop_app.ui.qt_imports import _mentions_pyside, lighten_feature_hook


def test_a_module_imported_after_qt_goes_through_no_feature_hook(tmp_path, monkeypatch):
    import builtins

    import shibokensupport.feature as feature

    monkeypatch.setattr(feature, "_mod_uses_pyside", feature._mod_uses_pyside)  # undone after the test
    assert lighten_feature_hook()
    assert builtins.__import__ is builtins.__orig_import__  # shiboken's lazy loader of Qt types, unwrapped
    module_file = tmp_path / "sb_probe_module.py"
    module_file.write_text(
        "import json\n\nVALUE = 1\n" + "# padding\n" * 1000, encoding="utf-8"
    )  # an import: the hook would run
    monkeypatch.syspath_prepend(str(tmp_path))
    linecache.checkcache()
    module = __import__("sb_probe_module")  # an import statement (shiboken's hook was ``builtins.__import__``)
    try:
        assert module.VALUE == 1
        assert str(module_file) not in linecache.cache
        assert "sb_probe_module" not in feature.pyside_feature_dict  # the hook never saw it
        from PySide6.QtWidgets import QWidget  # Qt's lazily made types still come through the import

        assert QWidget.__name__ == "QWidget"
    finally:
        sys.modules.pop("sb_probe_module", None)


def test_the_test_finds_pyside_users_as_shiboken_did(tmp_path):
    uses = tmp_path / "uses.py"
    uses.write_text("from PySide6.QtCore import QObject\n", encoding="utf-8")
    plain = tmp_path / "plain.py"
    plain.write_text("import json\n", encoding="utf-8")
    for path, expected in ((uses, True), (plain, False)):
        module = types.ModuleType(path.stem)
        module.__file__ = str(path)
        assert _mentions_pyside(module) is expected
    assert _mentions_pyside(types.ModuleType("no_file")) is False
