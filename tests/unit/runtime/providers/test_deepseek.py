"""Message repair, 400 diagnostics and prefix completion (Whale §1.1), without a network."""

from __future__ import annotations

import contextlib
import json
from collections.abc import AsyncGenerator
from typing import Any

import httpx
import pytest

from desktop_app.runtime.errors import ProviderHTTPError
from desktop_app.runtime.events import RetryInfo
from desktop_app.runtime.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCallRequest,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from desktop_app.runtime.providers.base import (
    ChatRequest,
    Completion,
    ContentChunk,
    ProviderEvent,
    ReasoningChunk,
    RetryChunk,
)
from desktop_app.runtime.providers.deepseek import (
    MISSING_TOOL_RESULT,
    DiagnosedHTTPError,
    MessageDiagnostics,
    PrefixCompletionProvider,
    join_prefix,
    join_prefix_content,
    prefix_base_url,
    repair_messages,
    with_diagnostics,
)
from desktop_app.runtime.providers.openai import OpenAIProvider
from desktop_app.runtime.providers.openai_request import Dialect, build_body, build_request
from tests.support.provider_harness import drain
from tests.support.provider_harness import mock_provider as harness_provider

DIALECTS: tuple[Dialect, ...] = ("openai", "deepseek")
A = ToolCallRequest(id="call_a", name="get_time", arguments="{}")
B = ToolCallRequest(id="call_b", name="echo", arguments='{"x": 1}')
TOOL = ToolSpec(name="get_time")


def synthetic(call_id: str) -> ToolMessage:
    return ToolMessage(tool_call_id=call_id, content=MISSING_TOOL_RESULT)


# ---- repair -------------------------------------------------------------------------------------------


def test_a_well_formed_conversation_is_left_alone() -> None:
    messages: list[Message] = [
        SystemMessage(content="s"),
        UserMessage(content="u"),
        AssistantMessage(reasoning="r", tool_calls=(A, B)),
        ToolMessage(tool_call_id="call_a", content="1"),
        ToolMessage(tool_call_id="call_b", content="2", is_error=True),
        AssistantMessage(content="done"),
    ]
    repaired, diag = repair_messages(messages)
    assert repaired == messages
    assert diag == MessageDiagnostics()
    assert not diag.any()
    assert diag.suffix() == ""


def test_a_call_without_result_gets_a_synthetic_one_before_the_next_message_and_at_the_end() -> None:
    messages: list[Message] = [
        UserMessage(content="u"),
        AssistantMessage(tool_calls=(A, B)),
        ToolMessage(tool_call_id="call_b", content="2"),
        UserMessage(content="again"),
        AssistantMessage(content="trying", tool_calls=(ToolCallRequest(id="call_c", name="x"),)),
    ]
    repaired, diag = repair_messages(messages)
    assert repaired == [
        UserMessage(content="u"),
        AssistantMessage(tool_calls=(A, B)),
        synthetic("call_a"),
        ToolMessage(tool_call_id="call_b", content="2"),
        UserMessage(content="again"),
        AssistantMessage(content="trying", tool_calls=(ToolCallRequest(id="call_c", name="x"),)),
        synthetic("call_c"),
    ]
    assert diag.synthetic_tool_results == 2
    assert json.loads(MISSING_TOOL_RESULT) == {
        "success": False,
        "error": "missing tool result recovered before provider send",
        "code": "missing_tool_result_recovered",
    }


def test_stray_and_duplicate_tool_results_are_dropped() -> None:
    messages: list[Message] = [
        ToolMessage(tool_call_id="nobody", content="stray at the start"),
        UserMessage(content="u"),
        AssistantMessage(tool_calls=(A,)),
        ToolMessage(tool_call_id="call_a", content="first"),
        ToolMessage(tool_call_id="call_a", content="second"),
        ToolMessage(tool_call_id="call_z", content="unknown"),
        AssistantMessage(content="answer"),
        ToolMessage(tool_call_id="call_a", content="late"),
    ]
    repaired, diag = repair_messages(messages)
    assert repaired == [
        UserMessage(content="u"),
        AssistantMessage(tool_calls=(A,)),
        ToolMessage(tool_call_id="call_a", content="first"),
        AssistantMessage(content="answer"),
    ]
    assert diag.dropped_stray_tools == 4
    assert diag.synthetic_tool_results == 0


