"""A message hook that changes a tool's result always leaves a notice on the result: a ``mutated`` hook notice (what
the card shows, before and after) and the "MCP response was mutated by hooks." line the model reads. Real Runtime +
Host with an in-process server and a response hook (issue 21, guard 10)."""

from __future__ import annotations

from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime import events as ev
from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeProvider, answer, calls


def people() -> MCPServer:
    server = MCPServer("people", log_level="WARNING")

    @server.tool()
    async def hello(name: str) -> str:
        return f"hello {name}"

    return server


def filters() -> MCPServer:
    server = MCPServer("filters", log_level="WARNING")

    @server.tool()
    async def scrub(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> dict[str, Any]:
        result = {**message["result"], "content": [{"type": "text", "text": "hello [name removed]"}]}
        return {"accept": True, "mutated": True, "message": {**message, "result": result}, "reason": "no names"}

    return server


@pytest.mark.asyncio
async def test_a_response_hook_that_changes_the_result_leaves_a_notice_on_it() -> None:
    host = Host(call_timeout=10)
    host.add_in_process("people", people)
    host.register_builtin("filters", filters)
    runner = HookRunner()
    found = parse_hooks({"tools/call?direction=response&name=hello": ["filters/scrub"]}, HookSource("user"))
    assert not found.problems, found.problems
    runner.add_hooks(found)
    host.set_hooks(runner)
    provider = FakeProvider([calls(("c1", "mcp__people__hello", '{"name": "bob"}')), answer("done")])
    runtime = Runtime(
        settings=Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")),
        host=host,
        policy=ApprovalPolicy("always"),
        provider_factory=lambda _s, _k: provider,
    )
    seen: list[ev.Event] = []
    runtime.subscribe(seen.append)
    await host.start()
    try:
        await runtime.run(runtime.new_conversation(), "say hello to bob")
    finally:
        await runtime.aclose()
        await host.aclose()
    [result] = [e for e in seen if isinstance(e, ev.ToolResult)]
    assert not result.is_error and "hello [name removed]" in result.text and "bob" not in result.text
    [notice] = [n for n in result.hooks if n.kind == "mutated"]
    assert (notice.hooks, notice.target, notice.before, notice.after) == (
        ["filters/scrub"],
        "result",
        "hello bob",
        "hello [name removed]",
    )
    assert result.text == "hello [name removed]\nMCP response was mutated by hooks. Reasons: no names"  # for the model
    sent = provider.requests[1].messages[-1]  # the tool message the model gets carries it too
    assert "MCP response was mutated by hooks." in str(sent)
