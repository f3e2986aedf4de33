"""An MCP client of the served host reads an agent's run as resources while it waits on an approval
(``pending-elicitation`` lists it until it is answered; ``chat-history`` then holds the call and its result),
and ``chat-with-<agent>`` takes ``attachments``: local files (paths or ``file://`` URLs) reach the agent's
model with the prompt, anything else is refused with a sentence. Stopping the parent while the agent waits
ends the agent's run as cancelled (``subagent_finished``), so its sub-conversation never looks busy."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from mcp import Client

from desktop_app.runtime import events as ev
from desktop_app.runtime.serve.host import make_http_host
from desktop_app.runtime.settings import AgentSettings
from tests.support.fakes import answer, calls
from tests.unit.runtime.agents.test_agents import build, chat

HELPER = AgentSettings(name="helper", servers=["switchboard.t"], tools=["ping"])


async def yes(_tool: str, _arguments: dict[str, Any]) -> tuple[bool, str]:
    return True, ""


def text(result: Any) -> str:
    return str(result.contents[0].text)


@pytest.mark.asyncio
async def test_a_client_reads_the_pending_approval_of_the_agents_run_and_its_history() -> None:
    runtime, _provider, _seen = build([HELPER], [calls(("p", "ping", "{}")), answer("pinged")], mode="ask")
    asked: asyncio.Future[ev.ApprovalRequired] = asyncio.get_running_loop().create_future()

    def listen(event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalRequired) and not asked.done():
            asked.set_result(event)

    runtime.subscribe(listen)
    catalog = runtime.agents
    assert catalog is not None
    server = make_http_host(runtime.host, catalog, runtime.policy, yes, runtime=runtime)
    uris: list[str] = []

    async def on_progress(_p: float, _t: float | None, message: str | None) -> None:
        uris.append((message or "").removeprefix("chat-progress: "))

    try:
        async with Client(server) as client:
            call = asyncio.ensure_future(
                client.call_tool("chat-with-helper", {"prompt": "ping it"}, progress_callback=on_progress)
            )
            waiting = await asyncio.wait_for(asked, 10)
            base = uris[0].removesuffix("chat-progress")
            pending = json.loads(text(await client.read_resource(base + "pending-elicitation")))
            assert pending["conversation_id"] == waiting.conversation_id
            assert pending["approvals"] == [
                {"tool_call_id": waiting.tool_call_id, "server": "switchboard.t", "tool": "ping", "arguments": {}}
            ]
            progress = json.loads(text(await client.read_resource(uris[0])))
            assert progress["status"] == "running" and progress["tool_calls"][0]["tool"] == "ping"
            runtime.answer(waiting.tool_call_id, approved=True)
            result = await asyncio.wait_for(call, 10)
            assert not result.is_error and result.content[0].text == "pinged"  # type: ignore[union-attr]
            pending = json.loads(text(await client.read_resource(base + "pending-elicitation")))
            history = json.loads(text(await client.read_resource(base + "chat-history")))
        assert pending["approvals"] == []
        roles = [m["role"] for m in history["messages"]]
        assert roles == ["user", "assistant", "tool", "assistant"]
        assert history["messages"][2]["content"] == "pong" and history["messages"][3]["content"] == "pinged"
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_attachments_reach_the_agents_model_and_a_url_is_refused(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    notes.write_text("The launch is on Friday.", encoding="utf-8")
    runtime, provider, _seen = build([HELPER], [answer("Friday"), answer("Friday again")])
    catalog = runtime.agents
    assert catalog is not None
    server = make_http_host(runtime.host, catalog, runtime.policy, None, runtime=runtime)
    try:
        async with Client(server) as client:
            by_path = await client.call_tool("chat-with-helper", {"prompt": "When?", "attachments": [str(notes)]})
            by_url = await client.call_tool(
                "chat-with-helper",
                {"prompt": "When?", "attachments": [{"url": notes.as_uri(), "name": "notes.txt"}]},
            )
            remote = await client.call_tool(
                "chat-with-helper", {"prompt": "When?", "attachments": ["https://example.com/notes.txt"]}
            )
        assert not by_path.is_error and not by_url.is_error
        for request in provider.requests:
            prompt = request.messages[-1]
            assert "The launch is on Friday." in json.dumps(prompt.model_dump(mode="json"))
        assert len(provider.requests) == 2  # the refused one never reached a model
        message = remote.content[0].text  # type: ignore[union-attr]
        assert remote.is_error and "is not a local file" in message and "file:// URL or a path" in message
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_stopping_the_parent_while_the_agent_waits_ends_its_run_as_cancelled() -> None:
    script = [chat("1", "helper"), calls(("p", "ping", "{}")), answer("never")]
    runtime, _provider, seen = build([HELPER], script, mode="ask")
    parent = runtime.new_conversation()

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.ApprovalRequired):
            if event.conversation_id == parent:
                runtime.answer(event.tool_call_id, approved=True)  # chat-with-helper itself
            else:
                runtime.cancel(parent)  # the user stops while the helper's ping waits

    runtime.subscribe(on_event)
    try:
        outcome = await runtime.run(parent, "start")
        assert outcome.status == "cancelled"
        [finished] = [e for e in seen if isinstance(e, ev.SubagentFinished)]
        assert finished.status == "cancelled" and finished.conversation_id == parent
        assert runtime.pending_approvals() == []
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_each_agent_is_a_lazy_server_with_one_chat_with_tool_taking_prompt_and_attachments() -> None:
    from desktop_app.runtime.agents import AgentRunner, make_agent_server

    created: list[str] = []
    runtime, _provider, _seen = build([], [])
    host = runtime.host
    catalog = runtime.agents
    assert catalog is not None
    catalog.agents["helper"] = HELPER  # defined, not yet registered: register it by hand to count creations
    runner = AgentRunner(runtime, catalog)

    def factory() -> Any:
        created.append("helper")
        return make_agent_server(runner, "helper")

    host.register_builtin("switchboard.agent.helper", factory)  # type: ignore[union-attr]
    try:
        assert created == [] and host.states()["switchboard.agent.helper"].state != "ready"  # type: ignore[union-attr]
        async with Client(make_agent_server(runner, "helper")) as client:
            [tool] = (await client.list_tools()).tools
        assert tool.name == "chat-with-helper"
        schema = tool.input_schema
        assert schema["required"] == ["prompt"] and set(schema["properties"]) == {"prompt", "attachments"}
        await host.ensure_builtins()  # type: ignore[union-attr]
        assert created == ["helper"]  # made on first use, once
        assert host.lookup("chat-with-helper").server == "switchboard.agent.helper"  # type: ignore[union-attr]
    finally:
        await runtime.aclose()
