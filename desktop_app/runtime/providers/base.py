"""What every provider yields and takes: the request shape and the normalized stream items."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Mapping
from typing import Annotated, Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from desktop_app.runtime.events.parts import RetryInfo, TokenUsage
from desktop_app.runtime.messages import Message, ToolCallRequest, ToolSpec


class ChatRequest(BaseModel):
    """One model request: the conversation so far, the tools on offer and the generation options."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    model: str
    messages: tuple[Message, ...]
    tools: tuple[ToolSpec, ...] = ()
    thinking: bool | None = None
    reasoning_effort: str | None = None
    max_tokens: int | None = None


FinishReason = Literal["end_turn", "tool_use", "max_tokens", "content_filter"]
"""Why a response ended. ``max_tokens`` (wire ``length``) and ``content_filter`` (OpenAI's filter, Anthropic's
``refusal``) are incomplete answers: the run says so, and the CLI exits with its own code."""

INCOMPLETE: frozenset[FinishReason] = frozenset({"max_tokens", "content_filter"})
"""The finish reasons of an answer that was cut off or filtered: an empty one is incomplete, not retried."""


def finish_reason(wire: str | None, dialect: Mapping[str, FinishReason], *, tool_calls: bool) -> FinishReason:
    """A wire stop reason as a ``FinishReason``: the dialect's own mapping when it has one for ``wire``, else
    ``tool_use`` when the answer carries tool calls, else ``end_turn``."""
    mapped = dialect.get(wire) if wire is not None else None
    if mapped is not None:
        return mapped
    return "tool_use" if tool_calls else "end_turn"


class _Item(BaseModel):
    model_config = ConfigDict(frozen=True, defer_build=True)


class ContentChunk(_Item):
    kind: Literal["content"] = "content"
    text: str


class ReasoningChunk(_Item):
    kind: Literal["reasoning"] = "reasoning"
    text: str


class ToolCallChunk(_Item):
    """A fragment of a tool call being assembled (for progress display); the Completion has the whole."""

    kind: Literal["tool_call_delta"] = "tool_call_delta"
    index: int
    id: str = ""
    name: str = ""
    arguments_delta: str = ""


class UsageChunk(_Item):
    kind: Literal["usage"] = "usage"
    usage: TokenUsage


class RetryChunk(_Item):
    """The provider will try again; with ``stream_reset`` the partial output emitted so far is void."""

    kind: Literal["retry"] = "retry"
    info: RetryInfo


class Completion(_Item):
    """The end of one model response, with everything it said."""

    kind: Literal["completion"] = "completion"
    content: str = ""
    reasoning: str = ""
    reasoning_signature: str = ""
    """Anthropic: the thinking block's signature; keep it on the ``AssistantMessage`` to replay the reasoning."""
    tool_calls: tuple[ToolCallRequest, ...] = ()
    finish_reason: FinishReason = "end_turn"
    usage: TokenUsage | None = None


ProviderEvent = Annotated[
    ContentChunk | ReasoningChunk | ToolCallChunk | UsageChunk | RetryChunk | Completion,
    Field(discriminator="kind"),
]


def is_progress(event: ProviderEvent) -> bool:
    """Model output, which restarts the idle-stall timer (usage and retry notices are not progress)."""
    return isinstance(event, ContentChunk | ReasoningChunk | ToolCallChunk)


class Provider(Protocol):
    """A model endpoint. ``stream`` yields chunks and ends with exactly one ``Completion`` or raises."""

    def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]: ...

    async def aclose(self) -> None: ...


async def final_completion(
    events: AsyncIterator[ProviderEvent], *, on_retry: Callable[[RetryInfo], None] | None = None
) -> Completion | None:
    """Drain a stream whose deltas nobody shows: its ``Completion`` (``None`` if it had none).

    Retry notices go to ``on_retry``; the other chunks are dropped (the Completion repeats what they said).
    """
    completion: Completion | None = None
    async for item in events:
        if isinstance(item, RetryChunk) and on_retry is not None:
            on_retry(item.info)
        elif isinstance(item, Completion):
            completion = item
    return completion
