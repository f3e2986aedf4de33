"""Help → About shows the one version, the one in pyproject.toml."""

from __future__ import annotations

import tomllib
from pathlib import Path

from desktop_app.ui.dialogs.about import about_html

PYPROJECT = Path(__file__).resolve().parents[3] / "pyproject.toml"


def test_about_box_shows_the_pyproject_version(window) -> None:
    version = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]
    window.about_action.trigger()
    box = window.about_box
    assert box.isVisible() and box.windowTitle() == "About Switchboard"
    assert f"Switchboard {version}" in box.text()
    assert "PySide6" in about_html() and "Logs" in about_html()
