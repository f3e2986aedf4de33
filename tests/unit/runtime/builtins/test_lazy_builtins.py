"""The built-ins as the app assembles them: registered lazily, created once on the first run, and approved
by their annotations (read-only ones never ask, ``save_artifact`` does) through the real Runtime."""

from __future__ import annotations

import asyncio
from collections import Counter
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio
from mcp.server.mcpserver import MCPServer

import desktop_app.runtime.builtins as builtins
from desktop_app.assembly import Assembly, assemble
from desktop_app.paths import AppPaths
from desktop_app.runtime import events as ev
from desktop_app.runtime.host import Host
from desktop_app.runtime.run.approvals import ApprovalMode, ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from desktop_app.runtime.store import attach_store
from tests.support.fakes import FakeProvider, ModelIds, answer, calls

BUILTIN_TOOLS = {
    "current_time",
    "system_info",
    "search_conversations",
    "read_conversation",
    "save_artifact",
    "list_artifacts",
    "read_artifact",
    "list_workflows",  # switchboard.workflows and switchboard.tasks: registered by the assembly, lazy too
    "run_workflow",
    "list_tasks",
    "create_task",
    "update_task",
    "delete_task",
    "run_task",
}
LAZY_SERVERS = (*builtins.BUILTIN_SERVERS, "switchboard.workflows", "switchboard.tasks")


@pytest.fixture
def counts(monkeypatch: pytest.MonkeyPatch) -> Counter[str]:
    """Counts how often each built-in server is created (the factories registered by ``assemble``)."""
    created: Counter[str] = Counter()

    def counting(name: str, make: Callable[..., MCPServer]) -> Callable[..., MCPServer]:
        def factory(*args: Any, **kwargs: Any) -> MCPServer:
            created[name] += 1
            return make(*args, **kwargs)

        return factory

    for attr in ("make_system_server", "make_history_server", "make_artifacts_server"):
        monkeypatch.setattr(builtins, attr, counting(attr, getattr(builtins, attr)))
    return created


@pytest_asyncio.fixture
async def built(tmp_path: Path) -> AsyncIterator[Assembly]:
    paths = AppPaths(tmp_path / "config", tmp_path / "data", tmp_path / "logs").ensure()
    assembly = assemble(paths, strict=True)
    yield assembly
    await assembly.aclose()


def runtime_on(host: Host, provider: FakeProvider, mode: ApprovalMode = "ask") -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(settings=settings, host=host, policy=ApprovalPolicy(mode), provider_factory=lambda _s, _k: provider)


@pytest.mark.asyncio
async def test_assembly_registers_builtins_but_the_first_run_creates_them_once(
    built: Assembly, counts: Counter[str]
) -> None:
    host = built.host
    await host.start()
    assert counts == Counter()  # nothing created by assemble() or Host.start()
    builtin_states = {name: s.state for name, s in host.states().items() if s.builtin}
    assert builtin_states == {name: "idle" for name in LAZY_SERVERS}
    assert host.tools() == []

    provider = FakeProvider([answer("hello"), answer("again")])
    runtime = runtime_on(host, provider)
    conversation = runtime.new_conversation()
    await runtime.run(conversation, "hi")

    assert counts == Counter(make_system_server=1, make_history_server=1, make_artifacts_server=1)
    assert {spec.name for spec in provider.requests[0].tools} == BUILTIN_TOOLS  # listed in the first request
    await runtime.run(conversation, "and again")
    await asyncio.gather(host.ensure_builtins(), host.ensure_builtins())
    assert counts == Counter(make_system_server=1, make_history_server=1, make_artifacts_server=1)
    assert {name: s.state for name, s in host.states().items() if s.builtin} == {name: "ready" for name in LAZY_SERVERS}


@pytest.mark.asyncio
async def test_concurrent_ensure_builtins_creates_each_server_once() -> None:
    made: Counter[str] = Counter()

    def factory() -> MCPServer:
        made["demo"] += 1
        return MCPServer("demo", log_level="WARNING")

    host = Host()
    try:
        host.register_builtin("switchboard.demo", factory)
        await asyncio.gather(host.ensure_builtins(), host.ensure_builtins(), host.ensure_connected("switchboard.demo"))
        assert made["demo"] == 1
    finally:
        await host.aclose()


