"""A long status line never runs into the status bar's permanent widgets (the model label, the MCP indicator)
nor widens the window: it is elided, the whole text in its tooltip (the real ``MainWindow``)."""

from __future__ import annotations

from desktop_app.ui.window.main_window import MainWindow

LONG = (
    "MCP server 'filesystem' failed to start: the command npx was not found on PATH; install Node.js or "
    "correct the command in mcp.json, then restart the server from the Servers panel"
)


def test_a_long_status_is_elided_before_the_permanent_widgets(qtbot, window: MainWindow):
    window.resize(800, 600)
    qtbot.waitUntil(lambda: window.width() == 800)
    narrowest = window.minimumSizeHint().width()
    window.set_status(LONG)
    bar = window.statusBar()
    permanent = [w for w in (window.model_label, window.servers_dock.indicator) if w.isVisible()]
    qtbot.waitUntil(lambda: window.status.geometry().right() < min(w.geometry().left() for w in permanent))
    assert window.minimumSizeHint().width() == narrowest  # the text asks for no room of its own
    assert window.width() == 800 and bar.width() <= 800
    assert window.status.text() == LONG and window.status.toolTip() == LONG
    shown = window.status.shown_text()
    assert shown.endswith("…") and LONG.startswith(shown[:-1])
    assert window.status.fontMetrics().horizontalAdvance(shown) <= window.status.contentsRect().width()


def test_a_temporary_message_is_shown_elided_in_the_same_place_and_the_status_comes_back(qtbot, window: MainWindow):
    window.resize(800, 600)
    qtbot.waitUntil(lambda: window.width() == 800)
    window.set_status("Ready")
    bar = window.statusBar()
    bar.showMessage(LONG, 60_000)
    assert window.status.isVisible()  # not hidden for the message: it shows it
    first_permanent = min(w.geometry().left() for w in (window.model_label, window.servers_dock.indicator))
    assert window.status.geometry().right() < first_permanent
    shown = window.status.shown_text()
    assert shown.endswith("…") and LONG.startswith(shown[:-1]) and window.status.toolTip() == LONG
    assert window.status.text() == "Ready"
    bar.clearMessage()
    assert window.status.shown_text() == "Ready"
