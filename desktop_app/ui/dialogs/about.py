"""The Help menu. Help → User guide (F1) opens the local user guide (docs/index.md, shipped with the frozen app)
in the system's viewer. Help → About Switchboard: the version (the one in pyproject.toml), the Qt/PySide6/Python
it runs on, where its files live, and the licence. Opened non-modally (``open()``, never ``exec()`` on the qasync
loop)."""

from __future__ import annotations

import platform
import sys
from html import escape
from pathlib import Path

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import QUrl, qVersion
from PySide6.QtGui import QAction, QDesktopServices, QKeySequence
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox, QWidget

from desktop_app.ui.dialogs.frame import message_box


def about_html() -> str:
    from desktop_app import __version__  # read when the box opens (importlib.metadata: not before the first paint)
    from desktop_app.paths import app_paths

    paths = app_paths()
    frozen = "frozen app" if getattr(sys, "frozen", False) else "from source"
    rows = [
        ("Version", __version__),
        ("Runs on", f"Qt {qVersion()}, PySide6 {pyside_version}, Python {platform.python_version()} ({frozen})"),
        ("System", f"{platform.system()} {platform.release()} ({platform.machine()})"),
        ("Settings", str(paths.config_dir)),
        ("Data", str(paths.data_dir)),
        ("Logs", str(paths.log_dir)),
    ]
    table = "".join(f"<tr><td><b>{escape(k)}</b>&nbsp;&nbsp;</td><td>{escape(v)}</td></tr>" for k, v in rows)
    return (
        f"<h3>Switchboard {escape(__version__)}</h3>"
        "<p>A small, fast desktop AI assistant that is also a complete MCP host.</p>"
        f"<table>{table}</table>"
        "<p>MIT License. API keys live in the system keyring, never in files or logs.</p>"
    )


def open_about(parent: QWidget) -> QMessageBox:
    box = QMessageBox(parent)
    box.setObjectName("aboutBox")
    box.setWindowTitle("About Switchboard")
    box.setTextFormat(box.textFormat().RichText)
    box.setText(about_html())
    app = QApplication.instance()
    if isinstance(app, QApplication) and not app.windowIcon().isNull():
        box.setIconPixmap(app.windowIcon().pixmap(64, 64))
    box.setStandardButtons(QMessageBox.StandardButton.Close)
    box.open()
    return box


def guide_path() -> Path:
    """The user guide's first page: docs/index.md in a checkout, under ``_MEIPASS`` in the frozen app (its
    ``docs/``, collected by packaging/switchboard.spec)."""
    base = getattr(sys, "_MEIPASS", None)
    return (Path(base) if base else Path(__file__).resolve().parents[3]) / "docs" / "index.md"


def open_guide(parent: QWidget) -> QMessageBox | None:
    """Open the user guide in the system's viewer; a guide that is missing, or no viewer, is said in a box."""
    path = guide_path()
    if path.is_file() and QDesktopServices.openUrl(QUrl.fromLocalFile(str(path))):
        return None
    why = "could not be opened (no program opens .md files here)" if path.is_file() else "is not installed here"
    box = message_box(
        parent,
        "User guide",
        f"The user guide {why}: {path}. The same pages are in the project's docs/ folder.",
        secondary=QMessageBox.StandardButton.Close,
    )
    box.setObjectName("guideMissingBox")
    box.open()
    return box


def install_help_menu(window: QMainWindow) -> QAction:
    """Add Help → User guide and Help → About Switchboard to ``window``'s menu bar; returns the About action."""
    menu = window.menuBar().addMenu("&Help")
    guide = QAction("&User guide", window)
    guide.setObjectName("userGuideAction")
    guide.setShortcut(QKeySequence(QKeySequence.StandardKey.HelpContents))
    guide.triggered.connect(lambda: setattr(window, "guide_box", open_guide(window)))
    menu.addAction(guide)
    action = QAction("&About Switchboard", window)
    action.setObjectName("aboutAction")
    action.setMenuRole(QAction.MenuRole.AboutRole)  # macOS: in the application menu
    action.triggered.connect(lambda: setattr(window, "about_box", open_about(window)))
    menu.addAction(action)
    return action
