"""The Anthropic Messages stream: decoded SSE events -> provider events and one ``Completion``.

``StreamAssembler`` is pure (no I/O); ``read_stream`` runs it over an SSE body with ``_sse``'s framing and
stall detection, and ``stream_error`` says which ``error`` events are worth a new stream.

Usage: ``prompt_tokens`` counts every input token the model processed (``input_tokens`` +
``cache_read_input_tokens`` + ``cache_creation_input_tokens``, as OpenAI's ``prompt_tokens`` includes cached
ones); ``cache_hit_tokens`` is the cache read, ``cache_miss_tokens`` the rest, of which
``cache_creation_tokens`` were written to the cache.
"""

from __future__ import annotations

import json
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop_app.runtime.errors import EmptyCompletionError, ProviderError, StreamError
from desktop_app.runtime.events.parts import TokenUsage
from desktop_app.runtime.messages import ToolCallRequest
from desktop_app.runtime.providers._sse import DEFAULT_IDLE_TIMEOUT, assemble_stream
from desktop_app.runtime.providers.base import (
    INCOMPLETE,
    Completion,
    ContentChunk,
    FinishReason,
    ProviderEvent,
    ReasoningChunk,
    ToolCallChunk,
    UsageChunk,
    finish_reason,
    is_progress,
)

RETRYABLE_STREAM_ERRORS = frozenset({"overloaded_error", "api_error", "rate_limit_error", "timeout_error"})
"""``error`` event types that are worth a new stream (before progress); others are raised as they are."""


STOP_REASONS: dict[str, FinishReason] = {
    "max_tokens": "max_tokens",
    "refusal": "content_filter",
    "tool_use": "tool_use",
}
"""``stop_reason`` values with a meaning of their own; ``end_turn``, ``stop_sequence`` and the rest follow the calls."""


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
        finish = finish_reason(self.stop_reason, STOP_REASONS, tool_calls=bool(calls))
        if not calls and not content.strip() and finish in INCOMPLETE:
            return Completion(content=content, reasoning=reasoning, reasoning_signature=signature, finish_reason=finish)
        if not calls and not content.strip():
            raise EmptyCompletionError.no_answer(reasoning)
        return Completion(
            content=content,
            reasoning=reasoning,
            reasoning_signature=signature,
            tool_calls=calls,
            finish_reason=finish,
            usage=self.usage,
        )


def read_stream(
    lines: AsyncIterator[str], *, idle_timeout: float = DEFAULT_IDLE_TIMEOUT
) -> AsyncGenerator[ProviderEvent, None]:
    """The provider events of one Messages SSE body, ending with exactly one ``Completion`` at ``message_stop``.

    Raises ``StreamStalled`` when no model output arrives for ``idle_timeout`` seconds (``ping`` does not
    count), ``StreamDisconnected`` when the stream ends before ``message_stop``, and a ``StreamError`` for an
    ``overloaded_error``-like ``error`` event; each says whether output was already emitted. A stray
    ``[DONE]`` is skipped.
    """
    return assemble_stream(lines, StreamAssembler(), idle_timeout=idle_timeout, done_completes=False)


__all__ = ["RETRYABLE_STREAM_ERRORS", "StreamAssembler", "read_stream", "stream_error"]
