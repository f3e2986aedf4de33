"""The composer's MCP features: prompts as ``/`` commands, and Attach resource… as a context chip.

Real Runtime and Host with an in-process built-in server that has prompts and resources; sync tests on the
running ``qloop``, waiting with qtbot on observable state.
"""

from __future__ import annotations

from typing import Any

from mcp.server.mcpserver import MCPServer
from PySide6.QtCore import Qt

from desktop_app.runtime import events as ev
from desktop_app.runtime.host import Host
from desktop_app.runtime.messages import UserMessage
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.ui.chat.slash import PromptCatalog, PromptEntry
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeProvider, answer

SERVER = "switchboard.notes"


def make_server() -> MCPServer:
    server = MCPServer("notes", log_level="WARNING")

    @server.prompt(description="Review some code")
    def review(code: str, focus: str = "") -> str:
        return f"Please review:\n{code}" + (f"\nFocus on {focus}." if focus else "")

    @server.prompt(description="Say hello")
    def hello() -> str:
        return "Hello there"

    @server.resource("note://readme", mime_type="text/markdown", description="The read-me")
    def readme() -> str:
        return "# Read me\nAll about notes."

    return server


def _await(qtbot: Any, loop: Any, coro: Any, timeout: int = 10_000) -> Any:
    task = loop.create_task(coro)
    qtbot.waitUntil(task.done, timeout=timeout)
    return task.result()


def real_window(qtbot: Any, qloop: Any, provider: FakeProvider) -> tuple[MainWindow, Runtime, Host]:
    host = Host(call_timeout=30)
    host.register_builtin(SERVER, make_server)
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=host, provider_factory=lambda _s, _k: provider)
    win = MainWindow()
    qtbot.addWidget(win)
    win.attach_runtime(runtime)
    win.attach_host(host)
    win.show()
    qtbot.waitExposed(win)
    _await(qtbot, qloop, host.ensure_connected(SERVER))  # "ready": the catalog fetches its prompts
    return win, runtime, host


def test_slash_lists_prompts_and_fills_the_composer(qtbot, qloop) -> None:
    win, runtime, _host = real_window(qtbot, qloop, FakeProvider())
    slash = win.slash
    assert slash is not None
    try:
        edit = win.composer.edit
        qtbot.waitUntil(lambda: len(slash.catalog.entries()) == 2)
        qtbot.keyClicks(edit, "/")
        assert slash.popup.isVisible()
        assert [e.command for e in slash.entries_shown()] == [f"{SERVER}/hello", f"{SERVER}/review"]
        assert "Review some code" in slash.popup.item(1).text()
        qtbot.keyClicks(edit, "rev")
        assert [e.name for e in slash.entries_shown()] == ["review"]
        qtbot.keyClick(edit, Qt.Key.Key_Return)  # chooses; the prompt has arguments: the inline form
        assert not slash.popup.isVisible()
        form = slash.form
        assert form is not None and list(form.edits) == ["code", "focus"]
        form.insert_button.click()  # "code" is required
        assert not form.error.isHidden() and "code" in form.error.text()
        qtbot.keyClicks(form.edits["code"], "print(1)")
        qtbot.keyClick(form.edits["code"], Qt.Key.Key_Return)
        qtbot.waitUntil(lambda: win.composer.text == "Please review:\nprint(1)")
        assert slash.form is None and not slash.popup.isVisible()
        assert not win.controller.busy  # filled, not sent: the user edits first
    finally:
        _await(qtbot, qloop, runtime.aclose())


def test_prompt_without_arguments_and_escape_closes_the_list(qtbot, qloop) -> None:
    win, runtime, _host = real_window(qtbot, qloop, FakeProvider())
    slash = win.slash
    assert slash is not None
    try:
        edit = win.composer.edit
        qtbot.waitUntil(lambda: len(slash.catalog.entries()) == 2)
        qtbot.keyClicks(edit, "/")
        qtbot.keyClick(edit, Qt.Key.Key_Escape)
        assert not slash.popup.isVisible() and win.composer.text == "/"
        qtbot.keyClicks(edit, "h")
        assert slash.popup.isVisible()
        qtbot.keyClick(edit, Qt.Key.Key_Tab)
        qtbot.waitUntil(lambda: win.composer.text == "Hello there")
        assert slash.form is None
        win.composer.set_text("/ not a command")
        assert not slash.popup.isVisible()
    finally:
        _await(qtbot, qloop, runtime.aclose())


