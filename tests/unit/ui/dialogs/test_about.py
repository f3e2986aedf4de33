"""Help → About shows the one version, the one in pyproject.toml; Help → User guide opens the local guide."""

from __future__ import annotations

import sys
import tomllib
from pathlib import Path

from PySide6.QtCore import QObject, QUrl, Slot
from PySide6.QtGui import QAction, QDesktopServices

from desktop_app.ui.dialogs.about import about_html, guide_path

REPO = Path(__file__).resolve().parents[4]
PYPROJECT = REPO / "pyproject.toml"


def test_about_box_shows_the_pyproject_version(window) -> None:
    version = tomllib.loads(PYPROJECT.read_text(encoding="utf-8"))["project"]["version"]
    window.about_action.trigger()
    box = window.about_box
    assert box.isVisible() and box.windowTitle() == "About Switchboard"
    assert f"Switchboard {version}" in box.text()
    assert "PySide6" in about_html() and "Logs" in about_html()


class UrlCatcher(QObject):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[QUrl] = []

    @Slot(QUrl)
    def handle(self, url: QUrl) -> None:
        self.urls.append(url)


def test_help_user_guide_opens_the_local_guide(window) -> None:
    action = window.findChild(QAction, "userGuideAction")
    assert action is not None and action.text() == "&User guide"
    assert action in window.menuBar().actions()[-1].menu().actions()  # in the Help menu, the last one
    catcher = UrlCatcher()
    QDesktopServices.setUrlHandler("file", catcher, "handle")
    try:
        action.trigger()
    finally:
        QDesktopServices.unsetUrlHandler("file")
    assert [url.toLocalFile() for url in catcher.urls] == [str(REPO / "docs" / "index.md")]
    assert window.guide_box is None and (REPO / "docs" / "index.md").is_file()


def test_the_frozen_app_finds_its_guide_and_a_missing_one_is_said(window, tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(sys, "_MEIPASS", str(tmp_path), raising=False)
    assert guide_path() == tmp_path / "docs" / "index.md"
    window.findChild(QAction, "userGuideAction").trigger()
    box = window.guide_box
    assert box.isVisible() and "is not installed here" in box.text() and str(guide_path()) in box.text()
    box.close()


def test_the_frozen_app_carries_the_guide() -> None:
    spec = (REPO / "packaging" / "switchboard.spec").read_text(encoding="utf-8")
    assert '(str(ROOT / "docs" / "*.md"), "docs")' in spec
