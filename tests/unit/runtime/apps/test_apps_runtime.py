"""MCP Apps in the real Runtime and Host (issue 26): the extension is advertised to allowed servers only,
app-only tools never reach the model (the request body), views are cached per server and read again after
``resources/list_changed``, a view's model context is in the next request, and the model's argument deltas
become ``ToolInputDelta`` events that recover to partial inputs."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from desktop_app.runtime import events as ev
from desktop_app.runtime.apps.session import AppViews
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalPolicy, GrantStore
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.apps.fake_view import FakeView
from tests.support.apps.probe_server import VIEW_URI, probe_server
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply


def make_runtime(host: Host, url: str) -> Runtime:
    return Runtime(
        settings=Settings(provider=ProviderSettings(base_url=url, model="m")),
        host=host,
        policy=ApprovalPolicy("always"),
    )


@pytest_asyncio.fixture
async def host() -> AsyncIterator[Host]:
    host = Host(call_timeout=10)
    host.add_in_process("probe", lambda: probe_server(connect_domains=["https://api.example.com"]))
    yield host
    await host.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize("allowed", [True, False])
async def test_the_extension_is_advertised_only_to_allowed_servers(host: Host, allowed: bool) -> None:
    host.client_features.apps_enabled = lambda server: allowed and server == "probe"
    await host.start()
    outcome = await host.call("probe", "greet", {"name": "Ada"})
    assert outcome.structured == {"greeting": "Hello, Ada!", "apps": allowed}


@pytest.mark.asyncio
async def test_app_only_tools_are_never_offered_to_the_model(host: Host, llm_server: ScriptedLLMServer) -> None:
    await host.start()
    [bump] = [t for t in host.tools(include_app_only=True) if t.tool == "bump"]
    assert bump.app_only and bump.ui_resource_uri == VIEW_URI
    assert host.lookup("mcp__probe__bump") is None  # the model cannot call it by name either
    runtime = make_runtime(host, llm_server.url)
    llm_server.enqueue(text_reply("ok"))
    try:
        await runtime.run(runtime.new_conversation(), "hi")
    finally:
        await runtime.aclose()
    offered = [t["function"]["name"] for t in llm_server.requests[0].json["tools"]]
    assert "mcp__probe__greet" in offered and "mcp__probe__model_only" in offered
    assert not [name for name in offered if "bump" in name]


@pytest.mark.asyncio
async def test_views_are_cached_per_server_and_read_again_after_resources_list_changed(host: Host) -> None:
    host.client_features.apps_enabled = lambda server: True
    await host.start()
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"))
    changed = asyncio.Event()
    unsubscribe = host.subscribe(views.resources.on_host_event)
    host.subscribe(lambda e: changed.set() if isinstance(e, ev.ResourcesChanged) else None)
    first = await views.resources.get("probe", VIEW_URI)
    again = await views.resources.get("probe", VIEW_URI)
    assert again is first and views.resources.reads == 1
    assert first.ui.csp.connect_domains == ("https://api.example.com",) and first.ui.prefers_border is True
    assert "<title>Probe view</title>" in first.html
    await host.call("probe", "set_csp", {"connect": ["https://other.example.org"]})
    await asyncio.wait_for(changed.wait(), 10)  # the notification arrives on the connection's task
    fresh = await views.resources.get("probe", VIEW_URI)
    assert views.resources.reads == 2 and fresh.ui.csp.connect_domains == ("https://other.example.org",)
    unsubscribe()


@pytest.mark.asyncio
async def test_a_views_model_context_is_in_the_next_request(host: Host, llm_server: ScriptedLLMServer) -> None:
    await host.start()
    runtime = make_runtime(host, llm_server.url)
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"))
    views.attach(runtime.runs, lambda server: True)
    conversation = runtime.new_conversation()
    view = FakeView()
    session = views.open(conversation, "t1", "probe", "greet", VIEW_URI, view.send, {})
    view.bridge = session.bridge
    shown: list[str] = []
    session.on_context = shown.append
    await view.initialize()
    update = {"content": [{"type": "text", "text": "Selected seat 14C"}], "structuredContent": {"seat": "14C"}}
    old = {"content": [{"type": "text", "text": "old"}]}
    assert (await view.request("ui/update-model-context", old))["result"] == {}
    assert (await view.request("ui/update-model-context", update))["result"] == {}
    llm_server.enqueue(text_reply("noted"), text_reply("again"))
    try:
        await runtime.run(conversation, "which seat?")
        await runtime.run(conversation, "and now?")
    finally:
        await runtime.aclose()
    first = llm_server.requests[0].json["messages"][-1]["content"]
    assert 'From the app view of greet:\nSelected seat 14C\n{"seat": "14C"}' in first
    assert "old" not in first  # only the last update is sent
    assert "Selected seat" not in llm_server.requests[1].json["messages"][-1]["content"]  # sent once
    assert shown[-1] == 'Selected seat 14C\n{"seat": "14C"}'


@pytest.mark.asyncio
async def test_argument_deltas_become_events_that_recover_to_partial_inputs(
    host: Host, llm_server: ScriptedLLMServer
) -> None:
    await host.start()
    runtime = make_runtime(host, llm_server.url)
    views = AppViews(host, GrantStore(), lambda _c: ApprovalPolicy("ask"))
    partials: list[dict[str, object] | None] = []
    calls: list[ev.ToolCall] = []

    def on_event(event: ev.Event) -> None:
        if isinstance(event, ev.ToolInputDelta):
            name, model_id, arguments = views.partials.add(event)
            assert (name, model_id) == ("mcp__probe__greet", "c1")
            partials.append(arguments)
        elif isinstance(event, ev.ToolCall):
            calls.append(event)

    runtime.subscribe(on_event)
    llm_server.enqueue(
        tool_call_reply([("c1", "mcp__probe__greet", {"name": "Ada Lovelace", "actions": []})]), text_reply("done")
    )
    try:
        await runtime.run(runtime.new_conversation(), "greet Ada")
    finally:
        await runtime.aclose()
    assert partials[-1] == {"name": "Ada Lovelace", "actions": []}
    assert len(partials) == 2 and partials[0] is not None and partials[0] != partials[-1]
    assert calls[0].model_call_id == "c1"
