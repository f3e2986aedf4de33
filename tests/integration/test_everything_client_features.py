"""The host as an MCP client against ``@modelcontextprotocol/server-everything``, over stdio and streamable HTTP.

Tools, resources (list/read), prompts (list/get), sampling, elicitation, progress, logging and cancellation,
through the Runtime facade where the user answers (sampling on a scripted provider, elicitation forms).
Like ``test_everything_server.py``: skipped only when the server is not installed and ``CI`` is unset.
"""

from __future__ import annotations

import asyncio
from collections import defaultdict
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest
import pytest_asyncio

from desktop_app.runtime import events as ev
from desktop_app.runtime.errors import InvalidElicitationResponseError
from desktop_app.runtime.host import Host, ServerConfig
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.integration.test_everything_server import ENTRY, NODE, http_server
from tests.support.fakes import FakeProvider, answer, calls

pytestmark = pytest.mark.integration

__all__ = ["http_server"]  # the fixture, used through request.getfixturevalue

WAIT = 30.0
SERVER = "everything"


@dataclass
class Client:
    """A host and runtime on one server-everything, with the host events seen so far."""

    host: Host
    runtime: Runtime
    provider: FakeProvider
    events: list[ev.HostEvent] = field(default_factory=list)
    seen: defaultdict[str, asyncio.Event] = field(default_factory=lambda: defaultdict(asyncio.Event))

    def __call__(self, event: ev.HostEvent) -> None:
        self.events.append(event)
        self.seen[event.kind].set()

    async def wait(self, kind: str) -> None:
        async with asyncio.timeout(WAIT):
            await self.seen[kind].wait()

    def of(self, kind: type[ev.SamplingRequested | ev.ElicitationRequested | ev.ServerLog]) -> list[ev.HostEvent]:
        return [event for event in self.events if isinstance(event, kind)]

    async def tool(self, name: str) -> None:
        """Wait until the server lists ``name`` (server-everything adds some after the handshake)."""
        async with asyncio.timeout(WAIT):
            while True:
                self.seen["tools_changed"].clear()
                if any(tool.server == SERVER and tool.tool == name for tool in self.host.tools()):
                    return
                await self.seen["tools_changed"].wait()


@pytest_asyncio.fixture(params=["stdio", "streamable-http"])
async def client(request: pytest.FixtureRequest) -> AsyncIterator[Client]:
    assert NODE is not None
    if request.param == "stdio":
        config = ServerConfig(command=NODE, args=[str(ENTRY), "stdio"])
    else:
        port = request.getfixturevalue("http_server")
        config = ServerConfig(url=f"http://127.0.0.1:{port}/mcp")
    host = Host({SERVER: config}, startup_timeout=WAIT, call_timeout=WAIT)
    provider = FakeProvider()
    runtime = Runtime(
        settings=Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="user-model")),
        host=host,
        policy=ApprovalPolicy("ask"),
        provider_factory=lambda _settings, _key: provider,
    )
    state = Client(host, runtime, provider)
    host.subscribe(state)
    try:
        await host.start()
        assert host.states()[SERVER].state == "ready", host.states()[SERVER].error
        yield state
    finally:
        await runtime.aclose()


@pytest.mark.asyncio
async def test_tools_resources_and_prompts(client: Client) -> None:
    host = client.host
    echo = await host.call(SERVER, "echo", {"message": "hi"})
    assert (echo.is_error, echo.text) == (False, "Echo: hi")

    resources = await host.list_resources(SERVER)
    uris = [resource.uri for resource in resources]
    assert "demo://resource/static/document/architecture.md" in uris
    text = await host.read_resource(SERVER, "demo://resource/static/document/architecture.md")
    assert text.texts and text.texts[0].mime_type == "text/markdown" and "Architecture" in text.text
    assert text.as_prompt_text().startswith(f'<resource server="{SERVER}" uri="demo://resource/static/')
    blob = await host.read_resource(SERVER, "demo://resource/dynamic/blob/1")
    assert blob.blobs and blob.text.startswith("[binary resource demo://resource/dynamic/blob/1 text/plain, ")
    templates = await host.list_resource_templates(SERVER)
    assert any("{resourceId}" in template.uri_template for template in templates)

    prompts = {prompt.name for prompt in await host.list_prompts(SERVER)}
    assert {"simple-prompt", "args-prompt", "resource-prompt"} <= prompts
    weather = await host.get_prompt(SERVER, "args-prompt", {"city": "Oslo"})
    assert [(m.role, m.text) for m in weather.messages] == [("user", "What's weather in Oslo?")]
    with_resource = await host.get_prompt(SERVER, "resource-prompt", {"resourceType": "Text", "resourceId": "1"})
    assert "[resource demo://resource/dynamic/text/1]" in with_resource.as_text()


