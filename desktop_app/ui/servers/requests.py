"""Servers' requests to the user, inline in the chat: "use your model" (sampling) and forms (elicitation).

A ``SamplingRequested`` or ``ElicitationRequested`` host event becomes a card in the transcript, keyed by its
request id; the card's answer goes to ``Runtime.answer_sampling`` / ``answer_elicitation``. Nothing here is
modal and nothing blocks the loop: the runtime awaits a future, the card only sends the answer. A
``ServerRequestClosed`` disarms a card that still waits ("The server stopped waiting"). A form answer the
runtime refuses (``InvalidElicitationResponseError``) is shown under the form, which stays open.

The elicitation form is generated from the (flat) requested schema (:mod:`desktop_app.ui.servers.elicitation_fields`):
strings (with ``format`` hints), numbers and integers (spin boxes with min/max),
booleans, single and multiple choice (``enum``/``oneOf`` with titles), required markers, defaults and help.
Runtime types are only used for type checking (this module is imported before the first paint).
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Qt, QUrl, Signal
from PySide6.QtGui import QDesktopServices
from PySide6.QtWidgets import (
    QFormLayout,
    QFrame,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.common import ERROR_COLOR, OK_COLOR, compact_json, escape
from desktop_app.ui.servers.elicitation_fields import FormField, make_field
from desktop_app.ui.servers.status import HostBridge

if TYPE_CHECKING:
    from desktop_app.runtime.events import ElicitationRequested, SamplingRequested, ServerRequestClosed

log = logging.getLogger(__name__)

PREVIEW_CHARS = 400
"""Sampling messages longer than this in total start collapsed (the last message, cut, with "Show all")."""
MUTED = "color: palette(placeholder-text);"
CARD_STYLE = (
    "QFrame#serverRequestCard { border: 1px solid palette(highlight); border-radius: 6px;"
    " background: palette(alternate-base); }"
)


def _label(text: str, *, rich: bool = False, muted: bool = False, name: str = "") -> QLabel:
    label = QLabel(text)
    label.setTextFormat(Qt.TextFormat.RichText if rich else Qt.TextFormat.PlainText)
    label.setWordWrap(True)
    label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
    if muted:
        label.setStyleSheet(f"QLabel {{ {MUTED} }}")
    if name:
        label.setObjectName(name)
    return label


def _button(text: str, name: str, slot: Any) -> QPushButton:
    button = QPushButton(text)
    button.setObjectName(name)
    button.setAutoDefault(False)
    button.clicked.connect(slot)
    return button


class RequestCard(QFrame):
    """What sampling and elicitation cards share: title, body, controls, an inline error and a status line."""

    def __init__(self, request_id: str, server: str, title: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.request_id = request_id
        self.server = server
        self.is_open = True
        self.answered = False
        self.setObjectName("serverRequestCard")
        self.setAccessibleName(title)
        self.setStyleSheet(CARD_STYLE)
        self.body = QVBoxLayout(self)
        self.body.setContentsMargins(10, 8, 10, 8)
        self.title = _label(f"<b>{escape(title)}</b>", rich=True, name="serverRequestTitle")
        header = QHBoxLayout()
        self.toggle = QToolButton()
        self.toggle.setObjectName("serverRequestToggle")
        self.toggle.setAccessibleName("Show or hide the request")
        self.toggle.setAutoRaise(True)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.toggle.clicked.connect(lambda: self.set_expanded(not self.expanded))
        self.toggle.hide()  # an answered request folds to its title and how it ended; the arrow unfolds it
        header.addWidget(self.toggle)
        header.addWidget(self.title, 1)
        self.body.addLayout(header)
        self.content_box = QWidget()
        self.content_box.setObjectName("serverRequestContent")
        self.content = QVBoxLayout(self.content_box)
        self.content.setContentsMargins(0, 0, 0, 0)
        self.body.addWidget(self.content_box)
        self.expanded: bool = True
        self.error = _label("", name="serverRequestError")
        self.error.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
        self.error.hide()
        self.body.addWidget(self.error)
        self.controls = QWidget()
        self.buttons = QHBoxLayout(self.controls)
        self.buttons.setContentsMargins(0, 0, 0, 0)
        self.buttons.addStretch(1)
        self.body.addWidget(self.controls)
        self.status = _label("", name="serverRequestStatus")
        self.status.hide()
        self.body.addWidget(self.status)

    def show_error(self, text: str) -> None:
        """The answer was refused: say why under the form and let the user try again."""
        self.error.setText(text)
        self.error.show()
        self.controls.setEnabled(True)

    def settle(self, text: str, color: str | None = None) -> None:
        """The request is over: take the controls away and say how it ended."""
        self.is_open = False
        self.controls.hide()
        self.error.hide()
        self.status.setText(text)
        self.status.setStyleSheet(f"QLabel {{ color: {color}; }}" if color else f"QLabel {{ {MUTED} }}")
        self.status.show()

    def collapse(self) -> None:
        """Fold an answered request to one summary line: who asked, and how it ended."""
        self.toggle.show()
        self.set_expanded(False)

    def set_expanded(self, expanded: bool) -> None:
        self.expanded = expanded
        self.content_box.setVisible(expanded)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)

    def close_request(self, outcome: str) -> None:
        """``ServerRequestClosed``: a card still waiting is disarmed (the server or the connection gave up)."""
        if self.is_open and not self.answered:
            self.settle("The server stopped waiting — nothing was sent." if outcome == "cancelled" else "Answered")

    def _sending(self) -> None:
        self.controls.setEnabled(False)
        self.error.hide()


class SamplingCard(RequestCard):
    """ "MCP server 'x' wants to use your model": the messages, system prompt and limits, Allow / Deny.

    Signals:
        answer_chosen(str, bool, object): request id, approved, the optional reason of a denial.
    """

    answer_chosen = Signal(str, bool, object)

    def __init__(self, event: SamplingRequested, parent: QWidget | None = None) -> None:
        super().__init__(event.request_id, event.server, f"MCP server '{event.server}' wants to use your model", parent)
        lines = [f"<b>{escape(m.role.title())}:</b> {escape(m.text)}".replace("\n", "<br>") for m in event.messages]
        self.full = _label("<br>".join(lines) or "(no messages)", rich=True, name="samplingMessages")
        self.content.addWidget(self.full)
        total = sum(len(m.text) for m in event.messages)
        self.show_all: QToolButton | None = None  # its own: ``toggle`` is the fold arrow of every request card
        if total > PREVIEW_CHARS or len(event.messages) > 3:
            last = event.messages[-1]
            cut = last.text if len(last.text) <= PREVIEW_CHARS else last.text[:PREVIEW_CHARS] + "…"
            self.preview = _label(
                f"<b>{escape(last.role.title())}:</b> {escape(cut)}", rich=True, name="samplingPreview"
            )
            self.content.insertWidget(0, self.preview)
            self.full.hide()
            self.show_all = QToolButton()
            self.show_all.setObjectName("samplingShowAll")
            self.show_all.setCheckable(True)
            count = len(event.messages)
            what = "the full message" if count == 1 else f"all {count} messages"
            self.show_all.setText(f"Show {what} ({total} characters)")
            self.show_all.toggled.connect(self._on_toggled)
            self.content.addWidget(self.show_all)
        if event.system_prompt:
            self.content.addWidget(_label(f"System prompt: {event.system_prompt}", muted=True, name="samplingSystem"))
        facts = [f"Max tokens: {event.max_tokens}"]
        if event.temperature is not None:
            facts.append(f"temperature {event.temperature:g}")
        if event.model_hints:
            facts.append("model hints: " + ", ".join(event.model_hints))
        self.content.addWidget(_label(" · ".join(facts), muted=True, name="samplingLimits"))
        self.reason = QLineEdit()
        self.reason.setObjectName("samplingDenyReason")
        self.reason.setPlaceholderText("Reason for the server (optional) — Enter denies")
        self.reason.setAccessibleName("Reason for denying (optional)")
        self.reason.returnPressed.connect(self._on_deny_confirmed)
        self.reason.hide()
        self.buttons.insertWidget(0, self.reason, 1)
        self.back_button = _button("Back", "samplingBackButton", self._on_back)
        self.back_button.hide()
        self.deny_button = _button("Deny…", "samplingDenyButton", self._on_deny)
        self.allow_button = _button("Allow", "samplingAllowButton", self._on_allow)
        self.allow_button.setToolTip("Run this request on your model and send the answer to the server")
        for button in (self.back_button, self.deny_button, self.allow_button):
            self.buttons.addWidget(button)

    def _on_toggled(self, expanded: bool) -> None:
        self.full.setVisible(expanded)
        self.preview.setVisible(not expanded)

    def _on_allow(self) -> None:
        self._sending()
        self.answer_chosen.emit(self.request_id, True, None)

    def _on_deny(self) -> None:
        self.reason.show()
        self.back_button.show()
        self.allow_button.hide()
        self.deny_button.setText("Deny")
        self.deny_button.clicked.disconnect()
        self.deny_button.clicked.connect(self._on_deny_confirmed)
        self.reason.setFocus()

    def _on_back(self) -> None:
        self.reason.hide()
        self.back_button.hide()
        self.allow_button.show()
        self.deny_button.setText("Deny…")
        self.deny_button.clicked.disconnect()
        self.deny_button.clicked.connect(self._on_deny)

    def _on_deny_confirmed(self) -> None:
        self._sending()
        self.answer_chosen.emit(self.request_id, False, self.reason.text().strip() or None)

    def show_answer(self, approved: bool, reason: str | None) -> None:
        self.answered = True
        if approved:
            self.settle("Allowed — your model answers the server.", OK_COLOR)
        else:
            self.settle(f"Denied: {reason}" if reason else "Denied — the server was told you declined.", ERROR_COLOR)


class ElicitationCard(RequestCard):
    """A server asks for input: a form generated from its schema (Accept / Decline / Cancel), or a link to open.

    Signals:
        answer_chosen(str, str, object): request id, ``accept``/``decline``/``cancel``, the form content.
    """

    answer_chosen = Signal(str, str, object)

    def __init__(self, event: ElicitationRequested, parent: QWidget | None = None) -> None:
        super().__init__(event.request_id, event.server, f"MCP server '{event.server}' asks for your input", parent)
        self.mode = event.mode
        self.url = event.url or ""
        self.fields: list[FormField] = []
        self.content.addWidget(_label(event.message, name="elicitationMessage"))
        if event.mode == "url":
            self._build_url()
        else:
            self._build_form(event.requested_schema)
        self.decline_button = _button("Decline", "elicitationDeclineButton", self._on_decline)
        self.buttons.addWidget(self.decline_button)
        self.cancel_button = _button("Cancel", "elicitationCancelButton", self._on_cancel)
        self.cancel_button.setToolTip("Dismiss without answering (the server may ask again)")
        if event.mode == "url":
            self.accept_button = _button("Open", "elicitationOpenButton", self._on_open)
            self.accept_button.setToolTip("Open the link in your browser")
            scheme = QUrl(self.url).scheme().lower()
            self.accept_button.setEnabled(scheme in ("http", "https"))
        else:
            self.buttons.addWidget(self.cancel_button)
            self.accept_button = _button("Accept", "elicitationAcceptButton", self._on_accept)
            self.accept_button.setToolTip("Send the form to the server")
        self.accept_button.setDefault(True)
        self.buttons.addWidget(self.accept_button)

    def _build_url(self) -> None:
        link = _label(self.url, name="elicitationUrl")
        link.setStyleSheet("QLabel { font-family: monospace; }")
        self.content.addWidget(link)
        host = QUrl(self.url).host() or "an unknown site"
        self.content.addWidget(_label(f"Open opens {host} in your browser; Decline tells the server no.", muted=True))

    def _build_form(self, schema: dict[str, Any]) -> None:
        form = QFormLayout()
        form.setObjectName("elicitationForm")
        form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        required = set(schema.get("required") or [])
        for key, spec in (schema.get("properties") or {}).items():
            field = make_field(key, spec if isinstance(spec, dict) else {}, key in required)
            self.fields.append(field)
            form.addRow(field.label, field.cell)
        self.content.addLayout(form)
        if required:
            self.content.addWidget(_label("* required", muted=True))

    def field(self, key: str) -> FormField:
        return next(field for field in self.fields if field.key == key)

    def values(self) -> dict[str, Any]:
        """The form's content: every field that has a value (empty optional fields are left out)."""
        content: dict[str, Any] = {}
        for field in self.fields:
            present, value = field.value()
            if present:
                content[field.key] = value
        return content

    def _on_accept(self) -> None:
        self._sending()
        self.answer_chosen.emit(self.request_id, "accept", self.values())

    def _on_open(self) -> None:
        self._sending()
        QDesktopServices.openUrl(QUrl(self.url))
        self.answer_chosen.emit(self.request_id, "accept", None)

    def _on_decline(self) -> None:
        self._sending()
        self.answer_chosen.emit(self.request_id, "decline", None)

    def _on_cancel(self) -> None:
        self._sending()
        self.answer_chosen.emit(self.request_id, "cancel", None)

    def show_answer(self, action: str, content: dict[str, Any] | None) -> None:
        self.answered = True
        if action == "accept":
            sent = "Opened the link" if self.mode == "url" else "Sent " + compact_json(content or {}, 200)
            self.settle(f"Accepted — {sent}", OK_COLOR)
        else:
            self.settle("Declined — the server was told no." if action == "decline" else "Cancelled")
        self.collapse()


