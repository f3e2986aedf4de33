"""The served host in the window: the status bar line and the approval questions of calls over HTTP.

:func:`attach_http_host` (once per runtime, imported only when the host is enabled or its Settings page is
opened) gives the window a permanent status-bar label, "Serving MCP on http://127.0.0.1:PORT/mcp", or the
start-up error in red (port in use: what to do), and answers the runtime's
:class:`~desktop_app.runtime.serve.approvals.HttpApprovals`: each call over HTTP that needs approval opens an
:class:`HttpApprovalDialog` (non-modal: the run of the asking client waits, the window does not), naming
the client, the tool and its arguments, with Allow and Deny. The runtime owns the question; the dialog only
answers it, and closes when the question goes away (the client hung up, the host stopped).
"""

from __future__ import annotations

import json
import weakref
from collections.abc import Callable
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

from desktop_app.runtime.errors import UnknownToolCallError
from desktop_app.runtime.serve.approvals import HttpApproval
from desktop_app.runtime.serve.service import HttpHostService, service_for
from desktop_app.ui.chat.common import ERROR_COLOR
from desktop_app.ui.dialogs.frame import DialogHeader, mark_primary

_attached: weakref.WeakKeyDictionary[Any, HttpHostUi] = weakref.WeakKeyDictionary()


