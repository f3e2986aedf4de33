"""The quick prompt: a frameless, always-on-top box that answers without opening the main window.

It is the main window's chat in a small frame: the same ``ChatView`` (live Markdown, tool cards with
inline approvals, retry countdowns), the same ``Composer`` (chips, attachments) and the same
``ChatController`` on the same runtime, so a quick conversation is a conversation like any other: stored,
marked quick (``Store.mark_quick``) and listed in the main window. Enter sends, Shift+Enter starts a new
line, Esc closes (stopping a run first), and "Open in main window" continues the conversation there. Its look
comes from the application stylesheet (``theme/stylesheet.py``, ``#quickPrompt``).

Nothing is attached unless the user chooses it: "Include clipboard" (the composer's clipboard button) and, on
X11, "Include selection" (the primary selection) each add a removable chip. The composer's provider button
names the provider and model the box talks to (refreshed whenever it opens and as each run starts).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QByteArray, QEvent, QPoint, QRect, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QClipboard, QCursor, QGuiApplication, QIcon, QKeySequence, QPainter, QPixmap, QShortcut
from PySide6.QtSvg import QSvgRenderer
from PySide6.QtWidgets import QFrame, QHBoxLayout, QLabel, QPushButton, QToolButton, QVBoxLayout, QWidget
from shiboken6 import isValid

from desktop_app.runtime.errors import SwitchboardError
from desktop_app.ui.asyncqt import TaskRunner, async_slot
from desktop_app.ui.chat.composer import Composer
from desktop_app.ui.chat.controller import ChatController, RuntimeLike
from desktop_app.ui.chat.view import ChatView
from desktop_app.ui.theme.tokens import SPACE, tokens

if TYPE_CHECKING:
    from desktop_app.runtime import events as ev
    from desktop_app.runtime.store import Store
    from desktop_app.ui.chat.tool_card import ApprovalAnswer

log = logging.getLogger(__name__)

WIDTH = 720
VIEW_HEIGHT = 420
MIN_VIEW_HEIGHT = 120
"""On a short screen the answer view gives up height down to this, so the whole box stays on the screen."""
TOP_FRACTION = 0.16
"""The box's top edge sits this far down the screen (as a fraction of its height), centred horizontally."""


QUICK_ICON_SVG = b"""<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16">
<path d="M9.5 1 3 9h4.2L6.2 15 13 6.6H8.7z" fill="BRAND"/></svg>"""
"""The bolt; ``BRAND`` is replaced by the tokens' brand colour."""


def quick_icon() -> QIcon:
    """The bolt that marks conversations started in the quick prompt (in the conversation list)."""
    pixmap = QPixmap(32, 32)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    try:
        svg = QUICK_ICON_SVG.replace(b"BRAND", tokens().brand.encode())
        QSvgRenderer(QByteArray(svg)).render(painter, QRectF(0, 0, 32, 32))
    finally:
        painter.end()
    return QIcon(pixmap)


def has_selection_clipboard() -> bool:
    """X11 (and XWayland) keep a primary selection; other platforms do not."""
    clipboard = QGuiApplication.clipboard()
    return clipboard is not None and clipboard.supportsSelection()


