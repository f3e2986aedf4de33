"""A big server does not hide the others (#20 item 2), through the real run loop: a real stdio MCP server with
60 tools ("bulk") next to two small servers (crm, time), the real Host, Runtime and deferral, and the loopback
LLM server speaking the real SSE wire.

* The first request's ``<available-deferred-tools>`` block names every server and lists the small servers'
  tools (``mcp__time__get_current_time``, ``mcp__crm__lookup``); the big one is capped, with how
  ``tool_search`` finds the rest. Before the fix the 60 tools filled the 4,000 characters and crm and time
  appeared nowhere.
* The model calls time's tool by the name it read there; it runs after approval.
* A tool that a message hook calls (``pii/redact``) is neither in the tool list nor in the block.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime import events as ev
from desktop_app.runtime.builtins import TOOLS
from desktop_app.runtime.builtins.tools import make_tools_server
from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host, ServerConfig
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.tools.deferral import DeferralSettings, ToolDeferral
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

BULK = Path(__file__).resolve().parents[1] / "support" / "many_tools_server.py"
BULK_DESCRIPTION = "Bulk operation number {n}: exports, imports and reconciles records in the warehouse."


def small_server(name: str, tool: str, description: str, answer: str) -> MCPServer:
    server = MCPServer(name, log_level="WARNING")

    def run(text: str = "") -> str:
        return answer

    server.add_tool(run, name=tool, description=description)
    return server


def system_text(body: dict[str, Any]) -> str:
    return "\n".join(m["content"] for m in body["messages"] if m["role"] == "system")


@pytest.mark.asyncio
@pytest.mark.integration
async def test_a_sixty_tool_server_leaves_every_server_named(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(
        tool_call_reply([("t1", "mcp__time__get_current_time", {})]),
        text_reply("It is 09:30."),
    )
    host = Host(
        {"bulk": ServerConfig(command=sys.executable, args=[str(BULK), "bulk", "60", BULK_DESCRIPTION])},
        startup_timeout=30,
    )
    host.add_in_process(
        "crm",
        lambda: small_server("crm", "lookup", "Look up a customer by name or e-mail.", "Ada"),
        ServerConfig(command="(in-process crm)"),
    )
    host.add_in_process(
        "time",
        lambda: small_server("time", "get_current_time", "The current time in an IANA timezone.", "09:30"),
        ServerConfig(command="(in-process time)"),
    )
    host.add_in_process(
        "pii",
        lambda: small_server("pii", "redact", "Redact personal data from a message.", "{}"),
        ServerConfig(command="(in-process pii)"),
    )
    runner = HookRunner()  # pii/redact filters messages; its key never matches a call here
    runner.add_hooks(parse_hooks({"tools/call?name=never_called": ["pii/redact"]}, HookSource("mcp-config")))
    host.set_hooks(runner)
    settings = Settings(provider=ProviderSettings(base_url=llm_server.url, model="m"))
    runtime = Runtime(settings=settings, host=host, policy=ApprovalPolicy("ask"))
    deferral = ToolDeferral(host, lambda: DeferralSettings.from_settings(runtime.settings))
    runtime.attach_deferral(deferral)
    host.register_builtin(TOOLS, lambda: make_tools_server(deferral.catalog))
    events: list[ev.Event] = []

    def on_event(event: ev.Event) -> None:
        events.append(event)
        if isinstance(event, ev.ApprovalRequired):
            runtime.answer(event.tool_call_id, approved=True)

    runtime.subscribe(on_event)
    try:
        await host.start()
        assert len(host.tools()) >= 63, host.states()
        conversation = runtime.new_conversation()
        outcome = await runtime.run(conversation, "What time is it?")
    finally:
        await runtime.aclose()
    assert outcome.status == "finished" and outcome.content == "It is 09:30."
    first = llm_server.requests[0].json
    block = system_text(first)
    assert "<available-deferred-tools>" in block  # 62 tools: deferred
    # The small servers, in full, under their summary lines.
    assert "[server: time] 1 tool\n  mcp__time__get_current_time — The current time in an IANA timezone." in block
    assert "[server: crm] 1 tool\n  mcp__crm__lookup — Look up a customer by name or e-mail." in block
    # The big one: named, capped, and how to find the rest.
    assert "[server: bulk] 60 tools, " in block and "  mcp__bulk__tool_000 — Bulk operation number 0" in block
    assert 'more: use tool_search "+mcp__bulk__ <words>"' in block
    assert "tool_search finds all 62 deferred tools" in block
    # The hook's target is not offered: not in the tools, not in the block.
    names = [t["function"]["name"] for t in first.get("tools", [])]
    assert "tool_search" in names and not any("redact" in n for n in names) and "pii" not in block
    # The model used time's tool by the name it read in the block.
    result = next(m for m in llm_server.requests[1].json["messages"] if m.get("tool_call_id") == "t1")
    assert result["content"] == "09:30"
    assert [e.tools for e in events if isinstance(e, ev.ToolsPromoted)] == [["mcp__time__get_current_time"]]
