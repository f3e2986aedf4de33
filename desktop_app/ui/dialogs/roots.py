"""Settings → Folders the servers may see…: the MCP roots the user grants, added and removed by hand.

The list starts from ``Runtime.roots()``. Every change is applied at once with ``await Runtime.set_roots``
(connected servers hear ``notifications/roots/list_changed``) and saved in the settings (``roots``), from
which ``assembly`` applies them at the next start. Folders come from a non-blocking folder picker
(``QFileDialog.open()``; never ``exec()`` on the qasync loop).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.chat.common import ERROR_COLOR
from desktop_app.ui.naming import name_buttons


class RootsDialog(QDialog):
    """The granted folders, with Add folder… and Remove.

    Signals:
        applied(list): the runtime now grants these folders (strings), and they are saved.
    """

    applied = Signal(list)

    def __init__(self, runtime: Any, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("rootsDialog")
        self.setWindowTitle("Folders the servers may see")
        self.setModal(False)
        self.resize(560, 340)
        self.runtime = runtime
        self.tasks = TaskRunner(on_error=self._on_task_error)
        self.folder_dialog: QFileDialog | None = None
        layout = QVBoxLayout(self)
        intro = QLabel(
            "MCP servers that ask for roots see these folders (as file:// URIs). "
            "Changes apply at once and are kept for the next start."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        self.list = QListWidget()
        self.list.setObjectName("rootsList")
        self.list.setAccessibleName("Granted folders")
        self.list.currentRowChanged.connect(self._on_current_row)
        layout.addWidget(self.list, 1)
        self.status = QLabel("")
        self.status.setObjectName("rootsStatus")
        self.status.setWordWrap(True)
        layout.addWidget(self.status)
        row = QHBoxLayout()
        self.add_button = QPushButton("Add folder…")
        self.add_button.setObjectName("addRootButton")
        self.add_button.clicked.connect(self.open_folder_dialog)
        self.remove_button = QPushButton("Remove")
        self.remove_button.setObjectName("removeRootButton")
        self.remove_button.setEnabled(False)
        self.remove_button.clicked.connect(self._on_remove_clicked)
        row.addWidget(self.add_button)
        row.addWidget(self.remove_button)
        row.addStretch(1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        name_buttons(buttons, "roots")
        buttons.rejected.connect(self.close)
        row.addWidget(buttons)
        layout.addLayout(row)
        roots = getattr(runtime, "roots", None)
        for path in roots() if callable(roots) else []:
            self.list.addItem(str(path))
        self._show_empty()

    def folders(self) -> list[str]:
        return [self.list.item(i).text() for i in range(self.list.count())]

    def open_folder_dialog(self) -> QFileDialog:
        """A non-blocking folder picker; the chosen folder is added."""
        dialog = QFileDialog(self, "Grant a folder to MCP servers")
        dialog.setObjectName("rootsFolderDialog")
        dialog.setFileMode(QFileDialog.FileMode.Directory)
        dialog.setOption(QFileDialog.Option.ShowDirsOnly, True)
        dialog.setAttribute(Qt.WidgetAttribute.WA_DeleteOnClose)
        dialog.fileSelected.connect(self.add_folder)
        self.folder_dialog = dialog
        dialog.open()
        return dialog

    def add_folder(self, folder: str) -> None:
        path = str(Path(folder).expanduser().resolve())
        if path in self.folders():
            self._say(f"{path} is already granted.")
            return
        self.list.addItem(path)
        self._apply()

    def remove_folder(self, folder: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).text() == folder:
                self.list.takeItem(i)
                self._apply()
                return

    def _on_remove_clicked(self) -> None:
        item = self.list.currentItem()
        if item is not None:
            self.remove_folder(item.text())

    def _on_current_row(self, row: int) -> None:
        self.remove_button.setEnabled(row >= 0)

    def _apply(self) -> None:
        self._show_empty()
        self._say("Applying…")
        self.tasks.start(self._set_roots(self.folders()), name="set-roots")

    async def _set_roots(self, folders: list[str]) -> None:
        await self.runtime.set_roots([Path(folder) for folder in folders])  # applied and saved in the settings
        count = len(folders)
        self._say(f"{count} folder{'' if count == 1 else 's'} granted." if count else "No folders granted.")
        self.applied.emit(folders)

    def _show_empty(self) -> None:
        self.list.setToolTip("" if self.list.count() else "No folders granted: servers see none.")

    def _say(self, text: str, error: bool = False) -> None:
        self.status.setText(text)
        self.status.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}" if error else "")

    def _on_task_error(self, exc: BaseException) -> None:
        self._say(f"Could not apply the folders: {exc}", error=True)


__all__ = ["RootsDialog"]
