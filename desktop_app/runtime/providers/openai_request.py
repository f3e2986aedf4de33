"""The request side of the OpenAI-compatible Chat Completions wire format: the conversation's messages
(``to_wire_messages``: assistant tool calls, DeepSeek's reasoning_content, image and text attachments), the
tool list (``to_wire_tools``) and the whole body (``build_request``: repaired messages and what was repaired,
``build_body``). Used by ``openai.OpenAIProvider``; nothing here sends anything.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

from desktop_app.runtime.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCallRequest,
    ToolMessage,
    ToolSpec,
    UserMessage,
)
from desktop_app.runtime.providers.base import ChatRequest
from desktop_app.runtime.providers.deepseek import (
    MessageDiagnostics,
    count_reasoning,
    repair_messages,
)

Dialect = Literal["openai", "deepseek"]


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
