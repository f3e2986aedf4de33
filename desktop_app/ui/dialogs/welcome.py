"""The first-run welcome screen: pick a model provider (or use the local one it finds), store the key in the
keyring, and optionally bring over the MCP servers of an existing Claude Desktop installation.

It is the provider dialog (:class:`~desktop_app.ui.dialogs.provider.ProviderDialog`: presets, "Fetch models",
"Detect local", the key going to ``Runtime.configure_provider`` and so to the keyring) with a welcome header,
a local-server probe that starts as soon as it opens (loopback only; it fills the form only if the user has not
touched it yet), and an import section. The import runs when OK is pressed, after the provider is saved,
through :func:`~desktop_app.runtime.host.importers.import_config` (secrets move into the keyring); its
problems are shown in the dialog, which then stays open. ``servers_imported(names)`` lets the window start the
imported servers at once.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from PySide6.QtCore import QSize, Qt, QTimer, Signal
from PySide6.QtGui import QIcon
from PySide6.QtWidgets import QCheckBox, QGroupBox, QHBoxLayout, QLabel, QVBoxLayout, QWidget

from desktop_app import __version__
from desktop_app.ui.asyncqt import async_slot
from desktop_app.ui.chat.controller import RuntimeLike
from desktop_app.ui.dialogs.provider import ProviderDialog

log = logging.getLogger(__name__)


def claude_desktop_config() -> Path:
    """Where Claude Desktop keeps its MCP configuration on this platform (it may not exist)."""
    from desktop_app.runtime.host.import_preview import known_locations
    from desktop_app.runtime.host.importers import CLAUDE

    return next(source.path for source in known_locations() if source.app == CLAUDE)


def _icon_path() -> Path:
    base = getattr(sys, "_MEIPASS", None)
    root = Path(base) if base else Path(__file__).resolve().parents[3]
    return root / "resources" / "switchboard.svg"


class WelcomeDialog(ProviderDialog):
    """First run: provider, key and (optionally) the Claude Desktop servers.

    Signals:
        configured(): the runtime accepted the provider settings (inherited).
        servers_imported(list): the names of the MCP servers imported into ``mcp.json``.
    """

    servers_imported = Signal(list)

    def __init__(
        self,
        runtime: RuntimeLike,
        parent: QWidget | None = None,
        *,
        mcp_config: Callable[[], Path | None],
        claude_config: Path | None = None,
        detect_on_open: bool = True,
    ) -> None:
        super().__init__(runtime, parent, first_run=True)
        self.setObjectName("welcomeDialog")
        self.setWindowTitle("Welcome to Switchboard")
        self.setMinimumWidth(620)
        self.mcp_config = mcp_config
        self.claude_config = claude_config or claude_desktop_config()
        self.imported_report: Any = None
        layout = self.layout()
        assert isinstance(layout, QVBoxLayout)
        layout.insertWidget(0, self._header())
        intro_item = layout.itemAt(1)
        intro = intro_item.widget() if intro_item is not None else None
        if isinstance(intro, QLabel):
            intro.setText(
                "Choose the model provider to talk to. Switchboard looks for a local server (Ollama, LM Studio) "
                f"on this machine; for a hosted one, enter its key. {self.key_kept()} You can change this later "
                "in Settings → Provider…"
            )
        layout.insertWidget(layout.indexOf(self.problem), self._import_box())
        self.buttons.button(self.buttons.StandardButton.Ok).setText("&Start using Switchboard")
        self.buttons.button(self.buttons.StandardButton.Cancel).setText("&Later")
        self._touched = False
        self.base_url.textEdited.connect(self._on_touched)
        self.preset.activated.connect(self._on_touched)
        model_line = self.model.lineEdit()
        assert model_line is not None  # the provider form's model box is editable
        model_line.textEdited.connect(self._on_touched)
        if detect_on_open:
            QTimer.singleShot(0, self._detect_if_untouched)

    # -- layout ------------------------------------------------------------------------------------------

    def _header(self) -> QWidget:
        header = QWidget()
        header.setObjectName("welcomeHeader")
        row = QHBoxLayout(header)
        row.setContentsMargins(0, 0, 0, 8)
        row.setSpacing(16)
        icon = QLabel()
        icon.setPixmap(QIcon(str(_icon_path())).pixmap(QSize(64, 64)))
        icon.setFixedSize(64, 64)
        row.addWidget(icon, 0, Qt.AlignmentFlag.AlignTop)
        text = QLabel(
            f"<h2 style='margin:0'>Welcome to Switchboard</h2>"
            f"<p style='margin-top:4px'>Version {__version__}: a small, fast AI assistant that is also a "
            f"complete MCP host. Two steps and you are ready.</p>"
        )
        text.setObjectName("welcomeTitle")
        text.setWordWrap(True)
        row.addWidget(text, 1)
        return header

    def _import_box(self) -> QGroupBox:
        box = QGroupBox("MCP servers")
        box.setObjectName("welcomeImport")
        column = QVBoxLayout(box)
        self.import_check = QCheckBox()
        self.import_check.setObjectName("importClaudeCheck")
        self.import_detail = QLabel("")
        self.import_detail.setObjectName("importClaudeDetail")
        self.import_detail.setWordWrap(True)
        self.import_detail.setStyleSheet("QLabel { color: palette(placeholder-text); }")
        self.import_detail.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        column.addWidget(self.import_check)
        column.addWidget(self.import_detail)
        names, problem = self._claude_servers()
        if names:
            self.import_check.setText(f"&Import {len(names)} MCP server(s) from Claude Desktop")
            self.import_check.setChecked(True)
            self.import_detail.setText(
                f"{', '.join(names)} — from {self.claude_config}. Secret-looking values move into the keyring."
            )
        else:
            self.import_check.setText("Import MCP servers from Claude Desktop")
            self.import_check.setEnabled(False)
            found = problem or f"No Claude Desktop configuration with servers was found ({self.claude_config})."
            self.import_detail.setText(f"{found} Add servers later with File → Import MCP servers… or in mcp.json.")
        return box

    def _claude_servers(self) -> tuple[list[str], str | None]:
        """The server names in the Claude Desktop config, or why it could not be read."""
        if not self.claude_config.is_file():
            return [], None
        from desktop_app.runtime.errors import ConfigError
        from desktop_app.runtime.host.importers import read_source

        try:
            _kind, servers, _notes, _path = read_source(self.claude_config)
        except ConfigError as exc:
            log.warning("could not read %s: %s", self.claude_config, exc)
            return [], f"The Claude Desktop configuration could not be read: {exc}."
        return sorted(servers), None

    # -- local detection ---------------------------------------------------------------------------------

    def _on_touched(self, *_args: object) -> None:
        self._touched = True

    def _detect_if_untouched(self) -> None:
        if not self.runtime.provider_settings.configured and not self._touched:
            self.auto_detect()

    @async_slot
    async def auto_detect(self) -> None:
        """Probe loopback once on opening; use what answers unless the user already chose something."""
        self._note(self.detect_status, "Looking for a model server on this machine…")
        import asyncio
        import importlib

        # httpx (with its CLI's click and rich, ~0.1 s) loads in a worker thread, not in the UI's
        await asyncio.to_thread(importlib.import_module, "httpx")
        from desktop_app.runtime.providers.discovery import detect_local_servers

        found = await detect_local_servers(candidates=self.local_candidates)
        self.detected = found
        if not found:
            self._note(
                self.detect_status,
                "No local model server answered (Ollama, LM Studio): choose a hosted provider, or start one and "
                "press Detect local.",
            )
            return
        first = found[0]
        where = f"{first.name} at {first.base_url} ({len(first.models)} model(s))"
        if self._touched:
            self._note(self.detect_status, f"Found {where}: pick it under Provider to use it.")
            return
        self.apply_preset(first)
        self._note(self.detect_status, f"Found {where}; selected it. No key is needed.")

    # -- OK: save the provider (inherited), then import ----------------------------------------------------

    def accept(self) -> None:
        wanted = self.import_check.isEnabled() and self.import_check.isChecked() and self.imported_report is None
        if wanted and not self._import():
            return  # the problem is shown; the provider is saved already
        super().accept()

    def _import(self) -> bool:
        from desktop_app.paths import app_paths
        from desktop_app.runtime.credentials import Credentials
        from desktop_app.runtime.errors import ConfigError, CredentialError
        from desktop_app.runtime.host.importers import import_config

        target = self.mcp_config() or app_paths().ensure().mcp_config_file
        credentials = getattr(self.runtime, "credentials", None) or Credentials()
        try:
            report = import_config(self.claude_config, target, credentials)
        except (ConfigError, CredentialError) as exc:
            self._show_problem(
                f"The provider is saved, but the MCP servers could not be imported: {exc}. "
                "Untick the import to continue without them."
            )
            return False
        self.imported_report = report
        if report.imported or report.replaced:
            self.servers_imported.emit([*report.imported, *report.replaced])
        return True
