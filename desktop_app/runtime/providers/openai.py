"""The OpenAI-compatible Chat Completions streaming provider, DeepSeek-aware (Whale §1.1–1.3).

It owns the wire format of ``POST <base>/chat/completions``: the request body (``build_request``,
``to_wire_messages``), the assembly of streamed ``chat.completion.chunk`` frames into provider events and
one ``Completion`` (``StreamAssembler``), and the ``OpenAIProvider`` that puts them together over httpx.
Message repair, 400 diagnostics and prefix completion live in ``deepseek``; SSE framing and stall
detection in ``_sse``; sending and retrying in ``_retry``.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import httpx

from desktop_app.runtime.errors import EmptyCompletionError, ProviderHTTPError, ProviderStreamError
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
from desktop_app.runtime.providers._sse import DEFAULT_FINISH_GRACE, DEFAULT_IDLE_TIMEOUT, assemble_stream
from desktop_app.runtime.providers.base import (
    INCOMPLETE,
    ChatRequest,
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
from desktop_app.runtime.providers.deepseek import (
    MessageDiagnostics,
    count_reasoning,
    join_prefix,
    prefix_base_url,
    prefix_message,
    repair_messages,
    with_diagnostics,
)

Dialect = Literal["openai", "deepseek"]


# ---- request ------------------------------------------------------------------------------------------


def _tool_call_wire(call: ToolCallRequest) -> dict[str, Any]:
    from desktop_app.runtime.tool_names import model_safe_name  # pure string rules (the kernel)

    name = model_safe_name(call.name)  # a call stored before names were made safe for providers (issue 22)
    return {"id": call.id, "type": "function", "function": {"name": name, "arguments": call.arguments}}


def _assistant_wire(message: AssistantMessage, *, dialect: Dialect, thinking: bool | None) -> dict[str, Any]:
    wire: dict[str, Any] = {"role": "assistant", "content": message.content}
    if not message.tool_calls:
        return wire  # reasoning is never sent back on a plain answer
    if not message.content:
        wire["content"] = None
    wire["tool_calls"] = [_tool_call_wire(call) for call in message.tool_calls]
    if dialect != "deepseek":
        return wire  # stock OpenAI-compatible servers do not know reasoning_content
    if message.reasoning:
        wire["reasoning_content"] = message.reasoning
    elif thinking:
        wire["reasoning_content"] = ""  # DeepSeek thinking mode wants the key on tool-call turns
    return wire


def user_wire(message: UserMessage) -> dict[str, Any]:
    """A user message: a plain string, or with images a content-parts array (images first, then the text).

    The text carries the ``<context>`` block and the text attachments (``UserMessage.text_with_attachments``);
    each image is an ``image_url`` part holding a ``data:`` URL.
    """
    text = message.text_with_attachments()
    images = message.images
    if not images:
        return {"role": "user", "content": text}
    parts: list[dict[str, Any]] = [
        {"type": "image_url", "image_url": {"url": f"data:{image.mime_type};base64,{image.data}"}} for image in images
    ]
    if text:
        parts.append({"type": "text", "text": text})
    return {"role": "user", "content": parts}


def latest_user_has_attachments(messages: Sequence[Message]) -> bool:
    """Whether the latest user message carries attachments (prefix completion then falls back, Whale §1.1)."""
    for message in reversed(messages):
        if isinstance(message, UserMessage):
            return bool(message.attachments)
    return False


def to_wire_messages(
    messages: Sequence[Message], *, dialect: Dialect = "openai", thinking: bool | None = None
) -> list[dict[str, Any]]:
    """The ``messages`` array: system, user, assistant (with ``tool_calls``) and tool messages.

    In the DeepSeek dialect ``reasoning_content`` is sent back only on assistant messages that carry tool
    calls: the reasoning when there is some, else ``""`` with thinking on, else nothing. A failed tool's
    result is marked with an ``Error:`` prefix, since the wire has no error flag.
    """
    out: list[dict[str, Any]] = []
    for message in messages:
        if isinstance(message, UserMessage):
            out.append(user_wire(message))
        elif isinstance(message, SystemMessage):
            out.append({"role": message.role, "content": message.content})
        elif isinstance(message, AssistantMessage):
            out.append(_assistant_wire(message, dialect=dialect, thinking=thinking))
        elif isinstance(message, ToolMessage):
            # The wire has no error flag: say it in the content so the model knows the call failed.
            content = f"Error: {message.content}" if message.is_error else message.content
            out.append({"role": "tool", "tool_call_id": message.tool_call_id, "content": content})
    return out


def to_wire_tools(tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
    """Tools in the OpenAI function format."""
    return [
        {
            "type": "function",
            "function": {"name": tool.name, "description": tool.description, "parameters": tool.parameters},
        }
        for tool in tools
    ]


def build_request(request: ChatRequest, *, dialect: Dialect = "openai") -> tuple[dict[str, Any], MessageDiagnostics]:
    """The JSON body of one streaming chat-completions request, and what was repaired in its messages.

    The messages are repaired first (``deepseek.repair_messages``, in every dialect) so that the server
    never sees a tool call without its result or a stray tool result.
    """
    messages, diagnostics = repair_messages(request.messages)
    if dialect == "deepseek":
        count_reasoning(messages, diagnostics)
    body: dict[str, Any] = {
        "model": request.model,
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": to_wire_messages(messages, dialect=dialect, thinking=request.thinking),
    }
    if request.tools:
        body["tools"] = to_wire_tools(request.tools)
    if request.max_tokens is not None and request.max_tokens > 0:
        body["max_tokens"] = request.max_tokens
    if dialect == "deepseek" and request.thinking is not None:
        body["thinking"] = {"type": "enabled" if request.thinking else "disabled"}
        effort = (request.reasoning_effort or "").strip().lower()
        if request.thinking and effort:
            body["reasoning_effort"] = effort
    return body, diagnostics


def build_body(request: ChatRequest, *, dialect: Dialect = "openai") -> dict[str, Any]:
    """The JSON body of one streaming chat-completions request (see ``build_request``)."""
    return build_request(request, dialect=dialect)[0]


# ---- response -----------------------------------------------------------------------------------------


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


# ---- the provider -------------------------------------------------------------------------------------


class OpenAIProvider(StreamingHttpProvider):
    """A Chat Completions endpoint (OpenAI, DeepSeek or any compatible server), streamed over SSE."""

    def __init__(
        self,
        *,
        base_url: str,
        api_key: str | None,
        dialect: Dialect = "openai",
        client: httpx.AsyncClient | None = None,
        idle_timeout: float = DEFAULT_IDLE_TIMEOUT,
        retry_policy: RetryPolicy | None = None,
        sleep: Sleep = asyncio.sleep,
        finish_grace: float = DEFAULT_FINISH_GRACE,
    ) -> None:
        """``finish_grace``: how long the tail after ``finish_reason: tool_calls`` may take (see ``read_stream``)."""
        super().__init__(
            base_url=base_url,
            api_key=api_key,
            client=client,
            idle_timeout=idle_timeout,
            retry_policy=retry_policy,
            sleep=sleep,
        )
        self.dialect: Dialect = dialect
        self._finish_grace = finish_grace

    @property
    def endpoint(self) -> str:
        return f"{self.base_url}/chat/completions"

    def _headers(self) -> dict[str, str]:
        headers = {"Accept": "text/event-stream"}
        if self._api_key:
            headers["Authorization"] = f"Bearer {self._api_key}"
        return headers

    async def stream(self, request: ChatRequest) -> AsyncGenerator[ProviderEvent, None]:
        """Stream one response: deltas, usage and retry notices, then exactly one ``Completion``.

        A 400 answer to a request whose messages had to be repaired says what was repaired.
        """
        body, diagnostics = build_request(request, dialect=self.dialect)
        events = self._stream_body(self.endpoint, body, diagnostics)
        try:
            async for event in events:
                yield event
        finally:
            await events.aclose()

    async def stream_with_prefix(
        self, request: ChatRequest, prefix: str, stop: Sequence[str] | None = None
    ) -> AsyncGenerator[ProviderEvent, None]:
        """Prefix completion (DeepSeek beta, Whale §1.1): the model continues ``prefix``.

        The request is sent without tools to the beta endpoint (``deepseek.prefix_base_url``) with a
        trailing ``{"role": "assistant", "content": prefix, "prefix": true}`` message and ``stop`` when
        given. The prefix is the first content delta and the Completion's content starts with it. A blank
        prefix, a latest user message with attachments, a dialect other than ``deepseek`` or a base URL
        without a beta endpoint falls back to a normal stream without tools (no prefix message, no prefix
        in the output).
        """
        plain = request.model_copy(update={"tools": ()})
        usable = self.dialect == "deepseek" and prefix.strip() and not latest_user_has_attachments(request.messages)
        base = prefix_base_url(self.base_url) if usable else None
        if base is None:
            events = self.stream(plain)
        else:
            body, diagnostics = build_request(plain, dialect=self.dialect)
            body["messages"].append(prefix_message(prefix))
            if stop:
                body["stop"] = list(stop)
            events = join_prefix(self._stream_body(f"{base}/chat/completions", body, diagnostics), prefix)
        try:
            async for event in events:
                yield event
        finally:
            await events.aclose()

    def _read_lines(self, lines: AsyncIterator[str]) -> AsyncGenerator[ProviderEvent, None]:
        return read_stream(lines, idle_timeout=self._idle_timeout, finish_grace=self._finish_grace)

    async def _stream_body(
        self, endpoint: str, body: dict[str, Any], diagnostics: MessageDiagnostics
    ) -> AsyncGenerator[ProviderEvent, None]:
        """``_post_stream``, with a 400 answer to a repaired request saying what was repaired."""
        events = self._post_stream(endpoint, body)
        try:
            async for event in events:
                yield event
        except ProviderHTTPError as exc:
            diagnosed = with_diagnostics(exc, diagnostics)
            if diagnosed is exc:
                raise
            raise diagnosed from exc
        finally:
            await events.aclose()
