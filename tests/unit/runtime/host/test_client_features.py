"""The host as an MCP client: progress, cancellation, logs, sampling, elicitation, roots, resources and prompts.

In-process ``MCPServer`` servers in both protocol eras: ``auto`` (2026-07-28, the portable ``Resolve``
round trip) and ``legacy`` (2025-11-25 JSON-RPC over memory streams, server→client push).
"""

from __future__ import annotations

import asyncio
import warnings
from collections import defaultdict
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Annotated, Any

import mcp_types as mtypes
import pytest
import pytest_asyncio
from mcp import MCPDeprecationWarning
from mcp.server.mcpserver import Context, Elicit, ElicitationResult, ListRoots, MCPServer, Resolve, Sample
from pydantic import BaseModel

from desktop_app.runtime import events as ev
from desktop_app.runtime.errors import (
    InvalidElicitationResponseError,
    RunError,
    ServerNotFoundError,
    ServerRequestError,
    UnknownServerRequestError,
)
from desktop_app.runtime.host import Host
from desktop_app.runtime.host.client_features import ClientFeatures, HeadlessMode, check_elicitation_answer
from desktop_app.runtime.host.connection import ClientMode, ServerConnection
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.run.loop import CANCELLED_BY_USER
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.service.server_requests import wire_client_features
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeHost, FakeProvider, answer, calls

MODES: list[ClientMode] = ["auto", "legacy"]
WAIT = 10.0


class Person(BaseModel):
    name: str
    age: int


def _ask_model() -> Sample:
    message = mtypes.SamplingMessage(role="user", content=mtypes.TextContent(type="text", text="ping?"))
    preferences = mtypes.ModelPreferences(hints=[mtypes.ModelHint(name="claude-3")])
    return Sample([message], max_tokens=50, system_prompt="be brief", model_preferences=preferences)


def _roots() -> ListRoots:
    return ListRoots()


def _who() -> Elicit[Person]:
    return Elicit("Who are you?", Person)


class Probe:
    """What the test server saw: call starts, cancellations, roots notifications."""

    def __init__(self) -> None:
        self.started = asyncio.Event()
        self.cancelled = asyncio.Event()
        self.roots_changed = asyncio.Event()
        self.subscribed: list[str] = []


