"""The MCP App bridge (issue 26) against a fake view and the real Host with the probe app server in process:
the handshake and the held host messages, a view's tools/call through the approval policy, what a view may
not do (another server's tools, a model-only tool, non-http links, messages nobody saw), size, display
mode, theme and teardown."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import pytest
import pytest_asyncio
from mcp.server.mcpserver import MCPServer

from desktop_app.runtime.apps.session import MAX_HEIGHT, AppViews, ViewSession
from desktop_app.runtime.apps.view_calls import ViewCall
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy, Decision, GrantStore
from tests.support.apps.fake_view import FakeView
from tests.support.apps.probe_server import VIEW_URI, probe_server

CONTEXT = {
    "theme": "light",
    "locale": "en-GB",
    "timeZone": "Europe/Berlin",
    "displayMode": "inline",
    "availableDisplayModes": ["inline", "fullscreen", "pip"],
    "containerDimensions": {"maxHeight": MAX_HEIGHT, "width": 640},
    "platform": "desktop",
}


def other_server() -> MCPServer:
    server = MCPServer("other", log_level="WARNING")

    @server.tool()
    def secret() -> str:
        return "the other server's secret"

    return server


class Asker:
    """The user, as the card's approval controls ask: each view call waits until the test answers."""

    def __init__(self) -> None:
        self.asked: list[ViewCall] = []
        self.answer: asyncio.Future[Decision] | None = None
        self.waiting = asyncio.Event()

    async def __call__(self, call: ViewCall) -> Decision:
        self.asked.append(call)
        self.answer = asyncio.get_running_loop().create_future()
        self.waiting.set()
        return await self.answer


@pytest_asyncio.fixture
async def host() -> AsyncIterator[Host]:
    host = Host(call_timeout=10)
    host.add_in_process("probe", probe_server)
    host.add_in_process("other", other_server)
    await host.start()
    try:
        yield host
    finally:
        await host.aclose()


def open_view(views: AppViews, view: FakeView, tool_call_id: str = "run-1") -> ViewSession:
    session = views.open("conv", tool_call_id, "probe", "greet", VIEW_URI, view.send, CONTEXT)
    view.bridge = session.bridge
    return session


@pytest.mark.asyncio
async def test_initialize_gives_the_host_context_and_host_messages_wait_for_initialized(host: Host) -> None:
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"))
    view = FakeView()
    session = open_view(views, view)
    bridge = session.bridge
    assert bridge is not None
    bridge.tool_input_partial({"name": "A"})
    bridge.tool_input_partial({"name": "Ada"})
    bridge.tool_input({"name": "Ada Lovelace"})
    bridge.tool_result({"content": [{"type": "text", "text": "hi"}], "structuredContent": {"greeting": "hi"}})
    assert view.inbox == []  # nothing before the view said it is initialized
    answer = await view.request(
        "ui/initialize", {"protocolVersion": "2026-01-26", "appInfo": {"name": "f"}, "appCapabilities": {}}
    )
    context = answer["result"]["hostContext"]
    assert answer["result"]["protocolVersion"] == "2026-01-26"
    assert {k: context[k] for k in CONTEXT} == CONTEXT
    assert context["toolInfo"]["tool"]["name"] == "greet"
    assert view.methods() == []
    view.notify("ui/notifications/initialized")
    # a partial after the whole input is never sent; the whole input comes before the result
    assert view.methods() == ["ui/notifications/tool-input", "ui/notifications/tool-result"]
    assert view.notifications("ui/notifications/tool-input") == [{"arguments": {"name": "Ada Lovelace"}}]


@pytest.mark.asyncio
async def test_partial_inputs_stream_to_an_initialized_view_until_the_whole_input(host: Host) -> None:
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"))
    view = FakeView()
    bridge = open_view(views, view).bridge
    assert bridge is not None
    bridge.tool_input_partial({"name": "A"})  # before initialize: only the latest is kept
    bridge.tool_input_partial({"name": "Ad"})
    await view.initialize()
    bridge.tool_input_partial({"name": "Ada"})
    bridge.tool_input({"name": "Ada!"})
    bridge.tool_input_partial({"name": "late"})
    bridge.tool_cancelled("Stopped by the user")
    assert view.methods() == [
        "ui/notifications/tool-input-partial",
        "ui/notifications/tool-input-partial",
        "ui/notifications/tool-input",
        "ui/notifications/tool-cancelled",
    ]
    assert [p["arguments"]["name"] for p in view.notifications("ui/notifications/tool-input-partial")] == ["Ad", "Ada"]


