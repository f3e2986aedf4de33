"""The parts of the Servers dock: a server's row (state dot, state text, Restart) and its details.

The row shows a :class:`ServerInfo` (what the panel knows of one server) as ``state_text`` words; a failed
server's reason is written out in full under it, wrapped (``ServerRow.fit`` gives the row's height for the
list's width).
The details are one server's stderr tail and its log messages.

Log lines come from ``ServerLog`` host events (``notifications/message``) plus one line per state change,
kept per server in a bounded buffer and shown level-coloured. The stderr tail is read from the host
(``Host.stderr_tail``) whenever the panel refreshes it; nothing here polls.
"""

from __future__ import annotations

import json
import math
from collections import deque
from dataclasses import dataclass
from typing import Any

from PySide6.QtCore import QSize, Qt, Signal
from PySide6.QtGui import QFont, QFontDatabase, QFontMetrics, QIcon, QPainter, QPaintEvent, QTextDocumentFragment
from PySide6.QtWidgets import (
    QGridLayout,
    QLabel,
    QPlainTextEdit,
    QProgressBar,
    QPushButton,
    QSizePolicy,
    QSplitter,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.common import ERROR_COLOR, MUTED_COLOR, OK_COLOR, WARN_COLOR, escape
from desktop_app.ui.theme.tokens import SPACE

MAX_LOG_LINES = 500
"""Log lines kept per server (older ones are dropped)."""
MAX_STDERR_CHARS = 64_000
"""The end of the stderr tail that is shown (the host keeps up to 256 KiB)."""

WARNING_COLOR = WARN_COLOR
LEVEL_COLORS = {
    "debug": MUTED_COLOR,
    "info": "",
    "notice": "",
    "warning": WARNING_COLOR,
    "error": ERROR_COLOR,
    "critical": ERROR_COLOR,
    "alert": ERROR_COLOR,
    "emergency": ERROR_COLOR,
    "state": MUTED_COLOR,
}


STATE_COLORS = {
    "ready": OK_COLOR,
    "failed": ERROR_COLOR,
    "starting": WARNING_COLOR,
    "restarting": WARNING_COLOR,
}


@dataclass
class ServerInfo:
    """What the panel knows about one server (from ``Host.states()`` and later events)."""

    name: str
    state: str = "idle"
    error: str | None = None
    tool_count: int = 0
    builtin: bool = False
    attempt: int = 0
    deadline: float | None = None
    """While waiting to restart automatically: the clock time the restart is due."""


def first_line(text: str | None, limit: int = 200) -> str:
    line = (text or "").strip().splitlines()[0] if (text or "").strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


MAX_REASON_CHARS = 2000
"""A failure reason longer than this (a whole traceback) is cut in the row; the Log tab has all of it."""


def reason_text(error: str | None) -> str:
    """A failure's reason as the row shows it: whole, unless it is very long."""
    text = (error or "").strip()
    return text if len(text) <= MAX_REASON_CHARS else text[: MAX_REASON_CHARS - 1] + "… (the rest is in the Log tab)"


def state_text(info: ServerInfo, now: float) -> str:
    """The row's state text, e.g. ``Ready · 2 tools`` or ``Restarting in 3 s (attempt 2)``."""
    if info.state == "ready":
        return f"Ready · {info.tool_count} tool{'' if info.tool_count == 1 else 's'}"
    if info.state == "starting":
        return "Starting…"
    if info.state == "restarting":
        return f"Restarting… (attempt {info.attempt})" if info.attempt else "Restarting…"
    if info.state == "failed" and info.deadline is not None:
        remaining = math.ceil(max(0.0, info.deadline - now))
        return f"Restarting in {remaining} s (attempt {info.attempt})" if remaining else "Restarting now…"
    if info.state == "failed":
        return f"Failed: {first_line(info.error) or 'unknown error'}"
    if info.state == "idle":
        return "Starts on first use" if info.builtin else "Not started"
    return info.state.capitalize()  # Disabled, Stopped


class ElidedLabel(QLabel):
    """A one-line label that shrinks with its row and ends in "…" when the text does not fit."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def paintEvent(self, _event: QPaintEvent) -> None:
        painter = QPainter(self)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = self.contentsRect()
        text = self.fontMetrics().elidedText(self.text(), Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)


NARROW_ROW = 220
"""A server row narrower than this shows Restart as its icon alone (an 800 px window's panel)."""


class NameLabel(QLabel):
    """A row's name line (rich text: the name in bold, an extension's or plugin's origin muted). It shrinks
    with its row; when it does not fit, it is drawn in bold as plain text ending in "…" (never cut through a
    letter), with the whole of it in its tooltip."""

    def __init__(self, text: str, parent: QWidget | None = None) -> None:
        super().__init__(text, parent)
        self.setTextFormat(Qt.TextFormat.RichText)
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Fixed)

    def setText(self, text: str) -> None:
        super().setText(text)
        self.setToolTip(self.plain())

    def plain(self) -> str:
        return QTextDocumentFragment.fromHtml(self.text()).toPlainText()

    def fits(self) -> bool:
        return self.sizeHint().width() <= self.width()

    def paintEvent(self, event: QPaintEvent) -> None:
        if self.fits():
            super().paintEvent(event)
            return
        painter = QPainter(self)
        font = QFont(self.font())
        font.setBold(True)
        painter.setFont(font)
        painter.setPen(self.palette().color(self.foregroundRole()))
        rect = self.contentsRect()
        text = QFontMetrics(font).elidedText(self.plain(), Qt.TextElideMode.ElideRight, rect.width())
        painter.drawText(rect, int(Qt.AlignmentFlag.AlignLeft | Qt.AlignmentFlag.AlignVCenter), text)


class ServerRow(QWidget):
    """One server: a coloured dot, its name, its state text, a busy indicator and a Restart button; a failed
    server's reason under them, across the row. In a narrow row Restart is its icon (the word in its tooltip)."""

    restart_requested = Signal(str)

    def __init__(self, name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.name = name
        self.setObjectName(f"serverRow:{name}")
        layout = QGridLayout(self)
        layout.setContentsMargins(6, 4, 6, 4)
        layout.setVerticalSpacing(0)
        self.dot = QLabel("●")
        self.dot.setObjectName("stateDot")
        self.dot.setAlignment(Qt.AlignmentFlag.AlignTop)
        self.dot.setContentsMargins(0, 1, 0, 0)
        layout.addWidget(self.dot, 0, 0, Qt.AlignmentFlag.AlignTop)
        texts = QVBoxLayout()
        texts.setSpacing(0)
        self.name_label = NameLabel(f"<b>{escape(name)}</b>")  # elided in a narrow panel, whole in its tooltip
        self.state_label = ElidedLabel()
        self.state_label.setObjectName("stateText")
        self.error_label = QLabel()
        self.error_label.setObjectName("errorText")
        self.error_label.setAccessibleName("Why the server failed")
        self.error_label.setWordWrap(True)  # the whole reason, never cut at the row's edge
        self.error_label.setTextFormat(Qt.TextFormat.PlainText)
        self.error_label.setStyleSheet(f"color: {ERROR_COLOR};")
        self.error_label.hide()
        for label in (self.name_label, self.state_label, self.error_label):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.NoTextInteraction)
            if label is not self.error_label:  # (a wrapping label's height follows its width)
                label.setSizePolicy(label.sizePolicy().horizontalPolicy(), QSizePolicy.Policy.Fixed)
                texts.addWidget(label)
        layout.addLayout(texts, 0, 1)
        layout.addWidget(self.error_label, 1, 1, 1, 3)  # the reason takes the row's whole width, not beside Restart
        layout.setColumnStretch(1, 1)
        layout.setRowStretch(2, 1)  # a row taller than its text keeps it together at the top
        self._layouts = (texts, layout)
        self.busy = QProgressBar()
        self.busy.setObjectName("busyIndicator")
        self.busy.setRange(0, 0)  # indeterminate
        self.busy.setTextVisible(False)
        self.busy.setFixedSize(40, 8)
        layout.addWidget(self.busy, 0, 2, Qt.AlignmentFlag.AlignVCenter)
        self.restart_button = QPushButton("Restart")
        self.restart_button.setObjectName("restartButton")
        self.restart_button.setAccessibleName(f"Restart MCP server {name}")
        self.restart_button.setToolTip("Restart")
        self.restart_button.clicked.connect(lambda: self.restart_requested.emit(self.name))
        layout.addWidget(self.restart_button, 0, 3, Qt.AlignmentFlag.AlignVCenter)

    def set_narrow(self, narrow: bool) -> None:
        """Restart as its icon alone (``narrow``: the row is too narrow for the word and the name), or the word."""
        if narrow == (not self.restart_button.text()):
            return
        if narrow:
            from desktop_app.ui.theme.icons import icon

            self.restart_button.setIcon(icon("regenerate"))
            self.restart_button.setText("")
            self.restart_button.setStyleSheet(f"QPushButton {{ padding: {SPACE.xs}px; }}")  # square: room for the name
        else:
            self.restart_button.setIcon(QIcon())
            self.restart_button.setText("Restart")
            self.restart_button.setStyleSheet("")

    def show_info(self, info: ServerInfo, now: float) -> None:
        color = STATE_COLORS.get(info.state, MUTED_COLOR)
        self.dot.setStyleSheet(f"color: {color};")
        failed = info.state == "failed"
        waiting = failed and info.deadline is not None
        reason = reason_text(info.error) if failed else ""
        # a failure says its reason in full on the line below (the state line alone would cut it)
        self.state_label.setText("Failed" if failed and not waiting and reason else state_text(info, now))
        self.state_label.setStyleSheet(f"color: {ERROR_COLOR};" if failed else "")
        self.error_label.setText(reason)
        self.error_label.setVisible(bool(reason))
        self.busy.setVisible(info.state in ("starting", "restarting"))
        self.restart_button.setEnabled(info.state not in ("disabled", "starting", "restarting"))
        self.setToolTip(info.error or "")
        for layout in self._layouts:  # sizeHint() counts only the labels shown now (Qt would update it later)
            layout.invalidate()

    def fit(self, width: int) -> QSize:
        """The row's size at ``width`` (a list item's size hint): a wrapped reason makes it taller."""
        if width > 0:
            self.set_narrow(width < NARROW_ROW)
        hint = self.sizeHint()
        layout = self.layout()
        if width <= 0:
            return hint
        if layout is None or not self.error_label.isVisibleTo(self) or not layout.hasHeightForWidth():
            return QSize(width, hint.height())  # the list's width, not the whole name's: Restart stays in view
        return QSize(width, max(hint.height(), layout.totalHeightForWidth(width)))


@dataclass(frozen=True)
class LogLine:
    """One line of a server's log: an MCP log level (or ``state`` for a state change) and its text."""

    level: str
    text: str
    logger: str | None = None

    def html(self) -> str:
        color = LEVEL_COLORS.get(self.level.lower(), "")
        origin = f" {escape(self.logger)}" if self.logger else ""
        body = f"<b>{escape(self.level.upper())}</b>{origin}: {escape(self.text)}"
        return f'<span style="color:{color}">{body}</span>' if color else body


def log_text(data: Any) -> str:
    """A ``ServerLog``'s ``data`` as one readable string (strings as they are, anything else as JSON)."""
    if isinstance(data, str):
        return data
    try:
        return json.dumps(data, ensure_ascii=False, separators=(", ", ": "))
    except (TypeError, ValueError):
        return repr(data)


def monospace() -> QFont:
    return QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont)


