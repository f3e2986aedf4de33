"""Approvals anywhere in a run that a call over HTTP started reach the user in the window (pytest-qt, a real
Runtime and Host, an mcp SDK client over streamable HTTP with the token): the client calls the default agent,
which calls chat-with-helper, whose own tool call needs approval; each question opens the approval dialog and
is answered through ``Runtime.answer`` with the id the runtime gave it (the model reuses one call id)."""

from __future__ import annotations

import asyncio
import json
import threading
from typing import Any

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.server.mcpserver import MCPServer
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QLabel, QPlainTextEdit

from desktop_app.runtime import events as ev
from desktop_app.runtime.agents import AgentCatalog, AgentRunner, register_agents
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.serve.service import existing_service
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import AgentSettings, ProviderSettings, Settings
from desktop_app.ui.asyncqt import TaskRunner
from desktop_app.ui.servers.http_host import HttpApprovalDialog, attach_http_host
from desktop_app.ui.window.main_window import MainWindow
from tests.support.fakes import FakeProvider, answer, calls


def notes_server() -> MCPServer:
    server = MCPServer("notes")

    @server.tool(description="Read a note")
    def read_note(title: str) -> str:
        return f"note {title}: buy milk"

    return server


@pytest.fixture
def runtime(qloop: Any, qtbot: Any, tmp_path: Any) -> Any:
    host = Host({})
    host.add_in_process("notes", notes_server)
    settings = Settings(
        provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"),
        agents=[AgentSettings(name="helper", servers=["notes"])],
    )
    provider = FakeProvider(
        [
            calls(("c1", "chat-with-helper", json.dumps({"prompt": "read the inner note"}))),  # the default agent
            calls(("c1", "mcp__notes__read_note", '{"title": "inner"}')),  # the helper: the same id from the model
            answer("helped"),
            answer("the helper says: helped"),
        ]
    )
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


def test_a_subagents_approval_under_a_call_over_http_opens_the_dialog_and_is_answered_by_id(
    qtbot: Any, runtime: Any
) -> None:
    main = MainWindow()
    qtbot.addWidget(main)
    ui = attach_http_host(main, runtime)
    asked: list[ev.ApprovalRequired] = []
    decided: list[ev.ApprovalDecided] = []
    runtime.subscribe(lambda e: asked.append(e) if isinstance(e, ev.ApprovalRequired) else None)
    runtime.subscribe(lambda e: decided.append(e) if isinstance(e, ev.ApprovalDecided) else None)
    starting = main.tasks.start(ui.service.start(0))
    qtbot.waitUntil(starting.done, timeout=10_000)
    url, token = ui.service.url, ui.service.token()

    async def use() -> Any:
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {token}"}, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            return await client.call_tool("chat-with-assistant", {"prompt": "ask the helper"})

    outcome: dict[str, Any] = {}
    thread = threading.Thread(target=lambda: outcome.update(value=asyncio.run(use())), daemon=True)
    thread.start()

    def next_dialog(after: Any = None) -> HttpApprovalDialog:
        qtbot.waitUntil(lambda: any(d is not after for d in ui.dialogs.values()), timeout=30_000)
        (found,) = [d for d in ui.dialogs.values() if d is not after]
        return found

    direct = next_dialog()  # the client's own call
    assert direct.approval is not None and direct.approval.tool == "chat-with-assistant"
    qtbot.mouseClick(direct.allow_button, Qt.MouseButton.LeftButton)
    agent_call = next_dialog(direct)  # the default agent's call of the helper
    assert agent_call.approval is None
    assert "assistant" in agent_call.findChild(QLabel, "httpApprovalHeadline").text()
    qtbot.mouseClick(agent_call.allow_button, Qt.MouseButton.LeftButton)
    nested = next_dialog(agent_call)  # the helper's own call, one agent deeper
    headline = nested.findChild(QLabel, "httpApprovalHeadline").text()
    assert "<b>helper</b>" in headline and "read_note" in headline and "notes" in headline
    assert '"inner"' in nested.findChild(QPlainTextEdit, "httpApprovalArguments").toPlainText()
    assert nested.isVisible()
    qtbot.mouseClick(nested.allow_button, Qt.MouseButton.LeftButton)
    qtbot.waitUntil(lambda: not thread.is_alive(), timeout=30_000)

    result = outcome["value"]
    assert not result.is_error and result.content[0].text == "the helper says: helped"
    outer, inner = asked
    assert (outer.tool, inner.tool) == ("chat-with-helper", "read_note")
    assert outer.conversation_id != inner.conversation_id  # the helper's run is its own conversation
    assert outer.tool_call_id != inner.tool_call_id  # ids the runtime owns, not the model's "c1"
    assert [(d.tool_call_id, d.approved) for d in decided] == [(outer.tool_call_id, True), (inner.tool_call_id, True)]
    assert ui.dialogs == {}
    assert main.status.text().startswith("You allowed read_note (agent helper for mcp")