@pytest.mark.asyncio
async def test_a_views_tool_call_waits_for_approval_and_goes_through_host_call(host: Host) -> None:
    asker = Asker()
    store = RecordingLog()
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"), ask=asker, log=store)
    seen: list[str] = []
    views.calls.listeners.append(lambda call: seen.append(call.state))
    view = FakeView()
    open_view(views, view)
    await view.initialize()
    pending = asyncio.ensure_future(view.request("tools/call", {"name": "bump", "arguments": {"count": 2}}))
    await asker.waiting.wait()
    assert not pending.done()  # waiting for the user
    [call] = asker.asked
    assert (call.origin, call.server, call.tool, call.parent_tool_call_id) == ("view", "probe", "bump", "run-1")
    assert asker.answer is not None
    asker.answer.set_result(Decision(True))
    answer = await pending
    assert answer["result"]["structuredContent"] == {"count": 2}
    assert seen == ["deciding", "running", "done"]
    # the store labels it as the view's call
    assert store.requests == [("view:run-1:1", "conv", "probe", "bump")]
    assert store.decisions[0][0] == "view:run-1:1" and "app view of tool call run-1" in store.decisions[0][1]


@pytest.mark.asyncio
async def test_a_denied_view_call_does_not_run(host: Host) -> None:
    asker = Asker()
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"), ask=asker)
    view = FakeView()
    open_view(views, view)
    await view.initialize()
    pending = asyncio.ensure_future(view.request("tools/call", {"name": "bump", "arguments": {"count": 5}}))
    await asker.waiting.wait()
    assert asker.answer is not None
    asker.answer.set_result(Decision(False, "not now"))
    answer = await pending
    assert "denied" in answer["error"]["message"]
    after = await host.call("probe", "bump", {"count": 0})
    assert after.structured == {"count": 0}  # bump never ran


@pytest.mark.asyncio
async def test_policy_never_denies_a_views_call_without_asking(host: Host) -> None:
    asker = Asker()
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("never"), ask=asker)
    view = FakeView()
    open_view(views, view)
    await view.initialize()
    answer = await view.request("tools/call", {"name": "bump", "arguments": {}})
    assert "denied by policy" in answer["error"]["message"] and asker.asked == []


@pytest.mark.asyncio
async def test_a_view_cannot_call_another_servers_tool_or_a_model_only_tool(host: Host) -> None:
    asker = Asker()
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("always"), ask=asker)
    view = FakeView()
    open_view(views, view)
    await view.initialize()
    other = await view.request("tools/call", {"name": "secret", "arguments": {}})
    assert "only call tools of its own MCP server 'probe'" in other["error"]["message"]
    model_only = await view.request("tools/call", {"name": "model_only", "arguments": {}})
    assert "for the model only" in model_only["error"]["message"]
    assert asker.asked == []


@pytest.mark.asyncio
async def test_resources_read_stays_on_the_views_own_server(host: Host) -> None:
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"))
    view = FakeView()
    open_view(views, view)
    await view.initialize()
    own = await view.request("resources/read", {"uri": VIEW_URI})
    assert own["result"]["contents"][0]["mimeType"] == "text/html;profile=mcp-app"
    foreign = await view.request("resources/read", {"uri": "file:///etc/passwd"})
    assert "Could not read file:///etc/passwd from MCP server 'probe'" in foreign["error"]["message"]


@pytest.mark.asyncio
async def test_links_must_be_http_and_the_user_must_agree(host: Host) -> None:
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"))
    view = FakeView()
    session = open_view(views, view)
    await view.initialize()
    asked: list[str] = []

    async def confirm(url: str) -> bool:
        asked.append(url)
        return url.endswith("/yes")

    refused_by_default = await view.request("ui/open-link", {"url": "https://example.com/yes"})
    assert "denied" in refused_by_default["error"]["message"]  # no UI behind the session: refused
    session.confirm_link = confirm
    for url in ("file:///etc/passwd", "javascript:alert(1)", "ftp://example.com/x"):
        answer = await view.request("ui/open-link", {"url": url})
        assert answer["error"]["message"] == "Only http(s) links can be opened."
    assert (await view.request("ui/open-link", {"url": "https://example.com/yes"}))["result"] == {}
    assert "denied" in (await view.request("ui/open-link", {"url": "https://example.com/no"}))["error"]["message"]
    assert asked == ["https://example.com/yes", "https://example.com/no"]