def test_results_are_put_in_call_order() -> None:
    messages: list[Message] = [
        AssistantMessage(tool_calls=(A, B)),
        ToolMessage(tool_call_id="call_b", content="2"),
        ToolMessage(tool_call_id="call_a", content="1"),
    ]
    repaired, diag = repair_messages(messages)
    assert [m.tool_call_id for m in repaired if isinstance(m, ToolMessage)] == ["call_a", "call_b"]
    assert not diag.any()


def test_empty_assistant_messages_are_dropped_but_reasoning_only_ones_kept() -> None:
    messages: list[Message] = [
        UserMessage(content="u"),
        AssistantMessage(content="  "),
        AssistantMessage(reasoning="thought, then the stream broke"),
        UserMessage(content="again"),
    ]
    repaired, _ = repair_messages(messages)
    assert repaired == [messages[0], messages[2], messages[3]]


def test_missing_call_ids_are_synthesised_and_blank_results_attached() -> None:
    messages: list[Message] = [
        UserMessage(content="u"),
        AssistantMessage(tool_calls=(ToolCallRequest(id="", name="a"), ToolCallRequest(id=" ", name="b"), A)),
        ToolMessage(tool_call_id="", content="for the first"),
    ]
    repaired, diag = repair_messages(messages)
    assistant = repaired[1]
    assert isinstance(assistant, AssistantMessage)
    assert [c.id for c in assistant.tool_calls] == [
        "switchboard_synthetic_call_1_0",
        "switchboard_synthetic_call_1_1",
        "call_a",
    ]
    assert repaired[2:] == [
        ToolMessage(tool_call_id="switchboard_synthetic_call_1_0", content="for the first"),
        synthetic("switchboard_synthetic_call_1_1"),
        synthetic("call_a"),
    ]
    assert (diag.repaired_missing_tool_call_ids, diag.synthetic_tool_results) == (2, 2)


@pytest.mark.parametrize("dialect", DIALECTS)
def test_the_body_is_repaired_in_every_dialect(dialect: Dialect) -> None:
    request = ChatRequest(
        model="m",
        messages=(UserMessage(content="u"), AssistantMessage(tool_calls=(A,)), UserMessage(content="next")),
    )
    body, diag = build_request(request, dialect=dialect)
    assert [m["role"] for m in body["messages"]] == ["user", "assistant", "tool", "user"]
    assert body["messages"][2] == {"role": "tool", "tool_call_id": "call_a", "content": MISSING_TOOL_RESULT}
    assert diag.synthetic_tool_results == 1
    assert build_body(request, dialect=dialect) == body


def test_reasoning_counters_are_deepseek_only() -> None:
    request = ChatRequest(
        model="m",
        messages=(
            UserMessage(content="u"),
            AssistantMessage(reasoning="kept", tool_calls=(A,)),
            ToolMessage(tool_call_id="call_a", content="1"),
            AssistantMessage(content="answer", reasoning="stripped"),
            AssistantMessage(content="no reasoning", reasoning=" "),
        ),
        thinking=True,
    )
    body, diag = build_request(request, dialect="deepseek")
    assert (diag.preserved_tool_reasoning, diag.stripped_reasoning) == (1, 1)
    assert body["messages"][1]["reasoning_content"] == "kept"
    assert "reasoning_content" not in body["messages"][3]
    _, plain = build_request(request, dialect="openai")
    assert not plain.any()


# ---- diagnostics on 400 -------------------------------------------------------------------------------


def test_diagnostics_text() -> None:
    diag = MessageDiagnostics(preserved_tool_reasoning=1, synthetic_tool_results=2)
    assert diag.suffix() == (
        " (message diagnostics: stripped_reasoning=0 preserved_tool_reasoning=1 synthetic_tool_results=2"
        " dropped_stray_tools=0 repaired_missing_tool_call_ids=0)"
    )


