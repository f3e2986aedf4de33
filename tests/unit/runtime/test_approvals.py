"""The approval model: scopes, grants (listed, revocable, persisted), edited arguments, continue after pause."""

from __future__ import annotations

import asyncio
from collections import defaultdict
from pathlib import Path

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.errors import ConfigError, UnknownToolCallError
from desktop_app.runtime.messages import AssistantMessage, ToolCallRequest, ToolMessage, UserMessage
from desktop_app.runtime.run.approvals import ApprovalPolicy, Grant, GrantStore
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeHost, FakeProvider, answer, calls


class Answers:
    """Answers approvals as they are asked, from a script keyed by the model's tool-call id.

    The runtime's events carry its own call ids; ``model_id`` maps them back (from the ``ToolCall`` events).
    """

    def __init__(self, runtime: Runtime, script: dict[str, dict[str, object]]) -> None:
        self.runtime, self.script = runtime, script
        self.events: list[ev.Event] = []
        self.seen: defaultdict[str, asyncio.Event] = defaultdict(asyncio.Event)
        self.model_ids: dict[str, str] = {}
        runtime.subscribe(self)

    def model_id(self, tool_call_id: str) -> str:
        return self.model_ids.get(tool_call_id, tool_call_id)

    def __call__(self, event: ev.Event) -> None:
        self.events.append(event)
        self.seen[event.kind].set()
        if isinstance(event, ev.ToolCall):
            self.model_ids[event.tool_call_id] = event.model_call_id
        if isinstance(event, ev.ApprovalRequired) and self.model_id(event.tool_call_id) in self.script:
            self.runtime.answer(event.tool_call_id, **self.script[self.model_id(event.tool_call_id)])  # type: ignore[arg-type]

    def of(self, kind: type[ev.ApprovalDecided]) -> list[ev.ApprovalDecided]:
        return [e for e in self.events if isinstance(e, kind)]


def make(provider: FakeProvider, host: FakeHost, grants: GrantStore | None = None, **policy: bool) -> Runtime:
    settings = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m"))
    return Runtime(
        settings=settings,
        host=host,
        policy=ApprovalPolicy("ask", **policy),
        grants=grants,
        provider_factory=lambda _s, _k: provider,
    )


def echo_host() -> FakeHost:
    return FakeHost({"echo": lambda a: f"echo {a}", "other": lambda a: "other"})


@pytest.mark.asyncio
async def test_scopes_create_grants_that_skip_later_questions(tmp_path: Path) -> None:
    grants = GrantStore(tmp_path / "grants.json")
    provider = FakeProvider(
        [
            calls(("a", "mcp__fake__echo", "{}")),
            calls(("b", "mcp__fake__echo", "{}"), ("c", "mcp__fake__other", "{}")),
            answer("done"),
        ]
    )
    runtime = make(provider, echo_host(), grants)
    answers = Answers(runtime, {"a": {"approved": True, "scope": "tool"}, "c": {"approved": True}})
    await runtime.run(runtime.new_conversation(), "go")
    decided = {answers.model_id(e.tool_call_id): e for e in answers.of(ev.ApprovalDecided)}
    assert (decided["a"].source, decided["a"].scope) == ("user", "tool")
    assert (decided["b"].source, decided["b"].scope) == ("grant", "tool")  # not asked again
    assert decided["c"].source == "user"
    asked = [answers.model_id(e.tool_call_id) for e in answers.events if isinstance(e, ev.ApprovalRequired)]
    assert asked == ["a", "c"]
    # The lasting grant is listed with where it came from, persisted, and revocable.
    [grant] = grants.list()
    assert (grant.scope, grant.server, grant.tool) == ("tool", "fake", "echo")
    assert f"tool call {next(k for k, v in answers.model_ids.items() if v == 'a')}" in grant.origin
    assert GrantStore(tmp_path / "grants.json").list() == [grant]
    assert runtime.revoke_grant(grant) is True
    assert GrantStore(tmp_path / "grants.json").list() == []


