"""Settings → MCP over HTTP (pytest-qt, a real Runtime and Host): turning it on and saving serves the host
in-process, so an mcp SDK client over streamable HTTP with the token gets the agents and the chosen server's
tools (401 without the token); a call needing approval opens the approval dialog, and Allow lets it run; the
status bar and the page show the live URL; the clients and calls lists update; "Copy connection config" puts
valid JSON with the live URL and token on the clipboard; turning it off closes the port."""

from __future__ import annotations

import asyncio
import json
import socket
import threading
from typing import Any

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QPlainTextEdit

from desktop_app.runtime.agents import AgentCatalog, AgentRunner, register_agents
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.serve.service import existing_service
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import AgentSettings, ProviderSettings, Settings
from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.servers.http_host import HttpApprovalDialog, attached
from desktop_app.ui.settings.http_host_page import HttpHostPanel
from desktop_app.ui.settings.window import SettingsWindow
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeProvider, answer, calls


def notes_server() -> MCPServer:
    server = MCPServer("notes")

    @server.tool(description="Read a note")
    def read_note(title: str) -> str:
        return f"note {title}: buy milk"

    return server


def inner_conversation(runtime: Any) -> str:
    service = existing_service(runtime)
    assert service is not None and service._mcp is not None
    (conversation,) = service._mcp.conversations  # the allowed agent call's (the denied one never ran)
    return str(conversation)


@pytest.fixture
def runtime(qloop: Any, qtbot: Any, tmp_path: Any) -> Any:
    host = Host({})
    host.add_in_process("notes", notes_server)
    settings = Settings(
        provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"), agents=[AgentSettings(name="helper")]
    )
    provider = FakeProvider([calls(("c1", "mcp__notes__read_note", '{"title": "inner"}')), answer("helped")])
    runtime = Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy("ask"),
        provider_factory=lambda _s, _k: provider,
        settings_path=tmp_path / "settings.json",
    )
    catalog = AgentCatalog.build(settings)
    runtime.attach_agents(catalog)
    register_agents(host, AgentRunner(runtime, catalog))
    tasks = TaskRunner()
    started = tasks.start(host.start())
    qtbot.waitUntil(started.done)
    yield runtime
    service = existing_service(runtime)
    closing = tasks.start(service.stop() if service is not None else asyncio.sleep(0))
    qtbot.waitUntil(closing.done, timeout=10_000)
    closing = tasks.start(runtime.aclose())
    qtbot.waitUntil(closing.done, timeout=10_000)


def test_enable_serves_with_the_token_asks_approval_lists_clients_copies_config_and_disable_closes(
    qtbot: Any, runtime: Any
) -> None:
    main = MainWindow()
    qtbot.addWidget(main)
    window = SettingsWindow(runtime, main, host=runtime.host, tasks=main.tasks)
    qtbot.addWidget(window)
    view = window.show_page("http_host")
    panel = view.findChild(HttpHostPanel)
    assert panel is not None and panel.service.state == "off"
    assert not panel.copy.isEnabled()  # nothing to connect to yet
    ((_path, form),) = view.forms
    form.editors["enabled"].widget.setChecked(True)  # type: ignore[attr-defined]
    notes = panel.servers.findItems("notes", Qt.MatchFlag.MatchExactly)[0]
    notes.setCheckState(Qt.CheckState.Checked)
    assert window.save()
    assert runtime.settings.http_host.enabled and runtime.settings.http_host.expose == ["notes"]
    service = panel.service
    qtbot.waitUntil(lambda: service.state == "serving", timeout=10_000)
    url, token = service.url, service.token()
    assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp")
    status = attached(runtime).label
    assert status.text() == f"Serving MCP on {url}" and not status.isHidden()
    assert panel.state.text() == f"Serving MCP on {url}"

    plain: dict[str, int] = {}  # the client runs in a thread: the served host runs on this (Qt) thread's loop
    asking = threading.Thread(
        target=lambda: plain.update(
            status=httpx.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"}).status_code
        ),
        daemon=True,
    )
    asking.start()
    qtbot.waitUntil(lambda: not asking.is_alive(), timeout=30_000)
    assert plain["status"] == 401

    async def use() -> tuple[set[str], Any, Any, Any]:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            names = {t.name for t in (await client.list_tools()).tools}
            note = await client.call_tool("mcp__notes__read_note", {"title": "shopping"})
            denied = await client.call_tool("chat-with-helper", {"prompt": "help"})
            return names, note, denied, await client.call_tool("chat-with-helper", {"prompt": "read inner"})

    outcome: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: outcome.update(value=asyncio.run(use())), daemon=True)
    thread.start()
    qtbot.waitUntil(lambda: bool(attached(runtime).dialogs), timeout=30_000)  # the approval tier, not a denial
    (dialog,) = attached(runtime).dialogs.values()
    assert isinstance(dialog, HttpApprovalDialog) and dialog.isVisible()
    arguments = dialog.findChild(QPlainTextEdit, "httpApprovalArguments")
    assert dialog.approval.tool == "mcp__notes__read_note" and '"shopping"' in arguments.toPlainText()
    assert dialog.session_button is not None  # "Allow for this session" (tested in the runtime's tests)
    qtbot.mouseClick(dialog.allow_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: any(d is not dialog for d in attached(runtime).dialogs.values()), timeout=30_000)
    (agent_dialog,) = attached(runtime).dialogs.values()  # then the agent call asks too
    assert agent_dialog.approval.tool == "chat-with-helper"
    agent_dialog.reason.setText("not over HTTP today")
    qtbot.mouseClick(agent_dialog.deny_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: main.status.text().startswith("You denied chat-with-helper (from mcp"))

    def next_dialog(after: Any) -> Any:
        qtbot.waitUntil(lambda: any(d is not after for d in attached(runtime).dialogs.values()), timeout=30_000)
        (found,) = [d for d in attached(runtime).dialogs.values() if d is not after]
        return found

    again = next_dialog(agent_dialog)
    assert again.approval.tool == "chat-with-helper"
    qtbot.mouseClick(again.allow_button, Qt.MouseButton.LeftButton)
    inner = next_dialog(again)  # the agent's own call to the notes server, asked in the window too
    assert inner.approval is None and "helper" in inner.findChild(QLabel, "httpApprovalHeadline").text()
    assert '"inner"' in inner.findChild(QPlainTextEdit, "httpApprovalArguments").toPlainText()
    qtbot.mouseClick(inner.allow_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=30_000)
    names, result, denied, helped = outcome["value"]
    assert denied.is_error and "not over HTTP today" in denied.content[0].text
    assert not helped.is_error and helped.content[0].text == "helped"
    assert runtime.conversation(inner_conversation(runtime)).messages[-1].content == "helped"
    assert names == {"chat-with-assistant", "chat-with-helper", "mcp__notes__read_note"}
    assert not result.is_error and result.content[0].text == "note shopping: buy milk"

    qtbot.waitUntil(lambda: panel.calls.topLevelItemCount() == 3)
    rows = [[panel.calls.topLevelItem(i).text(c) for c in (2, 3)] for i in range(3)]
    assert rows == [["chat-with-helper", "ok"], ["chat-with-helper", "denied"], ["mcp__notes__read_note", "ok"]]
    assert panel.calls.topLevelItem(2).text(4).endswith(" s")  # the latest first
    client = panel.clients.topLevelItem(0)
    assert client.text(0).startswith("mcp") and client.text(4) == "3"

    panel.client_choice.setCurrentText("VS Code")
    qtbot.mouseClick(panel.copy, Qt.MouseButton.LeftButton)
    copied = json.loads(QGuiApplication.clipboard().text())
    assert copied["servers"]["switchboard"] == {
        "type": "http",
        "url": url,
        "headers": {"Authorization": f"Bearer {token}"},
    }
    panel.client_choice.setCurrentText("Claude Desktop")
    qtbot.mouseClick(panel.copy, Qt.MouseButton.LeftButton)
    bridge = json.loads(QGuiApplication.clipboard().text())["mcpServers"]["switchboard"]
    assert url in bridge["args"] and bridge["env"]["AUTH_HEADER"] == f"Bearer {token}"

    port = service.port
    form.editors["enabled"].widget.setChecked(False)  # type: ignore[attr-defined]
    assert window.save()
    qtbot.waitUntil(lambda: service.state == "off", timeout=10_000)
    assert status.isHidden() and not panel.copy.isEnabled()
    with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=2):
        pass