class QuickPrompt(QWidget):
    """The quick-prompt box.

    Signals:
        open_in_main_requested(str): continue this conversation in the main window.
        visibility_changed(bool): the box was shown (True) or closed (False).
    """

    open_in_main_requested = Signal(str)
    visibility_changed = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(
            parent,
            Qt.WindowType.Tool | Qt.WindowType.FramelessWindowHint | Qt.WindowType.WindowStaysOnTopHint,
        )
        self.setObjectName("quickPrompt")
        self.setWindowTitle("Switchboard — quick prompt")
        self.setAccessibleName("Quick prompt")
        self.tasks = TaskRunner(on_error=self.show_exception)
        self.runtime: RuntimeLike | None = None
        self.controller: ChatController | None = None
        self.store: Store | None = None
        self._fit_area: QRect | None = None
        """The area the box was last fitted to; it is fitted again there when its contents change height."""
        self._refit_pending = False

        outer = QVBoxLayout(self)
        outer.setContentsMargins(0, 0, 0, 0)
        frame = QFrame()
        frame.setObjectName("quickFrame")
        outer.addWidget(frame)
        layout = QVBoxLayout(frame)
        layout.setContentsMargins(12, 10, 12, 10)
        layout.setSpacing(6)

        header = QHBoxLayout()
        title = QLabel("Switchboard")
        title.setObjectName("quickTitle")
        header.addWidget(title)
        self.hint = QLabel("Enter sends · Shift+Enter new line · Esc closes")
        self.hint.setObjectName("quickHint")
        header.addWidget(self.hint, 1)
        self.selection_button = QToolButton()
        self.selection_button.setObjectName("includeSelectionButton")
        self.selection_button.setText("Include selection")
        self.selection_button.setToolTip(
            "Add the text selected in another window (X11's primary selection) as context. "
            "Nothing is included unless you click this."
        )
        self.selection_button.clicked.connect(self.include_selection)
        self.selection_button.setVisible(has_selection_clipboard())
        header.addWidget(self.selection_button)
        self.open_main_button = QPushButton("Open in main window")
        self.open_main_button.setObjectName("openInMainButton")
        self.open_main_button.setToolTip("Continue this conversation in the main window")
        self.open_main_button.setAutoDefault(False)
        self.open_main_button.clicked.connect(self._on_open_main_clicked)
        header.addWidget(self.open_main_button)
        for button in (self.selection_button, self.open_main_button):
            button.setFocusPolicy(Qt.FocusPolicy.TabFocus)  # a click leaves the focus in the prompt
        layout.addLayout(header)

        self.view = ChatView()
        self.view.setFixedHeight(VIEW_HEIGHT)
        self._turn: QWidget | None = None  # the question whose answer is read from its top (``_turn_top``)
        self.view.follow_limit = self._turn_top
        self.view.hide()  # until the first message: the box is only the prompt until then
        layout.addWidget(self.view, 1)

        self.composer = Composer()
        self.composer.edit.enter_sends = True
        self.composer.edit.setPlaceholderText("Ask anything…  (Enter to send)")
        self.composer.clipboard_button.setText("Include clipboard")
        self.composer.model_tooltip = (
            "The provider and model this box talks to (change it in the main window: Settings → Provider…)"
        )
        self.composer.model_button.setToolTip(self.composer.model_tooltip)
        self.composer.resource_button.hide()
        self.composer.setEnabled(False)
        self.composer.submitted.connect(self._on_submitted)
        self.composer.stop_requested.connect(self._on_stop)
        self.composer.attachment_refused.connect(self.view.show_error)
        layout.addWidget(self.composer)
        self.status = QLabel("Starting…")
        self.status.setObjectName("quickStatus")
        layout.addWidget(self.status)

        self.close_shortcut = QShortcut(QKeySequence(Qt.Key.Key_Escape), self)
        self.close_shortcut.setContext(Qt.ShortcutContext.WindowShortcut)
        self.close_shortcut.activated.connect(self.dismiss)
        self.setFixedWidth(self.box_width())

    def box_width(self) -> int:
        """As wide as the answer's reading column with the box's margins and the view's scroll bar (or the
        header's title, hint and buttons if wider), at most ``WIDTH``: a wider box only put a margin left and
        right of the column and the composer."""
        from PySide6.QtWidgets import QStyle

        from desktop_app.ui.chat.measure import reading_width

        bar = self.style().pixelMetric(QStyle.PixelMetric.PM_ScrollBarExtent)
        column = reading_width() + 2 * 16 + bar + 2 * 12 + 2  # the page's margins, the frame's, its border
        return min(WIDTH, max(column, self.minimumSizeHint().width()))  # the header's buttons fit whole

    # -- runtime -------------------------------------------------------------------------------------------

    def attach_runtime(self, runtime: RuntimeLike, store: Store | None = None) -> ChatController:
        """Use ``runtime`` (the main window's) and record quick conversations in ``store`` as quick."""
        from desktop_app.runtime.context import default_context

        self.runtime = runtime
        self.store = store
        controller = ChatController(runtime, self)
        self.view.follow(controller)
        controller.run_started.connect(self._on_run_started)
        controller.busy_changed.connect(self._on_busy_changed)
        controller.approval_required.connect(self._on_approval_required)
        controller.retry_scheduled.connect(lambda _e: self.set_status("Waiting to retry…"))
        self.view.decided.connect(self._on_decided)
        self.view.retry_now_requested.connect(controller.retry_now)
        self.view.stop_requested.connect(self._on_stop)
        self.view.continue_requested.connect(self._on_continue)
        self.controller = controller
        defaults = getattr(runtime, "default_context", None)
        self.composer.default_context = defaults if callable(defaults) else default_context
        self.composer.reset_context()
        self.composer.setEnabled(True)
        self.show_provider()
        self.set_status("Ready")
        if self.isVisible():  # opened before the runtime was ready: the prompt takes the focus now
            self.activateWindow()
            self.composer.edit.setFocus()
        return controller

    @property
    def conversation_id(self) -> str | None:
        return self.controller.conversation_id if self.controller is not None else None

    # -- showing -------------------------------------------------------------------------------------------

    def show_provider(self) -> None:
        """The composer's provider button: the model and dialect of the conversation's provider (the default
        one for a new conversation), or "Set up a provider" when none is set."""
        if self.runtime is None:
            return
        settings = self.runtime.provider_settings
        chooser = getattr(self.runtime, "conversation_provider", None)
        if self.conversation_id and chooser is not None:
            settings = chooser(self.conversation_id)
        configured = getattr(settings, "configured", False)
        self.composer.show_model(settings.model, settings.dialect, configured=configured)

    def popup(self) -> None:
        """Show the box near the top centre of the screen under the pointer, focused; nothing is attached
        (the clipboard and the selection come in only when the user includes them)."""
        self.show_provider()
        if not self.isVisible():
            self.adjustSize()
            self.move(self.position_for(QCursor.pos()))
            self._fit_to_screen()
        self.show()
        self.raise_()
        self.activateWindow()
        self.composer.edit.setFocus()
        self.visibility_changed.emit(True)

    def raise_if_shown(self) -> None:
        """Keep the box above a window shown after it (where no window manager honours "on top")."""
        if self.isVisible():
            self.raise_()
            self.activateWindow()
            self.composer.edit.setFocus()

    def position_for(self, pointer: QPoint) -> QPoint:
        screen = QGuiApplication.screenAt(pointer) or QGuiApplication.primaryScreen()
        area = screen.availableGeometry()
        x = area.x() + (area.width() - self.width()) // 2
        y = area.y() + int(area.height() * TOP_FRACTION)
        return QPoint(max(area.x(), x), y)

    def _fit_to_screen(self) -> None:
        screen = QGuiApplication.screenAt(self.geometry().center()) or QGuiApplication.primaryScreen()
        self.fit_to(screen.availableGeometry())

    def fit_to(self, area: QRect) -> None:
        """Keep the whole box inside ``area``, its screen's available geometry (an 800×600 screen is shorter
        than the box with its answer view): the box is at most the area's width, the view gives up height
        down to ``MIN_VIEW_HEIGHT``, and a box still too tall moves up until its bottom edge is in the area."""
        self._fit_area = QRect(area)
        self.setFixedWidth(min(self.box_width(), area.width()))
        if self.view.isVisible():
            rest = self.sizeHint().height() - self.view.height()  # the header, the composer, the status
            room = area.y() + area.height() - max(self.y(), area.y()) - rest
            self.view.setFixedHeight(max(MIN_VIEW_HEIGHT, min(VIEW_HEIGHT, room)))
        self.setMinimumHeight(0)  # not the minimum frozen by the fixed width while the view was taller
        self.adjustSize()
        y = min(self.y(), area.y() + area.height() - self.height())
        self.move(max(area.x(), min(self.x(), area.x() + area.width() - self.width())), max(area.y(), y))

    def event(self, event: QEvent) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest and not self._refit_pending and self.isVisible():
            # Something in the box changed height after it was fitted (a status line, the composer, a
            # notice that came and went): fit it again, on the loop's next turn, where it was fitted.
            self._refit_pending = True
            QTimer.singleShot(0, self, self._refit)
        return handled

    def _refit(self) -> None:
        self._refit_pending = False
        if self._fit_area is not None and self.isVisible():
            self.fit_to(self._fit_area)

    def dismiss(self) -> None:
        """Esc: stop a run first, then close the box (the conversation stays stored)."""
        if self.controller is not None and self.controller.busy:
            self.controller.stop()
        self.hide()
        self.visibility_changed.emit(False)

    def include_selection(self) -> str | None:
        """The "Include selection" button: the primary selection's text as a removable chip (only when clicked)."""
        from desktop_app.runtime.context import text_item

        clipboard = QGuiApplication.clipboard()
        text = clipboard.text(QClipboard.Mode.Selection) if clipboard is not None else ""
        if not text.strip():
            self.set_status("No text is selected: select some text in another window, then try again.")
            return None
        return self.composer.add_context(text_item(text, kind="selection"))

    def attach_files(self, paths: Sequence[str]) -> None:
        self.composer.add_files(paths)

    # -- sending -------------------------------------------------------------------------------------------

    def _on_submitted(self, prompt: str) -> None:
        if self.controller is None or self.runtime is None:
            return
        attachments, context = self.composer.outgoing()
        self._show_view()
        self._turn = self.view.add_user_message(prompt)
        if attachments:
            self.view.add_notice("Attached: " + ", ".join(a.name for a in attachments))
        if not self.runtime.provider_settings.configured:
            self.view.show_error("No model provider is set up yet. Open the main window, Settings → Provider….")
            self.composer.set_text(prompt)
            self.composer.restore(attachments, context)
            return
        self.tasks.start(self.controller.send(prompt, attachments=attachments, context=context), name="quick-send")

    def _turn_top(self) -> int | None:
        """The small view follows the stream only until the question reaches its top: an answer taller than
        the view is read from its start ("Thought for 1 s", the first line), the rest a scroll away, instead
        of its top going up under the box's header (``ChatView.follow_limit``)."""
        turn, page = self._turn, self.view.widget()
        if turn is None or page is None or not isValid(turn) or not page.isAncestorOf(turn):
            return None
        return max(0, turn.mapTo(page, turn.rect().topLeft()).y() - SPACE.sm)

    def _on_approval_required(self, event: ev.ApprovalRequired) -> None:
        """A call waits for the user: its card (and its buttons) in view, wherever the answer was read."""
        self.set_status(f"Waiting for your approval: {event.tool}")
        card = self.view.cards.get(event.tool_call_id)
        if card is not None:
            QTimer.singleShot(0, lambda: self.view.ensureWidgetVisible(card, 0, 0) if isValid(card) else None)

    def _show_view(self) -> None:
        if not self.view.isVisible():
            self.view.show()
            self.adjustSize()
            self._fit_to_screen()

    def _on_run_started(self, event: ev.RunStarted) -> None:
        self.set_status(f"Thinking… ({event.model})")
        self.show_provider()
        if self.store is not None:
            try:
                self.store.mark_quick(event.conversation_id)
            except Exception:  # the mark is a label; a failure must not stop the answer
                log.exception("could not mark the conversation as quick")

    def _on_busy_changed(self, busy: bool) -> None:
        self.composer.set_busy(busy)
        if not busy:
            self.set_status("Ready")
            self.composer.edit.setFocus()

    def _on_stop(self) -> None:
        if self.controller is not None and self.controller.busy:
            self.set_status("Stopping…")
            self.controller.stop()

    def _on_decided(self, tool_call_id: str, answer: ApprovalAnswer) -> None:
        if self.controller is None:
            return
        try:
            self.controller.answer(tool_call_id, answer)
        except (SwitchboardError, ValueError) as exc:
            self.view.approval_failed(tool_call_id)
            self.show_exception(exc)

    @async_slot
    async def _on_continue(self) -> None:
        if self.controller is not None and not self.controller.busy:
            await self.controller.continue_run()

    def _on_open_main_clicked(self) -> None:
        """Hand the conversation to the main window and start afresh here."""
        if self.controller is None:
            return
        cid = self.controller.conversation_id
        started = self.view.blocks() != [self.view.empty_hint]
        self.controller.flush()
        self.controller.new_conversation()  # this box stops following it; the main window takes over
        self.view.clear()
        self.view.hide()
        self.hide()
        self.visibility_changed.emit(False)
        self.open_in_main_requested.emit(cid if started else "")

    def new_conversation(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller.new_conversation()
        self.view.clear()
        self.view.hide()
        self.adjustSize()

    def set_status(self, text: str) -> None:
        self.status.setText(text)

    def show_exception(self, exc: BaseException) -> None:
        from desktop_app.ui.error_text import describe_exception

        log.error("error shown in the quick prompt", exc_info=exc)
        self._show_view()
        self.view.show_error(describe_exception(exc))
        self.set_status("Error — see above")

    def close_controller(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller.close()
