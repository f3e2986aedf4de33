"""The native Anthropic Messages streaming provider (``POST <base>/v1/messages``).

It owns the Anthropic wire format: the request body (``build_body``, ``to_wire_messages``), the assembly of
streamed events into provider events and one ``Completion`` (``StreamAssembler``), and the
``AnthropicProvider`` over httpx. SSE framing and stall detection come from ``_sse``, sending and both retry
levels from ``_retry``, as in the OpenAI provider; HTTP 529 ("overloaded") is retried like 429/5xx.

Conversation mapping:

* every ``SystemMessage`` goes to the top-level ``system`` string (joined by blank lines);
* an assistant message becomes content blocks: its thinking block (replayed only when a signature was kept,
  since the API verifies it), a text block, then one ``tool_use`` block per call;
* tool results become ``tool_result`` blocks of a user message; consecutive messages of one role are merged
  into one message, so the results of one tool round travel together as the API requires.

Usage: ``prompt_tokens`` counts every input token the model processed (``input_tokens`` +
``cache_read_input_tokens`` + ``cache_creation_input_tokens``, as OpenAI's ``prompt_tokens`` includes cached
ones); ``cache_hit_tokens`` is the cache read, ``cache_miss_tokens`` the rest, of which
``cache_creation_tokens`` were written to the cache.

Prompt caching: ``build_body`` sets three ``cache_control`` breakpoints (``add_cache_breakpoints``): on the
system prompt, on the last tool (the schemas before it are cached with it) and on the last block of the last
message, so the whole request is cached for the next one, which repeats it and appends (see #16).
"""

from __future__ import annotations

import asyncio
import dataclasses
import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from desktop_app.runtime.errors import EmptyCompletionError, ProviderError, StreamDisconnected, StreamError
from desktop_app.runtime.events import TokenUsage
from desktop_app.runtime.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCallRequest,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from desktop_app.runtime.providers._http import StreamingHttpProvider
from desktop_app.runtime.providers._retry import RetryPolicy, Sleep
from desktop_app.runtime.providers._sse import DEFAULT_IDLE_TIMEOUT, SSEReader, decode_data
from desktop_app.runtime.providers.base import (
    ChatRequest,
    Completion,
    ContentChunk,
    FinishReason,
    ProviderEvent,
    ReasoningChunk,
    ToolCallChunk,
    UsageChunk,
    is_progress,
)
from desktop_app.runtime.providers.deepseek import repair_messages

ANTHROPIC_VERSION = "2023-06-01"
OVERLOADED_STATUS = 529
DEFAULT_MAX_TOKENS = 8192
MIN_THINKING_BUDGET = 1024
"""The smallest ``budget_tokens`` the API accepts."""

RETRYABLE_STREAM_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})
"""``error`` event types that are worth a new stream (before progress); others are raised as they are."""


def messages_endpoint(base_url: str) -> str:
    """``<base>/v1/messages``, whether or not the base URL already ends with ``/v1``."""
    base = base_url.strip().rstrip("/")
    if base.endswith("/v1"):
        return f"{base}/messages"
    return f"{base}/v1/messages"


def anthropic_retry_policy(policy: RetryPolicy | None = None) -> RetryPolicy:
    """``policy`` (default: the standard one) with 529 "overloaded" among the retryable statuses."""
    base = policy or RetryPolicy()
    if OVERLOADED_STATUS in base.retryable_statuses:
        return base
    return dataclasses.replace(base, retryable_statuses=base.retryable_statuses | {OVERLOADED_STATUS})


# ---- request ------------------------------------------------------------------------------------------


def _tool_input(call: ToolCallRequest) -> dict[str, Any]:
    """The call's arguments as the JSON object ``tool_use.input`` must be; unparsable arguments become ``{}``."""
    try:
        return call.parsed_arguments()
    except ValueError:
        return {}