def test_with_diagnostics_only_touches_a_400_with_repairs() -> None:
    diag = MessageDiagnostics(dropped_stray_tools=1)
    bad = ProviderHTTPError(400, '{"error": "bad messages"}')
    diagnosed = with_diagnostics(bad, diag)
    assert isinstance(diagnosed, DiagnosedHTTPError)
    assert (diagnosed.status, diagnosed.body, diagnosed.diagnostics) == (400, bad.body, diag)
    assert str(diagnosed) == str(bad) + diag.suffix()
    assert with_diagnostics(bad, MessageDiagnostics()) is bad
    busy = ProviderHTTPError(503, "busy")
    assert with_diagnostics(busy, diag) is busy
    assert with_diagnostics(diagnosed, diag) is diagnosed


def mock_provider(
    answers: list[bytes | httpx.Response], *, base_url: str = "http://llm.test/v1", dialect: Dialect = "deepseek"
) -> tuple[OpenAIProvider, list[httpx.Request]]:
    provider, seen, _ = harness_provider(OpenAIProvider, answers, base_url=base_url, api_key="sk", dialect=dialect)
    return provider, seen


BROKEN = ChatRequest(
    model="m",
    messages=(UserMessage(content="u"), AssistantMessage(reasoning="r", tool_calls=(A,)), UserMessage(content="n")),
    thinking=True,
)


@pytest.mark.asyncio
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_a_400_after_repairs_carries_the_diagnostics(dialect: Dialect) -> None:
    provider, seen = mock_provider(
        [httpx.Response(400, json={"error": {"message": "invalid messages"}})], dialect=dialect
    )
    with pytest.raises(ProviderHTTPError) as info:
        await drain(provider.stream(BROKEN), closing=provider)
    assert len(seen) == 1
    assert info.value.status == 400
    assert "invalid messages" in str(info.value)
    preserved = 1 if dialect == "deepseek" else 0
    assert str(info.value).endswith(
        f" (message diagnostics: stripped_reasoning=0 preserved_tool_reasoning={preserved}"
        " synthetic_tool_results=1 dropped_stray_tools=0 repaired_missing_tool_call_ids=0)"
    )


@pytest.mark.asyncio
async def test_a_400_without_repairs_and_other_statuses_have_no_diagnostics() -> None:
    clean = ChatRequest(model="m", messages=(UserMessage(content="u"),))
    provider, _ = mock_provider([httpx.Response(400, json={"error": "bad"})])
    with pytest.raises(ProviderHTTPError) as info:
        await drain(provider.stream(clean), closing=provider)
    assert "message diagnostics" not in str(info.value)
    assert not isinstance(info.value, DiagnosedHTTPError)
    provider, _ = mock_provider([httpx.Response(401, json={"error": "bad key"})])
    with pytest.raises(ProviderHTTPError) as info:
        await drain(provider.stream(BROKEN), closing=provider)
    assert "message diagnostics" not in str(info.value)


# ---- prefix completion --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("base", "expected"),
    [
        ("https://api.deepseek.com", "https://api.deepseek.com/beta"),
        ("https://api.deepseek.com/", "https://api.deepseek.com/beta"),
        ("https://api.deepseek.com/v1", "https://api.deepseek.com/beta"),
        ("https://api.deepseek.com/v1/", "https://api.deepseek.com/beta"),
        ("https://api.deepseek.com/beta", "https://api.deepseek.com/beta"),
        ("http://127.0.0.1:8080/beta/", "http://127.0.0.1:8080/beta"),
        ("https://proxy.example/deepseek/beta", "https://proxy.example/deepseek/beta"),
        ("https://proxy.example/v1", None),
        ("https://api.deepseek.com/v2", None),
        ("https://api.openai.com/v1", None),
        ("", None),
    ],
)
def test_prefix_base_url(base: str, expected: str | None) -> None:
    assert prefix_base_url(base) == expected


def test_join_prefix_content() -> None:
    assert join_prefix_content("{", '"decision":"pass"}') == '{"decision":"pass"}'
    assert join_prefix_content("{", '{"decision":"pass"}') == '{"decision":"pass"}'
    assert join_prefix_content("{", "") == "{"


async def scripted(*events: ProviderEvent) -> AsyncGenerator[ProviderEvent, None]:
    for event in events:
        yield event