class ServerRequests(QObject):
    """Follows a host's events: request cards in the chat view, answers to the runtime (by request id).

    Signals:
        status_message(str): a request arrived or was answered (for the status bar).
    """

    status_message = Signal(str)

    def __init__(self, view: Any, parent: QObject | None = None) -> None:
        super().__init__(parent)
        self.view = view
        self.answerer: Any = None
        self.cards: dict[str, SamplingCard | ElicitationCard] = {}
        self.bridge = HostBridge(self)
        self.bridge.event_received.connect(self.on_event)

    def attach(self, host: Any, answerer: Any = None) -> None:
        """Follow ``host``; answers go to ``answerer`` (the Runtime; default the host itself)."""
        self.answerer = answerer if answerer is not None else host
        self.bridge.attach(host)

    def on_event(self, event: Any) -> None:
        kind = getattr(event, "kind", None)
        if kind == "sampling_requested":
            card: SamplingCard | ElicitationCard = SamplingCard(event)
            card.answer_chosen.connect(self._on_sampling_answered)
            self._show(card, f"MCP server '{event.server}' wants to use your model — see the conversation")
        elif kind == "elicitation_requested":
            card = ElicitationCard(event)
            card.answer_chosen.connect(self._on_elicitation_answered)
            self._show(card, f"MCP server '{event.server}' asks for your input — see the conversation")
        elif kind == "server_request_closed":
            self._on_closed(event)

    def _show(self, card: SamplingCard | ElicitationCard, status: str) -> None:
        self.cards[card.request_id] = card
        self.view.add_server_request(card)
        self.status_message.emit(status)

    def _on_closed(self, event: ServerRequestClosed) -> None:
        card = self.cards.get(event.request_id)
        if card is not None:
            card.close_request(event.outcome)

    def _on_sampling_answered(self, request_id: str, approved: bool, reason: str | None) -> None:
        card = self.cards[request_id]
        if self._answer(card, lambda: self.answerer.answer_sampling(request_id, approved, reason)):
            assert isinstance(card, SamplingCard)
            card.show_answer(approved, reason)
            self.status_message.emit("Sampling allowed" if approved else "Sampling denied")

    def _on_elicitation_answered(self, request_id: str, action: str, content: dict[str, Any] | None) -> None:
        card = self.cards[request_id]
        if self._answer(card, lambda: self.answerer.answer_elicitation(request_id, action, content)):
            assert isinstance(card, ElicitationCard)
            card.show_answer(action, content)
            self.status_message.emit(f"Answered MCP server '{card.server}' ({action})")

    def _answer(self, card: RequestCard, send: Any) -> bool:
        from desktop_app.runtime.errors import InvalidElicitationResponseError, UnknownServerRequestError

        try:
            send()
        except InvalidElicitationResponseError as exc:  # the request stays open: fix the form and try again
            card.show_error(str(exc))
            return False
        except UnknownServerRequestError:
            card.settle("The server no longer waits for this answer — nothing was sent.")
            return False
        except Exception as exc:  # never raise into Qt: say it on the card
            log.exception("answering server request %s failed", card.request_id)
            card.show_error(f"Could not send the answer ({type(exc).__name__}: {exc}).")
            return False
        return True


__all__ = ["ElicitationCard", "RequestCard", "SamplingCard", "ServerRequests"]
