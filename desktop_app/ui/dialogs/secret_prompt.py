"""The Servers dock's "Enter secret…" bar: a server that cannot start because its ``${keyring:…}`` entry is
missing (e.g. it was imported without a working keyring, or on another computer) says which entry, and
offers to enter it. The value goes to the keyring (``Credentials.set``) and the server is restarted; it is
never shown or written to a file.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from PySide6.QtWidgets import QHBoxLayout, QInputDialog, QLabel, QLineEdit, QPushButton, QWidget

from desktop_app.ui.chat.common import ERROR_COLOR

MISSING_ENTRY = re.compile(r"keyring entry '([^']+)' \(service 'switchboard'\) is not set")
"""The same message ``runtime.host.secrets.missing_keyring_entry`` reads (this module loads before pydantic)."""


def missing_entry(error: str | None) -> str | None:
    match = MISSING_ENTRY.search(error or "")
    return match.group(1) if match else None


class SecretPrompt(QWidget):
    """ "MCP server 'x' needs the keyring entry 'mcp:x:TOKEN'.  [Enter secret…]" for one failed server."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("secretPrompt")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 4, 0, 4)
        self.label = QLabel("")
        self.label.setObjectName("secretPromptText")
        self.label.setWordWrap(True)
        self.label.setStyleSheet(f"color: {ERROR_COLOR};")
        layout.addWidget(self.label, 1)
        self.button = QPushButton("Enter secret…")
        self.button.setObjectName("enterSecretButton")
        self.button.clicked.connect(self.open_dialog)
        layout.addWidget(self.button)
        self.server: str | None = None
        self.entry: str | None = None
        self.dialog: QInputDialog | None = None
        self.credentials: Any = None
        self.on_saved: Callable[[str], None] | None = None
        self.hide()

    def show_for(self, server: str | None, error: str | None) -> None:
        """Show the bar for ``server`` when its error names a missing keyring entry; else hide it."""
        entry = missing_entry(error) if server is not None else None
        self.server, self.entry = (server, entry) if entry else (None, None)
        if entry is None or self.credentials is None:
            self.hide()
            return
        self.label.setText(f"MCP server '{server}' cannot start: the keyring entry '{entry}' is not set.")
        self.show()

    def open_dialog(self) -> QInputDialog | None:
        if self.entry is None or self.server is None:
            return None
        dialog = QInputDialog(self)
        dialog.setObjectName("secretDialog")
        dialog.setWindowTitle("Enter secret")
        dialog.setLabelText(f"Value of the keyring entry '{self.entry}' for MCP server '{self.server}':")
        dialog.setTextEchoMode(QLineEdit.EchoMode.Password)
        dialog.textValueSelected.connect(self.save)
        self.dialog = dialog
        dialog.open()  # non-blocking: never exec() on the qasync loop
        return dialog

    def save(self, value: str) -> None:
        value = value.strip()
        if not value or self.entry is None or self.server is None or self.credentials is None:
            return
        self.credentials.set(self.entry, value)
        server = self.server
        self.hide()
        if self.on_saved is not None:
            self.on_saved(server)


__all__ = ["SecretPrompt", "missing_entry"]
