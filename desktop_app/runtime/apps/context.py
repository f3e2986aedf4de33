"""What MCP App views told the model (``ui/update-model-context``), per conversation.

Each view's latest update replaces its earlier one (the spec: only the last update before the next user
message is sent). :meth:`AppContexts.take` hands them to the next prompt as context items (the model reads
them in the ``<context>`` block of that request) and forgets them.
"""

from __future__ import annotations

import json
from typing import Any

from desktop_app.runtime.context import ContextItem

MAX_CONTEXT_CHARS = 8_000
"""A view's context longer than this (characters) is cut, with a marker."""


def context_text(content: list[dict[str, Any]], structured: dict[str, Any] | None) -> str:
    """The text the model reads for one update: its text blocks, then its structured content as JSON."""
    parts = [str(block.get("text", "")) for block in content if block.get("type") == "text"]
    if structured:
        parts.append(json.dumps(structured, ensure_ascii=False, sort_keys=True))
    text = "\n".join(part for part in parts if part)
    if len(text) > MAX_CONTEXT_CHARS:
        text = text[:MAX_CONTEXT_CHARS] + f"…[cut: {len(text) - MAX_CONTEXT_CHARS:,} more characters]"
    return text


class AppContexts:
    """The pending model context of every view, by conversation."""

    def __init__(self) -> None:
        self._pending: dict[str, dict[str, tuple[str, str]]] = {}

    def update(self, conversation_id: str, view_id: str, label: str, text: str) -> None:
        views = self._pending.setdefault(conversation_id, {})
        if text:
            views[view_id] = (label, text)
        else:
            views.pop(view_id, None)

    def pending(self, conversation_id: str) -> list[tuple[str, str]]:
        return list(self._pending.get(conversation_id, {}).values())

    def take(self, conversation_id: str) -> list[ContextItem]:
        views = self._pending.pop(conversation_id, {})
        return [
            ContextItem("note", f"App: {label}", f"From the app view of {label}:\n{text}")
            for label, text in views.values()
        ]


__all__ = ["MAX_CONTEXT_CHARS", "AppContexts", "context_text"]
