"""Help → About Switchboard: the version (the one in pyproject.toml), the Qt/PySide6/Python it runs on,
where its files live, and the licence. Opened non-modally (``open()``, never ``exec()`` on the qasync loop)."""

from __future__ import annotations

import platform
import sys
from html import escape

from PySide6 import __version__ as pyside_version
from PySide6.QtCore import qVersion
from PySide6.QtGui import QAction
from PySide6.QtWidgets import QApplication, QMainWindow, QMessageBox, QWidget


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


def install_help_menu(window: QMainWindow) -> QAction:
    """Add Help → About Switchboard to ``window``'s menu bar; returns the action."""
    menu = window.menuBar().addMenu("&Help")
    action = QAction("&About Switchboard", window)
    action.setObjectName("aboutAction")
    action.setMenuRole(QAction.MenuRole.AboutRole)  # macOS: in the application menu
    action.triggered.connect(lambda: setattr(window, "about_box", open_about(window)))
    menu.addAction(action)
    return action