@pytest.mark.asyncio
async def test_a_message_reaches_the_conversation_only_through_the_user(host: Host) -> None:
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("always"))
    view = FakeView()
    session = open_view(views, view)
    await view.initialize()
    params = {"role": "user", "content": [{"type": "text", "text": "Book it"}]}
    assert "denied" in (await view.request("ui/message", params))["error"]["message"]
    shown: list[str] = []

    async def deliver(text: str) -> bool:
        shown.append(text)
        return True

    session.deliver_message = deliver
    assert (await view.request("ui/message", params))["result"] == {}
    assert shown == ["Book it"]


@pytest.mark.asyncio
async def test_size_display_mode_theme_logging_and_teardown(host: Host) -> None:
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"))
    view = FakeView()
    session = open_view(views, view)
    sizes: list[tuple[float | None, int]] = []
    session.on_size = lambda w, h: sizes.append((w, h))
    session.on_display_mode = lambda mode: mode
    await view.initialize(modes=["inline", "fullscreen"])
    view.notify("ui/notifications/size-changed", {"width": 300, "height": 5000})
    view.notify("ui/notifications/size-changed", {"width": 300, "height": 10})
    view.notify("ui/notifications/size-changed", {"width": 300, "height": 240})
    assert sizes == [(300.0, MAX_HEIGHT), (300.0, 80), (300.0, 240)]
    assert (await view.request("ui/request-display-mode", {"mode": "fullscreen"}))["result"] == {"mode": "fullscreen"}
    assert view.notifications("ui/notifications/host-context-changed")[-1] == {"displayMode": "fullscreen"}
    # pip was not declared by the view: it keeps its mode
    assert (await view.request("ui/request-display-mode", {"mode": "pip"}))["result"] == {"mode": "fullscreen"}
    bridge = session.bridge
    assert bridge is not None
    bridge.host_context_changed({"theme": "dark"})
    bridge.host_context_changed({"theme": "dark"})  # unchanged: not sent twice
    assert view.notifications("ui/notifications/host-context-changed")[-1] == {"theme": "dark"}
    assert len(view.notifications("ui/notifications/host-context-changed")) == 2
    view.notify("notifications/message", {"level": "warning", "data": {"x": 1}})
    assert session.logs == [("warning", {"x": 1})]
    await views.close("run-1", "closed by the user")
    assert view.methods()[-1] == "ui/resource-teardown"
    assert bridge.closed and "run-1" not in views.sessions
    bridge.tool_result({"content": []})
    assert view.methods()[-1] == "ui/resource-teardown"  # nothing reaches a torn-down view


@pytest.mark.asyncio
async def test_teardown_does_not_wait_forever_for_a_silent_view(host: Host) -> None:
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"))
    view = FakeView()
    view.answer_teardown = False
    bridge = open_view(views, view).bridge
    assert bridge is not None
    await view.initialize()
    assert await bridge.teardown("gone", wait=0.05) is False
    assert bridge.closed


class RecordingLog:
    def __init__(self) -> None:
        self.requests: list[tuple[str, str, str, str]] = []
        self.decisions: list[tuple[str, str]] = []

    def record_approval_request(
        self, tool_call_id: str, conversation_id: str, run_id: str, server: str, tool: str, arguments: Any
    ) -> None:
        self.requests.append((tool_call_id, conversation_id, server, tool))

    def record_approval_decision(self, tool_call_id: str, conversation_id: str, run_id: str, **kw: Any) -> None:
        self.decisions.append((tool_call_id, kw["reason"]))


@pytest.mark.asyncio
async def test_a_views_tool_call_goes_through_the_hosts_hooks(host: Host) -> None:
    from tests.unit.runtime.hooks.conftest import runner_for

    blocker = "echo 'no bumping on Fridays' >&2; exit 2"
    host.set_hooks(runner_for({"PreToolUse": [{"match": "mcp__probe__bump", "command": blocker}]}))
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("always"))
    view = FakeView()
    open_view(views, view)
    await view.initialize()
    answer = await view.request("tools/call", {"name": "bump", "arguments": {"count": 3}})
    assert answer["result"]["isError"] is True
    assert "no bumping on Fridays" in answer["result"]["content"][0]["text"]
    host.set_hooks(None)
    assert (await host.call("probe", "bump", {"count": 0})).structured == {"count": 0}  # it never ran
