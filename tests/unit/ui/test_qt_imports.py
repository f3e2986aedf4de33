"""PySide6's ``__feature__`` import hook, made cheap: modules imported after Qt no longer leave their whole
source in ``linecache``, and the feature decision for each module is the same as shiboken's own."""

from __future__ import annotations

import linecache
import sys
import types

from desktop_app.ui.qt_imports import _mentions_pyside, lighten_feature_hook


def test_a_module_imported_after_qt_leaves_no_source_in_linecache(tmp_path, monkeypatch):
    import shibokensupport.feature as feature

    monkeypatch.setattr(feature, "_mod_uses_pyside", feature._mod_uses_pyside)  # undone after the test
    assert lighten_feature_hook()
    module_file = tmp_path / "sb_probe_module.py"
    module_file.write_text(
        "import json\n\nVALUE = 1\n" + "# padding\n" * 1000, encoding="utf-8"
    )  # an import: the hook runs
    monkeypatch.syspath_prepend(str(tmp_path))
    linecache.checkcache()
    module = __import__("sb_probe_module")  # an import statement (shiboken's hook is ``builtins.__import__``)
    try:
        assert module.VALUE == 1
        assert str(module_file) not in linecache.cache
        assert feature.pyside_feature_dict.get("sb_probe_module") == -1  # "does not use PySide6", as before
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
