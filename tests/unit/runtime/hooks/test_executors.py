"""The http and mcp hook types against real endpoints: a loopback HTTP server and an in-process MCP server."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.hooks.config import parse_hooks
from desktop_app.runtime.hooks.model import HookPayload, HookSource
from desktop_app.runtime.hooks.runner import HookRunner
from desktop_app.runtime.host import Host

from .conftest import runner_for


@pytest.fixture
def endpoint() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    received: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
            received.append({"body": body, "auth": self.headers.get("X-Token")})
            status, answer = {
                "/down": (503, b"busy"),
                "/block": (200, b'{"decision":"deny","reason":"nope"}'),
                "/plain": (200, b"ok"),
            }[self.path]
            self.send_response(status)
            self.send_header("Content-Length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", received
    server.shutdown()
    server.server_close()


@pytest.mark.asyncio
async def test_http_hook_statuses_bodies_headers_and_env(endpoint, monkeypatch) -> None:
    base, received = endpoint
    monkeypatch.setenv("HOOK_TEAM", "blue")
    monkeypatch.setenv("HOOK_SECRET", "never-sent")
    hook = {"type": "http", "headers": {"X-Token": "t1"}, "allowedEnvVars": ["HOOK_TEAM", "UNSET_VAR"]}
    runner = runner_for(
        {
            "PreToolUse": [{**hook, "url": f"{base}/plain"}, {**hook, "url": f"{base}/block"}],
            "PermissionRequest": [{**hook, "url": f"{base}/down"}],
            "PostToolUse": [{**hook, "url": f"{base}/down"}],
        }
    )
    pre = await runner.run("PreToolUse", HookPayload("PreToolUse", tool_name="t", tool_args={"a": 1}))
    assert [o.decision for o in pre.outcomes] == ["pass", "block"] and pre.block_message().endswith(": nope")
    assert received[0]["body"]["payload"]["tool_args"] == {"a": 1}
    assert received[0]["body"]["env"] == {"HOOK_TEAM": "blue"} and received[0]["auth"] == "t1"
    down = await runner.run("PermissionRequest", HookPayload("PermissionRequest", tool_name="t"))
    assert down.blocked and down.outcomes[0].stderr == "http hook returned 503"  # fail-closed
    post = await runner.run("PostToolUse", HookPayload("PostToolUse", tool_name="t"))
    assert not post.blocked and post.outcomes[0].decision == "error"


def guard_server(seen: list[dict[str, Any]]) -> MCPServer:
    server = MCPServer("guard", log_level="WARNING")

    @server.tool()
    async def check(
        event: str,
        cwd: str = "",
        tool_name: str = "",
        tool_args: dict[str, Any] | None = None,
        tool_call: dict[str, Any] | None = None,
        session_id: str = "",
    ) -> dict[str, Any]:
        seen.append({"event": event, "tool_name": tool_name, "tool_args": tool_args})
        if (tool_args or {}).get("path") == "/":
            return {"decision": "block", "reason": "not the root"}
        return {"decision": "pass", "additional_context": "checked by guard"}

    @server.tool(structured_output=False)
    async def echo(path: str) -> str:
        return f"listed {path}"

    return server


@pytest.mark.asyncio
async def test_mcp_hook_is_a_tool_call_through_the_host() -> None:
    seen: list[dict[str, Any]] = []
    host = Host(call_timeout=5)
    host.register_builtin("guard", lambda: guard_server(seen))
    runner = HookRunner()
    runner.add_hooks(
        parse_hooks({"PreToolUse": [{"type": "mcp", "target": "guard/check", "match": "echo"}]}, HookSource("user"))
    )
    host.set_hooks(runner)
    try:
        blocked = await host.call("guard", "echo", {"path": "/"})
        allowed = await host.call("guard", "echo", {"path": "/tmp"})
    finally:
        await host.aclose()
    assert blocked.is_error and json.loads(blocked.text)["error"] == (
        "Blocked by PreToolUse hook mcp hook 'guard/check': not the root"
    )
    assert allowed.text == "listed /tmp\nchecked by guard"
    assert [s["tool_args"] for s in seen] == [{"path": "/"}, {"path": "/tmp"}]  # the hook's own call is not hooked
