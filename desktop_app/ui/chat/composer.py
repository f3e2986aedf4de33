"""The composer: chips for context and attachments above a multi-line prompt box, Send/Stop, and a paperclip.

Context items (date/time/zone and OS by default, clipboard text on request) and attached files show as
removable chips. Files come from the paperclip's file dialog, from drag and drop onto the composer, or, for
images, from pasting the clipboard. A file that cannot be attached is refused at once (``attachment_refused``)
with the runtime's message. After a send, the chips go with the prompt (``outgoing()``) and the default
context comes back.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import TYPE_CHECKING

from PySide6.QtCore import QBuffer, QIODevice, QMimeData, Qt, QTimer, Signal
from PySide6.QtGui import QDragEnterEvent, QDropEvent, QGuiApplication, QIcon, QImage, QKeyEvent, QPixmap
from PySide6.QtWidgets import (
    QFileDialog,
    QHBoxLayout,
    QPlainTextEdit,
    QPushButton,
    QSizePolicy,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.chips import ChipBar
from desktop_app.ui.chat.model_picker import ComposerField, ModelPicker

if TYPE_CHECKING:  # the runtime's pydantic models are imported on first use, not before the first paint
    from desktop_app.runtime.attachments import AttachmentLimits
    from desktop_app.runtime.context import ContextItem
    from desktop_app.runtime.messages import Attachment

_SEND_KEYS = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


def _local_files(mime: QMimeData) -> list[str]:
    if not mime.hasUrls():
        return []
    return [url.toLocalFile() for url in mime.urls() if url.isLocalFile()]


class PromptEdit(QPlainTextEdit):
    """A plain-text editor where Enter and Ctrl+Enter submit and Shift+Enter inserts a new line.

    Dropped or pasted files, and pasted images, are handed to the composer instead of becoming text.

    Signals:
        submit_requested(): Ctrl+Enter was pressed.
        files_dropped(list): local file paths were dropped or pasted.
        image_pasted(QImage): an image was pasted from the clipboard.
    """

    submit_requested = Signal()
    files_dropped = Signal(list)
    image_pasted = Signal(QImage)
    enter_sends = True
    """Plain Enter submits too (Shift+Enter inserts a new line); False (the "Ctrl+Enter sends" setting):
    Enter inserts a new line and only Ctrl+Enter submits."""

    def keyPressEvent(self, event: QKeyEvent) -> None:
        modifiers = event.modifiers()
        if event.key() in _SEND_KEYS and (
            modifiers & Qt.KeyboardModifier.ControlModifier
            or (self.enter_sends and not modifiers & Qt.KeyboardModifier.ShiftModifier)
        ):
            event.accept()
            self.submit_requested.emit()
            return
        super().keyPressEvent(event)

    def canInsertFromMimeData(self, source: QMimeData) -> bool:
        return bool(_local_files(source)) or source.hasImage() or super().canInsertFromMimeData(source)

    def insertFromMimeData(self, source: QMimeData) -> None:
        files = _local_files(source)
        if files:
            self.files_dropped.emit(files)
        elif source.hasImage():
            image = QImage(source.imageData())
            if not image.isNull():
                self.image_pasted.emit(image)
        else:
            super().insertFromMimeData(source)


def _icon(name: str, role: str = "text_muted") -> QIcon:
    """An icon of the app's set, tinted by the theme (``theme.icons``; sharp at any device pixel ratio)."""
    from desktop_app.ui.theme.icons import icon

    return icon(name.removesuffix(".svg"), role)