@pytest.mark.asyncio
async def test_conversation_grant_stays_in_its_conversation_and_server_trust_covers_all_tools() -> None:
    grants = GrantStore()
    grants.add(Grant(scope="conversation", server="fake", tool="echo", conversation_id="c1"))
    assert grants.find("c1", "fake", "echo") is not None
    assert grants.find("c2", "fake", "echo") is None
    grants.add(Grant(scope="server", server="fake"))
    assert grants.find("c2", "fake", "other") is not None
    assert grants.find("c2", "elsewhere", "other") is None


def test_broken_grants_file_is_reported_and_kept(tmp_path: Path) -> None:
    path = tmp_path / "grants.json"
    path.write_text("{nope")
    with pytest.raises(ConfigError):
        GrantStore(path)
    assert path.read_text() == "{nope"


@pytest.mark.asyncio
async def test_read_only_rules() -> None:
    policy = ApprovalPolicy()
    assert policy.decide_without_asking(builtin=True, read_only=True) is not None  # built-in read-only: never ask
    assert policy.decide_without_asking(builtin=False, read_only=True) is None  # off by default
    on = ApprovalPolicy(auto_approve_read_only=True)
    decision = on.decide_without_asking(read_only=True)
    assert decision is not None and decision.approved
    # "Built-in tools that only read never ask": ``never`` denies what needs an approval, and they do not.
    assert ApprovalPolicy("never").decide_without_asking(builtin=True, read_only=True).approved is True  # type: ignore[union-attr]
    assert ApprovalPolicy("never").decide_without_asking(builtin=True, read_only=False).approved is False  # type: ignore[union-attr]
    assert ApprovalPolicy("never").decide_without_asking(builtin=False, read_only=True).approved is False  # type: ignore[union-attr]


@pytest.mark.asyncio
async def test_edited_arguments_run_and_replace_the_models_in_history() -> None:
    host = echo_host()
    provider = FakeProvider([calls(("a", "mcp__fake__echo", '{"x": 1}')), answer("done")])
    runtime = make(provider, host)
    answers = Answers(runtime, {"a": {"approved": True, "arguments": {"x": 2}}})
    await runtime.run(runtime.new_conversation(), "go")
    assert host.log == [("fake", "echo", {"x": 2})]
    [decided] = answers.of(ev.ApprovalDecided)
    assert decided.edited_arguments == {"x": 2}
    history = provider.requests[1].messages
    assistant = next(m for m in history if isinstance(m, AssistantMessage))
    assert assistant.tool_calls[0].arguments == '{"x": 2}'
    result = history[-1]
    assert isinstance(result, ToolMessage) and "edited the arguments" in result.content


@pytest.mark.asyncio
async def test_unknown_and_twice_answered_ids_are_errors() -> None:
    provider = FakeProvider([calls(("a", "mcp__fake__echo", "{}")), answer("done")])
    runtime = make(provider, echo_host())
    answers = Answers(runtime, {})
    conv = runtime.new_conversation()
    task = asyncio.ensure_future(runtime.run(conv, "go"))
    await answers.seen["approval_required"].wait()
    with pytest.raises(UnknownToolCallError):
        runtime.answer("zzz", approved=True)
    [waiting] = runtime.pending_approvals(conv)
    assert answers.model_id(waiting) == "a"
    with pytest.raises(UnknownToolCallError):
        runtime.answer("a", approved=True)  # the model's id is not the runtime's
    with pytest.raises(ValueError, match="edited arguments"):
        runtime.answer(waiting, approved=False, arguments={"x": 1})
    runtime.answer(waiting, approved=True)
    with pytest.raises(UnknownToolCallError):
        runtime.answer(waiting, approved=True)
    assert (await task).status == "finished"


