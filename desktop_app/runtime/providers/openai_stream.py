"""The response side of the OpenAI-compatible Chat Completions wire format: streamed ``chat.completion.chunk``
frames assembled into provider events and one ``Completion`` (``StreamAssembler``), usage (``parse_usage``),
an error object inside the stream (``stream_error_object``) and ``read_stream`` over SSE lines (framing, stall
and the tail after ``finish_reason``). Used by ``openai.OpenAIProvider``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from desktop_app.runtime.errors import EmptyCompletionError, ProviderStreamError
from desktop_app.runtime.events.parts import TokenUsage
from desktop_app.runtime.messages import ToolCallRequest
from desktop_app.runtime.providers._sse import DEFAULT_FINISH_GRACE, DEFAULT_IDLE_TIMEOUT, assemble_stream
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


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0


def parse_usage(raw: Any) -> TokenUsage | None:
    """A ``usage`` object as ``TokenUsage``; ``None`` when absent or all-zero.

    DeepSeek's ``prompt_cache_hit_tokens``/``prompt_cache_miss_tokens`` map to the cache counts; OpenAI's
    ``prompt_tokens_details.cached_tokens`` is used when those are missing.
    """
    if not isinstance(raw, Mapping):
        return None
    prompt = _int(raw.get("prompt_tokens"))
    completion = _int(raw.get("completion_tokens"))
    total = _int(raw.get("total_tokens"))
    if not (prompt or completion or total):
        return None
    hit = _int(raw.get("prompt_cache_hit_tokens"))
    miss = _int(raw.get("prompt_cache_miss_tokens"))
    details = raw.get("prompt_tokens_details")
    if "prompt_cache_hit_tokens" not in raw and isinstance(details, Mapping) and "cached_tokens" in details:
        hit = _int(details.get("cached_tokens"))
        miss = max(prompt - hit, 0)
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=total,
        cache_hit_tokens=hit,
        cache_miss_tokens=miss,
    )


FINISH_REASONS: dict[str, FinishReason] = {"length": "max_tokens", "content_filter": "content_filter"}
"""``finish_reason`` values with a meaning of their own; ``stop``, ``tool_calls`` and the rest follow the calls."""


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class StreamAssembler:
    """Turns decoded ``chat.completion.chunk`` frames into provider events and the final ``Completion``.

    Pure: no I/O. Only ``choices[0]`` is read. Tool-call fragments are assembled by ``index`` (missing
    means 0); ``id`` and ``name`` are taken when non-empty and argument fragments are concatenated.
    """

    def __init__(self) -> None:
        self._content: list[str] = []
        self._reasoning: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self.usage: TokenUsage | None = None
        self.finish_reason: str | None = None
        self.progressed = False

    @property
    def finished(self) -> bool:
        """``finish_reason: tool_calls`` arrived: the answer is complete; only the usage frame and ``[DONE]`` follow."""
        return self.finish_reason == "tool_calls"

    def feed(self, frame: Mapping[str, Any]) -> list[ProviderEvent]:
        """The events carried by one frame, in order; an error object (``{"error": …}``) raises."""
        if "error" in frame and not frame.get("choices"):
            raise stream_error_object(frame["error"])
        events: list[ProviderEvent] = []
        choices = frame.get("choices")
        if isinstance(choices, list) and choices and isinstance(choices[0], Mapping):
            choice = choices[0]
            delta = choice.get("delta")
            if isinstance(delta, Mapping):
                events.extend(self._delta(delta))
            finish = choice.get("finish_reason")
            if isinstance(finish, str) and finish:
                self.finish_reason = finish
        usage = parse_usage(frame.get("usage"))
        if usage is not None and usage != self.usage:
            self.usage = usage
            events.append(UsageChunk(usage=usage))
        if any(is_progress(event) for event in events):
            self.progressed = True
        return events

    def _delta(self, delta: Mapping[str, Any]) -> list[ProviderEvent]:
        events: list[ProviderEvent] = []
        reasoning = delta.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning:
            self._reasoning.append(reasoning)
            events.append(ReasoningChunk(text=reasoning))
        content = delta.get("content")
        if isinstance(content, str) and content:
            self._content.append(content)
            events.append(ContentChunk(text=content))
        tool_calls = delta.get("tool_calls")
        if isinstance(tool_calls, list):
            for fragment in tool_calls:
                if isinstance(fragment, Mapping):
                    events.append(self._tool_fragment(fragment))
        return events

    def _tool_fragment(self, fragment: Mapping[str, Any]) -> ToolCallChunk:
        index = fragment.get("index")
        if not isinstance(index, int) or isinstance(index, bool) or index < 0:
            index = 0
        call = self._calls.setdefault(index, _PartialCall())
        call_id = fragment.get("id")
        if isinstance(call_id, str) and call_id:
            call.id = call_id
        function = fragment.get("function")
        arguments = ""
        if isinstance(function, Mapping):
            name = function.get("name")
            if isinstance(name, str) and name:
                call.name = name
            args = function.get("arguments")
            if isinstance(args, str):
                arguments = args
                call.arguments.append(args)
        return ToolCallChunk(index=index, id=call.id, name=call.name, arguments_delta=arguments)

    def tool_calls(self) -> tuple[ToolCallRequest, ...]:
        """The assembled calls in index order; a call the model sent without an id gets a fresh one."""
        out = []
        for index in sorted(self._calls):
            call = self._calls[index]
            out.append(
                ToolCallRequest(
                    id=call.id or f"call_{uuid.uuid4().hex[:24]}",
                    name=call.name,
                    arguments="".join(call.arguments) or "{}",
                )
            )
        return tuple(out)

    def complete(self) -> Completion:
        """The final ``Completion``; ``EmptyCompletionError`` when there is no answer and no tool call."""
        content = "".join(self._content)
        reasoning = "".join(self._reasoning)
        calls = self.tool_calls()
        finish = finish_reason(self.finish_reason, FINISH_REASONS, tool_calls=bool(calls))
        if not calls and not content.strip() and finish in INCOMPLETE:
            # Cut off (e.g. every token spent on reasoning) or filtered: an incomplete answer, not an empty one
            # worth retrying; the run reports why.
            return Completion(content=content, reasoning=reasoning, finish_reason=finish, usage=self.usage)
        if not calls and not content.strip():
            raise EmptyCompletionError.no_answer(reasoning)
        return Completion(
            content=content, reasoning=reasoning, tool_calls=calls, finish_reason=finish, usage=self.usage
        )


def stream_error_object(error: Any) -> ProviderStreamError:
    """A ``data: {"error": …}`` frame as an error with the provider's own message (and type or code)."""
    if isinstance(error, Mapping):
        message = error.get("message")
        detail = message if isinstance(message, str) and message.strip() else json.dumps(error)[:500]
        kind = next((str(error[k]) for k in ("type", "code") if isinstance(error.get(k), str | int)), "")
    else:
        detail, kind = str(error), ""
    label = f" ({kind})" if kind else ""
    return ProviderStreamError(f"The model provider reported an error mid-answer{label}: {detail.strip()}")


def read_stream(
    lines: AsyncIterator[str], *, idle_timeout: float = DEFAULT_IDLE_TIMEOUT, finish_grace: float = DEFAULT_FINISH_GRACE
) -> AsyncGenerator[ProviderEvent, None]:
    """The provider events of one SSE response body, ending with exactly one ``Completion``.

    It stops at ``[DONE]``. After ``finish_reason: tool_calls`` it reads on for the trailing usage frame
    (``stream_options.include_usage``) until ``[DONE]``, the end of the body or ``finish_grace`` seconds, so a
    server that holds the connection open after the finish cannot hang the run. An error object in the stream
    (``data: {"error": …}``) raises ``ProviderStreamError`` with the provider's message. Raises
    ``StreamStalled`` when no model output arrives for ``idle_timeout`` seconds and ``StreamDisconnected``
    when the stream ends without a terminal frame; both say whether output was already emitted.
    """
    return assemble_stream(
        lines, StreamAssembler(), idle_timeout=idle_timeout, done_completes=True, finish_grace=finish_grace
    )
