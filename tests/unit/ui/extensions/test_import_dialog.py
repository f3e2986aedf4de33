"""File → Import MCP servers…: a Claude Desktop file → mcp.json + keyring, the result dialog, Replace existing."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from PySide6.QtCore import Qt
from pytestqt.qtbot import QtBot

from desktop_app.paths import app_paths
from desktop_app.runtime.credentials import Credentials
from desktop_app.ui.extensions.import_dialog import RESTART_HINT, ImportResultDialog, McpImporter
from desktop_app.ui.window.main_window import MainWindow
from tests.conftest import MemoryKeyring

GH_TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"


class NoHost:
    """A host with no servers yet; records what an import asks it to start."""

    def __init__(self) -> None:
        self.applied: list[set[str]] = []

    def subscribe(self, _listener: object) -> object:
        return lambda: None

    async def apply_servers(self, servers: dict[str, object]) -> list[str]:
        self.applied.append(set(servers))
        return sorted(servers)

    def states(self) -> dict[str, object]:
        return {}


def write(path: Path, document: object) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(document, indent=2), encoding="utf-8")
    return path


@pytest.fixture
def claude_file(tmp_path: Path) -> Path:
    return write(
        tmp_path / "Claude" / "claude_desktop_config.json",
        {
            "mcpServers": {
                "github": {
                    "command": "npx",
                    "args": ["-y", "@modelcontextprotocol/server-github"],
                    "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": GH_TOKEN},
                },
                "time": {"command": "uvx", "args": ["mcp-server-time"]},
            }
        },
    )


@pytest.fixture
def mcp_json() -> Path:
    return app_paths().ensure().mcp_config_file


@pytest.fixture
def importer(window: MainWindow, mcp_json: Path) -> McpImporter:
    window.attach_host(NoHost(), credentials=Credentials(), mcp_config=mcp_json)
    assert window.import_action.isEnabled()
    assert window.importer is not None
    return window.importer


def files_under(root: Path) -> list[Path]:
    return [path for path in root.rglob("*") if path.is_file()]


def test_import_from_the_file_dialog(
    qtbot: QtBot,
    window: MainWindow,
    importer: McpImporter,
    claude_file: Path,
    mcp_json: Path,
    switchboard_home: Path,
    memory_keyring: MemoryKeyring,
) -> None:
    window.import_action.trigger()
    preview = importer.preview_dialog
    assert preview is not None and preview.isVisible()
    file_dialog = preview.choose_file()
    assert file_dialog.isVisible()
    file_dialog.fileSelected.emit(str(claude_file))  # what choosing the file and pressing Open does
    assert preview.chosen() == ["github", "time"]
    qtbot.mouseClick(preview.import_button, Qt.MouseButton.LeftButton)

    dialog = importer.result_dialog
    assert isinstance(dialog, ImportResultDialog) and dialog.isVisible()
    text = dialog.text.toPlainText()
    assert "Claude Desktop" in text
    assert "Imported (2)" in text and "github" in text and "time" in text
    assert "Secrets moved to the keyring (1)" in text
    assert "mcp:github:GITHUB_PERSONAL_ACCESS_TOKEN" in text
    assert RESTART_HINT in text
    assert GH_TOKEN not in text
    assert dialog.replace_button.isHidden()

    servers = json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]
    assert set(servers) == {"github", "time"}
    assert memory_keyring.store[("switchboard", "mcp:github:GITHUB_PERSONAL_ACCESS_TOKEN")] == GH_TOKEN
    assert files_under(switchboard_home)
    for path in files_under(switchboard_home):
        assert GH_TOKEN.encode() not in path.read_bytes(), path
    qtbot.waitUntil(lambda: "Imported and started" in window.statusBar().currentMessage())
    assert "github, time" in window.statusBar().currentMessage()
    assert window.mcp_host.applied == [{"github", "time"}]


def test_conflict_then_replace_existing(qtbot, importer: McpImporter, claude_file: Path, mcp_json: Path) -> None:
    write(mcp_json, {"mcpServers": {"time": {"command": "old-time"}}})
    dialog = importer.import_file(claude_file)
    text = dialog.text.toPlainText()
    assert "Imported (1)" in text and "Conflicts: kept the existing server (1)" in text
    assert not dialog.replace_button.isHidden()
    assert json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]["time"]["command"] == "old-time"

    qtbot.mouseClick(dialog.replace_button, Qt.MouseButton.LeftButton)
    assert importer.result_dialog is dialog  # the same dialog, now showing the re-run
    text = dialog.text.toPlainText()
    assert "Replaced (2)" in text and "Conflicts" not in text
    assert dialog.replace_button.isHidden()
    assert json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]["time"]["command"] == "uvx"


def test_not_an_mcp_file_reports_and_writes_nothing(importer: McpImporter, tmp_path: Path, mcp_json: Path) -> None:
    source = write(tmp_path / "settings.json", {"theme": "dark"})
    dialog = importer.import_file(source)
    text = dialog.text.toPlainText()
    assert "failed; nothing was written" in text and "not an MCP configuration" in text
    assert not mcp_json.exists()


def test_import_is_disabled_until_the_runtime_is_there(qtbot) -> None:
    win = MainWindow()
    qtbot.addWidget(win)
    assert not win.import_action.isEnabled()


def test_preview_searches_the_known_locations_and_imports_only_the_ticked_server(
    qtbot: QtBot,
    window: MainWindow,
    importer: McpImporter,
    mcp_json: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    memory_keyring: MemoryKeyring,
) -> None:
    home = tmp_path / "user"
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
    claude = write(
        home / ".config" / "Claude" / "claude_desktop_config.json",
        {
            "mcpServers": {
                "github": {"command": "npx", "args": ["-y", "gh"], "env": {"GITHUB_TOKEN": GH_TOKEN}},
                "time": {"command": "uvx", "args": ["mcp-server-time"]},
                "broken": {"args": ["no command"]},
            }
        },
    )
    write(home / ".cursor" / "mcp.json", {"mcpServers": {"web": {"url": "https://example.com/mcp"}}})
    vscode = write(
        home / ".config" / "Code" / "User" / "mcp.json", {"servers": {"fetch": {"type": "stdio", "command": "uvx"}}}
    )
    write(mcp_json, {"mcpServers": {"time": {"command": "old-time"}}})

    preview = importer.choose()
    assert [preview.sources.itemText(i) for i in range(preview.sources.count())] == [
        f"Claude Desktop — {claude}",
        f"VS Code — {vscode}",
        f"Cursor — {home / '.cursor' / 'mcp.json'}",
    ]
    rows = {
        preview.tree.topLevelItem(i).text(0): [preview.tree.topLevelItem(i).text(c) for c in range(1, 4)]
        for i in range(preview.tree.topLevelItemCount())
    }
    assert rows["github"] == ["npx -y gh", "env GITHUB_TOKEN", ""]
    github = next(preview.tree.topLevelItem(i) for i in range(3) if preview.tree.topLevelItem(i).text(0) == "github")
    shown = [github.child(i).text(1) for i in range(github.childCount())]  # every env entry, before it runs
    assert shown == ["env GITHUB_TOKEN = keyring entry mcp:github:GITHUB_TOKEN"] and github.isExpanded()  # as written
    report = preview.compatibility.toPlainText()  # one line per part of the source (#22)
    assert "[translated] github: env GITHUB_TOKEN — the literal secret moved to keyring entry" in report
    assert "[works] github: command" in report
    assert rows["time"][2] == "replaces the server of this name in your mcp.json"
    assert rows["broken"][2] == "requires either command or url"
    assert preview.chosen() == ["github"]  # the conflict starts unticked, the broken one cannot be ticked
    assert preview.import_button.text() == "Import and start 1 server"
    assert GH_TOKEN not in str(rows)

    qtbot.mouseClick(preview.import_button, Qt.MouseButton.LeftButton)
    servers = json.loads(mcp_json.read_text(encoding="utf-8"))["mcpServers"]
    assert servers["time"] == {"command": "old-time"}  # not ticked: left alone
    assert set(servers) == {"time", "github"}
    assert servers["github"]["env"]["GITHUB_TOKEN"] == "${keyring:mcp:github:GITHUB_TOKEN}"
    assert memory_keyring.store[("switchboard", "mcp:github:GITHUB_TOKEN")] == GH_TOKEN
    qtbot.waitUntil(lambda: "Imported and started" in window.statusBar().currentMessage())
    assert window.mcp_host.applied == [{"github"}]  # only the chosen server starts
