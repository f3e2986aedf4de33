"""What a conversation is doing now, for the served host's resources (nanobot §2.2): ``chat-progress`` (the
run's status, the answer so far, its tool calls) and ``pending-elicitation`` (the approvals it waits for).

:class:`ProgressTracker` follows the runtime's events and calls ``on_change(conversation_id)`` after each
change, so the HTTP host can tell subscribed clients that the resource was updated.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop_app.runtime import events as ev


@dataclass
class _Progress:
    status: str = "idle"
    run_id: str = ""
    content: list[str] = field(default_factory=list)
    tool_calls: dict[str, dict[str, Any]] = field(default_factory=dict)
    pending: dict[str, dict[str, Any]] = field(default_factory=dict)
    updates: int = 0


class ProgressTracker:
    """Per conversation: the latest run's progress and its pending approvals."""

    def __init__(self, on_change: Callable[[str], None] | None = None) -> None:
        self._state: dict[str, _Progress] = {}
        self.on_change = on_change

    def __call__(self, event: ev.Event) -> None:
        state = self._state.setdefault(event.conversation_id, _Progress())
        if isinstance(event, ev.RunStarted):
            state.status, state.run_id = "running", event.run_id
            state.content.clear()
            state.tool_calls.clear()
        elif isinstance(event, ev.ContentDelta):
            state.content.append(event.text)
        elif isinstance(event, ev.ToolCall):
            state.tool_calls[event.tool_call_id] = {"tool": event.name, "server": event.server, "status": "called"}
        elif isinstance(event, ev.ApprovalRequired):
            state.pending[event.tool_call_id] = {
                "tool_call_id": event.tool_call_id,
                "server": event.server,
                "tool": event.tool,
                "arguments": event.arguments,
            }
        elif isinstance(event, ev.ApprovalDecided):
            state.pending.pop(event.tool_call_id, None)
        elif isinstance(event, ev.ToolResult):
            call = state.tool_calls.setdefault(event.tool_call_id, {"tool": event.tool})
            call["status"] = "error" if event.is_error else "done"
        elif isinstance(event, ev.RunFinished):
            state.status = event.reason
            state.pending.clear()
        elif isinstance(event, ev.Error):
            state.status = "failed"
            state.pending.clear()
        else:
            return
        state.updates += 1
        if self.on_change is not None:
            self.on_change(event.conversation_id)

    def progress(self, conversation_id: str) -> dict[str, Any]:
        """The ``chat-progress`` document of a conversation."""
        state = self._state.get(conversation_id, _Progress())
        return {
            "conversation_id": conversation_id,
            "status": state.status,
            "run_id": state.run_id,
            "content": "".join(state.content),
            "tool_calls": list(state.tool_calls.values()),
            "updates": state.updates,
        }

    def pending(self, conversation_id: str) -> dict[str, Any]:
        """The ``pending-elicitation`` document: the approvals the conversation waits for."""
        state = self._state.get(conversation_id, _Progress())
        return {"conversation_id": conversation_id, "approvals": list(state.pending.values())}
