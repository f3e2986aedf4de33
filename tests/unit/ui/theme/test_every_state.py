"""Every state visible, both themes, in the real main window (attached to a Runtime) and the Settings window
(every page): each widget that takes Tab focus looks different focused (grabbed without and with focus), and
each button and input looks different disabled."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractSpinBox,
    QApplication,
    QComboBox,
    QLineEdit,
    QPlainTextEdit,
    QTextEdit,
    QWidget,
)

from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.settings.window import SettingsWindow
from desktop_app.ui.theme import themes as theme
from desktop_app.ui.window.main_window import MainWindow

INPUTS = (QAbstractButton, QLineEdit, QComboBox, QAbstractSpinBox, QTextEdit, QPlainTextEdit)


@pytest.fixture
def themed(restore_app_look):
    """The app's look restored after the test (each test applies its theme)."""


@pytest.fixture
def runtime(tmp_path):
    settings = Settings(provider=ProviderSettings(base_url="https://api.example.com/v1", model="m1"))
    return Runtime(settings=settings, host=Host(), settings_path=tmp_path / "settings.json")


def tab_stops(root: QWidget) -> Iterator[QWidget]:
    """Visible, enabled widgets that Tab reaches (not a focus proxy's inner part)."""
    for widget in root.findChildren(QWidget):
        if (
            widget.isVisible()
            and widget.isEnabled()
            and widget.focusPolicy() & Qt.FocusPolicy.TabFocus == Qt.FocusPolicy.TabFocus
            and widget.focusProxy() is None
            and widget.width() > 0
        ):
            yield widget


def _name(widget: QWidget) -> str:
    return f"{type(widget).__name__}#{widget.objectName() or '?'}"


def _ring_holders(widget: QWidget) -> list[QWidget]:
    """Where a ring may be drawn: the widget, or the field around it (the composer's text box lights its
    rounded field)."""
    parent = widget.parentWidget()
    return [widget] + ([parent] if parent is not None and parent.isWindow() is False else [])


def focus_failures(qtbot, root: QWidget, parking: QWidget) -> list[str]:
    failed = []
    for widget in list(tab_stops(root)):
        parking.setFocus(Qt.FocusReason.OtherFocusReason)
        qtbot.waitUntil(lambda: QApplication.focusWidget() is parking)
        plain = [holder.grab().toImage() for holder in _ring_holders(widget)]
        widget.setFocus(Qt.FocusReason.TabFocusReason)
        qtbot.waitUntil(lambda widget=widget: QApplication.focusWidget() is widget)
        focused = [holder.grab().toImage() for holder in _ring_holders(widget)]
        if focused == plain:
            failed.append(_name(widget))
    return failed


def disabled_failures(root: QWidget) -> list[str]:
    failed = []
    for widget in [w for w in tab_stops(root) if isinstance(w, INPUTS)]:
        enabled = widget.grab().toImage()
        widget.setEnabled(False)
        try:
            if widget.grab().toImage() == enabled:
                failed.append(_name(widget))
        finally:
            widget.setEnabled(True)
    return failed


def _parking(window: QWidget) -> QWidget:
    """A focusable spot outside the widgets under test (so 'without focus' is really without)."""
    spot = QLineEdit(window)
    spot.setObjectName("parkingSpot")
    spot.setGeometry(0, 0, 1, 1)
    spot.show()
    return spot


@pytest.mark.parametrize("name", ["light", "dark"])
def test_every_tab_stop_of_the_main_window_shows_focus_and_disabled(qtbot, qloop, themed, runtime, name):
    theme.apply_theme(name)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.resize(1400, 900)
    win.show()
    win.servers_dock.show()  # the side panels' controls too
    win.tools_dock.show()
    qtbot.waitExposed(win)
    win.activateWindow()
    qtbot.waitUntil(win.isActiveWindow)
    parking = _parking(win)
    stops = [w for w in tab_stops(win) if w is not parking]
    assert len(stops) >= 5, [_name(w) for w in stops]
    failed = [f for f in focus_failures(qtbot, win, parking) if f != _name(parking)]
    assert failed == [], "\n".join(failed)
    assert [f for f in disabled_failures(win) if f != _name(parking)] == []


@pytest.mark.parametrize("name", ["light", "dark"])
def test_every_tab_stop_of_every_settings_page_shows_focus_and_disabled(qtbot, qloop, themed, runtime, name):
    theme.apply_theme(name)
    window = SettingsWindow(runtime, host=runtime.host)
    qtbot.addWidget(window)
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitUntil(window.isActiveWindow)
    parking = _parking(window)
    failed: dict[str, list[str]] = {}
    for key in list(window.pages):
        window.show_page(key)
        focus = [f for f in focus_failures(qtbot, window, parking) if f != _name(parking)]
        disabled = [f for f in disabled_failures(window) if f != _name(parking)]
        if focus or disabled:
            failed[key] = focus + [f"{f} (disabled)" for f in disabled]
    assert failed == {}


@pytest.mark.parametrize("name", ["light", "dark"])
def test_selected_rows_and_fields_in_error_look_it(qtbot, themed, name):
    from PySide6.QtWidgets import QListWidget

    theme.apply_theme(name)
    rows = QListWidget()
    qtbot.addWidget(rows)
    rows.addItems(["Trip plans", "Groceries"])
    rows.resize(240, 80)
    rows.show()
    qtbot.waitExposed(rows)
    plain = rows.grab().toImage()
    rows.setCurrentRow(0)
    assert rows.grab().toImage() != plain  # selected
    field = QLineEdit("not a url")
    qtbot.addWidget(field)
    field.show()
    fine = field.grab().toImage()
    field.setProperty("invalid", True)
    field.style().unpolish(field)
    field.style().polish(field)
    assert field.grab().toImage() != fine  # in error: a danger boundary
