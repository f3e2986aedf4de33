"""A PermissionRequest hook that blocks decides the run's call: it is denied with the hook's reason, the user is
never asked (one click cannot approve what the hook refused) and the tool does not run; a hook that does not
block leaves the question to the user. Real Runtime, real Host, a command hook as a user writes it."""

from __future__ import annotations

import pytest
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime import events as ev
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeProvider, answer, calls
from tests.unit.runtime.hooks.conftest import runner_for

ran: list[str] = []


def disk() -> MCPServer:
    server = MCPServer("disk", log_level="WARNING")

    @server.tool()
    async def erase(path: str) -> str:
        ran.append(path)
        return f"erased {path}"

    return server


async def run(command: str) -> list[ev.Event]:
    ran.clear()
    host = Host(call_timeout=10)
    host.add_in_process("disk", disk)
    host.set_hooks(runner_for({"PermissionRequest": [{"command": command}]}))
    provider = FakeProvider([calls(("c1", "mcp__disk__erase", '{"path": "/home"}')), answer("done")])
    runtime = Runtime(
        settings=Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")),
        host=host,
        policy=ApprovalPolicy("ask"),
        provider_factory=lambda _s, _k: provider,
    )
    seen: list[ev.Event] = []

    def on_event(event: ev.Event) -> None:
        seen.append(event)
        if isinstance(event, ev.ApprovalRequired):
            runtime.answer(event.tool_call_id, approved=True)  # the click a blocked call must never get

    runtime.subscribe(on_event)
    await host.start()
    try:
        await runtime.run(runtime.new_conversation(), "erase my home")
    finally:
        await runtime.aclose()
    return seen


@pytest.mark.asyncio
async def test_a_blocking_permission_request_hook_denies_the_call_without_asking() -> None:
    seen = await run("echo 'erasing home folders is not allowed' >&2; exit 2")
    assert not [e for e in seen if isinstance(e, ev.ApprovalRequired)]
    [decided] = [e for e in seen if isinstance(e, ev.ApprovalDecided)]
    assert not decided.approved and decided.source == "policy"
    assert "erasing home folders is not allowed" in (decided.reason or "")
    [result] = [e for e in seen if isinstance(e, ev.ToolResult)]
    assert result.is_error and ran == []
    assert any(isinstance(e, ev.HookNoticeEvent) and e.notice.kind == "blocked" for e in seen)


@pytest.mark.asyncio
async def test_a_permission_request_hook_that_does_not_block_leaves_the_question_to_the_user() -> None:
    seen = await run("exit 0")
    assert len([e for e in seen if isinstance(e, ev.ApprovalRequired)]) == 1
    assert ran == ["/home"]
