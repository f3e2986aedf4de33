"""Managing servers from the Servers panel with the real Runtime and Host and a real stdio MCP server.

Add (a secret env value goes to the keyring), see its tools, resources and prompts, disable, remove, and
an outside edit of mcp.json being picked up (and a broken one reported). Sync test on the running
``qloop``; every wait is a qtbot wait on what the panel shows.
"""

from __future__ import annotations

import json
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.events import ServerStateChanged
from desktop_app.runtime.host import Host, load_mcp_config
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.servers.log_view import ServerInfo
from desktop_app.ui.servers.panel import summary_text
from desktop_app.ui.window.main_window import MainWindow
from tests.unit.ui.servers.test_servers_panel import FakeHost

DEMO_SERVER = textwrap.dedent(
    """
    import os
    from mcp.server.mcpserver import MCPServer

    server = MCPServer("demo", log_level="WARNING")

    @server.tool(description="Says which token the server was started with (its last four characters).")
    def token_tail() -> str:
        return os.environ.get("API_TOKEN", "")[-4:]

    @server.resource("demo://readme", name="readme", description="How to use the demo server")
    def readme() -> str:
        return "hello"

    @server.prompt(description="Summarise a text")
    def summarise(text: str) -> str:
        return f"Summarise: {text}"

    server.run()
    """
)
TOKEN = "sk-demo-4f7a9c2e1b8d6f3a0e5c"
KEEP = '{\n  "mcpServers": {\n    "keep":   {"command": "true", "disabled": true}\n  }\n}\n'


@pytest.fixture
def setup(qtbot, qloop, tmp_path: Path, switchboard_home: Path):
    script = tmp_path / "demo_server.py"
    script.write_text(DEMO_SERVER, encoding="utf-8")
    mcp_json = switchboard_home / "mcp.json"
    mcp_json.write_text(KEEP, encoding="utf-8")
    credentials = Credentials()
    host = Host(load_mcp_config(mcp_json), credentials=credentials, startup_timeout=30)
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=host, credentials=credentials)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_host(host, credentials=credentials, mcp_config=mcp_json)
    win.show()
    win.servers_dock.show()
    qtbot.waitExposed(win)
    yield win, host, mcp_json, script
    closing = qloop.create_task(host.aclose())
    qtbot.waitUntil(closing.done, timeout=30_000)


def _ready(panel, name: str) -> bool:
    return name in panel.rows and panel.row_text(name).startswith("Ready")


