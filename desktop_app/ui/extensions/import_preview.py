"""Import MCP servers, with a preview: the configs of Claude Desktop, VS Code, Cursor, Claude Code and Goose found on
this machine (or any file the user picks), the servers in the chosen one with check boxes, what each would move to
the keyring, and the compatibility report (one line per part: works / translated / not available). Only the ticked
servers are imported (and then started).

A server that ``mcp.json`` already has is unticked and marked "replaces yours"; ticking it replaces the
existing one. A server that cannot be imported shows why and cannot be ticked. The dialog reports the
choice with ``import_requested(source, names)``; :class:`~desktop_app.ui.extensions.import_dialog.McpImporter`
imports and shows the result. Opened with ``open()``, never ``exec()``.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPlainTextEdit,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from desktop_app.ui.chat.common import ERROR_COLOR
from desktop_app.ui.tree_items import top_level_items

if TYPE_CHECKING:
    from desktop_app.runtime.host.import_preview import ImportPreview

log = logging.getLogger(__name__)
FILE_FILTER = "MCP configurations (*.json *.jsonc *.yaml *.yml);;All files (*)"
MUTED = "QLabel { color: palette(placeholder-text); }"
COLUMNS = ("Server", "Runs", "Moves to the keyring", "Note")


class ImportPreviewDialog(QDialog):
    """Pick a source and the servers to import.

    Signals:
        import_requested(object, list): the source ``Path`` and the names of the ticked servers.
    """

    import_requested = Signal(object, list)

    def __init__(self, target: Path, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        from desktop_app.runtime.host.import_preview import known_locations, known_sources

        self.target = target
        self.preview: ImportPreview | None = None
        self.file_dialog: QFileDialog | None = None
        self.setObjectName("importPreviewDialog")
        self.setWindowTitle("Import MCP servers")
        self.resize(820, 480)
        layout = QVBoxLayout(self)
        intro = QLabel(
            "Switchboard looked for the MCP servers of Claude Desktop, VS Code, Cursor, Claude Code and Goose. "
            "Tick the ones to import: they are added to mcp.json and started. Secret values go to the system keyring."
        )
        intro.setWordWrap(True)
        layout.addWidget(intro)
        row = QHBoxLayout()
        label = QLabel("&Source:")
        self.sources = QComboBox()
        self.sources.setObjectName("importSourceCombo")
        self.sources.setAccessibleName("Configuration to import from")
        label.setBuddy(self.sources)
        self.found = known_sources()
        for source in self.found:
            self.sources.addItem(f"{source.app} — {source.path}", str(source.path))
        self.sources.currentIndexChanged.connect(self._on_source_changed)
        self.choose_button = QPushButton("Choose a file…")
        self.choose_button.setObjectName("importChooseFileButton")
        self.choose_button.setAccessibleName("Choose another configuration file")
        self.choose_button.clicked.connect(self.choose_file)
        row.addWidget(label)
        row.addWidget(self.sources, 1)
        row.addWidget(self.choose_button)
        layout.addLayout(row)
        self.looked = QLabel("")
        self.looked.setObjectName("importLookedIn")
        self.looked.setWordWrap(True)
        self.looked.setStyleSheet(MUTED)
        self.looked.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        if not self.found:
            places = "; ".join(f"{s.app}: {s.path}" for s in known_locations())
            self.looked.setText(f"None of these exists: {places}. Choose a file instead.")
        layout.addWidget(self.looked)

        self.tree = QTreeWidget()
        self.tree.setObjectName("importServerList")
        self.tree.setAccessibleName("Servers found; tick the ones to import")
        self.tree.setHeaderLabels(list(COLUMNS))
        self.tree.setRootIsDecorated(False)
        header = self.tree.header()
        header.setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(1, QHeaderView.ResizeMode.Stretch)
        header.setSectionResizeMode(2, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.ResizeToContents)
        self.tree.itemChanged.connect(self._update_button)
        layout.addWidget(self.tree, 1)
        self.compatibility = QPlainTextEdit()
        self.compatibility.setObjectName("importCompatibility")
        self.compatibility.setAccessibleName("Compatibility: what works, what is translated, what is not available")
        self.compatibility.setReadOnly(True)
        self.compatibility.setMaximumHeight(140)
        layout.addWidget(self.compatibility)
        self.notes = QLabel("")
        self.notes.setObjectName("importNotes")
        self.notes.setWordWrap(True)
        self.notes.setStyleSheet(MUTED)
        layout.addWidget(self.notes)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Cancel)
        self.import_button = QPushButton("Import")
        self.import_button.setObjectName("importButton")
        self.import_button.setAccessibleName("Import the ticked servers and start them")
        self.import_button.setDefault(True)
        self.import_button.clicked.connect(self._on_import_clicked)
        self.buttons.addButton(self.import_button, QDialogButtonBox.ButtonRole.AcceptRole)
        self.buttons.button(QDialogButtonBox.StandardButton.Cancel).setObjectName("importCancelButton")
        self.buttons.rejected.connect(self.reject)
        layout.addWidget(self.buttons)
        if self.found:
            self.show_source(self.found[0].path)
        else:
            self._update_button()

    # -- sources -------------------------------------------------------------------------------------

    def _on_source_changed(self, index: int) -> None:
        if index >= 0:
            self.show_source(Path(str(self.sources.itemData(index))))

    def choose_file(self) -> QFileDialog:
        start = str(self.found[0].path.parent) if self.found else str(Path.home())
        dialog = QFileDialog(self, "Import MCP servers from a file", start, FILE_FILTER)
        dialog.setObjectName("importFileDialog")
        dialog.setFileMode(QFileDialog.FileMode.ExistingFile)
        dialog.fileSelected.connect(self._on_file_selected)
        dialog.finished.connect(dialog.deleteLater)
        self.file_dialog = dialog
        dialog.open()
        return dialog

    def _on_file_selected(self, path: str) -> None:
        if not path:
            return
        index = self.sources.findData(path)
        if index < 0:
            self.sources.addItem(f"File — {path}", path)
            index = self.sources.count() - 1
        if index == self.sources.currentIndex():
            self.show_source(Path(path))
        else:
            self.sources.setCurrentIndex(index)

    def show_source(self, source: Path) -> None:
        """List the servers of ``source`` (a broken file is named with its line and column)."""
        from desktop_app.runtime.errors import SwitchboardError
        from desktop_app.runtime.host.import_preview import preview_import

        self.tree.clear()
        self.compatibility.clear()
        self.notes.setStyleSheet(MUTED)
        try:
            self.preview = preview_import(source, self.target)
        except (SwitchboardError, OSError) as exc:
            self.preview = None
            self.notes.setStyleSheet(f"QLabel {{ color: {ERROR_COLOR}; }}")
            self.notes.setText(f"Cannot read this configuration: {exc}")
            self._update_button()
            return
        self.tree.blockSignals(True)
        for server in self.preview.servers:
            note = server.problem or ("replaces the server of this name in your mcp.json" if server.conflict else "")
            item = QTreeWidgetItem(self.tree, [server.name, server.summary, ", ".join(server.secrets) or "—", note])
            item.setData(0, Qt.ItemDataRole.UserRole, server.name)
            item.setToolTip(1, server.summary)
            for line in server.environment:  # every env entry and secret reference, shown before it runs
                child = QTreeWidgetItem(item, ["", line])
                child.setToolTip(1, line)
                child.setFlags(Qt.ItemFlag.ItemIsEnabled)
            item.setExpanded(True)
            if server.problem:
                item.setFlags(item.flags() & ~Qt.ItemFlag.ItemIsUserCheckable & ~Qt.ItemFlag.ItemIsEnabled)
                item.setForeground(3, ERROR_COLOR.qcolor())
            else:
                item.setFlags(item.flags() | Qt.ItemFlag.ItemIsUserCheckable)
                checked = Qt.CheckState.Unchecked if server.conflict else Qt.CheckState.Checked
                item.setCheckState(0, checked)
        self.tree.blockSignals(False)
        report = [line.text() for line in self.preview.lines]
        if self.preview.to_enter:
            report.append(
                "Enter these before the servers that use them start (Enter secret… in View → Servers): "
                + ", ".join(self.preview.to_enter)
            )
        self.compatibility.setPlainText("\n".join(report))
        count = len(self.preview.servers)
        summary = f"{self.preview.format}: {count} server{'' if count == 1 else 's'} in {self.preview.source}."
        self.notes.setText(" ".join([summary, *self.preview.notes]))
        self._update_button()

    # -- choosing ------------------------------------------------------------------------------------

    def chosen(self) -> list[str]:
        names = []
        for item in top_level_items(self.tree):
            if item.flags() & Qt.ItemFlag.ItemIsUserCheckable and item.checkState(0) == Qt.CheckState.Checked:
                names.append(str(item.data(0, Qt.ItemDataRole.UserRole)))
        return names

    def set_chosen(self, names: list[str]) -> None:
        for item in top_level_items(self.tree):
            if item.flags() & Qt.ItemFlag.ItemIsUserCheckable:
                on = str(item.data(0, Qt.ItemDataRole.UserRole)) in names
                item.setCheckState(0, Qt.CheckState.Checked if on else Qt.CheckState.Unchecked)

    def _update_button(self, *_args: object) -> None:
        count = len(self.chosen())
        self.import_button.setEnabled(count > 0)
        self.import_button.setText(f"Import and start {count} server{'' if count == 1 else 's'}" if count else "Import")

    def _on_import_clicked(self) -> None:
        names = self.chosen()
        if self.preview is not None and names:
            self.import_requested.emit(self.preview.source, names)
            self.accept()


__all__ = ["ImportPreviewDialog"]