def make_server(probe: Probe | None = None) -> MCPServer:
    probe = probe or Probe()
    server = MCPServer("features", log_level="WARNING")

    @server.tool()
    async def add(a: int, b: int) -> int:
        return a + b

    @server.tool()
    async def caps(ctx: Context) -> dict[str, bool]:
        declared = ctx.client_capabilities or mtypes.ClientCapabilities()
        return {
            "sampling": declared.sampling is not None,
            "elicitation": declared.elicitation is not None,
            "roots": declared.roots is not None,
        }

    @server.tool()
    async def slow(steps: int, ctx: Context) -> str:
        for step in range(1, steps + 1):
            await ctx.report_progress(step, steps, f"step {step}")
        return f"did {steps} steps"

    @server.tool()
    async def wait_forever() -> str:
        probe.started.set()
        try:
            await asyncio.Event().wait()
        except asyncio.CancelledError:
            probe.cancelled.set()
            raise
        return "never"

    @server.tool()
    async def sample(reply: Annotated[mtypes.CreateMessageResult, Resolve(_ask_model)]) -> str:
        assert isinstance(reply.content, mtypes.TextContent)
        return f"model said: {reply.content.text} ({reply.model}, {reply.stop_reason})"

    @server.tool()
    async def roots(result: Annotated[mtypes.ListRootsResult, Resolve(_roots)]) -> str:
        return ",".join(str(root.uri) for root in result.roots)

    @server.tool()
    async def person(result: Annotated[ElicitationResult[Person], Resolve(_who)]) -> str:
        data = getattr(result, "data", None)
        return f"{result.action}: {data!r}"

    @server.tool()
    async def open_link(ctx: Context) -> str:
        result = await ctx.elicit_url("Sign in, please", "https://example.com/login", "e-1")
        return result.action

    @server.tool()
    async def chatty(ctx: Context) -> str:
        with warnings.catch_warnings():  # the server side of the (deprecated) logging feature
            warnings.simplefilter("ignore", MCPDeprecationWarning)
            await ctx.info("hello from the server")
        return "ok"

    @server.tool()
    async def touch(uri: str, ctx: Context) -> str:
        if ctx.protocol_version == "2025-11-25":
            await ctx.session.send_resource_updated(uri)
        else:
            await ctx.notify_resource_updated(uri)
        return "touched"

    @server.resource("note://readme", mime_type="text/markdown")
    def readme() -> str:
        return "# Read me"

    @server.resource("note://logo", mime_type="image/png")
    def logo() -> bytes:
        return b"\x89PNG1234"

    @server.prompt()
    def review(code: str) -> str:
        return f"Please review:\n{code}"

    async def on_subscribe(ctx: Any, params: mtypes.SubscribeRequestParams) -> mtypes.EmptyResult:
        probe.subscribed.append(params.uri)
        return mtypes.EmptyResult()

    async def on_unsubscribe(ctx: Any, params: mtypes.UnsubscribeRequestParams) -> mtypes.EmptyResult:
        probe.subscribed.remove(params.uri)
        return mtypes.EmptyResult()

    async def on_roots_changed(ctx: Any, params: mtypes.NotificationParams) -> None:
        probe.roots_changed.set()

    lowlevel = server._lowlevel_server
    lowlevel.add_request_handler("resources/subscribe", mtypes.SubscribeRequestParams, on_subscribe)
    lowlevel.add_request_handler("resources/unsubscribe", mtypes.UnsubscribeRequestParams, on_unsubscribe)
    lowlevel.add_notification_handler("notifications/roots/list_changed", mtypes.NotificationParams, on_roots_changed)
    return server


class Events:
    """Host events by kind, with one ``asyncio.Event`` per kind to wait on (no sleeps)."""

    def __init__(self, on_event: Callable[[ev.HostEvent], None] | None = None) -> None:
        self.items: list[ev.HostEvent] = []
        self.seen: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.on_event = on_event

    def __call__(self, event: ev.HostEvent) -> None:
        self.items.append(event)
        self.seen[event.kind].set()
        if self.on_event is not None:
            self.on_event(event)

    def of(self, kind: type[Any]) -> list[Any]:
        return [item for item in self.items if isinstance(item, kind)]

    async def wait(self, kind: str) -> None:
        async with asyncio.timeout(WAIT):
            await self.seen[kind].wait()


def wire(features: ClientFeatures, provider: FakeProvider, mode: HeadlessMode = "ask") -> None:
    wire_client_features(features, provider=lambda: provider, model=lambda: "user-model", mode=lambda: mode)