@pytest.mark.integration
def test_add_inspect_disable_and_remove_a_server_from_the_panel(qtbot, setup, memory_keyring):
    win, host, mcp_json, script = setup
    panel = win.servers_dock.panel
    assert isinstance(panel.actions(), list)  # Qt's QWidget.actions(): the Add/Edit/Remove actions are server_actions
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    dialog = panel.server_actions.dialog
    assert dialog is not None and dialog.isVisible()
    qtbot.keyClicks(dialog.name, "demo")
    qtbot.keyClicks(dialog.command, sys.executable)
    dialog.args.setPlainText(str(script))
    row = dialog.env.add_row()
    qtbot.keyClicks(row.key, "API_TOKEN")
    qtbot.keyClicks(row.value, TOKEN)
    assert row.secret.isChecked() and row.value.echoMode() == row.value.EchoMode.Password  # looks like a key
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: "Added MCP server 'demo'" in win.statusBar().currentMessage(), timeout=30_000)
    assert panel.server_actions.dialog is None  # accepted and gone
    assert panel.row_text("demo") == "Ready · 1 tool"
    text = mcp_json.read_text(encoding="utf-8")
    assert TOKEN not in text and "${keyring:mcp:demo:API_TOKEN}" in text
    assert text.startswith('{\n  "mcpServers": {\n    "keep":   {"command": "true", "disabled": true},\n    "demo": {')
    assert memory_keyring.store[("switchboard", "mcp:demo:API_TOKEN")] == TOKEN
    assert summary_text(panel.servers).startswith("MCP: 1 ready · 1 disabled")

    panel.select("demo")
    inspector = panel.inspector
    assert inspector.tree_texts(inspector.tools) == ["token_tail"]
    assert inspector.tree_texts(inspector.tools, 1) == [
        "Says which token the server was started with (its last four characters)."
    ]
    qtbot.waitUntil(lambda: inspector.tree_texts(inspector.prompts) == ["summarise"], timeout=10_000)
    assert inspector.tree_texts(inspector.resources) == ["readme"]
    assert inspector.tree_texts(inspector.resources, 1) == ["demo://readme"]
    assert inspector.edit_button.isEnabled() and inspector.toggle_button.text() == "Disable"
    call = win.tasks.start(host.call("demo", "token_tail", {}))
    qtbot.waitUntil(call.done, timeout=10_000)
    assert call.result().text == TOKEN[-4:]  # the keyring reference was expanded at launch

    qtbot.mouseClick(inspector.edit_button, Qt.MouseButton.LeftButton)  # the form, filled from mcp.json
    editor = panel.server_actions.dialog
    assert editor is not None and editor.name.text() == "demo" and editor.command.text() == sys.executable
    assert editor.args.toPlainText() == str(script)
    [stored] = editor.env.rows
    assert stored.key.text() == "API_TOKEN" and stored.value.text() == "" and stored.secret.isChecked()
    editor.reject()

    qtbot.mouseClick(inspector.toggle_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: "'demo' disabled" in win.statusBar().currentMessage(), timeout=10_000)
    assert panel.row_text("demo") == "Disabled"
    assert json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]["demo"]["disabled"] is True
    assert not any(t.server == "demo" for t in host.tools())
    assert inspector.toggle_button.text() == "Enable"

    qtbot.mouseClick(inspector.remove_button, Qt.MouseButton.LeftButton)
    confirm = panel.server_actions.confirm
    assert confirm is not None and confirm.isVisible() and "demo" in confirm.text()
    qtbot.mouseClick(confirm.findChild(type(panel.add_button), "confirmRemoveServerButton"), Qt.LeftButton)
    qtbot.waitUntil(lambda: "Removed MCP server 'demo'" in win.statusBar().currentMessage(), timeout=10_000)
    assert "demo" not in panel.rows
    assert mcp_json.read_text(encoding="utf-8") == KEEP
    assert ("switchboard", "mcp:demo:API_TOKEN") not in memory_keyring.store
    assert "demo" not in host.states()


@pytest.mark.integration
def test_an_outside_edit_of_mcp_json_is_picked_up_and_a_broken_one_reported(qtbot, setup):
    win, host, mcp_json, script = setup
    panel = win.servers_dock.panel
    entry = {"command": sys.executable, "args": [str(script)]}
    document = json.loads(mcp_json.read_text(encoding="utf-8"))
    document["mcpServers"]["outside"] = entry
    mcp_json.write_text(json.dumps(document, indent=4), encoding="utf-8")  # as an editor would

    qtbot.waitUntil(lambda: "mcp.json changed on disk" in win.statusBar().currentMessage(), timeout=30_000)
    assert _ready(panel, "outside")

    mcp_json.write_text('{"mcpServers": {\n  "outside": oops}}', encoding="utf-8")
    qtbot.waitUntil(lambda: "cannot be read" in win.statusBar().currentMessage(), timeout=10_000)
    assert f"{mcp_json}:2:14" in win.statusBar().currentMessage()
    assert panel.row_text("outside").startswith("Ready")  # still running as it was

    mcp_json.write_text(KEEP, encoding="utf-8")  # removed outside the app
    qtbot.waitUntil(lambda: "outside" not in panel.rows, timeout=10_000)
    qtbot.waitUntil(lambda: "removed outside" in win.statusBar().currentMessage(), timeout=10_000)
    assert "outside" not in host.states()