def _assistant_blocks(message: AssistantMessage) -> list[dict[str, Any]]:
    blocks: list[dict[str, Any]] = []
    if message.reasoning and message.reasoning_signature:
        # The API verifies the signature: without one (e.g. reasoning from another dialect) it is not sent.
        blocks.append({"type": "thinking", "thinking": message.reasoning, "signature": message.reasoning_signature})
    if message.content:
        blocks.append({"type": "text", "text": message.content})
    for call in message.tool_calls:
        blocks.append({"type": "tool_use", "id": call.id, "name": call.name, "input": _tool_input(call)})
    return blocks


def user_blocks(message: UserMessage) -> list[dict[str, Any]]:
    """A user message's blocks: one base64 ``image`` block per image, then the text (context, files, prompt)."""
    blocks: list[dict[str, Any]] = [
        {"type": "image", "source": {"type": "base64", "media_type": image.mime_type, "data": image.data}}
        for image in message.images
    ]
    text = message.text_with_attachments()
    if text:
        blocks.append({"type": "text", "text": text})
    return blocks


def to_wire_messages(messages: Sequence[Message]) -> tuple[str, list[dict[str, Any]]]:
    """The ``system`` string and the ``messages`` array (content-block lists, same roles merged)."""
    system: list[str] = []
    out: list[dict[str, Any]] = []

    def add(role: Literal["user", "assistant"], blocks: list[dict[str, Any]]) -> None:
        if not blocks:
            return  # the API rejects empty messages and empty text blocks
        if out and out[-1]["role"] == role:
            out[-1]["content"].extend(blocks)
        else:
            out.append({"role": role, "content": blocks})

    for message in messages:
        if isinstance(message, SystemMessage):
            if message.content.strip():
                system.append(message.content)
        elif isinstance(message, UserMessage):
            add("user", user_blocks(message))
        elif isinstance(message, AssistantMessage):
            add("assistant", _assistant_blocks(message))
        elif isinstance(message, ToolMessage):
            block = {
                "type": "tool_result",
                "tool_use_id": message.tool_call_id,
                "content": message.content,
                "is_error": message.is_error,
            }
            add("user", [block])
    return "\n\n".join(system), out