class Listener:
    """Records events; approves the tool calls in ``approve`` when they ask."""

    def __init__(self, runtime: Runtime, approve: frozenset[str] = frozenset()) -> None:
        self.events: list[ev.Event] = []
        self.runtime = runtime
        self.approve = approve  # the model's call ids
        self.ids = ModelIds()
        runtime.subscribe(self)

    def __call__(self, event: ev.Event) -> None:
        self.events.append(event)
        self.ids(event)
        if isinstance(event, ev.ApprovalRequired) and self.ids.model(event.tool_call_id) in self.approve:
            self.runtime.answer(event.tool_call_id, approved=True)

    def of(self, kind: type[ev.Event]) -> list[Any]:
        return [e for e in self.events if isinstance(e, kind)]


@pytest.mark.asyncio
async def test_read_only_builtins_never_ask_and_save_artifact_does(built: Assembly, tmp_path: Path) -> None:
    assert built.store is not None
    provider = FakeProvider(
        [
            answer("Noted: pelicans."),
            calls(
                ("c1", "current_time", "{}"),
                ("c2", "search_conversations", '{"query": "pelican"}'),
                ("c3", "list_artifacts", "{}"),
            ),
            calls(("c4", "save_artifact", '{"name": "bird.md", "content": "# Pelican", "mime_type": "text/markdown"}')),
            answer("Saved."),
        ]
    )
    runtime = runtime_on(built.host, provider)
    recorder = attach_store(runtime, built.store)  # so that history search sees this conversation
    try:
        listener = Listener(runtime, approve=frozenset({"c4"}))
        conversation = runtime.new_conversation()
        await runtime.run(conversation, "Remember the pelican.")
        outcome = await runtime.run(conversation, "What time is it, and save a note.")
    finally:
        recorder.close()

    assert outcome.status == "finished" and outcome.content == "Saved."
    assert [listener.ids.model(e.tool_call_id) for e in listener.of(ev.ApprovalRequired)] == ["c4"]
    decided = {
        listener.ids.model(e.tool_call_id): (e.approved, e.source, e.reason) for e in listener.of(ev.ApprovalDecided)
    }
    assert decided == {
        "c1": (True, "policy", "built-in read-only tool"),
        "c2": (True, "policy", "built-in read-only tool"),
        "c3": (True, "policy", "built-in read-only tool"),
        "c4": (True, "user", None),
    }
    results = {listener.ids.model(e.tool_call_id): e for e in listener.of(ev.ToolResult)}
    assert all(not r.is_error for r in results.values()), [r.text for r in results.values()]
    assert results["c1"].server == "switchboard.system" and "utc_offset" in (results["c1"].structured or {})
    assert f"conversation_id: {conversation}" in results["c2"].text and "[pelican]" in results["c2"].text
    assert results["c3"].structured == {"folder": str(tmp_path / "data" / "artifacts"), "artifacts": []}
    assert (tmp_path / "data" / "artifacts" / "bird.md").read_text() == "# Pelican"


@pytest.mark.asyncio
async def test_never_denies_save_artifact_but_not_read_only_builtins(built: Assembly, tmp_path: Path) -> None:
    provider = FakeProvider(
        [
            calls(("c1", "system_info", "{}"), ("c2", "save_artifact", '{"name": "x.txt", "content": "x"}')),
            answer("ok"),
        ]
    )
    runtime = runtime_on(built.host, provider, "never")
    listener = Listener(runtime)
    await runtime.run(runtime.new_conversation(), "go")
    assert listener.of(ev.ApprovalRequired) == []
    results = {listener.ids.model(e.tool_call_id): e for e in listener.of(ev.ToolResult)}
    assert not results["c1"].is_error
    assert results["c2"].is_error
    assert results["c2"].text == "The user denied this tool call. Reason: denied by policy (--approve never)"
    assert not (tmp_path / "data" / "artifacts").exists()
