"""An installed MCP Bundle managed from the Servers panel: Reconfigure… (the form with the current values, the
sensitive one "stored in keyring"; saving restarts the server, which sees the new values) and Update… (a
newer .mcpb packed by the official CLI; the user's values are kept). Real Host, real bundles."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QLineEdit

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.extensions.archive import read_bundle
from desktop_app.runtime.extensions.install import Places, install
from desktop_app.runtime.extensions.launch import configure
from desktop_app.runtime.host import Host, load_mcp_config
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.extensions.dialog import InstallExtensionDialog
from desktop_app.ui.window.main_window import MainWindow
from tests.support.bundles import HERE, pack


def _probe(qtbot, qloop, host: Host) -> str:
    task = qloop.create_task(host.call("python-probe", "probe", {}))
    qtbot.waitUntil(task.done, timeout=30_000)
    return str(task.result())


@pytest.mark.integration
def test_reconfigure_and_update_an_extension_from_the_servers_panel(
    qtbot, qloop, tmp_path: Path, packed_bundles, memory_keyring, monkeypatch
) -> None:
    home = tmp_path / "sb"
    monkeypatch.setenv("SWITCHBOARD_HOME", str(home))
    places = Places(home / "data", home / "config" / "settings.json", home / "config" / "mcp.json")
    configure(places.data_dir, places.settings_file)
    credentials = Credentials()
    first, second = tmp_path / "first", tmp_path / "second"
    first.mkdir()
    second.mkdir()
    install(
        read_bundle(packed_bundles["python-probe"]),
        places,
        credentials,
        {"api_key": "sk-one", "workspace": str(first), "limit": "4"},
    )
    host = Host(load_mcp_config(places.mcp_file), credentials=credentials, startup_timeout=30)
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    win = MainWindow()
    qtbot.addWidget(win)
    runtime = Runtime(settings=settings, host=host, credentials=credentials)
    win.attach_runtime(runtime)
    win.attach_host(host, credentials=credentials, mcp_config=places.mcp_file)
    win.show()
    win.servers_dock.show()
    qtbot.waitExposed(win)
    panel = win.servers_dock.panel
    qloop.create_task(host.start())
    qtbot.waitUntil(
        lambda: "python-probe" in panel.rows and panel.row_text("python-probe").startswith("Ready"), timeout=30_000
    )
    assert f"workspace={first}" in _probe(qtbot, qloop, host)

    panel.select("python-probe")
    bar = panel.extension_bar
    assert bar.isVisible() and "Python Probe" in bar.label.text() and "1.0.0" in bar.label.text()
    qtbot.mouseClick(bar.reconfigure_button, Qt.MouseButton.LeftButton)
    dialog = bar.dialog
    assert isinstance(dialog, InstallExtensionDialog) and dialog.mode == "reconfigure"
    qtbot.waitExposed(dialog)
    key = dialog.findChild(QLineEdit, "field_api_key")
    assert key.text() == "" and "stored in keyring" in key.placeholderText()
    assert dialog.fields["workspace"].value() == str(first) and dialog.fields["limit"].value() == 4
    assert dialog.install_button.text() == "Save and restart" and dialog.install_button.isEnabled()
    dialog.fields["workspace"].set_value(str(second))
    dialog.fields["limit"].setValue(7)
    restarted = []
    host.subscribe(
        lambda e: restarted.append(e) if getattr(e, "kind", "") == "server_state" and e.state == "ready" else None
    )
    qtbot.mouseClick(dialog.install_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(restarted), timeout=30_000)
    report = _probe(qtbot, qloop, host)
    assert f"workspace={second}" in report and "limit=7" in report
    assert f"key_sha256={hashlib.sha256(b'sk-one').hexdigest()}" in report  # the stored key was kept
    record = json.loads(places.settings_file.read_text())["extensions"]["python-probe"]
    assert record["user_config"] == {"workspace": str(second), "limit": 7}
    assert (
        "sk-one" not in places.settings_file.read_text()
        and memory_keyring.store[("switchboard", "mcpb:python-probe:api_key")] == "sk-one"
    )

    # Update…: a 1.1.0 packed by mcpb; the install screen shows the current values, and installing keeps them.
    source = tmp_path / "python-probe"
    shutil.copytree(HERE / "python-probe", source)
    manifest = json.loads((source / "manifest.json").read_text())
    (source / "manifest.json").write_text(json.dumps({**manifest, "version": "1.1.0"}))
    (tmp_path / "out").mkdir()
    newer = pack(source, tmp_path / "out")
    qtbot.mouseClick(bar.update_button, Qt.MouseButton.LeftButton)
    picker = bar.file_dialog
    assert isinstance(picker, QFileDialog)
    qtbot.waitExposed(picker)
    picker.selectFile(str(newer))
    picker.accept()
    update = bar.dialog
    assert isinstance(update, InstallExtensionDialog) and update.mode == "update"
    assert "1.0.0 → 1.1.0" in update.findChild(type(bar.label), "extensionTitle").text()
    assert update.fields["workspace"].value() == str(second) and update.fields["limit"].value() == 7
    restarted.clear()
    qtbot.mouseClick(update.install_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: bool(restarted), timeout=30_000)
    record = json.loads(places.settings_file.read_text())["extensions"]["python-probe"]
    assert record == {"version": "1.1.0", "user_config": {"workspace": str(second), "limit": 7}}
    assert runtime.settings.extensions["python-probe"] == record  # a later Settings save keeps it
    assert f"key_sha256={hashlib.sha256(b'sk-one').hexdigest()}" in _probe(qtbot, qloop, host)
    panel.refresh_details()
    assert "1.1.0" in bar.label.text()
    closing = qloop.create_task(host.aclose())
    qtbot.waitUntil(closing.done, timeout=30_000)
