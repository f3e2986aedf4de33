"""A message hook that does not answer ``{accept, mutated, message, reason}`` has not accepted the message:
plain text fails the call (closed) with an error and a notice naming the hook, and nothing runs; a JSON
object sent as text is read like structured output, and a hook that returns nothing keeps the message.
Through the real ``Host.call`` with in-process servers."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host

pytestmark = pytest.mark.asyncio


def _servers(ran: list[str]) -> tuple[MCPServer, MCPServer]:
    tools = MCPServer("tools", log_level="WARNING")

    @tools.tool(structured_output=False)
    async def wipe(target: str = "") -> str:
        ran.append(target)
        return f"wiped {target}"

    filters = MCPServer("filters", log_level="WARNING")

    @filters.tool(structured_output=False)
    async def chatty(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> str:
        return "Looks fine to me!"

    @filters.tool(structured_output=False)
    async def json_text(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> str:
        return '{"accept": false, "reason": "not today"}'

    @filters.tool(structured_output=False)
    async def a_list(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> str:
        return "[true]"

    @filters.tool(structured_output=False)
    async def silent(accept: bool, mutated: bool, message: dict[str, Any], reason: str) -> str:
        return ""

    return tools, filters


@pytest_asyncio.fixture
async def setup() -> AsyncIterator[tuple[Host, list[str]]]:
    ran: list[str] = []
    tools, filters = _servers(ran)
    host = Host(call_timeout=5)
    host.register_builtin("tools", lambda: tools)
    host.register_builtin("filters", lambda: filters)
    yield host, ran
    await host.aclose()


def _wire(host: Host, target: str) -> None:
    runner = HookRunner()
    found = parse_hooks({"tools/call?direction=request": [target]}, HookSource("user"))
    assert not found.problems
    runner.add_hooks(found)
    host.set_hooks(runner)


@pytest.mark.parametrize("target", ["filters/chatty", "filters/a_list"])
async def test_a_hook_answering_plain_text_fails_the_call_closed_and_says_so(
    setup: tuple[Host, list[str]], target: str
) -> None:
    host, ran = setup
    _wire(host, target)
    outcome = await host.call("tools", "wipe", {"target": "victim"})
    assert outcome.is_error and ran == []  # the tool never ran
    assert outcome.text.startswith('failed to call "request" hooks: failed to run hook')
    assert target in outcome.text and "not an object {accept, mutated, message, reason}" in outcome.text
    [notice] = outcome.hooks
    assert notice.kind == "rejected" and notice.hooks == [target] and target in notice.message


async def test_a_json_object_sent_as_text_is_read_as_the_answer(setup: tuple[Host, list[str]]) -> None:
    host, ran = setup
    _wire(host, "filters/json_text")
    outcome = await host.call("tools", "wipe", {"target": "victim"})
    assert outcome.is_error and ran == []
    assert outcome.text.endswith("rejected message: not today")


async def test_a_hook_that_returns_nothing_keeps_the_message(setup: tuple[Host, list[str]]) -> None:
    host, ran = setup
    _wire(host, "filters/silent")
    outcome = await host.call("tools", "wipe", {"target": "x"})
    assert not outcome.is_error and outcome.text == "wiped x" and ran == ["x"]
