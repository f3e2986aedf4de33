"""``switchboard serve`` as a user runs it: a separate process, an mcp SDK client over streamable HTTP with
the bearer token (lists the ``chat-with-*`` tools, calls one that runs the agent on the loopback LLM and the
real mcp-server-time), 401 without the token, and SIGTERM at the end with nothing left running."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from tests.support.llm_server import DONE, Gate, Reply, ScriptedLLMServer, chunk, text_reply, tool_call_reply

SWITCHBOARD = str(Path(sys.executable).parent / "switchboard")
TOKEN = "test-token-0123456789abcdef"


def children_of(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                found.append(int(entry.name))
    return found


def alive(pid: int) -> bool:
    try:
        state = (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


async def follow_progress(client: Client, llm_server: ScriptedLLMServer) -> list[dict[str, object]]:
    """Call the researcher while its answer streams (held at a gate) and follow its ``chat-progress``."""
    gate = Gate()
    llm_server.enqueue(
        Reply(steps=[chunk(content="Half "), gate, chunk(content="and whole."), chunk(finish_reason="stop"), DONE])
    )
    announced: asyncio.Future[str] = asyncio.get_running_loop().create_future()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        if message and message.startswith("chat-progress: ") and not announced.done():
            announced.set_result(message.removeprefix("chat-progress: "))

    call = asyncio.ensure_future(
        client.call_tool("chat-with-researcher", {"prompt": "Stream it"}, progress_callback=on_progress)
    )
    uri = await asyncio.wait_for(announced, 30)
    assert uri.startswith("switchboard://conversations/") and uri.endswith("/chat-progress")
    seen: list[dict[str, object]] = []

    async def read() -> dict[str, object]:
        contents = (await client.read_resource(uri)).contents
        state: dict[str, object] = json.loads(contents[0].text)  # type: ignore[union-attr]
        seen.append(state)
        return state

    async with client.listen(resource_subscriptions=[uri]) as subscription:
        assert uri in subscription.honored.resource_subscriptions  # type: ignore[operator]
        state = await read()
        events = aiter(subscription)
        while state["content"] != "Half ":  # the first delta, before the gate
            await asyncio.wait_for(anext(events), 30)
            state = await read()
        assert state["status"] == "running"
        gate.open()  # the rest of the answer streams now
        while state["status"] == "running":
            await asyncio.wait_for(anext(events), 30)
            state = await read()
    result = await asyncio.wait_for(call, 30)
    assert not result.is_error and result.content[0].text == "Half and whole."  # type: ignore[union-attr]
    assert (state["status"], state["content"]) == ("end_turn", "Half and whole.")
    return seen


def start_serve(home: Path) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring", "SB_TOKEN": TOKEN}
    return subprocess.Popen(
        [SWITCHBOARD, "serve", "--home", str(home), "--token-env", "SB_TOKEN", "--approve", "always"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
        text=True,
        env=env,
    )


@pytest.mark.integration
@pytest.mark.asyncio
async def test_serve_process_answers_an_mcp_client_with_the_token_and_stops_on_sigterm(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    home = tmp_path / "h"
    (home / "config" / "agents").mkdir(parents=True)
    (home / "config" / "agents" / "researcher.md").write_text(
        "---\ndescription: Tells the time\nservers: [switchboard.history, time]\n---\nYou research.\n"
    )
    (home / "config" / "settings.json").write_text(
        json.dumps(
            {
                "provider": {"base_url": llm_server.url, "model": "m", "dialect": "openai"},
                "http_host": {"expose": ["time"]},  # serve uses the app's choice of servers to serve too
            }
        )
    )
    (home / "config" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}})
    )
    llm_server.enqueue(
        tool_call_reply([("t1", "mcp__time__get_current_time", {"timezone": "UTC"})]),
        text_reply("It is noon in UTC."),
    )
    proc = start_serve(home)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()  # the first line is the URL
        assert url.startswith("http://127.0.0.1:") and url.endswith("/mcp"), (url, proc.stderr and proc.stderr.read())

        async with httpx.AsyncClient() as plain:
            refused = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {}})
        assert refused.status_code == 401 and "Bearer" in refused.headers["www-authenticate"]

        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            tools = {t.name for t in (await client.list_tools()).tools}
            served_time = {"mcp__time__get_current_time", "mcp__time__convert_time"}
            assert tools == {"chat-with-assistant", "chat-with-researcher"} | served_time
            result = await client.call_tool("chat-with-researcher", {"prompt": "What time is it in UTC?"})
            progress = await follow_progress(client, llm_server)
        assert not result.is_error, result
        assert result.content[0].text == "It is noon in UTC."  # type: ignore[union-attr]
        researcher = llm_server.requests[0].json
        assert {t["function"]["name"] for t in researcher["tools"]} >= {"mcp__time__get_current_time"}
        assert "save_artifact" not in {t["function"]["name"] for t in researcher["tools"]}
        assert progress[0]["status"] == "running" and progress[-1]["status"] == "end_turn"  # read while it streamed
        tool_message = llm_server.requests[1].json["messages"][-1]
        assert tool_message["role"] == "tool" and "UTC" in tool_message["content"]  # the real time server ran

        children = children_of(proc.pid)
        assert children  # the time server runs under serve
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0, proc.stderr.read() if proc.stderr else ""
        assert not [pid for pid in children if alive(pid)]  # nothing left running
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()


@pytest.mark.integration
@pytest.mark.asyncio
async def test_serve_follows_its_policy_for_a_subagents_approval_under_a_call_over_http(
    llm_server: ScriptedLLMServer, tmp_path: Path
) -> None:
    """``--approve always``, no terminal: an agent stricter than that (``approval: ask``), called by the default
    agent that a client called, asks for its tool call; nobody can answer, so it is denied with the reason
    (the run does not hang) and the agent reads it."""
    home = tmp_path / "h"
    (home / "config" / "agents").mkdir(parents=True)
    (home / "config" / "agents" / "careful.md").write_text(
        "---\ndescription: Asks first\nservers: [time]\napproval: ask\n---\nYou are careful.\n"
    )
    (home / "config" / "settings.json").write_text(
        json.dumps({"provider": {"base_url": llm_server.url, "model": "m", "dialect": "openai"}})
    )
    (home / "config" / "mcp.json").write_text(
        json.dumps({"mcpServers": {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}})
    )
    llm_server.enqueue(
        tool_call_reply([("a1", "chat-with-careful", {"prompt": "What time is it?"})]),
        tool_call_reply([("t1", "mcp__time__get_current_time", {"timezone": "UTC"})]),
        text_reply("I was not allowed to look."),
        text_reply("The careful agent could not look."),
    )
    proc = start_serve(home)
    try:
        assert proc.stdout is not None
        url = proc.stdout.readline().strip()
        assert url.endswith("/mcp"), proc.stderr and proc.stderr.read()
        headers = {"Authorization": f"Bearer {TOKEN}"}
        async with (
            httpx2.AsyncClient(headers=headers, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            result = await asyncio.wait_for(client.call_tool("chat-with-assistant", {"prompt": "Ask careful"}), 30)
        assert not result.is_error and result.content[0].text == "The careful agent could not look."  # type: ignore[union-attr]
        denied = llm_server.requests[2].json["messages"][-1]  # the careful agent's tool result
        assert denied["role"] == "tool" and "no terminal to ask" in denied["content"]
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=15) == 0
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        for pipe in (proc.stdout, proc.stderr):
            if pipe is not None:
                pipe.close()
