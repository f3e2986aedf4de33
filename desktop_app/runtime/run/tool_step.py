"""One tool call of a run: lookup, approval, the ``Host.call``, and recording its result.

:class:`RunTools` is the tool step of :class:`~desktop_app.runtime.run.loop.RunLoop`: it parses the model's
arguments, asks for a decision (the policy, an earlier grant, a ``PermissionRequest`` hook, else the
approval broker, keyed by the runtime's own tool-call id), records new grants, applies edited arguments,
calls the one host path with progress and cancellation, and records the result (a ``ToolResult`` event and
a ``ToolMessage`` for the model). Failures and denials become ``is_error`` results, never exceptions.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from desktop_app.runtime import events as ev
from desktop_app.runtime.compaction.tool_digest import replay_limit_for
from desktop_app.runtime.conversation import Conversation, RunOptions, ToolHost, ToolOutcome, ToolTarget
from desktop_app.runtime.hooks.context import ToolCallContext, current_tool_call
from desktop_app.runtime.hooks.lifecycle import LifecycleHooks
from desktop_app.runtime.hooks.notices import HookNotice
from desktop_app.runtime.messages import AssistantMessage, ToolCallRequest, ToolMessage
from desktop_app.runtime.run.approvals import (
    ALWAYS_ASK,
    ApprovalBroker,
    ApprovalPolicy,
    Decision,
    Grant,
    GrantStore,
    denied_text,
    edited_note,
)

CANCELLED_BY_USER = "Cancelled by the user: the run was stopped while the tool was running."


class RunTools:
    """Decides, calls and records the run's tool calls (see the module docstring)."""

    _conv: Conversation
    _host: ToolHost
    _broker: ApprovalBroker
    _policy: ApprovalPolicy
    _grants: GrantStore
    _options: RunOptions
    _hooks: LifecycleHooks | None
    _halted: str | None

    if TYPE_CHECKING:

        @property
        def _ids(self) -> dict[str, str]: ...

        def _emit(self, event: ev.Event) -> None: ...

        def _emit_notice(self, tool_call_id: str = "") -> Callable[[HookNotice], None]: ...

    async def _run_tool_call(self, call: ToolCallRequest, *, first_in_response: bool = False) -> None:
        target = self._host.lookup(call.name)
        server, tool = (target.server, target.tool) if target else ("", call.name)
        try:
            arguments = call.parsed_arguments()
        except ValueError as exc:
            self._emit(
                ev.ToolCall(
                    **self._ids,
                    tool_call_id=call.id,
                    model_call_id=call.model_id,
                    name=call.name,
                    server=server,
                    tool=tool,
                    arguments={},
                    first_in_response=first_in_response,
                )
            )
            self._finish_tool(call, server, tool, f"Invalid tool arguments ({exc}); send a JSON object.", True)
            return
        self._emit(
            ev.ToolCall(
                **self._ids,
                tool_call_id=call.id,
                model_call_id=call.model_id,
                name=call.name,
                server=server,
                tool=tool,
                arguments=arguments,
                first_in_response=first_in_response,
            )
        )
        if target is None:
            self._finish_tool(call, server, tool, f"Tool {call.name!r} not found.", True)
            return
        decision = await self._decide(call.id, target, arguments)
        if not decision.approved:
            self._finish_tool(call, server, tool, denied_text(decision.reason), True)
            return
        note = ""
        if decision.arguments is not None and decision.arguments != arguments:
            arguments = decision.arguments
            self._replace_call_arguments(call, arguments)
            note = edited_note(arguments)
        outcome = await self._call_tool(call, server, tool, arguments, user_approved=decision.source == "user")
        notices = list(getattr(outcome, "hooks", None) or [])
        for notice in notices:
            self._emit(ev.HookNoticeEvent(**self._ids, tool_call_id=call.id, notice=notice))
            if notice.halted:  # a hook halted the turn: it ends once this round's calls are recorded
                self._halted = notice.message
        self._finish_tool(
            call,
            server,
            tool,
            outcome.text,
            outcome.is_error,
            outcome.structured,
            note=note,
            hooks=notices,
            meta=getattr(outcome, "meta", None),
            media=_media_blocks(getattr(outcome, "content", None) or []),
        )

    async def _call_tool(
        self, call: ToolCallRequest, server: str, tool: str, arguments: dict[str, Any], *, user_approved: bool = False
    ) -> ToolOutcome:
        """The host call, with the tool's progress emitted as ``ToolProgress`` (when the host reports it).

        Stopping the run while the tool runs cancels the MCP request (the server gets
        ``notifications/cancelled``); the call is recorded as an is_error result, then the run ends."""

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            self._emit(
                ev.ToolProgress(**self._ids, tool_call_id=call.id, progress=progress, total=total, message=message)
            )

        token = current_tool_call.set(ToolCallContext(self._conv.id, call.id, call.name, user_approved))
        try:
            return await self._host.call(server, tool, arguments, progress=progress)
        except asyncio.CancelledError:
            self._finish_tool(call, server, tool, CANCELLED_BY_USER, True)
            raise
        finally:
            current_tool_call.reset(token)

    async def _decide(self, call_id: str, target: ToolTarget, arguments: dict[str, Any]) -> Decision:
        server, tool = target.server, target.tool
        decision = self._policy.decide_without_asking(builtin=target.builtin, read_only=target.read_only)
        always_ask = (server, tool) in ALWAYS_ASK
        if always_ask and decision is not None and decision.approved:
            decision = None  # only the user approves these; "never" still denies
        if decision is None and not always_ask:
            identity = self._server_identity(server)
            grant = self._grants.find(self._conv.id, server, tool, identity)
            if grant is not None:
                decision = Decision(True, f"granted earlier ({grant.scope})", "grant", grant.scope)
        if decision is None and self._hooks is not None:
            answer = await self._hooks.permission_request(
                self._conv.id,
                call_id,
                self._host_name(target, call_id),
                arguments,
                self._emit_notice(call_id),
                tool=tool,
            )
            if answer.blocked is not None:
                decision = Decision(False, answer.blocked, "policy")
            elif answer.allowed is not None and not always_ask:  # a Claude Code hook's decision.behavior "allow"
                decision = Decision(True, answer.allowed, "policy", arguments=answer.arguments)
        if decision is None:
            future = self._broker.open(call_id, self._conv.id)
            self._emit(
                ev.ApprovalRequired(**self._ids, tool_call_id=call_id, server=server, tool=tool, arguments=arguments)
            )
            try:
                decision = await future
            finally:
                self._broker.close(call_id)
            if decision.approved and decision.scope != "once" and not always_ask:
                self._grants.add(
                    Grant(
                        scope=decision.scope,
                        server=server,
                        tool=None if decision.scope == "server" else tool,
                        conversation_id=self._conv.id if decision.scope == "conversation" else None,
                        origin=f"approved in conversation {self._conv.id} (tool call {call_id})",
                        identity=self._server_identity(server),
                    )
                )
        self._emit(
            ev.ApprovalDecided(
                **self._ids,
                tool_call_id=call_id,
                approved=decision.approved,
                reason=decision.reason,
                source=decision.source,
                scope=decision.scope,
                edited_arguments=decision.arguments if decision.arguments != arguments else None,
            )
        )
        return decision

    def _server_identity(self, server: str) -> str | None:
        """The server's current definition (command and arguments, or URL) that grants are bound to."""
        return self._host.server_identity(server)

    def _replace_call_arguments(self, call: ToolCallRequest, arguments: dict[str, Any]) -> None:
        """Edited arguments replace the model's in the history, so the model sees what really ran."""
        raw = json.dumps(arguments, ensure_ascii=False)
        for index in range(len(self._conv.messages) - 1, -1, -1):
            message = self._conv.messages[index]
            if isinstance(message, AssistantMessage) and any(c.id == call.id for c in message.tool_calls):
                calls = tuple(
                    c.model_copy(update={"arguments": raw}) if c.id == call.id else c for c in message.tool_calls
                )
                self._conv.messages[index] = message.model_copy(update={"tool_calls": calls})
                return

    def _finish_tool(
        self,
        call: ToolCallRequest,
        server: str,
        tool: str,
        text: str,
        is_error: bool,
        structured: dict[str, Any] | None = None,
        *,
        note: str = "",
        hooks: Sequence[HookNotice] = (),
        meta: dict[str, Any] | None = None,
        media: Sequence[dict[str, Any]] = (),
    ) -> None:
        """Record a tool's result (event + message for the model); ``note`` is the loop's own remark;
        ``hooks`` are the hook notices of the call (stored with it); ``media`` its image and embedded
        resource blocks, for the UI to show (the model reads their one-line summaries in ``text``)."""
        full = note + (text if text or structured is None else json.dumps(structured))
        self._emit(
            ev.ToolResult(
                **self._ids,
                tool_call_id=call.id,
                replay_limit=replay_limit_for(full, self._options.tool_result_replay_limit),
                server=server,
                tool=tool,
                text=note + text,
                is_error=is_error,
                structured=structured,
                hooks=list(hooks),
                meta=meta,
                media=list(media),
            )
        )
        body = text if text or structured is None else json.dumps(structured)  # structured-only: JSON for the model
        content = note + body
        limit = replay_limit_for(content, self._options.tool_result_replay_limit)
        self._conv.messages.append(
            ToolMessage(tool_call_id=call.id, content=content, is_error=is_error, replay_limit=limit)
        )

    def _host_name(self, target: ToolTarget, fallback: str) -> str:
        name = getattr(target, "name", None)
        return name if isinstance(name, str) else fallback


def _media_blocks(content: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The image and embedded-resource blocks of a tool result (MCP content, as dumped by the host)."""
    return [dict(block) for block in content if block.get("type") in ("image", "resource")]