@pytest.mark.asyncio
async def test_tool_round_limit_pauses_and_continue_runs_another_round() -> None:
    host = echo_host()
    provider = FakeProvider([calls((f"c{i}", "mcp__fake__echo", "{}")) for i in range(2)] + [answer("finally")])
    runtime = make(provider, host)
    runtime._settings = runtime.settings.model_copy(update={"max_tool_rounds": 1})
    answers = Answers(runtime, {"c0": {"approved": True}, "c1": {"approved": True}})
    conv = runtime.new_conversation()
    first = await runtime.run(conv, "go")
    finished = [e for e in answers.events if isinstance(e, ev.RunFinished)]
    assert finished[-1].reason == "tool_round_limit" and first.status == "finished"
    await runtime.continue_run(conv)  # another N=1 rounds, then the limit again
    assert [e for e in answers.events if isinstance(e, ev.RunFinished)][-1].reason == "tool_round_limit"
    third = await runtime.continue_run(conv)
    assert third.content == "finally"
    started = [e for e in answers.events if isinstance(e, ev.RunStarted)]
    assert [s.continued for s in started] == [False, True, True]
    assert len(host.log) == 2


@pytest.mark.asyncio
async def test_resume_after_restart_asks_again_and_completes() -> None:
    """A conversation that paused on approvals, reloaded into a new Runtime (an app restart)."""
    stored = [
        UserMessage(content="go"),
        AssistantMessage(
            reasoning="need both",
            tool_calls=(
                ToolCallRequest(id="a", name="mcp__fake__echo", arguments='{"x": 1}'),
                ToolCallRequest(id="b", name="mcp__fake__other", arguments="{}"),
            ),
        ),
        ToolMessage(tool_call_id="a", content="echo {'x': 1}"),  # a was answered before the restart
    ]
    host = echo_host()
    provider = FakeProvider([answer("all done")])
    runtime = make(provider, host)
    runtime.load_conversation("conv-1", stored)
    assert [c.id for c in runtime.pending_tool_calls("conv-1")] == ["b"]
    answers = Answers(runtime, {"b": {"approved": False, "reason": "not today"}})
    outcome = await runtime.continue_run("conv-1")
    assert outcome.content == "all done"
    assert host.log == []  # b was denied
    sent = provider.requests[0].messages
    assert isinstance(sent[-1], ToolMessage) and "not today" in sent[-1].content
    assert [e.tool_call_id for e in answers.events if isinstance(e, ev.ApprovalRequired)] == ["b"]


@pytest.mark.asyncio
async def test_a_new_prompt_abandons_a_paused_turn_visibly() -> None:
    stored = [
        UserMessage(content="go"),
        AssistantMessage(tool_calls=(ToolCallRequest(id="a", name="mcp__fake__echo"),)),
    ]
    provider = FakeProvider([answer("ok")])
    runtime = make(provider, echo_host())
    runtime.load_conversation("c", stored)
    await runtime.run("c", "never mind")
    sent = provider.requests[0].messages
    assert isinstance(sent[2], ToolMessage) and sent[2].is_error and "moved on" in sent[2].content
    assert sent[-1] == UserMessage(content="never mind")


def test_auto_approve_read_only_is_a_saved_setting(tmp_path: Path) -> None:
    path = tmp_path / "settings.json"
    runtime = Runtime(settings=Settings(), host=echo_host(), settings_path=path)
    assert runtime.policy.auto_approve_read_only is False  # off by default
    runtime.set_auto_approve_read_only(True)
    assert runtime.policy.auto_approve_read_only is True
    from desktop_app.runtime.settings import load_settings

    assert load_settings(path).auto_approve_read_only is True
    assert Runtime(settings=load_settings(path), host=echo_host()).policy.auto_approve_read_only is True


@pytest.mark.asyncio
async def test_edit_note_keeps_a_structured_only_result_for_the_model() -> None:
    from tests.support.fakes import FakeOutcome

    class StructuredHost(FakeHost):
        async def call(self, server: str, tool: str, arguments: dict[str, object], *, progress: object = None):  # type: ignore[no-untyped-def,override]
            return FakeOutcome("", structured={"x": arguments["x"]})

    provider = FakeProvider([calls(("a", "mcp__fake__echo", '{"x": 1}')), answer("done")])
    runtime = make(provider, StructuredHost({"echo": lambda a: ""}))
    Answers(runtime, {"a": {"approved": True, "arguments": {"x": 2}}})
    await runtime.run(runtime.new_conversation(), "go")
    result = provider.requests[1].messages[-1]
    assert isinstance(result, ToolMessage)
    assert "edited the arguments" in result.content and result.content.endswith('{"x": 2}')
