"""Settings → Apps (issue 26): on by default; unchecking a server saves it as blocked, and the runtime's
allow rule (what MCP Apps is advertised to) follows; turning views off blocks every server."""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QCheckBox

from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import Settings
from desktop_app.ui.settings.apps_page import AppsPanel
from desktop_app.ui.settings.window import SettingsWindow


def _server() -> MCPServer:
    return MCPServer("s", log_level="WARNING")


def test_unchecking_a_server_blocks_its_views_and_off_blocks_all(qtbot: Any, qloop: Any, tmp_path: Any) -> None:
    host = Host({})
    host.add_in_process("charts", _server)
    host.add_in_process("files", _server)
    runtime = Runtime(settings=Settings(), host=host, settings_path=tmp_path / "settings.json")
    assert runtime.settings.apps.enabled and runtime.settings.apps.allows("charts")
    window = SettingsWindow(runtime, host=host)
    qtbot.addWidget(window)
    view = window.show_page("apps")
    panel = view.findChild(AppsPanel)
    assert panel is not None
    items = {panel.servers.item(i).text(): panel.servers.item(i) for i in range(panel.servers.count())}
    assert set(items) == {"charts", "files"}
    assert all(item.checkState() == Qt.CheckState.Checked for item in items.values())
    items["files"].setCheckState(Qt.CheckState.Unchecked)
    assert window.save()
    apps = runtime.settings.apps
    assert apps.blocked_servers == ["files"] and apps.allows("charts") and not apps.allows("files")
    [enabled] = [c for c in view.findChildren(QCheckBox) if c.text() == "Show app views"]
    enabled.setChecked(False)
    assert window.save()
    assert not runtime.settings.apps.allows("charts")
    assert '"blocked_servers": [\n      "files"\n    ]' in (tmp_path / "settings.json").read_text()