def to_wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tools in the Anthropic format: ``name``, ``description``, ``input_schema``."""
    return [{"name": tool.name, "description": tool.description, "input_schema": tool.parameters} for tool in tools]


EPHEMERAL: dict[str, str] = {"type": "ephemeral"}


def add_cache_breakpoints(body: dict[str, Any]) -> dict[str, Any]:
    """Mark the system prompt, the last tool and the last message's last block with ``cache_control``.

    The breakpoints never change the content before them, so the cached prefix of one request is the
    start of the next (Anthropic's cache ignores where the markers were). Returns ``body``, changed.
    """
    system = body.get("system")
    if isinstance(system, str) and system:
        body["system"] = [{"type": "text", "text": system, "cache_control": EPHEMERAL}]
    tools = body.get("tools")
    if tools:
        tools[-1] = {**tools[-1], "cache_control": EPHEMERAL}
    messages = body.get("messages")
    if messages and messages[-1].get("content"):
        blocks = list(messages[-1]["content"])
        if blocks[-1].get("type") not in ("thinking", "redacted_thinking"):
            blocks[-1] = {**blocks[-1], "cache_control": EPHEMERAL}
            messages[-1] = {**messages[-1], "content": blocks}
    return body


def build_body(
    request: ChatRequest,
    *,
    max_tokens: int = DEFAULT_MAX_TOKENS,
    thinking_budget: int | None = None,
    prompt_cache: bool = True,
) -> dict[str, Any]:
    """The JSON body of one streaming Messages request.

    The messages are first repaired as for chat completions (``deepseek.repair_messages``): the API rejects
    a ``tool_use`` without its ``tool_result``. ``request.max_tokens`` wins over ``max_tokens``. With
    ``request.thinking`` the budget is ``thinking_budget`` (default: half of ``max_tokens``, at least 1024)
    and ``max_tokens`` is raised to leave at least 1024 tokens for the answer. ``reasoning_effort`` is unused.
    ``prompt_cache`` adds the ``cache_control`` breakpoints (``add_cache_breakpoints``).
    """
    limit = request.max_tokens if request.max_tokens is not None and request.max_tokens > 0 else max_tokens
    system, messages = to_wire_messages(repair_messages(request.messages)[0])
    body: dict[str, Any] = {"model": request.model, "max_tokens": limit, "stream": True}
    if system:
        body["system"] = system
    body["messages"] = messages
    if request.tools:
        body["tools"] = to_wire_tools(request.tools)
    if request.thinking:
        budget = max(thinking_budget if thinking_budget is not None else limit // 2, MIN_THINKING_BUDGET)
        if limit - budget < MIN_THINKING_BUDGET:
            body["max_tokens"] = budget + MIN_THINKING_BUDGET
        body["thinking"] = {"type": "enabled", "budget_tokens": budget}
    return add_cache_breakpoints(body) if prompt_cache else body


# ---- response -----------------------------------------------------------------------------------------


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


_USAGE_KEYS = ("input_tokens", "cache_read_input_tokens", "cache_creation_input_tokens", "output_tokens")


def stream_error(frame: Mapping[str, Any], *, after_progress: bool) -> ProviderError:
    """What an ``error`` event becomes: a ``StreamError`` (retried before progress) or a plain error."""
    error = frame.get("error")
    error = error if isinstance(error, Mapping) else {}
    kind = _str(error.get("type")) or "error"
    detail = _str(error.get("message")) or "no details"
    if kind in RETRYABLE_STREAM_ERRORS:
        return StreamError(
            f"The model provider failed mid-answer ({kind}: {detail}). Try again.", after_progress=after_progress
        )
    return ProviderError(f"The model provider rejected the request mid-answer ({kind}: {detail}).")


@dataclass
class _Block:
    type: str
    parts: list[str] = field(default_factory=list)
    signature: str = ""
    id: str = ""
    name: str = ""
    call_index: int = -1
    initial_input: str = ""


class StreamAssembler:
    """Turns decoded Messages stream events into provider events and the final ``Completion``.

    Pure: no I/O. Blocks are kept by their ``index``; ``input_json_delta`` fragments are concatenated per
    block. ``ToolCallChunk.index`` counts tool calls (0, 1, …), not content blocks. ``error`` events raise.
    Only one thinking block per answer is replayable: the signature kept is that of the last thinking block.
    """

    def __init__(self) -> None:
        self._blocks: dict[int, _Block] = {}
        self._usage: dict[str, int] = {}
        self._emitted_usage: TokenUsage | None = None
        self._calls = 0
        self.stop_reason: str | None = None
        self.finished = False
        self.progressed = False

    @property
    def usage(self) -> TokenUsage | None:
        """The usage so far, ``None`` before any was reported."""
        if not any(self._usage.values()):
            return None
        read = self._usage.get("cache_read_input_tokens", 0)
        created = self._usage.get("cache_creation_input_tokens", 0)
        fresh = self._usage.get("input_tokens", 0)
        output = self._usage.get("output_tokens", 0)
        prompt = fresh + read + created
        return TokenUsage(
            prompt_tokens=prompt,
            completion_tokens=output,
            total_tokens=prompt + output,
            cache_hit_tokens=read,
            cache_miss_tokens=fresh + created,
            cache_creation_tokens=created,
        )

    def feed(self, frame: Mapping[str, Any]) -> list[ProviderEvent]:
        """The events carried by one stream event, in order."""
        kind = frame.get("type")
        events: list[ProviderEvent] = []
        if kind == "message_start":
            message = frame.get("message")
            if isinstance(message, Mapping):
                self._take_usage(message.get("usage"))
        elif kind == "content_block_start":
            events.extend(self._block_start(frame))
        elif kind == "content_block_delta":
            events.extend(self._block_delta(frame))
        elif kind == "message_delta":
            delta = frame.get("delta")
            if isinstance(delta, Mapping) and isinstance(delta.get("stop_reason"), str):
                self.stop_reason = delta["stop_reason"]
            self._take_usage(frame.get("usage"))
            events.extend(self._usage_event())
        elif kind == "message_stop":
            events.extend(self._usage_event())
            self.finished = True
        elif kind == "error":
            raise stream_error(frame, after_progress=self.progressed)
        # ping, content_block_stop and unknown events carry nothing
        if any(is_progress(event) for event in events):
            self.progressed = True
        return events

    def _take_usage(self, raw: Any) -> None:
        if isinstance(raw, Mapping):
            for key in _USAGE_KEYS:
                if key in raw:
                    self._usage[key] = _int(raw.get(key))

    def _usage_event(self) -> list[ProviderEvent]:
        usage = self.usage
        if usage is None or usage == self._emitted_usage:
            return []
        self._emitted_usage = usage
        return [UsageChunk(usage=usage)]

    def _block_start(self, frame: Mapping[str, Any]) -> list[ProviderEvent]:
        index, raw = frame.get("index"), frame.get("content_block")
        if not isinstance(index, int) or not isinstance(raw, Mapping):
            return []
        block = _Block(type=_str(raw.get("type")))
        self._blocks[index] = block
        if block.type == "text":
            return self._append(block, _str(raw.get("text")))
        if block.type == "thinking":
            block.signature = _str(raw.get("signature"))
            return self._append(block, _str(raw.get("thinking")))
        if block.type == "tool_use":
            block.id, block.name = _str(raw.get("id")), _str(raw.get("name"))
            block.call_index = self._calls
            self._calls += 1
            initial = raw.get("input")
            if isinstance(initial, Mapping) and initial:
                block.initial_input = json.dumps(initial)
            return [ToolCallChunk(index=block.call_index, id=block.id, name=block.name)]
        return []  # redacted_thinking and unknown blocks are not kept

    def _block_delta(self, frame: Mapping[str, Any]) -> list[ProviderEvent]:
        index, delta = frame.get("index"), frame.get("delta")
        block = self._blocks.get(index) if isinstance(index, int) else None
        if block is None or not isinstance(delta, Mapping):
            return []
        kind = delta.get("type")
        if kind == "text_delta" and block.type == "text":
            return self._append(block, _str(delta.get("text")))
        if kind == "thinking_delta" and block.type == "thinking":
            return self._append(block, _str(delta.get("thinking")))
        if kind == "signature_delta" and block.type == "thinking":
            block.signature += _str(delta.get("signature"))
        elif kind == "input_json_delta" and block.type == "tool_use":
            partial = _str(delta.get("partial_json"))
            block.parts.append(partial)
            return [ToolCallChunk(index=block.call_index, id=block.id, name=block.name, arguments_delta=partial)]
        return []

    @staticmethod
    def _append(block: _Block, text: str) -> list[ProviderEvent]:
        if not text:
            return []
        block.parts.append(text)
        return [ContentChunk(text=text) if block.type == "text" else ReasoningChunk(text=text)]

    def _ordered(self, kind: str) -> list[_Block]:
        return [self._blocks[i] for i in sorted(self._blocks) if self._blocks[i].type == kind]

    def tool_calls(self) -> tuple[ToolCallRequest, ...]:
        """The assembled ``tool_use`` blocks in stream order."""
        return tuple(
            ToolCallRequest(id=b.id, name=b.name, arguments="".join(b.parts) or b.initial_input or "{}")
            for b in self._ordered("tool_use")
        )

    def complete(self) -> Completion:
        """The final ``Completion``; ``EmptyCompletionError`` when there is no answer and no tool call."""
        content = "".join("".join(b.parts) for b in self._ordered("text"))
        thinking = self._ordered("thinking")
        reasoning = "".join("".join(b.parts) for b in thinking)
        signature = next((b.signature for b in reversed(thinking) if b.signature), "")
        calls = self.tool_calls()
        finish: FinishReason
        if self.stop_reason == "max_tokens":
            finish = "max_tokens"
        elif self.stop_reason == "refusal":
            finish = "content_filter"
        elif self.stop_reason == "tool_use" or calls:
            finish = "tool_use"
        else:
            finish = "end_turn"
        if not calls and not content.strip() and finish in ("max_tokens", "content_filter"):
            return Completion(content=content, reasoning=reasoning, reasoning_signature=signature, finish_reason=finish)
        if not calls and not content.strip():
            if reasoning.strip():
                raise EmptyCompletionError(
                    "The model reasoned but returned no answer and no tool call. Try again.", retryable=True
                )
            raise EmptyCompletionError(
                "The model returned no answer and no tool call. Try again or rephrase the request.",
                retryable=False,
            )
        return Completion(
            content=content,
            reasoning=reasoning,
            reasoning_signature=signature,
            tool_calls=calls,
            finish_reason=finish,
            usage=self.usage,
        )


async def read_stream(
    lines: AsyncIterator[str], *, idle_timeout: float = DEFAULT_IDLE_TIMEOUT
) -> AsyncGenerator[ProviderEvent, None]:
    """The provider events of one Messages SSE body, ending with exactly one ``Completion`` at ``message_stop``.

    Raises ``StreamStalled`` when no model output arrives for ``idle_timeout`` seconds (``ping`` does not
    count), ``StreamDisconnected`` when the stream ends before ``message_stop``, and a ``StreamError`` for an
    ``overloaded_error``-like ``error`` event; each says whether output was already emitted.
    """
    reader = SSEReader(lines, idle_timeout=idle_timeout)
    assembler = StreamAssembler()
    frames = reader.frames()
    try:
        async for data in frames:
            frame = decode_data(data)
            if not isinstance(frame, dict):
                continue  # blank, malformed or a stray [DONE]: skipped
            for event in assembler.feed(frame):
                if is_progress(event):
                    reader.mark_progress()
                yield event
            if assembler.finished:
                yield assembler.complete()
                return
    finally:
        await frames.aclose()
    raise StreamDisconnected(
        "The model stream ended before the answer was complete. Try again.",
        after_progress=assembler.progressed,
    )


# ---- the provider -------------------------------------------------------------------------------------


class AnthropicProvider(StreamingHttpProvider):
    """An Anthropic Messages endpoint, streamed over SSE."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        client: httpx.AsyncClient | None = None,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        retry_policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        max_tokens: int = DEFAULT_MAX_TOKENS,
        thinking_budget: int | None = None,
    ) -> None:
        if max_tokens < 1:
            raise ValueError("max_tokens must be at least 1")
        if thinking_budget is not None and thinking_budget < MIN_THINKING_BUDGET:
            raise ValueError(f"thinking_budget must be at least {MIN_THINKING_BUDGET}")
        super().__init__(
            base_url=base_url,
            api_key=api_key,
            client=client,
            idle_timeout=idle_timeout,
            retry_policy=anthropic_retry_policy(retry_policy),
            sleep=sleep,
        )
        self.max_tokens = max_tokens
        self.thinking_budget = thinking_budget

    @property
    def endpoint(self) -> str:
        return messages_endpoint(self.base_url)

    def _headers(self) -> dict[str, str]:
        headers = {"anthropic-version": ANTHROPIC_VERSION, "content-type": "application/json"}
        headers["accept"] = "text/event-stream"
        if self._api_key:
            headers["x-api-key"] = self._api_key
        return headers

    def _read_lines(self, lines: AsyncIterator[str]) -> AsyncGenerator[ProviderEvent, None]:
        return read_stream(lines, idle_timeout=self._idle_timeout)

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        """Stream one response: deltas, usage and retry notices, then exactly one ``Completion``."""
        body = build_body(request, max_tokens=self.max_tokens, thinking_budget=self.thinking_budget)
        events = self._post_stream(self.endpoint, body)
        try:
            async for event in events:
                yield event
        finally:
            await events.aclose()
