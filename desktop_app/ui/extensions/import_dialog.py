"""File → Import MCP servers…: preview another app's MCP servers, import the chosen ones, show what happened.

The flow is synchronous Qt (no coroutine): the non-blocking preview
(:class:`~desktop_app.ui.extensions.import_preview.ImportPreviewDialog`: the Claude Desktop, VS Code and Cursor
configs found, or a file the user picks, and its servers with check boxes), then
:func:`~desktop_app.runtime.host.importers.import_config` with only the ticked servers, then
:class:`ImportResultDialog` listing the imported servers, the secrets moved to the keyring (names only),
conflicts (with a "Replace existing" re-run), skipped servers and notes. ``imported`` names the servers
written, which the window starts at once. The importer module (pydantic) is imported lazily.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QPushButton, QTextBrowser, QVBoxLayout, QWidget

from desktop_app.ui.chat.common import ERROR_COLOR, escape
from desktop_app.ui.dialogs.frame import DialogHeader
from desktop_app.ui.naming import name_buttons

if TYPE_CHECKING:
    from desktop_app.runtime.credentials import Credentials
    from desktop_app.runtime.host.importers import ImportReport
    from desktop_app.ui.extensions.import_preview import ImportPreviewDialog

log = logging.getLogger(__name__)

SESSION_ONLY_SECRETS = (
    "No system keyring works on this computer: the imported secrets are kept for this session only. After a "
    "restart these servers cannot start until you enter them again (View → Servers offers it). Install and "
    "unlock a keyring (GNOME Keyring, KWallet) to keep them."
)
RESTART_HINT = "Switchboard starts the new servers now: View → Servers shows their state."


def _section(title: str, names: list[str], hint: str = "") -> str:
    if not names:
        return ""
    items = "".join(f"<li>{escape(name)}</li>" for name in names)
    tail = f"<p>{escape(hint)}</p>" if hint else ""
    return f"<h4>{escape(title)} ({len(names)})</h4><ul>{items}</ul>{tail}"


def report_html(report: ImportReport) -> str:
    """The result dialog's text: every list of the report, secrets by keyring name only."""
    parts = [
        f'<p style="color:{ERROR_COLOR}"><b>{escape(SESSION_ONLY_SECRETS)}</b></p>'
        if getattr(report, "session_only", False)
        else "",
        f"<p>Read <b>{escape(report.format)}</b> configuration <code>{escape(str(report.source))}</code>"
        f" into <code>{escape(str(report.target))}</code>.</p>",
        _section("Imported", report.imported),
        _section("Replaced", report.replaced),
        _section(
            "Secrets moved to the keyring",
            report.secrets,
            "mcp.json refers to them as ${keyring:NAME}; their values are not written to any file.",
        ),
        _section(
            "Conflicts: kept the existing server",
            report.conflicts,
            "A server of that name is already in mcp.json. Press “Replace existing” to overwrite it.",
        ),
        _section("Skipped", report.skipped),
        _section("Notes", report.notes),
        _section(
            "Enter these secrets",
            getattr(report, "to_enter", []),
            "The source app asked for them or kept them in its own keyring: enter each once (Enter secret… in "
            "View → Servers) before the server starts.",
        ),
        _section(
            "Compatibility (works / translated / not available)", [line.text() for line in getattr(report, "lines", [])]
        ),
    ]
    if report.written:
        parts.append(f"<p><b>{escape(RESTART_HINT)}</b></p>")
    else:
        parts.append("<p>Nothing was changed in mcp.json.</p>")
    return "".join(part for part in parts if part)


def error_html(source: Path, message: str) -> str:
    return (
        f"<p>Importing <code>{escape(str(source))}</code> failed; nothing was written.</p>"
        f'<p style="color:{ERROR_COLOR}">{escape(message)}</p>'
        "<p>Pick a Claude Desktop, VS Code, Cursor, nanobot or Whale MCP configuration and try again.</p>"
    )