class ServerLogView(QWidget):
    """Shows the selected server's log and stderr tail; ``logs`` holds the bounded lines of every server."""

    def __init__(self, parent: QWidget | None = None, *, max_lines: int = MAX_LOG_LINES) -> None:
        super().__init__(parent)
        self.setObjectName("serverDetails")
        self.max_lines = max_lines
        self.logs: dict[str, deque[LogLine]] = {}
        self.server: str | None = None

        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        self.title = QLabel("Select a server to see its log")
        self.title.setObjectName("serverDetailsTitle")
        self.title.setWordWrap(True)  # a narrow panel wraps it rather than grow wider than its dock
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setObjectName("refreshServerDetails")
        self.refresh_button.setToolTip("Read the server's stderr output again")
        from desktop_app.ui.wrap_row import WrapRow

        self.header = WrapRow(self.title, self.refresh_button)  # Refresh under the title when narrow
        layout.addWidget(self.header)

        splitter = QSplitter(Qt.Orientation.Vertical)
        splitter.setObjectName("serverLogSplitter")  # its sizes are kept across restarts (window_state)
        self.log_view = self._text_view("serverLogView", "Log messages of the selected server")
        self.log_view.setMaximumBlockCount(max_lines)
        self.stderr_view = self._text_view("serverStderrView", "The end of the server's stderr output")
        splitter.addWidget(self._section("Log messages", self.log_view))
        splitter.addWidget(self._section("stderr (last lines)", self.stderr_view))
        layout.addWidget(splitter, 1)

    @staticmethod
    def _text_view(name: str, accessible: str) -> QPlainTextEdit:
        view = QPlainTextEdit()
        view.setObjectName(name)
        view.setAccessibleName(accessible)
        view.setReadOnly(True)
        view.setFont(monospace())
        view.setLineWrapMode(QPlainTextEdit.LineWrapMode.WidgetWidth)
        return view

    @staticmethod
    def _section(title: str, view: QWidget) -> QWidget:
        box = QWidget()
        layout = QVBoxLayout(box)
        layout.setContentsMargins(0, 4, 0, 0)
        layout.setSpacing(2)
        label = QLabel(title)
        label.setStyleSheet(f"color: {MUTED_COLOR};")
        layout.addWidget(label)
        layout.addWidget(view, 1)
        return box

    def add(self, server: str, line: LogLine) -> None:
        """Keep ``line`` in ``server``'s buffer, and show it if that server is selected."""
        buffer = self.logs.setdefault(server, deque(maxlen=self.max_lines))
        buffer.append(line)
        if server == self.server:
            self.log_view.appendHtml(line.html())

    def show_server(self, server: str | None, stderr: str) -> None:
        """Switch to ``server`` (``None``: nothing selected) and show its stderr tail."""
        if server != self.server:
            self.server = server
            self.log_view.clear()
            for line in self.logs.get(server or "", ()):
                self.log_view.appendHtml(line.html())
        self.title.setText(f"<b>{escape(server)}</b>" if server else "Select a server to see its log")
        self.set_stderr(stderr)

    def set_stderr(self, text: str) -> None:
        text = text[-MAX_STDERR_CHARS:]
        if text == self.stderr_view.toPlainText():
            return
        self.stderr_view.setPlainText(text or "")
        self.stderr_view.setPlaceholderText("(no stderr output)")
        bar = self.stderr_view.verticalScrollBar()
        bar.setValue(bar.maximum())

    def log_lines(self, server: str) -> list[LogLine]:
        return list(self.logs.get(server, ()))


__all__ = [
    "LEVEL_COLORS",
    "MAX_LOG_LINES",
    "ElidedLabel",
    "LogLine",
    "ServerInfo",
    "ServerLogView",
    "ServerRow",
    "first_line",
    "log_text",
    "reason_text",
    "state_text",
]