class FakePromptHost:
    def __init__(self) -> None:
        self.listed: list[str] = []
        self.listeners: list[Any] = []

    def subscribe(self, listener: Any) -> Any:
        self.listeners.append(listener)
        return lambda: None

    def states(self) -> dict[str, Any]:
        return {}

    async def list_prompts(self, server: str) -> list[Any]:
        self.listed.append(server)
        if server == "broken":
            raise RuntimeError("no prompts capability")
        return [type("P", (), {"name": "p", "description": "d", "title": None, "arguments": []})()]


def test_catalog_follows_server_events(qtbot, qloop) -> None:
    host = FakePromptHost()
    catalog = PromptCatalog()
    catalog.attach(host)
    catalog.on_event(ev.ServerStateChanged(server="a", state="ready"))
    catalog.on_event(ev.ServerStateChanged(server="broken", state="ready"))
    qtbot.waitUntil(lambda: not catalog.loading and "broken" in catalog.prompts)
    assert catalog.entries() == [PromptEntry("a", "p", "d")] and catalog.prompts["broken"] == []
    catalog.on_event(ev.ToolsChanged(server="a", tool_count=1))
    qtbot.waitUntil(lambda: host.listed.count("a") == 2 and not catalog.loading)
    with qtbot.waitSignal(catalog.changed):
        catalog.on_event(ev.ServerStateChanged(server="a", state="failed", error="boom"))
    assert catalog.entries() == []


def test_attach_resource_as_a_chip_goes_with_the_next_prompt(qtbot, qloop) -> None:
    provider = FakeProvider([answer("Got it")])
    win, runtime, _host = real_window(qtbot, qloop, provider)
    try:
        assert win.composer.resource_button.isEnabled()
        win.composer.resource_button.click()
        dialog = win.resources_dialog
        assert dialog is not None and dialog.isVisible() and not dialog.isModal()
        qtbot.waitUntil(lambda: dialog.resources() == [(SERVER, "note://readme", "readme")])
        row = dialog.tree.topLevelItem(0)
        assert row is not None and row.child(0).text(2) == "text/markdown"
        dialog.tree.setCurrentItem(row.child(0))
        assert dialog.attach_button.isEnabled()
        dialog.attach_button.click()
        qtbot.waitUntil(lambda: any(c.text == "Resource: readme" for c in win.composer.chips.chips()))
        qtbot.keyClicks(win.composer.edit, "Summarise the read-me")
        qtbot.mouseClick(win.composer.button, Qt.MouseButton.LeftButton)
        qtbot.waitUntil(lambda: not win.controller.busy and bool(provider.requests), timeout=15_000)
        message = provider.requests[0].messages[-1]
        assert isinstance(message, UserMessage) and message.content == "Summarise the read-me"
        assert f'<resource server="{SERVER}" uri="note://readme" type="text/markdown">' in message.context
        assert "# Read me\nAll about notes." in message.context
        assert not any(c.text == "Resource: readme" for c in win.composer.chips.chips())  # went with that prompt
    finally:
        _await(qtbot, qloop, runtime.aclose())


def test_resources_dialog_without_ready_servers(window: MainWindow) -> None:
    class NoServers:
        def subscribe(self, _listener: Any) -> Any:
            return lambda: None

        def states(self) -> dict[str, Any]:
            return {}

        async def list_resources(self, server: str) -> list[Any]:  # pragma: no cover - nothing is ready
            return []

        def stderr_tail(self, _name: str) -> str:  # pragma: no cover
            return ""

    window.attach_host(NoServers())
    dialog = window.open_resources_dialog()
    assert dialog is not None and "No MCP server is ready" in dialog.status.text()
