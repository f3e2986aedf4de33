"""An installed MCP Bundle in the Servers panel: shown as an extension, started (its values substituted), and
Remove uninstalls it (files, mcp.json entry, settings, keyring). Real Host, real bundle from the mcpb CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from PySide6.QtCore import Qt

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.extensions.archive import read_bundle
from desktop_app.runtime.extensions.install import Places, install
from desktop_app.runtime.extensions.launch import configure
from desktop_app.runtime.host import Host, load_mcp_config
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.window.main_window import MainWindow


@pytest.mark.integration
def test_extension_row_and_remove_uninstalls(qtbot, qloop, tmp_path: Path, packed_bundles, memory_keyring) -> None:
    home = tmp_path / "sb"
    places = Places(home / "data", home / "config" / "settings.json", home / "config" / "mcp.json")
    configure(places.data_dir, places.settings_file)
    credentials = Credentials()
    bundle = read_bundle(packed_bundles["python-probe"])
    install(bundle, places, credentials, {"api_key": "sk-panel-1234", "workspace": str(tmp_path)})
    host = Host(load_mcp_config(places.mcp_file), credentials=credentials, startup_timeout=30)
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(Runtime(settings=settings, host=host, credentials=credentials))
    win.attach_host(host, credentials=credentials, mcp_config=places.mcp_file)
    win.show()
    win.servers_dock.show()
    qtbot.waitExposed(win)
    panel = win.servers_dock.panel
    start = qloop.create_task(host.start())
    qtbot.waitUntil(
        lambda: "python-probe" in panel.rows and panel.row_text("python-probe").startswith("Ready"), timeout=30_000
    )
    assert "· extension" in panel.rows["python-probe"].name_label.text()

    panel.select("python-probe")
    qtbot.mouseClick(panel.inspector.remove_button, Qt.MouseButton.LeftButton)
    confirm = panel.server_actions.confirm
    qtbot.mouseClick(confirm.findChild(type(panel.add_button), "confirmRemoveServerButton"), Qt.LeftButton)
    qtbot.waitUntil(lambda: "python-probe" not in panel.rows, timeout=10_000)
    assert not places.folder("python-probe").exists()
    assert ("switchboard", "mcpb:python-probe:api_key") not in memory_keyring.store
    assert "python-probe" not in places.settings_file.read_text()
    assert start.done()
    closing = qloop.create_task(host.aclose())
    qtbot.waitUntil(closing.done, timeout=30_000)
