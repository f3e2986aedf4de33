"""Run by tests/unit/ui/apps/test_shell_with_views.py in a fresh process: the window with its desktop shell
(tray, single instance, file-open handling), then an MCP App web view that takes the focus; prints "alive"
when the view's page is up and it had the focus (PySide 6.11 crashes here when a Python application-wide
event filter is installed)."""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


def main() -> None:
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_app.runtime.apps.meta import ResourceCsp
    from desktop_app.ui.tray.desktop import DesktopShell
    from desktop_app.ui.window.main_window import MainWindow

    app = QApplication(sys.argv)
    window = MainWindow()
    with tempfile.TemporaryDirectory() as data:
        resources = Path(__file__).resolve().parents[3] / "resources"
        shell = DesktopShell(window, resources, Path(data), quit_app=lambda: None, tray_available=False)
        shell.start()
        window.show()
        from desktop_app.ui.apps.engine import load_engine

        load_engine()
        from desktop_app.ui.apps.web_view import AppWebView

        view = AppWebView(ResourceCsp(), parent=window)
        view.resize(300, 200)
        view.show()

        def ready() -> None:
            view.setFocus()
            proxy = view.focusProxy()
            if proxy is not None:
                proxy.setFocus()
            QTimer.singleShot(800, lambda: (print("alive", flush=True), app.quit()))

        view.host.page_ready.connect(ready)
        QTimer.singleShot(30_000, app.quit)
        app.exec()
        shell.close()


if __name__ == "__main__":
    main()
