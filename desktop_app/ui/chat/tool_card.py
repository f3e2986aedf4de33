"""The tool card: what the model wants to call, the approval controls while it waits, then decision and result.

While a call waits for approval the card offers:

* **Approve** (the default, approves once; Enter when the card has focus) and a menu beside it with
  "Approve for this conversation", "Always approve this tool" and "Trust this server (all its tools)";
* **Deny**, which opens an inline reason field (Enter confirms; an empty reason is fine);
* **Edit arguments**, which swaps the pretty JSON for an editor; invalid JSON or a non-object disables
  Approve, and approving sends the edited object.

The answer leaves as ``decided(tool_call_id, ApprovalAnswer)``. The card then shows who decided and how
("Approved · always for this tool", "Approved by grant (tool)", "Approved by policy", "Denied: <reason>"),
with a compact before/after when the arguments were edited, and another, attributed to the hook, when a
hook changed them before the tool ran (the card then shows the arguments that ran). A call asked again (a
continued run) re-arms the same card. Esc is left alone: it stops the run.

The approval controls live in ``tool_card_approval``, the inline images in ``tool_card_media``.
"""

from __future__ import annotations

import re
import time
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QProgressBar, QToolButton, QVBoxLayout, QWidget

from desktop_app.ui.chat.arguments import ArgumentsPanel
from desktop_app.ui.chat.common import ERROR_COLOR, OK_COLOR, escape
from desktop_app.ui.chat.tool_card_approval import ApprovalAnswer, ApprovalControls, describe_decision
from desktop_app.ui.chat.tool_card_media import image_labels, resource_boxes, strip_shown
from desktop_app.ui.delegate import Delegated
from desktop_app.ui.theme.focus_visible import install_focus_visible

RESULT_DISPLAY_LIMIT = 4000
PROGRESS_STEPS = 1000
"""A determinate bar's resolution: ``progress / total`` is shown in thousandths."""
EDITED_NOTE = re.compile(r"\[The user edited the arguments before approving;[^\n]*\]\n")


def hook_argument_changes(notices: list[Any]) -> list[tuple[str, dict[str, Any], dict[str, Any]]]:
    """``(who, before, after)`` for each hook notice that changed the arguments (``HookNotice`` models, live,
    or the dicts stored with the result), in the order the hooks ran."""
    from desktop_app.ui.chat.hook_notice import as_dict

    changes = []
    for notice in map(as_dict, notices):
        before, after = notice.get("before"), notice.get("after")
        mutated = notice.get("kind") == "mutated" and notice.get("target") == "arguments"
        if mutated and isinstance(before, dict) and isinstance(after, dict):
            changes.append((", ".join(str(h) for h in notice.get("hooks") or []) or "a hook", before, after))
    return changes


def format_duration(seconds: float) -> str:
    if seconds < 1:
        return f"{max(1, round(seconds * 1000))} ms"
    if seconds < 60:
        return f"{seconds:.1f} s"
    return f"{int(seconds // 60)} min {int(seconds % 60)} s"


