"""The lifecycle events the run loop fires: SessionStart, UserPromptSubmit, PermissionRequest and Stop.

Tool events (PreToolUse/PostToolUse) run inside ``Host.call`` (:mod:`.tool_hooks`); compaction and
sub-agent events are fired by those features through :meth:`HookRunner.run`. Each method here turns a
report into what the loop needs and hands every notice to ``notify`` (the loop emits it as an event).
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from desktop_app.runtime.hooks.model import HookPayload
from desktop_app.runtime.hooks.notices import HookNotice
from desktop_app.runtime.hooks.runner import HookRunner, blocked_notice, failure_notices

Notify = Callable[[HookNotice], None]


@dataclass(frozen=True)
class PromptResult:
    prompt: str
    context: str = ""
    blocked: str | None = None
    """The block message (which hook, and why) when a hook stopped the prompt."""


@dataclass(frozen=True)
class PermissionAnswer:
    """What PermissionRequest hooks decided: ``blocked`` (why), ``allowed`` (by whom), or neither (ask)."""

    blocked: str | None = None
    allowed: str | None = None
    arguments: dict[str, Any] | None = None
    """The arguments an allowing hook changed (``updatedInput``)."""


class LifecycleHooks:
    """The run loop's view of the runner."""

    def __init__(self, runner: HookRunner) -> None:
        self.runner = runner

    @property
    def _cwd(self) -> str:
        return str(self.runner.cwd or "")

    async def prompt_submitted(self, session: str, prompt: str, first: bool, notify: Notify) -> PromptResult:
        """SessionStart (for a conversation's first prompt), then UserPromptSubmit (may block or rewrite)."""
        context: list[str] = []
        if first:
            start = await self.runner.run(
                "SessionStart", HookPayload("SessionStart", cwd=self._cwd, session_id=session)
            )
            for notice in failure_notices(start):
                notify(notice)
            if start.additional_context:
                context.append(start.additional_context)
        report = await self.runner.run(
            "UserPromptSubmit", HookPayload("UserPromptSubmit", cwd=self._cwd, session_id=session, prompt=prompt)
        )
        for notice in failure_notices(report):
            notify(notice)
        if report.blocked:
            notice = blocked_notice(report, target="prompt", before=prompt)
            notify(notice)
            return PromptResult(prompt, blocked=notice.message)
        if report.updated_input and report.updated_input != prompt:
            who = [o.hook for o in report.outcomes if o.updated_input]
            notify(
                HookNotice(
                    kind="mutated",
                    event="UserPromptSubmit",
                    hooks=who,
                    reasons=[o.message for o in report.outcomes if o.updated_input and o.message],
                    target="prompt",
                    before=prompt,
                    after=report.updated_input,
                    message=f"UserPromptSubmit hook {', '.join(who)} changed the prompt before it was sent.",
                )
            )
            prompt = report.updated_input
        if report.additional_context:
            context.append(report.additional_context)
        return PromptResult(prompt, "\n".join(context))

    async def permission_request(
        self, session: str, call_id: str, tool_name: str, arguments: dict[str, Any], notify: Notify, *, tool: str = ""
    ) -> PermissionAnswer:
        """PermissionRequest, before the user is asked: blocked (the message), allowed by a Claude Code hook
        (``decision.behavior: "allow"``, with its ``updatedInput``), or neither: ask the user."""
        report = await self.runner.run(
            "PermissionRequest",
            HookPayload(
                "PermissionRequest",
                cwd=self._cwd,
                session_id=session,
                tool_name=tool_name,
                tool_args=arguments,
                tool_call_id=call_id,
                approval_reason="the tool needs the user's approval",
                approval_code="ask",
                mcp_tool=tool,
            ),
        )
        for notice in failure_notices(report):
            notify(notice)
        if report.blocked:
            notice = blocked_notice(report, target="approval", before=arguments)
            notify(notice)
            return PermissionAnswer(blocked=notice.message)
        allowed = [o for o in report.outcomes if o.answer is not None and o.answer.allow]
        if not allowed:
            return PermissionAnswer()
        updated: dict[str, Any] | None = None
        if report.updated_input:
            with contextlib.suppress(ValueError):
                parsed = json.loads(report.updated_input)
                updated = parsed if isinstance(parsed, dict) and parsed != arguments else None
        who = ", ".join(o.hook for o in allowed)
        return PermissionAnswer(allowed=f"allowed by PermissionRequest hook {who}", arguments=updated)

    async def stopped(self, session: str, last_text: str, turn: int, notify: Notify) -> None:
        """Stop: the model finished its answer (non-blocking; failures are shown)."""
        report = await self.runner.run(
            "Stop", HookPayload("Stop", cwd=self._cwd, session_id=session, last_assistant_text=last_text, turn=turn)
        )
        for notice in failure_notices(report):
            notify(notice)