async def joined(prefix: str, *events: ProviderEvent) -> list[ProviderEvent]:
    async with contextlib.aclosing(join_prefix(scripted(*events), prefix)) as stream:
        return [event async for event in stream]


@pytest.mark.asyncio
async def test_join_prefix_emits_the_prefix_first_unless_the_model_repeats_it() -> None:
    out = await joined(
        "{",
        ReasoningChunk(text="r"),
        ContentChunk(text='"a":'),
        ContentChunk(text="1}"),
        Completion(content='"a":1}', reasoning="r"),
    )
    assert out == [
        ReasoningChunk(text="r"),
        ContentChunk(text="{"),
        ContentChunk(text='"a":'),
        ContentChunk(text="1}"),
        Completion(content='{"a":1}', reasoning="r"),
    ]
    repeated = await joined("{", ContentChunk(text='{"a":1}'), Completion(content='{"a":1}'))
    assert repeated == [ContentChunk(text='{"a":1}'), Completion(content='{"a":1}')]


@pytest.mark.asyncio
async def test_join_prefix_emits_it_again_after_a_stream_reset() -> None:
    reset = RetryChunk(
        info=RetryInfo(attempt=1, max_attempts=6, delay_s=1, stage="stream", reason="x", stream_reset=True)
    )
    out = await joined("{", ContentChunk(text="a"), reset, ContentChunk(text="b}"), Completion(content="b}"))
    assert [e.text for e in out if isinstance(e, ContentChunk)] == ["{", "a", "{", "b}"]
    assert out[-1] == Completion(content="{b}")


def sse_ok(text: str) -> httpx.Response:
    frame = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
    body = f"data: {json.dumps(frame)}\n\ndata: [DONE]\n\n".encode()
    return httpx.Response(200, content=body, headers={"content-type": "text/event-stream"})


PREFIX_REQUEST = ChatRequest(model="deepseek-chat", messages=(UserMessage(content="judge"),), tools=(TOOL,))


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("base_url", "dialect", "prefix"),
    [
        ("http://llm.test/v1", "deepseek", "{"),  # a custom base without /beta
        ("https://api.deepseek.com/beta", "deepseek", "  "),  # a blank prefix
        ("https://api.deepseek.com/beta", "openai", "{"),  # not the DeepSeek dialect
    ],
)
async def test_prefix_falls_back_to_a_normal_stream_without_tools(base_url: str, dialect: Dialect, prefix: str) -> None:
    provider, seen = mock_provider([sse_ok("plain")], base_url=base_url, dialect=dialect)
    events = await drain(provider.stream_with_prefix(PREFIX_REQUEST, prefix, stop=["}"]), closing=provider)
    assert events == [ContentChunk(text="plain"), Completion(content="plain")]
    [sent] = seen
    assert str(sent.url) == f"{base_url}/chat/completions"
    body: dict[str, Any] = json.loads(sent.content)
    assert body == build_body(PREFIX_REQUEST.model_copy(update={"tools": ()}), dialect=dialect)
    assert "tools" not in body
    assert "stop" not in body


@pytest.mark.asyncio
async def test_prefix_uses_the_beta_endpoint_for_the_deepseek_base() -> None:
    provider, seen = mock_provider([sse_ok('"decision":"pass"}')], base_url="https://api.deepseek.com/v1")
    events = await drain(provider.stream_with_prefix(PREFIX_REQUEST, "{"), closing=provider)
    assert events[-1] == Completion(content='{"decision":"pass"}')
    [sent] = seen
    assert str(sent.url) == "https://api.deepseek.com/beta/chat/completions"
    body = json.loads(sent.content)
    assert body["messages"][-1] == {"role": "assistant", "content": "{", "prefix": True}
    assert "tools" not in body
    assert "stop" not in body


@pytest.mark.asyncio
async def test_openai_provider_is_a_prefix_completion_provider() -> None:
    openai_provider = OpenAIProvider(base_url="https://api.deepseek.com", api_key=None)
    provider: PrefixCompletionProvider = openai_provider  # checked by mypy
    assert callable(provider.stream_with_prefix)
    await openai_provider.aclose()