class ImportResultDialog(QDialog):
    """What an import did; offers "Replace existing" while there are conflicts."""

    replace_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("importResultDialog")
        self.setWindowTitle("Import MCP servers")
        self.resize(560, 420)
        self.report: ImportReport | None = None
        layout = QVBoxLayout(self)
        summary = "What was found in the other app, and what was added."
        layout.addWidget(DialogHeader("Import MCP servers", summary, icon="servers"))
        self.text = QTextBrowser()
        self.text.setObjectName("importReport")
        self.text.setAccessibleName("Import result")
        self.text.setOpenExternalLinks(False)
        layout.addWidget(self.text, 1)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        name_buttons(buttons, "importResult")
        self.replace_button = QPushButton("Replace existing")
        self.replace_button.setObjectName("replaceExistingButton")
        self.replace_button.setToolTip("Import again, overwriting the servers of the same name in mcp.json")
        self.replace_button.clicked.connect(self.replace_requested)
        buttons.addButton(self.replace_button, QDialogButtonBox.ButtonRole.ActionRole)
        buttons.rejected.connect(self.reject)
        layout.addWidget(buttons)

    def show_report(self, report: ImportReport) -> None:
        self.report = report
        self.text.setHtml(report_html(report))
        self.replace_button.setVisible(bool(report.conflicts))

    def show_error(self, source: Path, message: str) -> None:
        self.report = None
        self.text.setHtml(error_html(source, message))
        self.replace_button.setVisible(False)


class McpImporter(QObject):
    """Runs the import flow for one window: file dialog → import → result dialog."""

    imported = Signal(list)
    """Names of the servers that were added or replaced in mcp.json."""

    def __init__(self, parent: QWidget, *, target: Path, credentials: Credentials | Any) -> None:
        super().__init__(parent)
        self._parent = parent
        self.target = target
        self.credentials = credentials
        self.preview_dialog: ImportPreviewDialog | None = None
        self.result_dialog: ImportResultDialog | None = None
        self.source: Path | None = None

    def choose(self) -> ImportPreviewDialog:
        """Open the import preview (non-blocking): the configs found, their servers with check boxes."""
        from desktop_app.ui.extensions.import_preview import ImportPreviewDialog

        if self.preview_dialog is not None:
            self.preview_dialog.close()
        dialog = ImportPreviewDialog(self.target, self._parent)
        dialog.import_requested.connect(self._on_import_requested)
        dialog.finished.connect(self._on_preview_finished)
        self.preview_dialog = dialog
        dialog.open()
        return dialog

    def _on_preview_finished(self, _result: int) -> None:
        if self.preview_dialog is not None:
            self.preview_dialog.deleteLater()
            self.preview_dialog = None

    def _on_import_requested(self, source: Path, names: list[str]) -> None:
        self.import_file(source, replace=True, only=names)

    def import_file(self, source: Path, *, replace: bool = False, only: list[str] | None = None) -> ImportResultDialog:
        """Import ``source`` (only the servers named in ``only``, when given) into the target ``mcp.json``
        and show the result (non-modal ``open()``)."""
        from desktop_app.runtime.errors import SwitchboardError
        from desktop_app.runtime.host.importers import import_config

        self.source = source
        dialog = self._result_dialog()
        try:
            report = import_config(source, self.target, self.credentials, replace=replace, only=only)
        except (SwitchboardError, OSError, ValueError) as exc:
            log.warning("import of %s failed: %s", source, exc)
            dialog.show_error(source, str(exc))
        else:
            dialog.show_report(report)
            changed = [*report.imported, *report.replaced]
            if changed:
                self.imported.emit(changed)
        if not dialog.isVisible():
            dialog.open()
        return dialog

    def _result_dialog(self) -> ImportResultDialog:
        if self.result_dialog is None:
            dialog = ImportResultDialog(self._parent)
            dialog.replace_requested.connect(self._on_replace_requested)
            dialog.finished.connect(self._on_result_finished)
            self.result_dialog = dialog
        return self.result_dialog

    def _on_replace_requested(self) -> None:
        if self.source is not None:
            self.import_file(self.source, replace=True)

    def _on_result_finished(self, _result: int) -> None:
        if self.result_dialog is not None:
            self.result_dialog.deleteLater()
            self.result_dialog = None


__all__ = ["ImportResultDialog", "McpImporter", "report_html"]
