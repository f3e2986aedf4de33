"""Sampling as the user's model sees it: MCP ``sampling/createMessage`` ⇄ a provider ``ChatRequest``.

A server's sampling request is shown to the user as text (:func:`sampling_messages`), run on the user's
provider as a plain chat request without tools (:func:`sampling_chat_request`), and the provider's
completion goes back to the server as a ``CreateMessageResult`` (:func:`sampling_result`).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Sequence
from typing import TypeAlias

from desktop_app.runtime.host_events import SamplingMessageText
from desktop_app.runtime.messages import AssistantMessage, Message, SystemMessage, UserMessage
from desktop_app.runtime.providers.base import ChatRequest, Completion
from desktop_app.runtime.sdk_types import mtypes

USER_DECLINED = -1
"""The JSON-RPC error code the MCP specification's examples use for "User rejected sampling request"."""

_Block: TypeAlias = (
    "mtypes.TextContent | mtypes.ImageContent | mtypes.AudioContent | mtypes.ToolUseContent | mtypes.ToolResultContent"
)


def _size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


def _block_text(block: _Block) -> str:
    if isinstance(block, mtypes.TextContent):
        return block.text
    if isinstance(block, mtypes.ImageContent | mtypes.AudioContent):
        return f"[{block.type} {block.mime_type}, {_size(block.data)} bytes]"
    if isinstance(block, mtypes.ToolUseContent):
        return f"[tool use {block.name}]"
    return "\n".join(_block_text(part) for part in block.content if isinstance(part, mtypes.TextContent))


def sampling_text(content: _Block | Sequence[_Block]) -> str:
    """One sampling message's content as text; images and audio become a bracketed summary."""
    if isinstance(content, Sequence):
        return "\n".join(text for text in (_block_text(block) for block in content) if text)
    return _block_text(content)


def sampling_messages(params: mtypes.CreateMessageRequestParams) -> list[SamplingMessageText]:
    """The request's messages as the user reads them."""
    return [SamplingMessageText(role=m.role, text=sampling_text(m.content)) for m in params.messages]


def model_hints(params: mtypes.CreateMessageRequestParams) -> list[str]:
    """The model names the server suggested (hints only: the user's configured model is used)."""
    preferences = params.model_preferences
    if preferences is None or not preferences.hints:
        return []
    return [hint.name for hint in preferences.hints if hint.name]


def sampling_chat_request(params: mtypes.CreateMessageRequestParams, model: str) -> ChatRequest:
    """A tool-free chat request for the user's provider: the system prompt, then the messages as text."""
    messages: list[Message] = [SystemMessage(content=params.system_prompt)] if params.system_prompt else []
    for item in sampling_messages(params):
        if item.role == "user":
            messages.append(UserMessage(content=item.text))
        else:
            messages.append(AssistantMessage(content=item.text))
    return ChatRequest(model=model, messages=tuple(messages), max_tokens=params.max_tokens)


def sampling_result(completion: Completion, model: str) -> mtypes.CreateMessageResult:
    """The provider's completion as the server's ``CreateMessageResult`` (assistant text)."""
    return mtypes.CreateMessageResult(
        role="assistant",
        content=mtypes.TextContent(type="text", text=completion.content),
        model=model,
        stop_reason="maxTokens" if completion.finish_reason == "max_tokens" else "endTurn",
    )


def declined(reason: str | None) -> mtypes.ErrorData:
    """The error a server receives when the user (or the policy) declined its sampling request."""
    message = "User rejected sampling request"
    if reason:
        message += f": {reason}"
    return mtypes.ErrorData(code=USER_DECLINED, message=message)


__all__ = [
    "USER_DECLINED",
    "declined",
    "model_hints",
    "sampling_chat_request",
    "sampling_messages",
    "sampling_result",
    "sampling_text",
]