def test_a_restart_notice_goes_once_the_server_is_ready(window: MainWindow) -> None:
    host = FakeHost("alpha")
    window.attach_host(host)
    bar = window.statusBar()
    host.publish(ServerStateChanged(server="alpha", state="failed", error="EOF", restart_in_s=16, attempt=1))
    assert "restart in 16 s" in bar.currentMessage()
    host.publish(ServerStateChanged(server="alpha", state="restarting", attempt=1))
    assert "restart in 16 s" in bar.currentMessage()  # still restarting: the notice holds
    host.publish(ServerStateChanged(server="alpha", state="ready", tool_count=1))
    assert bar.currentMessage() == ""
    assert "restart" not in window.servers_dock.indicator.toolTip()
    QApplication.processEvents()


def test_the_count_keeps_the_user_servers_and_the_built_ins_apart() -> None:
    servers = {
        "a": ServerInfo("a", state="ready"),
        "b": ServerInfo("b", state="failed"),
        "c": ServerInfo("c", state="idle"),
        "switchboard.system": ServerInfo("switchboard.system", state="ready", builtin=True),
        "switchboard.history": ServerInfo("switchboard.history", state="idle", builtin=True),
    }
    assert summary_text(servers) == "MCP: 1 ready · 1 failed · 1 not started · 2 built-in"
    builtins_only = {k: v for k, v in servers.items() if v.builtin}
    assert summary_text(builtins_only) == "MCP: no servers · 2 built-in"


@pytest.mark.integration
def test_import_preview_starts_only_the_chosen_server(qtbot, setup, tmp_path: Path, monkeypatch, memory_keyring):
    win, host, mcp_json, script = setup
    home = tmp_path / "user"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    claude = home / ".config" / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True)
    entry = {"command": sys.executable, "args": [str(script)]}
    servers = {"alpha": {**entry, "env": {"API_TOKEN": TOKEN}}, "beta": entry}
    claude.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    panel = win.servers_dock.panel

    qtbot.mouseClick(panel.import_button, Qt.MouseButton.LeftButton)  # the panel's Import… = File → Import
    preview = win.importer.preview_dialog
    assert preview is not None and preview.sources.currentText() == f"Claude Desktop — {claude}"
    assert preview.chosen() == ["alpha", "beta"]
    assert preview.tree.topLevelItem(0).text(2) == "env API_TOKEN"
    preview.set_chosen(["alpha"])
    qtbot.mouseClick(preview.import_button, Qt.MouseButton.LeftButton)

    qtbot.waitUntil(lambda: "Imported and started" in win.statusBar().currentMessage(), timeout=30_000)
    assert panel.row_text("alpha") == "Ready · 1 tool"
    assert "beta" not in host.states() and "beta" not in panel.rows
    assert set(json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]) == {"keep", "alpha"}
    assert mcp_json.read_text(encoding="utf-8").startswith('{\n  "mcpServers": {\n    "keep":   {"command": "true"')
    assert memory_keyring.store[("switchboard", "mcp:alpha:API_TOKEN")] == TOKEN
    result = win.importer.result_dialog
    assert result is not None and "Imported (1)" in result.text.toPlainText()
    result.close()


class _AppliedHost:
    """Records what the manager applies (the file's servers, as the host would see them)."""

    def __init__(self) -> None:
        self.applied: list[dict[str, object]] = []

    async def apply_servers(self, servers, *, remove_missing: bool = False) -> list[str]:
        self.applied.append({"servers": dict(servers), "remove_missing": remove_missing})
        return sorted(servers)