class HttpApprovalDialog(QDialog):
    """Allow or deny one tool call that an MCP client sent over HTTP (``approval``), or that an agent it called
    makes (``answer`` says how to answer it: ``answer(approved, reason)``)."""

    answered: str = ""
    """What the user did, for the status line: "allowed" or "denied" ("" while open, or when withdrawn)."""

    def __init__(
        self,
        approval: HttpApproval | None,
        service: HttpHostService,
        parent: QWidget | None = None,
        *,
        headline: str = "",
        arguments: dict[str, Any] | None = None,
        answer: Callable[[bool, str], None] | None = None,
    ) -> None:
        super().__init__(parent)
        self.approval = approval
        self.service = service
        self._answer_with = answer
        self.setObjectName("httpApprovalDialog")
        self.setWindowTitle("An MCP client asks to run a tool")
        self.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(16, 16, 16, 16)
        layout.setSpacing(8)
        layout.addWidget(DialogHeader("Run a tool?", "An MCP client asks; it waits for your answer.", icon="tools"))
        if approval is not None:
            headline = (
                f"<b>{_escape(approval.client)}</b> (connected over MCP HTTP) asks to run "
                f"<b>{_escape(approval.tool)}</b>."
            )
            arguments = approval.arguments
        label = QLabel(headline)
        label.setObjectName("httpApprovalHeadline")
        label.setWordWrap(True)
        layout.addWidget(label)
        shown = QPlainTextEdit(json.dumps(arguments or {}, indent=2, ensure_ascii=False))
        shown.setObjectName("httpApprovalArguments")
        shown.setAccessibleName("The tool call's arguments")
        shown.setReadOnly(True)
        shown.setMaximumHeight(180)
        layout.addWidget(shown)
        self.reason = QLineEdit()
        self.reason.setObjectName("httpApprovalReason")
        self.reason.setPlaceholderText("Reason, if you deny it (the client reads it)")
        self.reason.setAccessibleName("Reason for denying")
        layout.addWidget(self.reason)
        buttons = QDialogButtonBox()
        self.allow_button = buttons.addButton("Allow", QDialogButtonBox.ButtonRole.AcceptRole)
        self.allow_button.setObjectName("httpApprovalAllow")
        mark_primary(self.allow_button)
        self.session_button = None
        if approval is not None:  # a call from the client itself: may be allowed until the host stops
            self.session_button = buttons.addButton("Allow for this session", QDialogButtonBox.ButtonRole.ActionRole)
            self.session_button.setObjectName("httpApprovalAllowSession")
            self.session_button.setToolTip(
                f"{approval.client}'s later calls of {approval.tool} run without asking, until Switchboard stops "
                "serving"
            )
            self.session_button.clicked.connect(lambda: self._answer(True, for_session=True))
        self.deny_button = buttons.addButton("Deny", QDialogButtonBox.ButtonRole.RejectRole)
        self.deny_button.setObjectName("httpApprovalDeny")
        buttons.accepted.connect(lambda: self._answer(True))
        buttons.rejected.connect(lambda: self._answer(False))
        layout.addWidget(buttons)
        self.resize(480, 300)

    _done = False
    for_session = False

    def _answer(self, approved: bool, *, for_session: bool = False) -> None:
        if self._done:
            return
        self._done = True
        reason = self.reason.text().strip()
        try:
            if self._answer_with is not None:
                self._answer_with(approved, reason)
            elif self.approval is not None:
                self.service.approvals.answer(self.approval.id, approved, reason, for_session=for_session)
            self.answered = "allowed" if approved else "denied"
            self.for_session = for_session and approved
        except (KeyError, UnknownToolCallError):
            pass  # answered or withdrawn meanwhile
        self.close()

    def withdraw(self) -> None:
        """The question went away without this dialog (the client hung up, the host stopped): close, answer nothing."""
        self._done = True
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
        subscribe = getattr(service.runtime, "subscribe", None)
        if callable(subscribe):  # the approvals of the agents that HTTP calls run
            self._unsubscribe.append(subscribe(self._on_run_event))
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

    def _status(self, text: str) -> None:
        set_status = getattr(self.window, "set_status", None)
        if callable(set_status):
            set_status(text)

    def _open(self, key: str, dialog: HttpApprovalDialog, waiting: str) -> None:
        self.dialogs[key] = dialog  # until the runtime closes the question
        dialog.show()
        dialog.raise_()
        dialog.activateWindow()
        self._status(f"Waiting for your approval: {waiting}")

    def _closed(self, key: str, what: str) -> None:
        dialog = self.dialogs.pop(key, None)
        answered = dialog.answered if dialog is not None else ""
        if dialog is not None and dialog.for_session:
            what += ", and its later calls until the host stops"
        if dialog is not None and isValid(dialog):  # still open: the client hung up, or the host stopped
            dialog.withdraw()
        self._status(f"You {answered} {what}" if answered else f"{what}: answered elsewhere or withdrawn")

    def _parent(self) -> QWidget | None:
        return self.window if isinstance(self.window, QWidget) else None

    def _on_approval(self, what: str, approval: HttpApproval) -> None:
        described = f"{approval.tool} (from {approval.client}, over HTTP)"
        if what == "opened":
            self._open(approval.id, HttpApprovalDialog(approval, self.service, self._parent()), described)
        else:
            self._closed(approval.id, described)

    def _on_run_event(self, event: Any) -> None:
        kind = getattr(event, "kind", "")
        if kind not in ("approval_required", "approval_decided"):
            return
        key = f"run:{event.tool_call_id}"
        if kind == "approval_decided":
            if key in self.dialogs:
                self._closed(key, self.dialogs[key].windowTitle().removeprefix("Agent call: "))
            return
        client = self.service.served_conversation(event.conversation_id)
        if client is None:
            return  # a conversation of the window: its own card asks
        runtime = self.service.runtime
        agent = runtime.conversation_agent(event.conversation_id) if hasattr(runtime, "conversation_agent") else ""
        what = f"{event.tool} (agent {agent} for {client}, over HTTP)"

        def answer(approved: bool, reason: str, tool_call_id: str = event.tool_call_id) -> None:
            runtime.answer(tool_call_id, approved=approved, reason=reason or None)

        dialog = HttpApprovalDialog(
            None,
            self.service,
            self._parent(),
            headline=(
                f"The agent <b>{_escape(agent)}</b>, working for <b>{_escape(client)}</b> (over MCP HTTP), asks to "
                f"run <b>{_escape(event.tool)}</b> on MCP server <b>{_escape(event.server)}</b>."
            ),
            arguments=event.arguments,
            answer=answer,
        )
        dialog.setWindowTitle(f"Agent call: {what}")
        self._open(key, dialog, what)

    def apply(self, settings: Any, tasks: Any = None) -> Any:
        """Start, stop or restart the host for ``settings`` (``Settings``); errors show in the status bar."""

        async def run() -> None:
            from desktop_app.runtime.serve.service import HttpHostError

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
