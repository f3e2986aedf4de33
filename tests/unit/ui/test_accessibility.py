"""Every interactive widget of the main window and its dialogs has a stable objectName and an accessible name.

The walk asks Qt's accessibility layer for each widget's name (what a screen reader says: the explicit
accessible name, a button's text, or the label a field is the buddy of), and collects every interactive
widget that has no objectName or no such name. Qt's own internals (the line edit inside a combo box or a
spin box, a line edit's clear button, item views' headers, scroll bars) are not ours to name.
"""

from __future__ import annotations

import pytest
from PySide6.QtGui import QAccessible
from PySide6.QtWidgets import (
    QAbstractButton,
    QAbstractItemView,
    QAbstractSlider,
    QAbstractSpinBox,
    QComboBox,
    QHeaderView,
    QKeySequenceEdit,
    QLineEdit,
    QPlainTextEdit,
    QScrollBar,
    QTabBar,
    QTextEdit,
    QWidget,
)

from desktop_app.runtime import events as ev
from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.window.main_window import MainWindow

INTERACTIVE = (
    QAbstractButton,
    QLineEdit,
    QComboBox,
    QAbstractSpinBox,
    QAbstractItemView,
    QPlainTextEdit,
    QTextEdit,
    QAbstractSlider,
    QTabBar,
    QKeySequenceEdit,
)
QT_INTERNAL_PARENTS = (QComboBox, QAbstractSpinBox, QKeySequenceEdit, QTabBar, QLineEdit, QAbstractItemView)


def _qt_internal(widget: QWidget) -> bool:
    if widget.objectName().startswith("qt_") or isinstance(widget, QScrollBar | QHeaderView):
        return True
    parent = widget.parentWidget()
    while parent is not None:
        if isinstance(parent, QT_INTERNAL_PARENTS) and not isinstance(widget, QAbstractItemView):
            return True
        if parent.metaObject().className() == "QComboBoxPrivateContainer":  # a combo box's popup list
            return True
        parent = parent.parentWidget()
    return False


def _png() -> str:
    import base64

    from PySide6.QtCore import QBuffer, QByteArray, QIODevice
    from PySide6.QtGui import QImage

    image = QImage(8, 8, QImage.Format.Format_RGB32)
    image.fill(0x2F6FDE)
    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    return base64.b64encode(bytes(data)).decode()


def accessible_name(widget: QWidget) -> str:
    interface = QAccessible.queryAccessibleInterface(widget)
    return interface.text(QAccessible.Text.Name).strip() if interface is not None else ""


def unnamed(root: QWidget) -> list[str]:
    """``Type 'objectName' under parent`` for each interactive widget missing a name."""
    problems = []
    for widget in [root, *root.findChildren(QWidget)]:
        if not isinstance(widget, INTERACTIVE) or _qt_internal(widget):
            continue
        missing = [
            what
            for what, ok in (("objectName", widget.objectName()), ("accessible name", accessible_name(widget)))
            if not ok
        ]
        if missing:
            parent = widget.parentWidget()
            where = parent.objectName() or type(parent).__name__ if parent is not None else "-"
            label = widget.text() if isinstance(widget, QAbstractButton) else ""
            problems.append(
                f"{type(widget).__name__} '{widget.objectName()}' {label!r} in {where}: no {', '.join(missing)}"
            )
    return problems


def test_the_walk_catches_a_widget_without_names(qtbot) -> None:
    box = QWidget()
    qtbot.addWidget(box)
    QLineEdit(box)
    assert unnamed(box) == ["QLineEdit '' '' in QWidget: no objectName, accessible name"]


@pytest.mark.integration
def test_every_interactive_widget_of_the_window_and_its_dialogs_is_named(qtbot, qloop, switchboard_home) -> None:
    host = Host()
    settings = Settings(provider=ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat"))
    runtime = Runtime(settings=settings, host=host, settings_path=switchboard_home / "settings.json")
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_host(host, credentials=runtime.credentials, mcp_config=switchboard_home / "mcp.json")
    win.servers_dock.show()
    win.show()
    qtbot.waitExposed(win)
    ids = {"conversation_id": win.controller.conversation_id, "run_id": "r1"}
    view = win.view  # the chat's own widgets: a tool card waiting for approval, a finished one, a retry line
    view._on_run_started(ev.RunStarted(**ids, model="deepseek-chat", prompt="p"))
    view._on_reasoning_appended("Thinking about it.")
    call = {"server": "fs", "tool": "read_file", "arguments": {"path": "/tmp/a"}}
    view._on_tool_called(ev.ToolCall(**ids, tool_call_id="t1", name="mcp__fs__read_file", **call))
    view._on_approval_required(ev.ApprovalRequired(**ids, tool_call_id="t1", **call))
    view._on_tool_called(ev.ToolCall(**ids, tool_call_id="t2", name="mcp__fs__read_file", **call))
    view._on_tool_result(ev.ToolResult(**ids, tool_call_id="t2", server="fs", tool="read_file", text="hello"))
    retry = ev.RetryInfo(
        attempt=2, max_attempts=4, delay_s=3, stage="request", reason="API rate limited", status_code=429
    )
    view._on_retry_scheduled(ev.RetryScheduled(**ids, retry=retry.model_copy(update={"details": "{}"})))
    view._on_content_appended("An answer with `code`:\n\n```python\nprint(1)\n```\n")
    media = [  # an image and an embedded text resource, inline on a card
        {"type": "image", "mimeType": "image/png", "data": _png()},
        {"type": "resource", "resource": {"uri": "file:///notes.md", "mimeType": "text/markdown", "text": "# N"}},
    ]
    view._on_tool_called(ev.ToolCall(**ids, tool_call_id="t3", name="mcp__fs__read_file", **call))
    view._on_tool_result(ev.ToolResult(**ids, tool_call_id="t3", server="fs", tool="read_file", text="", media=media))
    view.cards["t3"].set_expanded(True)
    view._on_run_finished(ev.RunFinished(**ids, reason="cancelled", content="An answer"))  # stopped: Retry
    view.add_paused("Paused after 3 tool rounds. Continue to let the model go on.")
    user = view.add_user_message("Read /tmp/a again")  # a message with versions, being edited
    user.set_versions(2, 2)
    user.start_edit()
    win.find_in_conversation()
    win.tools_dock.show()
    windows: list[QWidget] = [win]
    settings_window = win.open_settings_window()
    for key in settings_window.pages:
        settings_window.show_page(key)
    windows.append(settings_window)
    windows.append(win.open_provider_dialog())
    windows.append(win.open_approvals_dialog())
    windows.append(win.open_roots_dialog())
    panel = win.servers_dock.panel
    server_dialog = panel.server_actions.open_dialog()
    server_dialog.env.add_row("API_TOKEN", "x")
    server_dialog.headers.add_row("Authorization", "Bearer x")
    windows.append(server_dialog)
    windows.append(win.importer.choose())
    windows.append(win.open_resources_dialog())
    problems = list(dict.fromkeys(p for window in windows if window is not None for p in unnamed(window)))
    assert problems == [], "\n".join(problems)
