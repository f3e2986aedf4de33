"""The served host in the window: the status bar line and the approval questions of calls over HTTP.

:func:`attach_http_host` (once per runtime, imported only when the host is enabled or its Settings page is
opened) gives the window a permanent status-bar label, "Serving MCP on http://127.0.0.1:PORT/mcp", or the
start-up error in red (port in use: what to do), and answers the runtime's
:class:`~desktop_app.runtime.http_service.HttpApprovals`: each call over HTTP that needs approval opens an
:class:`HttpApprovalDialog` (non-modal: the run of the asking client waits, the window does not), naming
the client, the tool and its arguments, with Allow and Deny. The runtime owns the question; the dialog only
answers it, and closes when the question goes away (the client hung up, the host stopped).
"""

from __future__ import annotations

import json
import weakref
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QLabel,
    QLineEdit,
    QPlainTextEdit,
    QVBoxLayout,
    QWidget,
)
from shiboken6 import isValid

from desktop_app.runtime.http_service import HttpApproval, HttpHostService, service_for
from desktop_app.ui.chat.common import ERROR_COLOR

_attached: weakref.WeakKeyDictionary[Any, HttpHostUi] = weakref.WeakKeyDictionary()


class HttpApprovalDialog(QDialog):
    """Allow or deny one tool call that an MCP client sent over HTTP."""

    def __init__(self, approval: HttpApproval, service: HttpHostService, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.approval = approval
        self.service = service
        self.setObjectName("httpApprovalDialog")
        self.setWindowTitle("An MCP client asks to run a tool")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.setSpacing(8)
        headline = QLabel(
            f"<b>{_escape(approval.client)}</b> (connected over MCP HTTP) asks to run <b>{_escape(approval.tool)}</b>."
        )
        headline.setObjectName("httpApprovalHeadline")
        headline.setWordWrap(True)
        layout.addWidget(headline)
        arguments = QPlainTextEdit(json.dumps(approval.arguments, indent=2, ensure_ascii=False))
        arguments.setObjectName("httpApprovalArguments")
        arguments.setAccessibleName("The tool call's arguments")
        arguments.setReadOnly(True)
        arguments.setMaximumHeight(180)
        layout.addWidget(arguments)
        self.reason = QLineEdit()
        self.reason.setObjectName("httpApprovalReason")
        self.reason.setPlaceholderText("Reason, if you deny it (the client reads it)")
        self.reason.setAccessibleName("Reason for denying")
        layout.addWidget(self.reason)
        buttons = QDialogButtonBox()
        self.allow_button = buttons.addButton("Allow", QDialogButtonBox.ButtonRole.AcceptRole)
        self.allow_button.setObjectName("httpApprovalAllow")
        self.deny_button = buttons.addButton("Deny", QDialogButtonBox.ButtonRole.RejectRole)
        self.deny_button.setObjectName("httpApprovalDeny")
        buttons.accepted.connect(lambda: self._answer(True))
        buttons.rejected.connect(lambda: self._answer(False))
        layout.addWidget(buttons)
        self.resize(480, 300)

    answered: str = ""
    """What the user did, for the status line: "allowed" or "denied" ("" while open, or when withdrawn)."""

    def _answer(self, approved: bool) -> None:
        try:
            self.service.approvals.answer(self.approval.id, approved, self.reason.text().strip())
            self.answered = "allowed" if approved else "denied"
        except KeyError:
            pass  # answered or withdrawn meanwhile
        self.close()

    def reject(self) -> None:  # Escape / the window's close button: a denial, never a silent drop
        self._answer(False)


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


class HttpHostUi:
    """The window's side of the runtime's served host (see the module docstring)."""

    def __init__(self, window: Any, service: HttpHostService) -> None:
        self.window = window
        self.service = service
        self.dialogs: dict[str, HttpApprovalDialog] = {}
        self.announce: Any = None
        """``announce(line)`` when the host starts serving or fails (the app prints it, like its start-up lines)."""
        self._announced = ""
        self.label = QLabel("")
        self.label.setObjectName("httpHostStatus")
        self.label.setAccessibleName("MCP over HTTP status")
        self.label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.label.hide()
        status_bar = getattr(window, "statusBar", None)
        if callable(status_bar):
            status_bar().addPermanentWidget(self.label)
        self._unsubscribe = [service.subscribe(self.refresh), service.approvals.subscribe(self._on_approval)]
        self.label.destroyed.connect(lambda *_: self.close())
        self.refresh()

    def close(self) -> None:
        for unsubscribe in self._unsubscribe:
            unsubscribe()
        self._unsubscribe.clear()

    def refresh(self) -> None:
        service = self.service
        if service.state == "serving":
            text, style, tip = f"Serving MCP on {service.url}", "", "Settings → MCP over HTTP: clients and calls"
        elif service.state == "failed":
            text, style, tip = "MCP over HTTP is off: " + service.error, f"color: {ERROR_COLOR};", service.error
        elif service.state == "starting":
            text, style, tip = "Starting MCP over HTTP…", "", ""
        else:
            text, style, tip = "", "", ""
        self.label.setText(text)
        self.label.setStyleSheet(f"QLabel {{ {style} padding: 0 8px; }}")
        self.label.setToolTip(tip)
        self.label.setVisible(bool(text))
        line = f"mcp-http: serving {service.url}" if service.state == "serving" else ""
        line = f"mcp-http: failed: {service.error}" if service.state == "failed" else line
        if line and line != self._announced and self.announce is not None:
            self.announce(line)
        self._announced = line

    def _on_approval(self, what: str, approval: HttpApproval) -> None:
        if what == "opened":
            parent = self.window if isinstance(self.window, QWidget) else None
            dialog = HttpApprovalDialog(approval, self.service, parent)
            self.dialogs[approval.id] = dialog  # until the runtime closes the question
            dialog.show()
            dialog.raise_()
            dialog.activateWindow()
            set_status = getattr(self.window, "set_status", None)
            if callable(set_status):
                set_status(f"Waiting for your approval: {approval.tool} (from {approval.client}, over HTTP)")
        else:
            dialog = self.dialogs.pop(approval.id, None)
            answered = dialog.answered if dialog is not None else ""
            if dialog is not None and isValid(dialog):  # still open: the client hung up, or the host stopped
                dialog.close()
            set_status = getattr(self.window, "set_status", None)
            if callable(set_status):
                what = f"You {answered} {approval.tool}" if answered else f"{approval.tool} was withdrawn"
                set_status(f"{what} (from {approval.client}, over HTTP)")

    def apply(self, settings: Any, tasks: Any = None) -> Any:
        """Start, stop or restart the host for ``settings`` (``Settings``); errors show in the status bar."""

        async def run() -> None:
            from desktop_app.runtime.http_service import HttpHostError

            try:
                await self.service.apply(settings.http_host)
            except HttpHostError:
                pass  # the service's state holds the sentence; refresh() shows it

        runner = tasks if tasks is not None else getattr(self.window, "tasks", None)
        return runner.start(run(), name="http-host") if runner is not None else None


def attach_http_host(window: Any, runtime: Any, host: Any = None, agent_runner: Any = None) -> HttpHostUi:
    """The window's :class:`HttpHostUi` for ``runtime`` (made once)."""
    ui = _attached.get(runtime)
    if ui is None:
        ui = HttpHostUi(window, service_for(runtime, host, agent_runner=agent_runner))
        _attached[runtime] = ui
    return ui


def attached(runtime: Any) -> HttpHostUi | None:
    return _attached.get(runtime)
