"""Settings → Folders the servers may see…: granted folders reach the server's ``roots/list``, are saved in
the settings, and are applied again at start (``assembly``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Annotated, Any

import mcp_types as mtypes
from mcp.server.mcpserver import ListRoots, MCPServer, Resolve
from PySide6.QtWidgets import QFileDialog

from desktop_app.assembly import assemble
from desktop_app.paths import app_paths
from desktop_app.runtime.host import Host
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings, load_settings, save_settings
from desktop_app.ui.dialogs.roots import RootsDialog
from desktop_app.ui.window.main_window import MainWindow

SERVER = "switchboard.rooty"


def _roots() -> ListRoots:
    return ListRoots()


def make_server() -> MCPServer:
    server = MCPServer("rooty", log_level="WARNING")

    @server.tool()
    async def roots(result: Annotated[mtypes.ListRootsResult, Resolve(_roots)]) -> str:
        return ",".join(str(root.uri) for root in result.roots) or "(none)"

    return server


def _await(qtbot: Any, loop: Any, coro: Any, timeout: int = 10_000) -> Any:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def test_granted_folders_reach_the_server_and_are_saved(qtbot, qloop, tmp_path: Path) -> None:
    granted = tmp_path / "project"
    granted.mkdir()
    settings_path = tmp_path / "settings.json"
    host = Host(call_timeout=30)
    host.register_builtin(SERVER, make_server)
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=host, settings_path=settings_path)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_host(host)
    try:
        assert win.roots_action.isEnabled()
        win.roots_action.trigger()
        dialog = win.roots_dialog
        assert isinstance(dialog, RootsDialog) and dialog.isVisible() and not dialog.isModal()
        assert dialog.folders() == []
        assert _await(qtbot, qloop, host.call(SERVER, "roots", {})).text == "(none)"

        picker = dialog.open_folder_dialog()  # non-blocking: open(), never exec()
        assert isinstance(picker, QFileDialog) and picker.fileMode() == QFileDialog.FileMode.Directory
        with qtbot.waitSignal(dialog.applied) as applied:
            picker.fileSelected.emit(str(granted))
        picker.close()
        resolved = str(granted.resolve())
        assert applied.args == [[resolved]] and dialog.folders() == [resolved]
        assert runtime.roots() == [granted.resolve()]
        assert runtime.settings.roots == [resolved]
        assert json.loads(settings_path.read_text())["roots"] == [resolved]
        assert _await(qtbot, qloop, host.call(SERVER, "roots", {})).text == granted.resolve().as_uri()

        dialog.list.setCurrentRow(0)
        with qtbot.waitSignal(dialog.applied):
            dialog.remove_button.click()
        assert runtime.roots() == [] and load_settings(settings_path).roots == []
        assert _await(qtbot, qloop, host.call(SERVER, "roots", {})).text == "(none)"
    finally:
        _await(qtbot, qloop, runtime.aclose())


def test_adding_a_folder_twice_keeps_one(qtbot, qloop, tmp_path: Path) -> None:
    class RootsRuntime:
        def __init__(self) -> None:
            self.applied: list[list[Path]] = []

        def roots(self) -> list[Path]:
            return [tmp_path]

        async def set_roots(self, paths: list[Path]) -> None:
            self.applied.append(list(paths))

    runtime = RootsRuntime()
    dialog = RootsDialog(runtime)
    qtbot.addWidget(dialog)
    assert dialog.folders() == [str(tmp_path)]
    dialog.add_folder(str(tmp_path))
    assert "already granted" in dialog.status.text() and runtime.applied == []


def test_saved_roots_are_applied_at_start(tmp_path: Path) -> None:
    paths = app_paths(tmp_path / "home")
    granted = tmp_path / "shared"
    granted.mkdir()
    save_settings(paths.settings_file, Settings(roots=[str(granted)]))
    assembly = assemble(paths, strict=True, persist=False)
    assert assembly.host.roots() == [granted.resolve()]
    assert assembly.runtime.roots() == [granted.resolve()]


def test_settings_menu_has_the_folders_action(window: MainWindow) -> None:
    actions = [a.text() for a in window.menuBar().actions() if a.text() == "&Settings"]
    assert actions
    assert window.roots_action.text() == "&Folders the servers may see…"
    assert not window.roots_action.isEnabled()  # no MCP host attached yet
