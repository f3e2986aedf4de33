"""The run loop through the Runtime facade: streaming, approvals by tool-call id, isError results, busy runs."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.errors import ConversationBusyError, StreamDisconnected, UnknownToolCallError
from desktop_app.runtime.messages import AssistantMessage, ToolMessage
from desktop_app.runtime.providers.base import Completion, ContentChunk, UsageChunk
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.conftest import MemoryKeyring
from tests.support.fakes import FakeHost, FakeProvider, answer, calls


def make_runtime(provider: FakeProvider, host: FakeHost | None = None, mode: str = "ask") -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(
        settings=settings,
        host=host or FakeHost(),
        policy=ApprovalPolicy(mode),  # type: ignore[arg-type]
        provider_factory=lambda _s, _k: provider,
    )


class Recorder:
    def __init__(self, runtime: Runtime, auto: dict[str, bool] | None = None) -> None:
        self.events: list[ev.Event] = []
        self.auto = auto or {}
        self.runtime = runtime
        self.seen: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.model_ids: dict[str, str] = {}  # the runtime's call ids -> the model's (``auto`` is keyed on those)
        runtime.subscribe(self)

    def model_id(self, tool_call_id: str) -> str:
        return self.model_ids.get(tool_call_id, tool_call_id)

    def __call__(self, event: ev.Event) -> None:
        self.events.append(event)
        self.seen[event.kind].set()
        if isinstance(event, ev.ToolCall):
            self.model_ids[event.tool_call_id] = event.model_call_id
        if isinstance(event, ev.ApprovalRequired) and self.model_id(event.tool_call_id) in self.auto:
            approved = self.auto[self.model_id(event.tool_call_id)]
            self.runtime.answer(event.tool_call_id, approved=approved, reason=None if approved else "not now")

    def kinds(self) -> list[str]:
        return [e.kind for e in self.events]


@pytest.mark.asyncio
async def test_plain_answer_streams_reasoning_then_content_then_finishes() -> None:
    provider = FakeProvider([answer("Hello", reasoning="think")])
    runtime = make_runtime(provider)
    rec = Recorder(runtime)
    conv = runtime.new_conversation()
    outcome = await runtime.run(conv, "hi")
    assert outcome.status == "finished"
    assert outcome.content == "Hello"
    assert rec.kinds() == ["run_started", "reasoning_delta", "content_delta", "run_finished"]
    assert all(e.conversation_id == conv and e.run_id == outcome.run_id for e in rec.events)
    await runtime.aclose()
    assert provider.closed


@pytest.mark.asyncio
async def test_tool_call_pauses_for_approval_then_continues() -> None:
    host = FakeHost({"echo": lambda a: f"echo {a['x']}"})
    provider = FakeProvider([calls(("c1", "mcp__fake__echo", '{"x": 1}')), answer("done")])
    runtime = make_runtime(provider, host)
    rec = Recorder(runtime, auto={"c1": True})
    outcome = await runtime.run(runtime.new_conversation(), "go")
    assert outcome.status == "finished"
    assert rec.kinds() == [
        "run_started",
        "tool_call",
        "approval_required",
        "approval_decided",
        "tool_result",
        "content_delta",
        "run_finished",
    ]
    result = next(e for e in rec.events if isinstance(e, ev.ToolResult))
    assert (rec.model_id(result.tool_call_id), result.text, result.is_error) == ("c1", "echo 1", False)
    assert host.log == [("fake", "echo", {"x": 1})]
    # The second request carries the assistant tool call and the tool result.
    second = provider.requests[1].messages
    assert isinstance(second[-2], AssistantMessage) and second[-2].tool_calls[0].id == "c1"
    assert second[-1] == ToolMessage(tool_call_id="c1", content="echo 1", is_error=False)


@pytest.mark.asyncio
async def test_denied_raising_and_unknown_tools_go_back_as_is_error() -> None:
    def boom(_: dict[str, Any]) -> str:
        raise RuntimeError("kaboom")

    host = FakeHost({"echo": lambda a: "ok", "boom": boom})
    provider = FakeProvider(
        [
            calls(
                ("d1", "mcp__fake__echo", "{}"),
                ("b1", "mcp__fake__boom", "{}"),
                ("u1", "mcp__nope__x", "{}"),
                ("j1", "mcp__fake__echo", "[1, 2]"),
            ),
            answer("ok"),
        ]
    )
    runtime = make_runtime(provider, host)
    rec = Recorder(runtime, auto={"d1": False, "b1": True})
    outcome = await runtime.run(runtime.new_conversation(), "go")
    assert outcome.status == "finished"
    results = {rec.model_id(e.tool_call_id): e for e in rec.events if isinstance(e, ev.ToolResult)}
    assert list(results) == ["d1", "b1", "u1", "j1"]  # model order
    assert all(r.is_error for r in results.values())
    assert "denied" in results["d1"].text and "not now" in results["d1"].text
    assert "kaboom" in results["b1"].text
    assert "not found" in results["u1"].text
    assert "JSON object" in results["j1"].text
    assert host.log == [("fake", "boom", {})]
    tool_messages = [m for m in provider.requests[1].messages if isinstance(m, ToolMessage)]
    assert [m.is_error for m in tool_messages] == [True, True, True, True]


@pytest.mark.asyncio
async def test_policy_never_denies_and_always_approves_without_asking() -> None:
    for mode, approved in (("never", False), ("always", True)):
        host = FakeHost({"echo": lambda a: "ok"})
        provider = FakeProvider([calls(("c1", "mcp__fake__echo", "{}")), answer("fine")])
        runtime = make_runtime(provider, host, mode)
        rec = Recorder(runtime)
        await runtime.run(runtime.new_conversation(), "go")
        assert "approval_required" not in rec.kinds()
        decided = next(e for e in rec.events if isinstance(e, ev.ApprovalDecided))
        assert (decided.approved, decided.source) == (approved, "policy")
        assert len(host.log) == int(approved)


@pytest.mark.asyncio
async def test_second_run_on_the_same_conversation_is_refused() -> None:
    host = FakeHost({"echo": lambda a: "ok"})
    provider = FakeProvider([calls(("c1", "mcp__fake__echo", "{}")), answer("one"), answer("other")])
    runtime = make_runtime(provider, host)
    rec = Recorder(runtime)
    conv = runtime.new_conversation()
    first = asyncio.ensure_future(runtime.run(conv, "first"))
    await rec.seen["approval_required"].wait()
    [waiting] = runtime.pending_approvals()
    assert rec.model_id(waiting) == "c1"
    with pytest.raises(ConversationBusyError, match="already active"):
        await runtime.run(conv, "second")
    # Another conversation may run at the same time.
    other = await runtime.run(runtime.new_conversation(), "elsewhere")
    assert other.status == "finished"
    runtime.answer(waiting, approved=True)
    assert (await first).status == "finished"
    assert rec.kinds().count("run_started") == 2


@pytest.mark.asyncio
async def test_answer_for_unknown_or_answered_id_is_an_error() -> None:
    runtime = make_runtime(FakeProvider())
    with pytest.raises(UnknownToolCallError):
        runtime.answer("nope", approved=True)


@pytest.mark.asyncio
async def test_provider_error_after_progress_keeps_partial_and_reports() -> None:
    provider = FakeProvider(
        [
            [ContentChunk(text="partial "), StreamDisconnected("The stream ended early.", after_progress=True)],
            answer("later"),
        ]
    )
    runtime = make_runtime(provider)
    rec = Recorder(runtime)
    conv = runtime.new_conversation()
    outcome = await runtime.run(conv, "go")
    assert outcome.status == "failed"
    assert outcome.content == "partial "
    error = rec.events[-1]
    assert isinstance(error, ev.Error) and error.code == "stream_disconnected"
    assert runtime.conversation(conv).messages[-1] == AssistantMessage(content="partial ")
    # The conversation is usable again after a failure.
    assert (await runtime.run(conv, "again")).status == "finished"


@pytest.mark.asyncio
async def test_cancel_stops_the_run_and_keeps_the_partial_answer() -> None:
    provider = FakeProvider([[ContentChunk(text="half"), Completion(content="half")]])
    provider.gate = asyncio.Event()  # never opened: the stream hangs before completing
    runtime = make_runtime(provider)
    rec = Recorder(runtime)
    conv = runtime.new_conversation()
    task = asyncio.ensure_future(runtime.run(conv, "go"))
    await rec.seen["content_delta"].wait()
    runtime.cancel(conv)
    outcome = await task
    assert outcome.status == "cancelled"
    finished = rec.events[-1]
    assert isinstance(finished, ev.RunFinished) and finished.reason == "cancelled"
    assert finished.content == "half"
    assert not runtime.is_running(conv)


@pytest.mark.asyncio
async def test_tool_round_limit_ends_the_run_visibly() -> None:
    host = FakeHost({"echo": lambda a: "ok"})
    provider = FakeProvider([calls((f"c{i}", "mcp__fake__echo", "{}")) for i in range(3)])
    runtime = make_runtime(provider, host, "always")
    runtime._settings = runtime.settings.model_copy(update={"max_tool_rounds": 2})
    rec = Recorder(runtime)
    await runtime.run(runtime.new_conversation(), "go")
    assert len(host.log) == 2  # exactly N rounds, no off-by-one
    finished = rec.events[-1]
    assert isinstance(finished, ev.RunFinished) and finished.reason == "tool_round_limit"


@pytest.mark.asyncio
async def test_usage_is_published() -> None:
    from desktop_app.runtime.events import TokenUsage

    usage = TokenUsage(prompt_tokens=3, completion_tokens=2, total_tokens=5, cache_hit_tokens=1)
    provider = FakeProvider([[UsageChunk(usage=usage), *answer("x")]])
    runtime = make_runtime(provider)
    rec = Recorder(runtime)
    await runtime.run(runtime.new_conversation(), "go")
    event = next(e for e in rec.events if isinstance(e, ev.Usage))
    assert event.usage.cache_hit_tokens == 1


def test_configure_provider_keeps_the_key_out_of_files(tmp_path: Path, memory_keyring: MemoryKeyring) -> None:
    settings_path = tmp_path / "config" / "settings.json"
    runtime = Runtime(settings=Settings(), host=FakeHost(), settings_path=settings_path)
    chosen = ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat", dialect="deepseek")
    runtime.configure_provider(chosen, "sk-very-secret-key")
    assert runtime.provider_settings == chosen
    assert runtime.api_key() == "sk-very-secret-key"
    assert "sk-very-secret-key" not in settings_path.read_text()
    assert ("switchboard", chosen.key_name) in memory_keyring.store
    every_file = "".join(p.read_text(errors="ignore") for p in tmp_path.rglob("*") if p.is_file())
    assert "sk-very-secret-key" not in every_file


@pytest.mark.asyncio
async def test_each_conversation_keeps_its_provider_and_model() -> None:
    made: list[tuple[str, str]] = []
    providers: dict[str, FakeProvider] = {}

    def factory(settings: ProviderSettings, _key: str | None) -> FakeProvider:
        made.append((settings.base_url, settings.model))
        provider = providers.setdefault(settings.model, FakeProvider([answer("a"), answer("b")]))
        return provider

    default = ProviderSettings(base_url="http://127.0.0.1:9/v1", model="fast", dialect="deepseek", thinking=True)
    runtime = Runtime(settings=Settings(provider=default), host=FakeHost(), provider_factory=factory)
    first, second = runtime.new_conversation(), runtime.new_conversation()
    runtime.set_conversation_provider(second, runtime.stored_provider("http://127.0.0.1:9/v1/", "smart"))
    assert runtime.conversation_provider(second).thinking is True  # same endpoint: the default's options
    await runtime.run(first, "x")
    await runtime.run(second, "y")
    await runtime.run(first, "z")
    assert [r.model for r in providers["fast"].requests] == ["fast", "fast"]
    assert [r.model for r in providers["smart"].requests] == ["smart"]
    assert made == [("http://127.0.0.1:9/v1", "fast"), ("http://127.0.0.1:9/v1", "smart")]  # one provider each
    other = runtime.stored_provider("https://api.anthropic.com", "claude-x")
    assert (other.dialect, other.model) == ("anthropic", "claude-x")
    runtime.set_conversation_provider(second, None)
    assert runtime.conversation_provider(second) == default
    await runtime.aclose()
    assert providers["fast"].closed and providers["smart"].closed


class _HangingHost(FakeHost):
    """A host whose ``hang`` tool runs until it is cancelled (``started`` is set once it runs)."""

    def __init__(self) -> None:
        super().__init__({"hang": lambda _a: "never"})
        self.started = asyncio.Event()

    async def call(self, server: str, tool: str, arguments: dict[str, Any], *, progress: Any = None) -> Any:
        self.started.set()
        await asyncio.Event().wait()


@pytest.mark.asyncio
async def test_a_cancelled_caller_waits_for_the_run_to_record_its_cancelled_tool_call() -> None:
    host = _HangingHost()
    provider = FakeProvider([calls(("c1", "mcp__fake__hang", "{}"))])
    runtime = make_runtime(provider, host, "always")
    rec = Recorder(runtime)
    conv = runtime.new_conversation()
    caller = asyncio.ensure_future(runtime.run(conv, "go"))
    await host.started.wait()
    caller.cancel()
    with pytest.raises(asyncio.CancelledError):
        await caller
    assert rec.kinds()[-2:] == ["tool_result", "run_finished"]  # the result first, then the end
    last = runtime.conversation(conv).messages[-1]
    assert isinstance(last, ToolMessage) and rec.model_id(last.tool_call_id) == "c1" and last.is_error
    assert not runtime.is_running(conv)


@pytest.mark.asyncio
async def test_a_run_that_cannot_start_leaves_the_conversation_free() -> None:
    working = FakeProvider([answer("hello")])
    made: list[ProviderSettings] = []

    def factory(settings: ProviderSettings, _key: str | None) -> FakeProvider:
        made.append(settings)
        if len(made) == 1:
            raise ValueError("no such endpoint")
        return working

    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    runtime = Runtime(settings=settings, host=FakeHost(), provider_factory=factory)
    conv = runtime.new_conversation()
    with pytest.raises(ValueError, match="no such endpoint"):
        await runtime.run(conv, "go")
    assert not runtime.is_running(conv)
    assert (await runtime.run(conv, "go")).status == "finished"  # not refused as busy


@pytest.mark.asyncio
async def test_an_unexpected_failure_still_ends_the_run_visibly_and_propagates() -> None:
    provider = FakeProvider([[ContentChunk(text="partial "), RuntimeError("bug in a provider")]])
    runtime = make_runtime(provider)
    rec = Recorder(runtime)
    conv = runtime.new_conversation()
    with pytest.raises(RuntimeError, match="bug in a provider"):
        await runtime.run(conv, "go")
    error = rec.events[-1]
    assert isinstance(error, ev.Error) and error.code == "internal_error" and "bug in a provider" in error.message
    assert runtime.conversation(conv).messages[-1] == AssistantMessage(content="partial ")
    assert not runtime.is_running(conv)