def test_the_http_form_with_a_secret_header_and_oauth_then_an_edit_that_renames(
    qtbot, qloop, tmp_path: Path, memory_keyring
):
    from desktop_app.runtime.host.manage import ServerManager
    from desktop_app.ui.servers.server_dialog import ServerDialog

    mcp_json = tmp_path / "mcp.json"
    manager = ServerManager(_AppliedHost(), mcp_json, Credentials())
    dialog = ServerDialog()
    qtbot.addWidget(dialog)
    dialog.name.setText("docs")
    dialog.kind.setCurrentIndex(dialog.kind.findData("http"))
    assert dialog.pages.currentIndex() == 1
    dialog.url.setText("https://docs.example.com/mcp")
    header = dialog.headers.add_row()
    header.key.setText("Authorization")
    qtbot.keyClicks(header.value, "Bearer abc123def456ghi789")
    assert header.secret.isChecked()  # Authorization is always a secret
    dialog.oauth_box.setChecked(True)
    dialog.scopes.setText("read write")
    task = qloop.create_task(manager.save(dialog.draft()))
    qtbot.waitUntil(task.done)
    entry = json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]["docs"]
    assert entry == {
        "url": "https://docs.example.com/mcp",
        "headers": {"Authorization": "${keyring:mcp:docs:header:Authorization}"},
        "oauth": {"scopes": ["read", "write"]},
    }
    assert memory_keyring.store[("switchboard", "mcp:docs:header:Authorization")] == "Bearer abc123def456ghi789"
    assert manager.host.applied[-1]["remove_missing"] is True

    edit = ServerDialog(name="docs", entry=entry)  # the stored secret shows as stored, not as its value
    qtbot.addWidget(edit)
    [row] = edit.headers.rows
    assert row.value.text() == "" and "stored in the keyring" in row.value.placeholderText()
    edit.name.setText("manual")
    task = qloop.create_task(manager.save(edit.draft(), previous="docs"))
    qtbot.waitUntil(task.done)
    task.result()
    servers = json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]
    assert list(servers) == ["manual"]
    assert servers["manual"]["headers"] == {"Authorization": "${keyring:mcp:manual:header:Authorization}"}
    assert memory_keyring.store[("switchboard", "mcp:manual:header:Authorization")] == "Bearer abc123def456ghi789"
    assert ("switchboard", "mcp:docs:header:Authorization") not in memory_keyring.store


def test_adding_a_command_that_does_not_exist_warns_first_and_then_tells_the_failure(qtbot, setup):
    """#20 item 9: the form looks the command up before saving; saved anyway, the status bar says it failed."""
    win, _host, mcp_json, _script = setup
    panel = win.servers_dock.panel
    qtbot.mouseClick(panel.add_button, Qt.MouseButton.LeftButton)
    dialog = panel.server_actions.dialog
    qtbot.keyClicks(dialog.name, "ghost")
    qtbot.keyClicks(dialog.command, "no-such-mcp-server-cmd")
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)

    assert dialog.isVisible() and panel.server_actions.dialog is dialog  # not saved: warned first
    assert dialog.problem.isVisible() and "'no-such-mcp-server-cmd' was not found on PATH" in dialog.problem.text()
    assert dialog.save_button.text() == "Add anyway"
    assert mcp_json.read_text(encoding="utf-8") == KEEP
    dialog.command.setText("no-such-mcp-server-cmd2")  # a changed command takes the warning back
    assert dialog.problem.isHidden() and dialog.save_button.text() == "Add and start"
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)
    assert dialog.save_button.text() == "Add anyway"
    qtbot.mouseClick(dialog.save_button, Qt.MouseButton.LeftButton)  # the user means it

    qtbot.waitUntil(lambda: "Added MCP server 'ghost'" in win.statusBar().currentMessage(), timeout=30_000)
    message = win.statusBar().currentMessage()
    assert "but it failed to start" in message and "no-such-mcp-server-cmd2" in message
    assert "starting it" not in message
    assert "ghost" in json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]
    assert panel.row_text("ghost") == "Failed" and "not found on PATH" in panel.rows["ghost"].error_label.text()