def test_a_port_in_use_shows_what_to_do_in_the_status_bar_and_on_the_page(qtbot: Any, runtime: Any) -> None:
    busy = socket.socket()
    busy.bind(("127.0.0.1", 0))
    busy.listen()
    try:
        main = MainWindow()
        qtbot.addWidget(main)
        window = SettingsWindow(runtime, main, host=runtime.host, tasks=main.tasks)
        qtbot.addWidget(window)
        view = window.show_page("http_host")
        panel = view.findChild(HttpHostPanel)
        ((_path, form),) = view.forms
        form.editors["enabled"].widget.setChecked(True)  # type: ignore[attr-defined]
        form.editors["port"].widget.setValue(busy.getsockname()[1])  # type: ignore[attr-defined]
        assert window.save()
        qtbot.waitUntil(lambda: panel.service.state == "failed", timeout=10_000)
        status = attached(runtime).label
        assert status.text().startswith(f"MCP over HTTP is off: Port {busy.getsockname()[1]} on 127.0.0.1 is already")
        assert "Choose another port in Settings → MCP over HTTP" in panel.state.text()
        assert not panel.copy.isEnabled()
    finally:
        busy.close()


def test_the_clients_list_shows_a_sessionless_client_by_its_last_activity_and_idle_later(
    qtbot: Any, runtime: Any
) -> None:
    main = MainWindow()
    qtbot.addWidget(main)
    window = SettingsWindow(runtime, main, host=runtime.host, tasks=main.tasks)
    qtbot.addWidget(window)
    panel = window.show_page("http_host").findChild(HttpHostPanel)
    log = panel.service.clients
    now = [10_000.0]
    log.clock = lambda: now[0]
    log.seen("editor 2", {"name": "editor", "version": "2"}, "2026-07-28", session=False)  # no session
    log.seen("sid-1", {"name": "old-cli", "version": "1"}, "2025-11-25")  # a session
    now[0] += 130

    def rows() -> dict[str, tuple[str, str]]:
        items = [panel.clients.topLevelItem(i) for i in range(panel.clients.topLevelItemCount())]
        return {item.text(0): (item.text(3), item.text(5)) for item in items}

    panel.activity_timer.timeout.emit()  # the page redraws on its timer as the clock moves
    assert rows() == {"editor 2": ("active 2 min ago", "active"), "old-cli 1": ("active 2 min ago", "connected")}
    assert panel.activity_timer.isActive() and panel.activity_timer.interval() == 30_000
    now[0] += 300
    panel.activity_timer.timeout.emit()
    assert rows() == {"editor 2": ("active 7 min ago", "idle"), "old-cli 1": ("active 7 min ago", "connected")}
    log.seen("editor 2", {"name": "editor", "version": "2"})  # it came back: redrawn at once
    assert rows()["editor 2"] == ("active just now", "active")
