"""The Anthropic Messages request: the JSON body of one streaming ``POST <base>/v1/messages``.

Conversation mapping (``to_wire_messages``):

* every ``SystemMessage`` goes to the top-level ``system`` string (joined by blank lines);
* an assistant message becomes content blocks: its thinking block (replayed only when a signature was kept,
  since the API verifies it), a text block, then one ``tool_use`` block per call;
* tool results become ``tool_result`` blocks of a user message; consecutive messages of one role are merged
  into one message, so the results of one tool round travel together as the API requires.

Prompt caching: ``build_body`` sets three ``cache_control`` breakpoints (``add_cache_breakpoints``): on the
system prompt, on the last tool (the schemas before it are cached with it) and on the last block of the last
message, so the whole request is cached for the next one, which repeats it and appends (see #16).
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
from desktop_app.runtime.providers.deepseek import repair_messages

DEFAULT_MAX_TOKENS = 8192
MIN_THINKING_BUDGET = 1024
"""The smallest ``budget_tokens`` the API accepts."""


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
        from desktop_app.runtime.tool_names import model_safe_name  # pure string rules (the kernel)

        name = model_safe_name(call.name)  # a call stored before names were made safe for providers (issue 22)
        blocks.append({"type": "tool_use", "id": call.id, "name": name, "input": _tool_input(call)})
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


__all__ = [
    "DEFAULT_MAX_TOKENS",
    "EPHEMERAL",
    "MIN_THINKING_BUDGET",
    "add_cache_breakpoints",
    "build_body",
    "to_wire_messages",
    "to_wire_tools",
    "user_blocks",
]