class ToolCard(QFrame):
    """One tool call in the transcript.

    Signals:
        decided(str, object): the user answered the call with this id (an ``ApprovalAnswer``).
    """

    decided = Signal(str, object)
    user_toggled = Signal(bool)  # the user folded (False) or unfolded (True) the card

    # The approval controls' widgets (``card.approval``, an ``ApprovalControls``).
    buttons = Delegated("approval")
    deny_row = Delegated("approval")
    edit_button = Delegated("approval")
    deny_button = Delegated("approval")
    approve_button = Delegated("approval")
    approve_menu = Delegated("approval")
    approve_menu_button = Delegated("approval")
    scope_actions = Delegated("approval")
    reason_edit = Delegated("approval")
    deny_cancel_button = Delegated("approval")
    deny_confirm_button = Delegated("approval")

    def __init__(
        self, tool_call_id: str, server: str, tool: str, arguments: dict[str, Any], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.tool_call_id = tool_call_id  # the runtime's own id of the call: what answers and results use
        self.model_call_id = tool_call_id  # the id the model gave it (not unique), for diagnostics
        self.tool = tool
        self.setObjectName("toolCard")
        self.setAccessibleName(f"Tool call {tool}")
        self.setFocusPolicy(Qt.FocusPolicy.StrongFocus)
        self.setStyleSheet(
            "QFrame#toolCard { border: 1px solid palette(mid); border-radius: 6px;"
            " background: palette(alternate-base); }"
            ' QFrame#toolCard[focusVisible="true"]:focus { border: 1px solid palette(highlight); }'
        )
        install_focus_visible(self)  # a ring for keyboard focus: clicking its title to unfold it frames nothing
        layout = QVBoxLayout(self)
        layout.setContentsMargins(10, 8, 10, 8)
        header = QHBoxLayout()
        self.toggle = QToolButton()
        self.toggle.setObjectName("toolCardToggle")
        self.toggle.setAccessibleName("Show or hide the tool call's details")
        self.toggle.setToolTip("Show or hide the arguments and the result")
        self.toggle.setAutoRaise(True)
        self.toggle.setArrowType(Qt.ArrowType.DownArrow)
        self.toggle.clicked.connect(self._on_user_toggle)
        self.toggle.hide()  # a finished card collapses; then the arrow (or a click on the card) expands it
        header.addWidget(self.toggle)
        self.title = QLabel(f"<b>{escape(tool)}</b> <span>· {escape(server or 'unknown server')}</span>")
        self.title.setObjectName("toolCardTitle")
        header.addWidget(self.title, 1)
        self.status = QLabel("")
        self.status.setObjectName("toolCardStatus")
        self.status.setAccessibleName("Tool call status")
        header.addWidget(self.status)
        self.duration = QLabel("")
        self.duration.setObjectName("toolCardDuration")
        self.duration.setAccessibleName("How long the tool call took")
        self.duration.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        self.duration.hide()
        header.addWidget(self.duration)
        layout.addLayout(header)
        self._started = time.monotonic()
        self.expanded = True

        self.args = ArgumentsPanel(arguments)
        self.arguments = self.args.label
        layout.addWidget(self.args)

        self.approval = ApprovalControls(self, tool)
        self.args.validity_changed.connect(self.approval.on_validity_changed)
        layout.addWidget(self.approval.buttons)
        layout.addWidget(self.approval.deny_row)

        self.result_caption = QLabel("Result")
        self.result_caption.setObjectName("toolCardResultCaption")
        self.result_caption.setStyleSheet(
            "QLabel { color: palette(placeholder-text); border-top: 1px solid palette(midlight); padding-top: 4px; }"
        )
        self.result_caption.hide()
        layout.addWidget(self.result_caption)
        self.result = QLabel("")
        self.result.setObjectName("toolCardResult")
        self.result.setAccessibleName("Tool result")
        self.result.setTextFormat(Qt.TextFormat.PlainText)
        self.result.setWordWrap(True)
        self.result.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.result.hide()
        layout.addWidget(self.result)
        self.progress_bar: QProgressBar | None = None
        self.progress_label: QLabel | None = None
        self.hook_notices: Any = None  # a HookNoticeRow once a hook did something to this call
        self.is_error = False
        self.pending = False
        self.state = "running"  # running, waiting, approved, denied, done, failed, unanswered
        self._set_status("Running…")

    # -- state changes driven by events --------------------------------------------------------------------

    def ask(self) -> None:
        """Show the approval controls and wait for the user (also re-arms a card asked again)."""
        self.pending = True
        self.state = "waiting"
        self._set_status("Waiting for approval")
        self.approval.arm()

    def disarm(self, note: str = "Not answered") -> None:
        """The call no longer waits (the run stopped or failed): hide the controls, keep the card."""
        if not self.pending and self.state != "waiting":
            return
        self.pending = False
        self.state = "unanswered"
        self._hide_controls()
        self.args.show_final(None)
        self._set_status(note)

    def show_decision(
        self,
        approved: bool,
        reason: str | None = None,
        source: str = "user",
        scope: str = "once",
        edited_arguments: dict[str, Any] | None = None,
    ) -> None:
        self.pending = False
        self.state = "approved" if approved else "denied"
        self._started = time.monotonic()  # the duration shown is the call's own, not the wait for approval
        self._hide_controls()
        self.args.show_final(edited_arguments if approved else None)
        self._set_status(describe_decision(approved, reason, source, scope), OK_COLOR if approved else ERROR_COLOR)
        self.status.setToolTip((reason or "") if source != "user" else "")

    def show_progress(self, progress: float, total: float | None = None, message: str | None = None) -> None:
        """A running tool reported progress: a determinate bar (``progress / total``) with the message under
        it, or a busy bar when ``total`` is unknown. The bar goes away when the result arrives."""
        if self.progress_bar is None or self.progress_label is None:
            self.progress_bar = QProgressBar()
            self.progress_bar.setObjectName("toolCardProgress")
            self.progress_bar.setAccessibleName(f"Progress of {self.tool}")
            self.progress_bar.setMaximumHeight(self.fontMetrics().height() + 2)
            self.progress_label = QLabel("")
            self.progress_label.setObjectName("toolCardProgressMessage")
            self.progress_label.setWordWrap(True)
            self.progress_label.setTextFormat(Qt.TextFormat.PlainText)
            self.progress_label.setStyleSheet("QLabel { color: palette(placeholder-text); }")
            layout = self.layout()
            index = layout.indexOf(self.result_caption) if layout is not None else -1
            if isinstance(layout, QVBoxLayout):
                layout.insertWidget(index, self.progress_bar)
                layout.insertWidget(index + 1, self.progress_label)
        bar, label = self.progress_bar, self.progress_label
        if total is not None and total > 0:
            bar.setRange(0, PROGRESS_STEPS)
            bar.setValue(round(PROGRESS_STEPS * min(max(progress / total, 0.0), 1.0)))
            bar.setTextVisible(True)
            bar.setFormat(f"{progress:g} / {total:g}")
        else:  # unknown total: Qt's busy indicator, with the count so far in the message
            bar.setRange(0, 0)
            bar.setTextVisible(False)
        shown = message or ("" if total else f"{progress:g} done")
        label.setText(shown)
        label.setVisible(bool(shown))
        bar.show()
        if self.state == "running":
            self._set_status("Running…")

    def hide_progress(self) -> None:
        if self.progress_bar is not None and self.progress_label is not None:
            self.progress_bar.hide()
            self.progress_label.hide()

    def show_result(self, text: str, *, is_error: bool, media: list[dict[str, Any]] | None = None) -> None:
        media = media or []
        shown = self.show_media(media)
        # what is on the card now ("[image image/png, 4033 bytes]", a resource's URI and text) is not repeated
        text = strip_shown(text, media, images=bool(shown))
        edited = EDITED_NOTE.match(text)
        if edited is not None:  # the run loop tells the model the user edited the arguments: a card note
            text = text[edited.end() :]
            self.show_note("You edited the arguments before approving; the tool ran with the edited ones.")
        self.hide_progress()
        self._hide_controls()
        self.pending = False
        self.is_error = is_error
        if len(text) > RESULT_DISPLAY_LIMIT:
            text = text[:RESULT_DISPLAY_LIMIT] + f"\n… ({len(text) - RESULT_DISPLAY_LIMIT} more characters)"
        self.result.setText(text or ("" if shown or self.resources else "(empty result)"))
        self.result.setProperty("error", is_error)
        self.result.setStyleSheet(f"color: {ERROR_COLOR};" if is_error else "")
        self.result_caption.setText("Error" if is_error else "Result")
        self.result_caption.show()
        self.result.show()
        self.has_result = True
        if is_error and self.state in ("running", "approved"):
            self.state = "failed"
            self._set_status("Failed", ERROR_COLOR)
        elif self.state == "running":
            self.state = "done"
            self._set_status("Done", OK_COLOR)
        self.duration.setText(f"· {format_duration(time.monotonic() - self._started)}")
        self.duration.show()
        self.collapse()

    has_result = False
    note: QLabel | None = None
    images: list[QLabel] = []  # noqa: RUF012 - replaced per card in show_media
    resources: list[QWidget] = []  # noqa: RUF012 - replaced per card in show_media

    def show_media(self, media: list[dict[str, Any]]) -> int:
        """Images (MCP image content, or an embedded image resource) and other embedded resources inline on the
        card; returns how many images."""
        shown = image_labels(media, self.tool, self.devicePixelRatioF() or 1.0)
        resources = resource_boxes(media, self.tool)
        box = self.layout()
        assert isinstance(box, QVBoxLayout)
        for widget in [*resources, *shown]:
            box.insertWidget(box.indexOf(self.result) + 1, widget)
            widget.show()
        self.images = [*self.images, *shown]
        self.resources = [*self.resources, *resources]
        return len(shown)

    def show_note(self, text: str) -> None:
        if self.note is None:
            self.note = QLabel()
            self.note.setObjectName("toolCardNote")
            self.note.setWordWrap(True)
            self.note.setStyleSheet("QLabel { color: palette(placeholder-text); font-style: italic; }")
            box = self.layout()
            assert isinstance(box, QVBoxLayout)
            box.insertWidget(box.indexOf(self.result_caption), self.note)
            self.note.show()
        self.note.setText("✎ " + text)

    def collapse(self) -> None:
        """The call is over: fold the card to its summary line (tool, server, status, duration)."""
        self.toggle.show()
        self.set_expanded(False)

    def set_expanded(self, expanded: bool, *, animate: bool = False) -> None:
        """Unfold or fold the card; ``animate`` (a user's click) eases it (``theme.motion``, off under reduced
        motion); a card folding itself when its call is over does so at once."""
        self.expanded = expanded
        self.toggle.setArrowType(Qt.ArrowType.DownArrow if expanded else Qt.ArrowType.RightArrow)
        for part in (self.args, self.result_caption, self.result, *self.resources):
            shown = expanded and (part is self.args or self.has_result)
            if animate and shown != part.isVisible():
                from desktop_app.ui.theme import motion  # at the first click, not before the first paint

                motion.fold(part, shown)
            else:
                part.setVisible(shown)
        if self.has_result and not self.result.text():  # all of it is in the resource boxes
            self.result.hide()
        # the images stay: they are what the user came for, and the summary line says where they came from
        self.setAccessibleName(f"Tool call {self.tool}{'' if expanded else ' (collapsed)'}")

    def mouseReleaseEvent(self, event: Any) -> None:
        """A click on a collapsed card's summary line expands it (and on an expanded one's, folds it)."""
        if self.toggle.isVisible() and event.position().y() <= self.title.geometry().bottom() + 4:
            self._on_user_toggle()
            event.accept()
            return
        super().mouseReleaseEvent(event)

    def _on_user_toggle(self) -> None:
        self.user_toggled.emit(not self.expanded)  # first: the transcript holds its scroll position
        self.set_expanded(not self.expanded, animate=True)

    def show_hook_notices(self, notices: list[Any]) -> None:
        """Chips for what hooks changed, blocked or failed on this call (see ``hook_notice.py``)."""
        from desktop_app.ui.chat.hook_notice import HookNoticeRow

        if self.hook_notices is None:
            if not notices:
                return
            self.hook_notices = HookNoticeRow()
            box = self.layout()
            assert isinstance(box, QVBoxLayout)
            box.insertWidget(1, self.hook_notices)
        self.hook_notices.set_notices(notices)
        self.args.show_hook_changes(hook_argument_changes(notices))

    def _hide_controls(self) -> None:
        self.approval.buttons.hide()
        self.approval.deny_row.hide()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if not self.approval.handle_enter(event):  # Enter approves (``ApprovalControls.handle_enter``)
            super().keyPressEvent(event)

    def _set_status(self, text: str, color: str | None = None) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"color: {color};" if color else "color: palette(placeholder-text);")


__all__ = ["ApprovalAnswer", "ToolCard", "describe_decision"]