@pytest.mark.asyncio
async def test_sampling_and_elicitation_are_answered_by_the_user(client: Client) -> None:
    host, runtime = client.host, client.runtime
    client.provider.responses.append(list(answer("pong from the user's model")))

    await client.tool("trigger-sampling-request")
    call = asyncio.ensure_future(host.call(SERVER, "trigger-sampling-request", {"prompt": "ping"}))
    await client.wait("sampling_requested")
    [requested] = client.of(ev.SamplingRequested)
    assert isinstance(requested, ev.SamplingRequested) and requested.server == SERVER
    assert requested.messages[0].role == "user" and requested.messages[0].text.endswith("ping")
    assert requested.max_tokens == 100
    runtime.answer_sampling(requested.request_id, approved=True)
    sampled = await call
    assert not sampled.is_error and "pong from the user's model" in sampled.text
    assert client.provider.requests[0].model == "user-model"

    await client.tool("trigger-elicitation-request")
    call = asyncio.ensure_future(host.call(SERVER, "trigger-elicitation-request", {}))
    await client.wait("elicitation_requested")
    [asked] = client.of(ev.ElicitationRequested)
    assert isinstance(asked, ev.ElicitationRequested) and asked.mode == "form"
    assert asked.requested_schema["required"] == ["name"]
    with pytest.raises(InvalidElicitationResponseError, match="name"):
        runtime.answer_elicitation(asked.request_id, "accept", {"integer": 7})
    with pytest.raises(InvalidElicitationResponseError, match="integer"):
        runtime.answer_elicitation(asked.request_id, "accept", {"name": "Ada", "integer": 500})
    runtime.answer_elicitation(asked.request_id, "accept", {"name": "Ada Lovelace", "check": True, "integer": 7})
    elicited = await call
    assert not elicited.is_error and "Ada Lovelace" in elicited.text


@pytest.mark.asyncio
async def test_progress_logging_and_cancellation(client: Client) -> None:
    host, runtime = client.host, client.runtime

    # Progress through a run: the model calls the long-running tool; ToolProgress precedes the ToolResult.
    client.provider.responses += [
        list(calls(("c1", "mcp__everything__trigger-long-running-operation", '{"duration": 0.3, "steps": 3}'))),
        list(answer("done")),
    ]
    run_events: list[ev.Event] = []

    def on_run_event(event: ev.Event) -> None:
        run_events.append(event)
        if isinstance(event, ev.ApprovalRequired):
            runtime.answer(event.tool_call_id, approved=True)

    runtime.subscribe(on_run_event)
    outcome = await runtime.run(runtime.new_conversation(), "go")
    assert outcome.status == "finished"
    kinds = [event.kind for event in run_events]
    progress = [event for event in run_events if isinstance(event, ev.ToolProgress)]
    assert [(p.progress, p.total) for p in progress] == [(1, 3), (2, 3), (3, 3)]
    assert kinds.index("tool_progress") < kinds.index("tool_result")

    # Logging: the simulated log sends its first message at once.
    client.seen["server_log"].clear()
    before = len(host.server_log(SERVER))
    toggled = await host.call(SERVER, "toggle-simulated-logging", {})
    assert not toggled.is_error
    await client.wait("server_log")
    assert len(host.server_log(SERVER)) > before
    assert all(entry.server == SERVER for entry in host.server_log(SERVER))
    await host.call(SERVER, "toggle-simulated-logging", {})  # stop it again

    # Cancellation: stop a long call once it reported progress; the connection stays usable.
    started = asyncio.Event()

    async def on_progress(progress: float, total: float | None, message: str | None) -> None:
        started.set()

    slow = asyncio.ensure_future(
        host.call(SERVER, "trigger-long-running-operation", {"duration": 60, "steps": 60}, progress=on_progress)
    )
    async with asyncio.timeout(WAIT):
        await started.wait()
    slow.cancel()
    with pytest.raises(asyncio.CancelledError):
        await slow
    after = await host.call(SERVER, "echo", {"message": "still here"})
    assert (after.is_error, after.text) == (False, "Echo: still here")
    assert host.states()[SERVER].state == "ready"