@pytest_asyncio.fixture
async def connection_factory() -> AsyncIterator[Callable[..., Any]]:
    opened: list[ServerConnection] = []

    async def open_connection(
        mode: ClientMode, features: ClientFeatures | None, probe: Probe | None = None
    ) -> ServerConnection:
        connection = ServerConnection("features", make_server(probe), features=features, mode=mode, call_timeout=WAIT)
        opened.append(connection)
        assert await connection.start(), connection.error
        return connection

    yield open_connection
    for connection in opened:
        await connection.close()


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A resolved folder to grant (resolved here: no blocking path calls inside async tests)."""
    return tmp_path.resolve()


@pytest_asyncio.fixture
async def host() -> AsyncIterator[Host]:
    host = Host(call_timeout=WAIT)
    host.register_builtin("features", make_server)
    yield host
    await host.aclose()


# -- capabilities -----------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_only_capabilities_with_a_handler_are_declared(mode: ClientMode, connection_factory: Any) -> None:
    async def declared(features: ClientFeatures | None) -> dict[str, Any] | None:
        connection: ServerConnection = await connection_factory(mode, features)
        return (await connection.call_tool("caps", {})).structured

    assert await declared(None) == {"sampling": False, "elicitation": False, "roots": False}
    bare = ClientFeatures(lambda _event: None)
    assert await declared(bare) == {"sampling": False, "elicitation": False, "roots": True}
    wired = ClientFeatures(lambda _event: None)
    wire(wired, FakeProvider())
    assert await declared(wired) == {"sampling": True, "elicitation": True, "roots": True}


# -- progress and cancellation ----------------------------------------------------------------------


@pytest.mark.asyncio
async def test_progress_arrives_before_the_result(host: Host) -> None:
    seen: list[tuple[float, float | None, str | None]] = []

    async def progress(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    outcome = await host.call("features", "slow", {"steps": 3}, progress=progress)
    assert (outcome.is_error, outcome.text) == (False, "did 3 steps")
    assert seen == [(1, 3, "step 1"), (2, 3, "step 2"), (3, 3, "step 3")]


def make_runtime(host: Host | FakeHost, provider: FakeProvider, mode: str = "always") -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="user-model"))
    return Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy(mode),  # type: ignore[arg-type]
        provider_factory=lambda _s, _k: provider,
    )


@pytest.mark.asyncio
async def test_a_run_emits_tool_progress_before_the_tool_result(host: Host) -> None:
    provider = FakeProvider([calls(("c1", "slow", '{"steps": 2}')), answer("done")])
    runtime = make_runtime(host, provider)
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    outcome = await runtime.run(runtime.new_conversation(), "go")
    assert outcome.status == "finished"
    kinds = [e.kind for e in events]
    assert kinds.index("tool_progress") < kinds.index("tool_result")
    progress = [e for e in events if isinstance(e, ev.ToolProgress)]
    [call] = [e for e in events if isinstance(e, ev.ToolCall)]
    assert call.model_call_id == "c1"
    assert [(p.tool_call_id, p.progress, p.total, p.message) for p in progress] == [
        (call.tool_call_id, 1, 2, "step 1"),
        (call.tool_call_id, 2, 2, "step 2"),
    ]


@pytest.mark.asyncio
async def test_cancelling_a_call_cancels_the_request_on_the_server(connection_factory: Any) -> None:
    probe = Probe()
    connection: ServerConnection = await connection_factory("legacy", ClientFeatures(lambda _e: None), probe)
    task = asyncio.ensure_future(connection.call_tool("wait_forever", {}))
    async with asyncio.timeout(WAIT):
        await probe.started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    # Over JSON-RPC the server's handler can only be cancelled by the client's notifications/cancelled.
    async with asyncio.timeout(WAIT):
        await probe.cancelled.wait()
    after = await connection.call_tool("add", {"a": 2, "b": 3})
    assert (after.is_error, after.text, connection.state) == (False, "5", "ready")


@pytest.mark.asyncio
async def test_stopping_a_run_cancels_the_tool_and_records_it_as_an_error() -> None:
    probe = Probe()
    host = Host(call_timeout=WAIT)
    host.register_builtin("features", lambda: make_server(probe))
    provider = FakeProvider([calls(("c1", "wait_forever", "{}"))])
    runtime = make_runtime(host, provider)
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    conversation = runtime.new_conversation()
    try:
        run = asyncio.ensure_future(runtime.run(conversation, "go"))
        async with asyncio.timeout(WAIT):
            await probe.started.wait()
        runtime.cancel(conversation)
        outcome = await run
        assert outcome.status == "cancelled"
        async with asyncio.timeout(WAIT):
            await probe.cancelled.wait()
        results = [e for e in events if isinstance(e, ev.ToolResult)]
        [call] = [e for e in events if isinstance(e, ev.ToolCall)]
        assert [(r.tool_call_id, r.is_error, r.text) for r in results] == [(call.tool_call_id, True, CANCELLED_BY_USER)]
        assert isinstance(events[-1], ev.RunFinished) and events[-1].reason == "cancelled"
        assert runtime.pending_tool_calls(conversation) == []  # the cancelled call has its result
        again = await host.call("features", "add", {"a": 1, "b": 1})
        assert (again.is_error, again.text) == (False, "2")
    finally:
        await runtime.aclose()


# -- logging ----------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_server_logs_become_events_and_a_buffer(mode: ClientMode, connection_factory: Any) -> None:
    events = Events()
    features = ClientFeatures(events)
    connection: ServerConnection = await connection_factory(mode, features)
    assert (await connection.call_tool("chatty", {})).text == "ok"
    await events.wait("server_log")
    logs = events.of(ev.ServerLog)
    assert [(log.server, log.level, log.data) for log in logs] == [("features", "info", "hello from the server")]
    assert features.server_log("features") == logs
    assert features.server_log("other") == []


@pytest.mark.asyncio
async def test_the_server_log_buffer_is_bounded() -> None:
    features = ClientFeatures(lambda _event: None, log_limit=2)
    log = features.callbacks("s").logging
    assert log is not None
    for index in range(5):
        await log(mtypes.LoggingMessageNotificationParams(level="info", data=f"line {index}"))
    assert [entry.data for entry in features.server_log("s")] == ["line 3", "line 4"]


@pytest.mark.asyncio
async def test_host_keeps_logs_per_server(host: Host) -> None:
    events = Events()
    host.subscribe(events)
    assert (await host.call("features", "chatty", {})).text == "ok"
    await events.wait("server_log")
    assert [entry.data for entry in host.server_log("features")] == ["hello from the server"]


# -- sampling ---------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_approved_sampling_runs_on_the_users_provider(mode: ClientMode, connection_factory: Any) -> None:
    features = ClientFeatures(lambda _event: None)
    events = Events(
        lambda e: features.answer_sampling(e.request_id, True) if isinstance(e, ev.SamplingRequested) else None
    )
    features._publish = events
    provider = FakeProvider([answer("pong")])
    wire(features, provider)
    connection: ServerConnection = await connection_factory(mode, features)
    outcome = await connection.call_tool("sample", {})
    assert (outcome.is_error, outcome.text) == (False, "model said: pong (user-model, endTurn)")
    [requested] = events.of(ev.SamplingRequested)
    assert requested.server == "features"
    assert [(m.role, m.text) for m in requested.messages] == [("user", "ping?")]
    assert (requested.system_prompt, requested.max_tokens, requested.model_hints) == ("be brief", 50, ["claude-3"])
    [closed] = events.of(ev.ServerRequestClosed)
    assert (closed.request_id, closed.outcome) == (requested.request_id, "answered")
    [request] = provider.requests
    assert [(m.role, m.content) for m in request.messages] == [("system", "be brief"), ("user", "ping?")]
    assert (request.model, request.max_tokens, request.tools) == ("user-model", 50, ())
    with pytest.raises(UnknownServerRequestError):
        features.answer_sampling(requested.request_id, True)  # already answered


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_declined_sampling_tells_the_server(mode: ClientMode, connection_factory: Any) -> None:
    features = ClientFeatures(lambda _event: None)
    events = Events(
        lambda e: (
            features.answer_sampling(e.request_id, False, "not now") if isinstance(e, ev.SamplingRequested) else None
        )
    )
    features._publish = events
    provider = FakeProvider()
    wire(features, provider)
    connection: ServerConnection = await connection_factory(mode, features)
    outcome = await connection.call_tool("sample", {})
    assert outcome.is_error
    assert provider.requests == []


@pytest.mark.asyncio
@pytest.mark.parametrize(("policy", "approved"), [("never", False), ("always", True)])
async def test_headless_policy_decides_sampling(policy: HeadlessMode, approved: bool, connection_factory: Any) -> None:
    events = Events()
    features = ClientFeatures(events)
    provider = FakeProvider([answer("pong")])
    wire(features, provider, policy)
    connection: ServerConnection = await connection_factory("auto", features)
    outcome = await connection.call_tool("sample", {})
    assert outcome.is_error is not approved
    assert events.of(ev.SamplingRequested) == []
    assert len(provider.requests) == int(approved)


@pytest.mark.asyncio
async def test_a_pending_sampling_request_can_be_answered_later(host: Host) -> None:
    events = Events()
    host.subscribe(events)
    wire(host.client_features, FakeProvider([answer("later")]))
    call = asyncio.ensure_future(host.call("features", "sample", {}))
    await events.wait("sampling_requested")
    [requested] = events.of(ev.SamplingRequested)
    assert host.pending_requests() == [requested.request_id] == host.pending_requests("sampling")
    with pytest.raises(UnknownServerRequestError):
        host.answer_sampling("no-such-id", True)
    with pytest.raises(UnknownServerRequestError):
        host.answer_elicitation(requested.request_id, "decline")  # wrong kind
    host.answer_sampling(requested.request_id, True)
    assert (await call).text.startswith("model said: later")
    assert host.pending_requests() == []


@pytest.mark.asyncio
async def test_a_run_with_sampling_uses_the_runtime_provider(host: Host) -> None:
    provider = FakeProvider([calls(("c1", "sample", "{}")), answer("sampled"), answer("all done")])
    runtime = make_runtime(host, provider)  # --approve always: tools and sampling approved
    try:
        outcome = await runtime.run(runtime.new_conversation(), "go")
        assert (outcome.status, outcome.content) == ("finished", "all done")
        assert provider.requests[1].max_tokens == 50 and provider.requests[1].tools == ()
    finally:
        await runtime.aclose()


# -- elicitation ------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_elicitation_content_is_checked_before_it_is_sent(mode: ClientMode, connection_factory: Any) -> None:
    events = Events()
    features = ClientFeatures(events)
    wire(features, FakeProvider())
    connection: ServerConnection = await connection_factory(mode, features)
    call = asyncio.ensure_future(connection.call_tool("person", {}))
    await events.wait("elicitation_requested")
    [requested] = events.of(ev.ElicitationRequested)
    assert (requested.message, requested.mode) == ("Who are you?", "form")
    assert set(requested.requested_schema["properties"]) == {"name", "age"}
    with pytest.raises(InvalidElicitationResponseError, match="age"):
        features.answer_elicitation(requested.request_id, "accept", {"name": "Ada", "age": "old"})
    with pytest.raises(InvalidElicitationResponseError, match="required"):
        features.answer_elicitation(requested.request_id, "accept", {"name": "Ada"})
    with pytest.raises(InvalidElicitationResponseError):
        features.answer_elicitation(requested.request_id, "decline", {"name": "Ada"})
    assert features.pending_requests("elicitation") == [requested.request_id]  # still open
    features.answer_elicitation(requested.request_id, "accept", {"name": "Ada", "age": 36})
    assert (await call).text == "accept: Person(name='Ada', age=36)"


@pytest.mark.asyncio
@pytest.mark.parametrize(("policy", "action"), [("never", "decline"), ("always", "cancel")])
async def test_headless_policy_never_invents_elicitation_data(
    policy: HeadlessMode, action: str, connection_factory: Any
) -> None:
    events = Events()
    features = ClientFeatures(events)
    wire(features, FakeProvider(), policy)
    connection: ServerConnection = await connection_factory("legacy", features)
    assert (await connection.call_tool("person", {})).text == f"{action}: None"
    assert events.of(ev.ElicitationRequested) == []


@pytest.mark.asyncio
async def test_url_elicitation_asks_to_open_a_link(connection_factory: Any) -> None:
    features = ClientFeatures(lambda _event: None)
    events = Events(
        lambda e: (
            features.answer_elicitation(e.request_id, "accept") if isinstance(e, ev.ElicitationRequested) else None
        )
    )
    features._publish = events
    wire(features, FakeProvider())
    connection: ServerConnection = await connection_factory("legacy", features)
    assert (await connection.call_tool("open_link", {})).text == "accept"
    [requested] = events.of(ev.ElicitationRequested)
    assert (requested.mode, requested.url, requested.elicitation_id) == ("url", "https://example.com/login", "e-1")


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_a_request_the_server_stops_waiting_for_is_closed(mode: ClientMode, connection_factory: Any) -> None:
    events = Events()
    features = ClientFeatures(events)
    wire(features, FakeProvider())
    connection: ServerConnection = await connection_factory(mode, features)
    call = asyncio.ensure_future(connection.call_tool("person", {}))
    await events.wait("elicitation_requested")
    [asked] = events.of(ev.ElicitationRequested)
    call.cancel()  # legacy: the server cancels its elicitation/create; 2026: the round trip stops here
    with pytest.raises(asyncio.CancelledError):
        await call
    await events.wait("server_request_closed")
    [closed] = events.of(ev.ServerRequestClosed)
    assert (closed.request_id, closed.outcome) == (asked.request_id, "cancelled")
    assert features.pending_requests() == []
    with pytest.raises(UnknownServerRequestError):
        features.answer_elicitation(asked.request_id, "decline")


def test_elicitation_answers_are_validated() -> None:
    form = mtypes.ElicitRequestFormParams(
        message="m", requested_schema={"type": "object", "properties": {"email": {"type": "string", "format": "email"}}}
    )
    assert check_elicitation_answer(form, "accept", {"email": "a@b.c"}) == {"email": "a@b.c"}
    assert check_elicitation_answer(form, "accept", None) == {}
    assert check_elicitation_answer(form, "cancel", None) is None
    with pytest.raises(InvalidElicitationResponseError, match="email"):
        check_elicitation_answer(form, "accept", {"email": "nope"})
    with pytest.raises(InvalidElicitationResponseError, match="Unknown elicitation action"):
        check_elicitation_answer(form, "maybe", None)
    with pytest.raises(InvalidElicitationResponseError, match="strings, numbers"):
        check_elicitation_answer(
            mtypes.ElicitRequestFormParams(message="m", requested_schema={"type": "object"}), "accept", {"x": {"a": 1}}
        )
    url = mtypes.ElicitRequestURLParams(message="m", url="https://example.com", elicitation_id="e")
    with pytest.raises(InvalidElicitationResponseError, match="URL"):
        check_elicitation_answer(url, "accept", {"x": "y"})


# -- roots ------------------------------------------------------------------------------------------


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_roots_are_the_granted_folders(mode: ClientMode, connection_factory: Any, tmp_path: Path) -> None:
    features = ClientFeatures(lambda _event: None)
    features.set_roots([tmp_path / "a", tmp_path / "b", tmp_path / "a"])
    connection: ServerConnection = await connection_factory(mode, features)
    outcome = await connection.call_tool("roots", {})
    assert outcome.text == f"{(tmp_path / 'a').as_uri()},{(tmp_path / 'b').as_uri()}"


@pytest.mark.asyncio
async def test_changing_roots_notifies_legacy_servers(folder: Path) -> None:
    probe = Probe()
    host = Host(call_timeout=WAIT)
    try:
        connection = ServerConnection(
            "legacy", make_server(probe), features=host.client_features, mode="legacy", call_timeout=WAIT
        )
        assert await connection.start()
        host._connections["legacy"] = connection  # a legacy in-process server, as a stdio one would be
        await host.set_roots([folder])
        async with asyncio.timeout(WAIT):
            await probe.roots_changed.wait()
        assert host.roots() == [folder]
        assert (await connection.call_tool("roots", {})).text == folder.as_uri()
    finally:
        await host.aclose()


# -- resources and prompts --------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_resources_are_listed_and_read_as_text(host: Host) -> None:
    listed = await host.list_resources("features")
    assert sorted(r.uri for r in listed) == ["note://logo", "note://readme"]
    readme = await host.read_resource("features", "note://readme")
    assert readme.text == "# Read me"
    assert readme.as_prompt_text() == (
        '<resource server="features" uri="note://readme" type="text/markdown">\n# Read me\n</resource>'
    )
    logo = await host.read_resource("features", "note://logo")
    assert logo.text == "[binary resource note://logo image/png, 8 bytes]"
    assert await host.list_resource_templates("features") == []
    with pytest.raises(ServerRequestError, match="could not read note://missing"):
        await host.read_resource("features", "note://missing")
    with pytest.raises(ServerNotFoundError):
        await host.list_resources("nowhere")


@pytest.mark.asyncio
async def test_prompts_are_listed_and_rendered_as_text(host: Host) -> None:
    [prompt] = await host.list_prompts("features")
    assert prompt.name == "review" and [a.name for a in prompt.arguments or []] == ["code"]
    rendered = await host.get_prompt("features", "review", {"code": "x = 1"})
    assert [(m.role, m.text) for m in rendered.messages] == [("user", "Please review:\nx = 1")]
    assert rendered.as_text() == "Please review:\nx = 1"


@pytest.mark.asyncio
@pytest.mark.parametrize("mode", MODES)
async def test_resource_updates_are_published(mode: ClientMode, connection_factory: Any) -> None:
    events = Events()
    features = ClientFeatures(events)
    probe = Probe()
    connection: ServerConnection = await connection_factory(mode, features, probe)
    await connection.watch.subscribe("note://readme")
    if mode == "legacy":
        assert probe.subscribed == ["note://readme"]
    assert (await connection.call_tool("touch", {"uri": "note://readme"})).text == "touched"
    await events.wait("resource_updated")
    assert [(e.server, e.uri) for e in events.of(ev.ResourceUpdated)] == [("features", "note://readme")]
    await connection.watch.unsubscribe("note://readme")
    assert probe.subscribed == []


@pytest.mark.asyncio
async def test_host_subscriptions_are_remembered(host: Host) -> None:
    events = Events()
    host.subscribe(events)
    await host.subscribe_resource("features", "note://readme")
    assert host.client_features.subscriptions("features") == {"note://readme"}
    await host.call("features", "touch", {"uri": "note://readme"})
    await events.wait("resource_updated")
    await host.unsubscribe_resource("features", "note://readme")
    assert host.client_features.subscriptions("features") == set()


# -- the runtime facade -----------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_runtime_answers_server_requests_and_grants_roots(host: Host, folder: Path) -> None:
    runtime = make_runtime(host, FakeProvider([answer("pong")]), mode="ask")
    events = Events()
    host.subscribe(events)
    try:
        call = asyncio.ensure_future(host.call("features", "sample", {}))
        await events.wait("sampling_requested")
        [requested] = events.of(ev.SamplingRequested)
        assert runtime.pending_server_requests() == [requested.request_id]
        runtime.answer_sampling(requested.request_id, approved=True)
        assert (await call).text == "model said: pong (user-model, endTurn)"

        call = asyncio.ensure_future(host.call("features", "person", {}))
        await events.wait("elicitation_requested")
        [asked] = events.of(ev.ElicitationRequested)
        runtime.answer_elicitation(asked.request_id, "decline")
        assert (await call).text == "decline: None"

        await runtime.set_roots([folder])
        assert runtime.roots() == [folder]
        assert (await host.call("features", "roots", {})).text == folder.as_uri()
        assert (await runtime.resource_prompt_text("features", "note://readme")).endswith("# Read me\n</resource>")
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_runtime_without_an_mcp_host_has_no_server_requests() -> None:
    runtime = make_runtime(FakeHost(), FakeProvider())
    assert runtime.pending_server_requests() == [] and runtime.roots() == []
    with pytest.raises(RunError):
        runtime.answer_sampling("x", approved=True)
    with pytest.raises(RunError):
        await runtime.set_roots([Path("/")])
    await runtime.aclose()
