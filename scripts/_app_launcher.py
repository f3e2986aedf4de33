"""Run the real app (``desktop_app.__main__:main``, as ``.venv/bin/switchboard``) for the screenshot scripts.

The only addition is a line protocol on stdin, answered on stdout as ``@@ {json}``, so a script can find what to
click with ``xdotool``; it never clicks or types itself:

* ``{"do": "where", "object": NAME, "index": -1}``: the screen centre of the visible widgets named NAME
  (``index`` picks one, the last by default) -> ``{"found": true, "x": X, "y": Y}``;
* ``{"do": "what", "object": NAME}``: the text the last visible one shows (a label's or a button's text).

    python scripts/_app_launcher.py --home DIR     # the app's own arguments
"""

from __future__ import annotations

import json
import queue
import sys
import threading
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from PySide6.QtCore import QTimer
from PySide6.QtWidgets import QAbstractButton, QApplication, QLabel, QWidget

from desktop_app.ui.widget_lists import all_widgets

COMMANDS: queue.Queue[str] = queue.Queue()


def _read_stdin() -> None:
    for line in sys.stdin:
        COMMANDS.put(line)


def _visible(name: str) -> list[QWidget]:
    widgets = [w for w in all_widgets() if w.objectName() == name and w.isVisible()]
    return [w for w in widgets if not w.visibleRegion().isEmpty()]


def _answer(command: dict[str, object]) -> dict[str, object]:
    widgets = _visible(str(command.get("object", "")))
    if command.get("do") == "where":
        index = int(command.get("index", -1))  # type: ignore[call-overload]
        if not widgets or not -len(widgets) <= index < len(widgets):
            return {"found": False}
        widget = widgets[index]
        region = widget.visibleRegion().boundingRect()  # the part not scrolled away
        centre = widget.mapToGlobal(region.center())
        return {"found": True, "x": centre.x(), "y": centre.y()}
    if command.get("do") == "what":
        widget = widgets[-1] if widgets else None
        text = widget.text() if isinstance(widget, QLabel | QAbstractButton) else ""
        return {"found": widget is not None, "text": text}
    return {"error": f"unknown command {command!r}"}


def _serve() -> None:
    while not COMMANDS.empty():
        line = COMMANDS.get()
        try:
            reply = _answer(json.loads(line))
        except Exception as exc:  # a bad command must not take the app down
            reply = {"error": str(exc)}
        print("@@ " + json.dumps(reply), flush=True)


def main() -> int:
    qapp = QApplication.instance() or QApplication([sys.argv[0]])
    timer = QTimer(qapp)
    timer.setInterval(50)
    timer.timeout.connect(_serve)
    timer.start()
    threading.Thread(target=_read_stdin, daemon=True).start()
    from desktop_app.__main__ import main as app_main

    sys.argv = [sys.argv[0], *sys.argv[1:]]
    return int(app_main() or 0)


if __name__ == "__main__":
    raise SystemExit(main())
