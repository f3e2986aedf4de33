"""How full a conversation's context is: a token estimate per message and a breakdown against the window.

No tokenizer is used: the families Switchboard talks to (DeepSeek, OpenAI, Anthropic, local models) have
different vocabularies, the well-kept tokenizer libraries download their vocabularies at first use (which a
desktop app must not do behind the user's back), and a meter needs an estimate, not an exact count. The
estimate, documented here and in the user guide (docs/conversations.md):

* ASCII text: one token per ``ASCII_CHARS_PER_TOKEN`` (4) characters, rounded up;
* any other character (CJK, accents, emoji): one token each (BPE vocabularies split them finely);
* every message: ``MESSAGE_OVERHEAD`` (4) tokens for its role and framing; a tool call: its name and JSON
  arguments; an image: ``IMAGE_TOKENS`` (1,000).

The window comes from the provider preset's table (``context_window``); ``None`` when it is not known.
"""

from __future__ import annotations

import json
import math
from collections.abc import Sequence
from dataclasses import dataclass

from desktop_app.runtime.messages import AssistantMessage, Message, SystemMessage, ToolMessage, ToolSpec, UserMessage
from desktop_app.runtime.providers.presets import match_preset

ASCII_CHARS_PER_TOKEN = 4
MESSAGE_OVERHEAD = 4
IMAGE_TOKENS = 1_000


def estimate_text_tokens(text: str) -> int:
    """The documented estimate for ``text`` (see the module docstring)."""
    if not text:
        return 0
    ascii_chars = sum(1 for ch in text if ord(ch) < 128)
    return math.ceil(ascii_chars / ASCII_CHARS_PER_TOKEN) + (len(text) - ascii_chars)


def estimate_message_tokens(message: Message) -> int:
    """One message as sent: its text (user messages with their context and text files), reasoning that is
    replayed, tool calls and images."""
    tokens = MESSAGE_OVERHEAD
    if isinstance(message, UserMessage):
        tokens += estimate_text_tokens(message.text_with_attachments()) + IMAGE_TOKENS * len(message.images)
    elif isinstance(message, AssistantMessage):
        tokens += estimate_text_tokens(message.content) + estimate_text_tokens(message.reasoning)
        for call in message.tool_calls:
            tokens += estimate_text_tokens(call.name) + estimate_text_tokens(call.arguments) + MESSAGE_OVERHEAD
    elif isinstance(message, SystemMessage | ToolMessage):
        tokens += estimate_text_tokens(message.content)
    return tokens


def estimate_tool_tokens(tools: Sequence[ToolSpec]) -> int:
    """The tool schemas as the function-calling wire sends them."""
    body = [{"name": t.name, "description": t.description, "parameters": t.parameters} for t in tools]
    return estimate_text_tokens(json.dumps(body, ensure_ascii=False, separators=(",", ":"))) if tools else 0


def attachment_tokens(message: Message) -> int:
    """The share of a user message that is its attachments (text files and images)."""
    if not isinstance(message, UserMessage) or not message.attachments:
        return 0
    whole = estimate_text_tokens(message.text_with_attachments())
    bare = estimate_text_tokens(message.model_copy(update={"attachments": ()}).text_with_attachments())
    return whole - bare + IMAGE_TOKENS * len(message.images)


def context_window(base_url: str, model: str) -> int | None:
    """The model's context window in tokens from its preset's table (a dated snapshot matches its name's
    prefix); ``None`` when it is not known (custom and local endpoints, unlisted models)."""
    windows = match_preset(base_url).context_windows
    if model in windows:
        return windows[model]
    matches = [name for name in windows if model.startswith(name + "-")]
    return windows[max(matches, key=len)] if matches else None


@dataclass(frozen=True)
class ContextBudget:
    """The estimated tokens of the next request, by part, and the window they go into (if known)."""

    system: int
    tools: int
    history: int
    attachments: int
    window: int | None

    @property
    def total(self) -> int:
        return self.system + self.tools + self.history + self.attachments

    @property
    def fraction(self) -> float | None:
        """How full the window is (0.0–1.0 and beyond); ``None`` without a known window."""
        return self.total / self.window if self.window else None


def budget(messages: Sequence[Message], tools: Sequence[ToolSpec], window: int | None) -> ContextBudget:
    """The breakdown of a request of ``messages`` (as sent: ``wire_messages``) and ``tools``: system messages
    (prompt, skills and deferred-tool index), tool schemas, the rest of the history, and attachments."""
    system = history = attachments = 0
    for message in messages:
        tokens = estimate_message_tokens(message)
        if isinstance(message, SystemMessage):
            system += tokens
        else:
            part = attachment_tokens(message)
            attachments += part
            history += tokens - part
    return ContextBudget(system, estimate_tool_tokens(tools), history, attachments, window)
