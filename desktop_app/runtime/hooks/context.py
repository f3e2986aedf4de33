"""Which conversation and tool call a ``Host.call`` belongs to, for hook payloads (a context variable).

The run loop sets it around each call; calls that arrive from elsewhere (the host served over HTTP, a
hook's own tool call) have none, and their payloads carry empty ``session_id``/``tool_call.ID``.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass


@dataclass(frozen=True)
class ToolCallContext:
    """The conversation and tool call a ``Host.call`` belongs to (empty outside a run)."""

    conversation_id: str = ""
    tool_call_id: str = ""
    tool_name: str = ""
    """The model-facing tool name (``mcp__server__tool``)."""
    user_approved: bool = False
    """The user approved this very call when asked (a Claude Code hook's ``permissionDecision: "ask"`` is met)."""


current_tool_call: contextvars.ContextVar[ToolCallContext | None] = contextvars.ContextVar(
    "switchboard_current_tool_call", default=None
)
