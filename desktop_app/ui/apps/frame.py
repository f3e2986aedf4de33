"""The MCP App view in a tool card: a header (title, fullscreen, pop-out, close), the user's questions
(a call to approve, a link, a message), what the view told the model, and the sandboxed web view.

:class:`AppFrame` does not import Qt WebEngine until :meth:`AppFrame.show_view` (see :mod:`.engine`). Its
height follows the view's ``size-changed`` within ``MIN_HEIGHT``..``MAX_HEIGHT``; fullscreen and pip move
the web view into a window of its own (:class:`ViewWindow`), closing that window brings it back inline.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeySequence, QShortcut
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget

from desktop_app.runtime.apps.bridge import DisplayMode
from desktop_app.runtime.apps.resources import AppResource
from desktop_app.runtime.apps.session import MIN_HEIGHT, ViewSession
from desktop_app.ui.apps.html import view_document

INITIAL_HEIGHT = 160
PIP_SIZE = (420, 320)


class AskRow(QFrame):
    """One question to the user, answered by one of two buttons."""

    def __init__(self, text: str, yes: str, no: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("appViewQuestion")
        self.setStyleSheet("QFrame#appViewQuestion { border: 1px solid palette(highlight); border-radius: 4px; }")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        self.label = QLabel(text)
        self.label.setObjectName("appViewQuestionText")
        self.label.setWordWrap(True)
        self.label.setTextFormat(Qt.TextFormat.PlainText)
        layout.addWidget(self.label, 1)
        self.yes = QPushButton(yes)
        self.yes.setObjectName("appViewQuestionYes")
        self.no = QPushButton(no)
        self.no.setObjectName("appViewQuestionNo")
        layout.addWidget(self.yes)
        layout.addWidget(self.no)
        self.answer: asyncio.Future[bool] = asyncio.get_event_loop().create_future()
        self.yes.clicked.connect(lambda: self._answer(True))
        self.no.clicked.connect(lambda: self._answer(False))

    def _answer(self, value: bool) -> None:
        if not self.answer.done():
            self.answer.set_result(value)
        self.hide()
        self.deleteLater()


class ViewWindow(QWidget):
    """Fullscreen or picture-in-picture: the web view in a window of its own."""

    closed = Signal()

    def __init__(self, title: str, mode: DisplayMode, parent: QWidget | None = None) -> None:
        flags = Qt.WindowType.Window
        if mode == "pip":
            flags |= Qt.WindowType.Tool | Qt.WindowType.WindowStaysOnTopHint
        super().__init__(parent, flags)
        self.setObjectName("appViewWindow")
        self.setWindowTitle(title)
        self.mode = mode
        self.box = QVBoxLayout(self)
        self.box.setContentsMargins(0, 0, 0, 0)
        back = QShortcut(QKeySequence(Qt.Key.Key_Escape), self, context=Qt.ShortcutContext.WindowShortcut)
        back.activated.connect(self.close)  # Esc: back into the card

    def closeEvent(self, event: Any) -> None:
        self.closed.emit()
        super().closeEvent(event)


class AppFrame(QFrame):
    """One view (see the module docstring). Signals: ``close_requested()``, ``mode_requested(str)``."""

    close_requested = Signal()
    mode_requested = Signal(str)

    def __init__(self, tool: str, server: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.tool, self.server = tool, server
        self.setObjectName("appViewFrame")
        self.setAccessibleName(f"App view of {tool}")
        self.setStyleSheet("QFrame#appViewFrame { border: 1px solid palette(mid); border-radius: 6px; }")
        box = QVBoxLayout(self)
        box.setContentsMargins(4, 4, 4, 4)
        box.setSpacing(4)
        header = QHBoxLayout()
        self.title = QLabel(f"App · {tool}")
        self.title.setObjectName("appViewTitle")
        self.title.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        header.addWidget(self.title, 1)
        self.fullscreen_button = self._button("Fullscreen", "appViewFullscreen", "Show the view fullscreen (Esc: back)")
        self.fullscreen_button.clicked.connect(lambda: self.mode_requested.emit("fullscreen"))
        self.pip_button = self._button("Pop out", "appViewPopOut", "Pop the view out into a small window")
        self.pip_button.clicked.connect(lambda: self.mode_requested.emit("pip"))
        self.close_button = self._button("✕", "appViewClose", "Close the view (its text result stays)")
        self.close_button.clicked.connect(self.close_requested.emit)
        for button in (self.fullscreen_button, self.pip_button, self.close_button):
            header.addWidget(button)
        box.addLayout(header)
        self.questions = QVBoxLayout()
        box.addLayout(self.questions)
        self.context_note = QLabel("")
        self.context_note.setObjectName("appViewContext")
        self.context_note.setWordWrap(True)
        self.context_note.setTextFormat(Qt.TextFormat.PlainText)
        self.context_note.setStyleSheet("QLabel { color: palette(placeholder-text); font-style: italic; }")
        self.context_note.hide()
        box.addWidget(self.context_note)
        self.calls_note = QLabel("")
        self.calls_note.setObjectName("appViewCalls")
        self.calls_note.setWordWrap(True)
        self.calls_note.setTextFormat(Qt.TextFormat.PlainText)
        self.calls_note.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        self.calls_note.hide()
        box.addWidget(self.calls_note)
        self.calls: dict[str, str] = {}
        self.note = QLabel("Loading the view…")
        self.note.setObjectName("appViewNote")
        self.note.setWordWrap(True)
        self.note.setTextFormat(Qt.TextFormat.PlainText)
        box.addWidget(self.note)
        self.slot = QVBoxLayout()
        box.addLayout(self.slot)
        self.web: Any = None
        self.popout: ViewWindow | None = None
        self.session: ViewSession | None = None
        self.mode: DisplayMode = "inline"
        self.height_hint = INITIAL_HEIGHT
        self.tool_call_id = ""
        self.model_call_id = ""
        self.pending_partial: dict[str, Any] | None = None
        self.pending_input: dict[str, Any] | None = None
        self.pending_result: dict[str, Any] | None = None
        self.pending_cancel: str | None = None

    def _button(self, text: str, name: str, tip: str) -> QToolButton:
        button = QToolButton()
        button.setText(text)
        button.setObjectName(name)
        button.setToolTip(tip)
        button.setAccessibleName(tip)
        button.setAutoRaise(True)
        button.setEnabled(name == "appViewClose")
        return button

    # -- the web view ---------------------------------------------------------------------------------

    def show_view(
        self,
        resource: AppResource,
        session: ViewSession,
        *,
        scroll_target: Callable[[], QWidget | None],
    ) -> None:
        """Load Qt WebEngine (first view only) and show ``resource`` with ``session``'s bridge."""
        from desktop_app.ui.apps.web_view import AppWebView

        self.session = session
        web = AppWebView(resource.ui.csp, scroll_target=scroll_target)
        web.setObjectName("appWebView")
        web.setAccessibleName(f"App view of {self.tool}")
        web.setFixedHeight(self.height_hint)
        document = view_document(resource.html, resource.ui.csp)
        web.host.page_ready.connect(lambda: web.host.loadView.emit(document))
        web.host.received.connect(self._from_view)
        self.web = web
        self.slot.addWidget(web)
        self.note.hide()
        self.fullscreen_button.setEnabled(True)
        self.pip_button.setEnabled(True)

    def send(self, message: dict[str, Any]) -> None:
        """The bridge's transport: host → view."""
        if self.web is not None:
            self.web.host.toView.emit(json.dumps(message, ensure_ascii=False))

    def _from_view(self, text: str) -> None:
        if self.session is None or self.session.bridge is None:
            return
        try:
            message = json.loads(text)
        except ValueError:
            return
        self.session.bridge.receive(message)

    def set_view_height(self, height: int) -> None:
        self.height_hint = max(MIN_HEIGHT, height)
        if self.web is not None and self.mode == "inline":
            self.web.setFixedHeight(self.height_hint)

    def show_note(self, text: str) -> None:
        self.note.setText(text)
        self.note.show()

    def show_context(self, text: str) -> None:
        self.context_note.setText(f"The app told the model: {text}" if text else "")
        self.context_note.setVisible(bool(text))

    def show_call(self, call_id: str, line: str) -> None:
        """One line per tool call the view made (the view's calls, labelled as such), kept up to date."""
        self.calls[call_id] = line
        self.calls_note.setText("\n".join(self.calls.values()))
        self.calls_note.show()

    def ask(self, text: str, yes: str, no: str) -> AskRow:
        row = AskRow(text, yes, no, self)
        self.questions.addWidget(row)
        return row

    def remove_view(self, note: str) -> None:
        """The view is gone (closed, or torn down): its place says why."""
        self.set_mode("inline")
        if self.web is not None:
            self.web.hide()
            self.web.setParent(None)
            self.web.deleteLater()
            self.web = None
        for button in (self.fullscreen_button, self.pip_button, self.close_button):
            button.setEnabled(False)
        self.show_note(note)

    # -- display modes --------------------------------------------------------------------------------

    def set_mode(self, mode: DisplayMode) -> DisplayMode:
        if self.web is None or mode == self.mode:
            return self.mode
        if self.popout is not None:
            window, self.popout = self.popout, None
            window.closed.disconnect()
            window.box.removeWidget(self.web)
            window.hide()
            window.deleteLater()
        if mode == "inline":
            self.slot.addWidget(self.web)
            self.web.setFixedHeight(self.height_hint)
        else:
            window = ViewWindow(f"{self.tool} · {self.server}", mode, self.window_root)
            self.web.setMinimumHeight(0)
            self.web.setMaximumHeight(16_777_215)
            window.box.addWidget(self.web)
            window.closed.connect(lambda: self.mode_requested.emit("inline"))
            self.popout = window
            if mode == "pip":
                window.resize(*PIP_SIZE)
                window.show()
            else:
                top = self.window_root
                if top is not None:
                    window.setGeometry(top.geometry())
                window.showFullScreen()
        self.web.show()
        self.mode = mode
        return mode

    window_root: QWidget | None = None
    """The main window: fullscreen covers it, pip floats over it."""


__all__ = ["AppFrame", "AskRow", "ViewWindow"]
