"""Settings → Plugins with the example Claude Code plugin (docs/examples/plugins/notes-plugin: a stdio server, a
skill, a hook, a prompt, an agent), in the real window with the real assembly: Install folder… (disabled),
Enable… shows its contributions and permissions first (the agent with what of it is not available here), then
its server starts, its agent is served and in the agent picker, its prompt joins the / menu, its skill the next
conversation, and its hook stays untrusted until Trust hooks…; Remove… leaves nothing behind."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QFileDialog, QMessageBox, QPushButton

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths
from desktop_app.runtime.messages import SystemMessage
from desktop_app.ui.extensions.plugin_review import EnablePluginDialog
from desktop_app.ui.settings.plugins_page import PluginsPage
from desktop_app.ui.window.main_window import MainWindow

EXAMPLE = Path(__file__).resolve().parents[4] / "docs" / "examples" / "plugins" / "notes-plugin"
SERVER = "notes-plugin.notes"
AGENT = "notes-plugin.note-reviewer"


def _picker_agents(win) -> list[str]:
    win.agent_picker.picker_menu.aboutToShow.emit()
    names = [a.objectName() for a in win.agent_picker.picker_menu.actions()]
    return [n.removeprefix("pickAgent-") for n in names if n.startswith("pickAgent-")]


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
        AGENT,
        "tools: notes-plugin.notes/word_count",
        "Read, Grep: not available here",
        "model &#x27;sonnet&#x27; is a Claude model: it runs on the conversation&#x27;s model",
    ):
        assert text in shown, text
    assert "not supported" not in shown
    assert SERVER not in host.states() and f"switchboard.agent.{AGENT}" not in host.states()  # not until confirmed
    assert AGENT not in _picker_agents(win)
    qtbot.mouseClick(dialog.enable_button, Qt.MouseButton.LeftButton)
    _wait(qtbot, page.busy)
    qtbot.waitUntil(
        lambda: host.states().get(SERVER) is not None and host.states()[SERVER].state == "ready", timeout=30_000
    )
    assert page.tree.topLevelItem(0).text(3) == "Enabled"
    assert "word_count" in [t.tool for t in host.tools() if t.server == SERVER]
    assert f"switchboard.agent.{AGENT}" in host.states() and AGENT in _picker_agents(win)
    await_tools = qloop.create_task(host.ensure_connected(f"switchboard.agent.{AGENT}"))
    _wait(qtbot, await_tools)
    assert f"chat-with-{AGENT}" in [t.tool for t in host.tools()]
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
    assert f"switchboard.agent.{AGENT}" not in host.states() and AGENT not in _picker_agents(win)
    assert not [t for t in host.tools() if AGENT in t.tool]
    assert json.loads(paths.mcp_config_file.read_text())["mcpServers"] == {}
    assert "notes-plugin" not in paths.settings_file.read_text() and runtime.settings.plugins == {}
    assert not [t for t in host.tools() if t.server == SERVER] and _hook_states(host) == []
    assert json.loads(trust_file.read_text())["hooks"] == {}
    assert not any("notes-plugin" in str(p) for p in paths.data_dir.rglob("*"))
    assert "No plugins yet" in page.tree.topLevelItem(0).text(0)
    settings.close()
    _wait(qtbot, qloop.create_task(built.aclose()))


def test_whale_agents_are_listed_with_their_tools_and_permissions_shown(qtbot, tmp_path: Path) -> None:
    from desktop_app.runtime.plugins.model import read_plugin

    (tmp_path / "whale-plugin.toml").write_text(
        'id = "rev"\npermissions = ["read the workspace"]\n'
        '[[agents]]\nname = "checker"\ndescription = "Checks the code"\ntools = ["Bash", "lint/*"]\n'
        'instructions = "Check."\n'
    )
    (tmp_path / "agents").mkdir()
    (tmp_path / "agents" / "reviewer.md").write_text("---\nname: reviewer\n---\nReview.\n")
    (tmp_path / "mcp.json").write_text('{"mcpServers": {"lint": {"url": "https://lint.example/mcp"}}}')
    dialog = EnablePluginDialog(read_plugin(tmp_path))
    qtbot.addWidget(dialog)
    text = dialog.contents.text()
    assert "<code>rev.reviewer</code>" in text and "(every tool)" in text
    assert "<code>rev.checker</code>: Checks the code" in text and "(tools: lint/*)" in text
    assert "Bash: not available here" in text and "not supported" not in text
    assert "read the workspace" in text and "connects to <code>https://lint.example/mcp</code>" in text
