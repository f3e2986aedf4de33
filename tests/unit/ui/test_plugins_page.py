"""Settings → Plugins with the example Claude Code plugin (docs/examples/plugins/notes-plugin: a stdio server, a
skill, a hook, a prompt), in the real window with the real assembly: Install folder… (disabled), Enable… shows
its contributions and permissions first, then its server starts, its prompt joins the / menu, its skill the
next conversation, and its hook stays untrusted until Trust hooks…; Remove… leaves nothing behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox, QPushButton

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths
from desktop_app.runtime.messages import SystemMessage
from desktop_app.ui.main_window import MainWindow
from desktop_app.ui.plugin_review import EnablePluginDialog
from desktop_app.ui.settings.plugins_page import PluginsPage

EXAMPLE = Path(__file__).resolve().parents[3] / "docs" / "examples" / "plugins" / "notes-plugin"
SERVER = "notes-plugin.notes"


def _wait(qtbot, task) -> None:
    qtbot.waitUntil(task.done, timeout=30_000)
    assert task.exception() is None


def _hook_states(host) -> list[str]:
    return [item.state for item in host.hooks.review() if item.entry.source.kind == "plugin"]


@pytest.mark.integration
def test_plugin_screen_enable_trust_and_remove(qtbot, qloop, memory_keyring) -> None:
    paths = app_paths().ensure()
    built = assemble(paths, strict=True, persist=False)
    host, runtime = built.host, built.runtime
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_host(host, credentials=runtime.credentials, mcp_config=paths.mcp_config_file)
    _wait(qtbot, qloop.create_task(host.start()))
    settings = win.open_settings_window("plugins")
    page = settings.findChild(PluginsPage, "pluginsPage")
    assert page is not None and "No plugins yet" in page.tree.topLevelItem(0).text(0)

    # Install folder…: picked in Qt's folder dialog; installed disabled, nothing contributed yet.
    qtbot.mouseClick(page.install_button, Qt.MouseButton.LeftButton)
    picker = page.dialog
    assert isinstance(picker, QFileDialog) and picker.fileMode() == QFileDialog.FileMode.Directory
    qtbot.waitExposed(picker)
    picker.selectFile(str(EXAMPLE))
    picker.accept()
    assert [page.tree.topLevelItem(0).text(c) for c in range(4)] == ["notes-plugin", "1.0.0", "Claude Code", "Disabled"]
    assert SERVER not in host.states() and not paths.mcp_config_file.exists()
    assert not page.disable_button.isEnabled() and page.enable_button.isEnabled()

    # Enable…: every contribution and permission is shown before anything is enabled.
    qtbot.mouseClick(page.enable_button, Qt.MouseButton.LeftButton)
    dialog = page.dialog
    assert isinstance(dialog, EnablePluginDialog)
    shown = dialog.contents.text()
    for text in (
        SERVER,
        "/servers/notes_server.py",
        "meeting-notes",
        "PreToolUse",
        "log-tool.sh",
        "untrusted until you trust it",
        "notes-plugin:summarize",
        "starts the program",
    ):
        assert text in shown, text
    assert SERVER not in host.states()  # still nothing until confirmed
    qtbot.mouseClick(dialog.enable_button, Qt.MouseButton.LeftButton)
    _wait(qtbot, page.busy)
    qtbot.waitUntil(
        lambda: host.states().get(SERVER) is not None and host.states()[SERVER].state == "ready", timeout=30_000
    )
    assert page.tree.topLevelItem(0).text(3) == "Enabled"
    assert "word_count" in [t.tool for t in host.tools() if t.server == SERVER]
    assert _hook_states(host) == ["untrusted"] and "untrusted" in page.details.text()
    qtbot.waitUntil(
        lambda: "switchboard.plugins/notes-plugin:summarize" in [e.command for e in win.slash.catalog.entries()]
    )
    conversation = runtime.conversation(runtime.new_conversation())
    system = conversation.messages[0]
    assert isinstance(system, SystemMessage) and "- meeting-notes:" in system.content

    # Trust hooks…: listed, confirmed, trusted by content.
    assert page.trust_button.isEnabled()
    qtbot.mouseClick(page.trust_button, Qt.MouseButton.LeftButton)
    box = page.dialog
    assert isinstance(box, QMessageBox) and "log-tool.sh" in box.text()
    qtbot.mouseClick(box.findChild(QPushButton, "confirmTrustPluginHooksButton"), Qt.MouseButton.LeftButton)
    assert _hook_states(host) == ["trusted"] and not page.trust_button.isEnabled()
    trust_file = paths.data_dir / "hooks" / "trust.json"
    assert json.loads(trust_file.read_text())["hooks"]

    # Remove…: nothing left in mcp.json, the settings, the catalog, the trust store or the data folder.
    qtbot.mouseClick(page.remove_button, Qt.MouseButton.LeftButton)
    confirm = page.dialog
    qtbot.mouseClick(confirm.findChild(QPushButton, "confirmRemovePluginButton"), Qt.MouseButton.LeftButton)
    _wait(qtbot, page.busy)
    qtbot.waitUntil(lambda: SERVER not in host.states(), timeout=15_000)
    assert json.loads(paths.mcp_config_file.read_text())["mcpServers"] == {}
    assert "notes-plugin" not in paths.settings_file.read_text() and runtime.settings.plugins == {}
    assert not [t for t in host.tools() if t.server == SERVER] and _hook_states(host) == []
    assert json.loads(trust_file.read_text())["hooks"] == {}
    assert not any("notes-plugin" in str(p) for p in paths.data_dir.rglob("*"))
    assert "No plugins yet" in page.tree.topLevelItem(0).text(0)
    settings.close()
    _wait(qtbot, qloop.create_task(built.aclose()))


def test_agents_are_listed_as_not_supported_and_permissions_shown(qtbot, tmp_path: Path) -> None:
    from desktop_app.runtime.plugins.model import read_plugin

    (tmp_path / "whale-plugin.toml").write_text('id = "rev"\npermissions = ["read the workspace"]\n')
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "reviewer.md").write_text("---\nname: reviewer\n---\nReview.\n")
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"lint": {"url": "https://lint.example/mcp"}}}')
    dialog = EnablePluginDialog(read_plugin(tmp_path))
    qtbot.addWidget(dialog)
    text = dialog.contents.text()
    assert "reviewer" in text and "not supported yet" in text
    assert "read the workspace" in text and "connects to <code>https://lint.example/mcp</code>" in text