class Composer(QWidget):
    """Where the user writes. Send becomes Stop while a run is active.

    Signals:
        submitted(str): the user sent this prompt (already stripped, never empty); ``outgoing()`` holds the
            attachments and context items that go with it.
        stop_requested(): the user asked to stop the active run.
        attachment_refused(str): a file could not be attached; the message says why.
        resource_requested(): the user asked to attach an MCP resource ("Resource…").
    """

    submitted = Signal(str)
    stop_requested = Signal()
    attachment_refused = Signal(str)
    resource_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("composerBar")
        self.setAcceptDrops(True)
        outer = QVBoxLayout(self)
        outer.setContentsMargins(16, 6, 16, 12)
        # One rounded field: context chips, the text, and a row with attach, context and Send inside it.
        self.field = ComposerField()  # the reading column's width, wider if its row needs it (``model_picker``)
        centred = QHBoxLayout()  # in line with the transcript's reading column
        centred.addStretch(0)
        centred.addWidget(self.field, 1)
        centred.addStretch(0)
        outer.addLayout(centred)
        inner = QVBoxLayout(self.field)
        inner.setContentsMargins(10, 6, 8, 6)
        inner.setSpacing(4)
        self.chips = ChipBar()
        self.chips.chip_removed.connect(self._on_chip_removed)
        inner.addWidget(self.chips)
        row = QHBoxLayout()
        row.setSpacing(4)
        self.field.row = row

        self.attach_button = QToolButton()
        self.attach_button.setObjectName("attachButton")
        self.attach_button.setText("Attach")
        self.attach_button.setAccessibleName("Attach files")
        self.attach_button.setToolTip("Attach files (or drop them here; paste an image with Ctrl+V)")
        self.attach_button.clicked.connect(self.open_file_dialog)
        self.clipboard_button = QToolButton()
        self.clipboard_button.setObjectName("clipboardButton")
        self.clipboard_button.setText("Clipboard")
        self.clipboard_button.setAccessibleName("Include clipboard text")
        self.clipboard_button.setToolTip("Include the clipboard's text as context")
        self.clipboard_button.clicked.connect(self.include_clipboard)
        self.resource_button = QToolButton()
        self.resource_button.setObjectName("attachResourceButton")
        self.resource_button.setText("Resource")
        self.resource_button.setAccessibleName("Attach an MCP resource")
        self.resource_button.setToolTip("Attach a resource of an MCP server (sent as context with the next prompt)")
        self.resource_button.clicked.connect(self.resource_requested)
        self.resource_button.setEnabled(False)  # until the MCP host is attached
        for button, icon in (
            (self.attach_button, "attach.svg"),
            (self.clipboard_button, "clipboard.svg"),
            (self.resource_button, "resource.svg"),
        ):
            button.setIcon(_icon(icon))
            # Attach says its name; the other two are icons (their tooltip and accessible name say what they do),
            # so the row keeps room for the context meter and the model's whole name in the 46 em column
            icon_only = button is not self.attach_button
            button.setToolButtonStyle(
                Qt.ToolButtonStyle.ToolButtonIconOnly if icon_only else Qt.ToolButtonStyle.ToolButtonTextBesideIcon
            )
            row.addWidget(button)
        row.addStretch(1)
        from desktop_app.ui.chat.context_meter import ContextMeter

        self.context_meter = ContextMeter()  # how full the context is (the window refreshes it after runs)
        row.addWidget(self.context_meter)
        self.model_button = ModelPicker()  # the provider/model picker (the window fills its menu)
        self.model_tooltip = "The provider and model this conversation talks to"
        self.model_button.setToolTip(self.model_tooltip)
        self.model_button.setText("No provider")
        self.model_button.setIcon(_icon("model"))
        row.addWidget(self.model_button)

        self.edit = PromptEdit()
        self.edit.setObjectName("composer")
        self.edit.setAccessibleName("Message")
        self.edit.setPlaceholderText("Ask anything…  (Enter sends, Shift+Enter adds a line)")
        self.edit.setTabChangesFocus(True)
        self.edit.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Fixed)
        line = self.edit.fontMetrics().lineSpacing()
        self.edit.setFixedHeight(int(line * 3.2) + 8)
        self.edit.submit_requested.connect(self._on_submit_requested)
        self.edit.files_dropped.connect(self.add_files)
        self.edit.image_pasted.connect(self.add_image)
        inner.addWidget(self.edit)
        inner.addLayout(row)
        self.button = QPushButton("Send")
        self.button.setObjectName("sendButton")
        self.button.setAccessibleName("Send")
        self.button.setToolTip("Send (Enter or Ctrl+Enter)")
        self.button.setDefault(False)
        self.button.setAutoDefault(False)
        self.button.setMinimumWidth(80)
        self.button.setIcon(_icon("send", "accent_text"))
        self.button.clicked.connect(self._on_button_clicked)
        row.addWidget(self.button, 0, Qt.AlignmentFlag.AlignVCenter)
        self._busy = False
        self._keys = itertools.count(1)
        self._attachments: dict[str, Attachment] = {}
        self._context: dict[str, ContextItem] = {}
        self._clock = QTimer(self)
        self._clock.setInterval(30_000)
        self._clock.timeout.connect(self.refresh_time_chip)
        self._clock.start()
        self._outgoing: tuple[list[Attachment], list[ContextItem]] = ([], [])
        self._pasted = itertools.count(1)
        self.limits: AttachmentLimits | None = None
        """Size caps for attachments (``None``: the defaults); the main window sets the runtime's."""
        self.default_context: Callable[[], Sequence[ContextItem]] | None = None
        """Gives the context chips a fresh composer starts with (after each send too); ``None``: none."""
        self.file_dialog: QFileDialog | None = None

    # -- text and state ----------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self._busy

    @property
    def text(self) -> str:
        return self.edit.toPlainText()

    def set_text(self, text: str) -> None:
        self.edit.setPlainText(text)

    def show_model(self, model: str, dialect: str, *, configured: bool) -> None:
        """The picker names the model only ("deepseek-chat"); the dialect is in its tooltip (and the status
        bar), so the name fits the row whole beside the context meter and the agent picker."""
        self.model_button.setText(model if configured else "Set up a provider")
        self.model_button.setToolTip(f"{self.model_tooltip}\n{model} · {dialect}" if configured else self.model_tooltip)

    def set_busy(self, busy: bool) -> None:
        """Switch the button between Send (idle) and Stop (a run is active)."""
        self._busy = busy
        label = "Stop" if busy else "Send"
        self.button.setText(label)
        self.button.setIcon(_icon("stop" if busy else "send", "accent_text"))
        self.button.setAccessibleName(label)
        self.button.setToolTip("Stop (Esc)" if busy else "Send (Ctrl+Enter)")

    def submit(self) -> None:
        """Send the current text with the chips, unless a run is active or the text is blank."""
        if self._busy:
            return
        prompt = self.edit.toPlainText().strip()
        if not prompt:
            return
        self.edit.clear()
        self._outgoing = (self.attachments, self._context_at_sending())
        self.chips.clear()
        self._attachments.clear()
        self._context.clear()
        self.reset_context()
        self.submitted.emit(prompt)

    def outgoing(self) -> tuple[list[Attachment], list[ContextItem]]:
        """The attachments and context items sent with the last ``submitted`` prompt."""
        return self._outgoing

    def restore(self, attachments: Iterable[Attachment], context: Iterable[ContextItem]) -> None:
        """Put chips back (e.g. when a send could not start): the given context replaces the current one."""
        for key in list(self._context):
            self.chips.remove_chip(key)
        self._context.clear()
        for item in context:
            self.add_context(item)
        for attachment in attachments:
            self.add_attachment(attachment)

    # -- context -----------------------------------------------------------------------------------------

    def _context_at_sending(self) -> list[ContextItem]:
        """The chips' context, with the date and time taken now (the chip was made when the window opened
        or the last prompt left, which may be hours ago)."""
        items = self.context_items
        if not any(item.kind == "datetime" for item in items) or self.default_context is None:
            return items
        fresh = [item for item in self.default_context() if item.kind == "datetime"]
        if not fresh:
            return items
        return [fresh[0] if item.kind == "datetime" else item for item in items]

    def refresh_time_chip(self) -> None:
        """Show the current time on the date-and-time chip (called every minute while the window is open)."""
        if self.default_context is None:
            return
        fresh = [item for item in self.default_context() if item.kind == "datetime"]
        for key, item in list(self._context.items()):
            if item.kind == "datetime" and fresh and fresh[0] != item:
                self._context[key] = fresh[0]
                chip = self.chips.chip(key)
                chip.label.setText(fresh[0].label)
                chip.setToolTip(fresh[0].text)

    @property
    def context_items(self) -> list[ContextItem]:
        return list(self._context.values())

    def add_context(self, item: ContextItem) -> str:
        """Show a context item as a chip; returns its key."""
        key = f"context-{next(self._keys)}"
        self._context[key] = item
        self.chips.add_chip(key, item.label, kind="context", tooltip=item.text)
        return key

    def reset_context(self) -> None:
        """Replace the context chips with the defaults (``default_context``)."""
        for key in list(self._context):
            self.chips.remove_chip(key)
        self._context.clear()
        for item in self.default_context() if self.default_context is not None else ():
            self.add_context(item)

    def include_clipboard(self) -> str | None:
        """Add the clipboard's text as a context chip (an image on the clipboard is attached instead)."""
        from desktop_app.runtime.context import text_item

        clipboard = QGuiApplication.clipboard()
        mime = clipboard.mimeData()
        if mime is not None and mime.hasImage() and not mime.hasText():
            image = QImage(mime.imageData())
            return self.add_image(image) if not image.isNull() else None
        text = clipboard.text()
        if not text.strip():
            self.attachment_refused.emit("The clipboard holds no text to include.")
            return None
        return self.add_context(text_item(text, kind="clipboard"))

    # -- attachments -------------------------------------------------------------------------------------

    @property
    def attachments(self) -> list[Attachment]:
        return list(self._attachments.values())

    def add_attachment(self, attachment: Attachment) -> str:
        """Show a loaded attachment as a chip (name and size; images with a thumbnail); returns its key."""
        import base64

        from desktop_app.runtime.context import human_size

        for key, existing in self._attachments.items():
            if existing == attachment:
                return key
        key = f"attachment-{next(self._keys)}"
        self._attachments[key] = attachment
        pixmap = None
        if attachment.kind == "image":
            pixmap = QPixmap()
            pixmap.loadFromData(base64.b64decode(attachment.data))
        tooltip = f"{attachment.name} · {attachment.mime_type} · {human_size(attachment.size)}"
        if attachment.truncated:
            tooltip += f"\n{attachment.note}"
        text = f"{attachment.name} ({human_size(attachment.size)})"
        self.chips.add_chip(key, text, kind="attachment", tooltip=tooltip, pixmap=pixmap)
        return key

    def add_files(self, paths: Sequence[str]) -> list[str]:
        """Load and attach files; each one that cannot be attached is refused with its reason."""
        from desktop_app.runtime.attachments import AttachmentError, AttachmentLimits, load_attachment

        keys = []
        for path in paths:
            try:
                attachment = load_attachment(path, self.limits or AttachmentLimits())
            except AttachmentError as exc:
                self.attachment_refused.emit(str(exc))
                continue
            keys.append(self.add_attachment(attachment))
        return keys

    def add_image(self, image: QImage) -> str | None:
        """Attach an image (e.g. pasted from the clipboard) as a PNG named ``pasted-image-N.png``."""
        from desktop_app.runtime.attachments import AttachmentError, AttachmentLimits, attachment_from_bytes

        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        image.save(buffer, "PNG")  # type: ignore[call-overload]  # the stubs say bytes; PySide wants str
        data = bytes(buffer.data().data())
        try:
            attachment = attachment_from_bytes(
                f"pasted-image-{next(self._pasted)}.png", data, self.limits or AttachmentLimits()
            )
        except AttachmentError as exc:
            self.attachment_refused.emit(str(exc))
            return None
        return self.add_attachment(attachment)

    def remove(self, key: str) -> None:
        """Remove a chip (context or attachment) as its × does."""
        if self.chips.remove_chip(key):
            self._on_chip_removed(key)

    def open_file_dialog(self) -> QFileDialog:
        """The paperclip: a non-blocking file dialog (never ``exec()`` on the qasync loop)."""
        dialog = QFileDialog(self, "Attach files")
        dialog.setObjectName("attachDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFiles)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.filesSelected.connect(self.add_files)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    # -- drag and drop -----------------------------------------------------------------------------------

    def dragEnterEvent(self, event: QDragEnterEvent) -> None:
        if _local_files(event.mimeData()):
            event.acceptProposedAction()
        else:
            super().dragEnterEvent(event)

    def dropEvent(self, event: QDropEvent) -> None:
        files = _local_files(event.mimeData())
        if files:
            event.acceptProposedAction()
            self.add_files(files)
        else:
            super().dropEvent(event)

    # -- slots -------------------------------------------------------------------------------------------

    def _on_chip_removed(self, key: str) -> None:
        self._attachments.pop(key, None)
        self._context.pop(key, None)

    def _on_submit_requested(self) -> None:
        self.submit()

    def _on_button_clicked(self) -> None:
        if self._busy:
            self.stop_requested.emit()
        else:
            self.submit()
