"""What the user is shown when a hook changed, blocked or failed something: :class:`HookNotice`.

A notice is data: it travels on ``ToolResult.hooks`` (stored with the tool call, so it shows again after a
restart) and as ``hook_notice`` events. ``before``/``after`` hold the arguments, result text or prompt as
they were before and after the hook, for the before/after view.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from desktop_app.runtime.model_defaults import empty_list

NoticeKind = Literal["mutated", "blocked", "rejected", "failed", "warning", "context"]
NoticeTarget = Literal["arguments", "result", "prompt", "approval", "none"]


class HookNotice(BaseModel):
    """One thing hooks did that the user must be able to see."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    kind: NoticeKind
    event: str
    """The lifecycle event (``PreToolUse``…) or the MCP message and direction (``tools/call request``)."""
    hooks: list[str] = Field(default_factory=empty_list)
    """The hooks involved, by label or ``server/tool`` target."""
    reasons: list[str] = Field(default_factory=empty_list)
    message: str = ""
    """One sentence for the user: what happened."""
    target: NoticeTarget = "none"
    before: Any = None
    after: Any = None
    halted: bool = False
    """A hook halted the turn (``halt``; Claude Code's ``continue: false``): the run ends after this step."""

    def summary(self) -> str:
        """A short line for a chip: ``Changed by pii/redact`` / ``Blocked by …``."""
        who = ", ".join(self.hooks) or "a hook"
        verbs = {
            "mutated": "Changed by",
            "blocked": "Blocked by",
            "rejected": "Rejected by",
            "failed": "Hook failed:",
            "warning": "Warning from",
            "context": "Context from",
        }
        return f"{verbs[self.kind]} {who}"
