"""A view's ``tools/call``: the same approval policy, grants and ``Host.call`` (with its hooks) as the model's.

:class:`ViewCalls` refuses a tool of another server, an unknown tool and a tool whose ``visibility`` leaves
out ``app``; otherwise it decides like the run loop (the conversation's policy, then an earlier grant, then
the user, asked through ``ask``), calls the one host path and returns the MCP result. Every call is a
:class:`ViewCall` (origin ``view``, the id of the tool call whose view made it) given to the listeners and
written to the store's approvals as the view's (``view:`` in its id and reason).
"""

from __future__ import annotations

import itertools
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from desktop_app.runtime.apps.bridge import ViewRefused
from desktop_app.runtime.run.approvals import ApprovalPolicy, Decision, Grant, GrantStore

if TYPE_CHECKING:
    from desktop_app.runtime.host.host import Host
    from desktop_app.runtime.host.outcomes import CallOutcome


@dataclass
class ViewCall:
    """One ``tools/call`` a view made: what, for which card, how it was decided and what it returned."""

    id: str
    conversation_id: str
    parent_tool_call_id: str
    server: str
    tool: str
    arguments: dict[str, Any]
    origin: Literal["view"] = "view"
    decision: Decision | None = None
    outcome: CallOutcome | None = None
    state: Literal["deciding", "running", "done", "denied"] = "deciding"
    extra: dict[str, Any] = field(default_factory=dict)


class CallLog(Protocol):
    """The store's approval records (``ConversationStore`` has these)."""

    def record_approval_request(
        self, tool_call_id: str, conversation_id: str, run_id: str, server: str, tool: str, arguments: Any
    ) -> None: ...

    def record_approval_decision(
        self,
        tool_call_id: str,
        conversation_id: str,
        run_id: str,
        *,
        decision: str,
        reason: str | None,
        source: str,
        scope: str = "once",
        arguments_after: dict[str, Any] | None = None,
    ) -> None: ...


Ask = Callable[[ViewCall], Awaitable[Decision]]
"""Shows the view's call to the user and waits for their decision (the card's approval controls)."""


def result_json(outcome: CallOutcome) -> dict[str, Any]:
    """A :class:`CallOutcome` as the MCP ``CallToolResult`` a view reads."""
    result: dict[str, Any] = {"content": outcome.content or [{"type": "text", "text": outcome.text}]}
    if outcome.structured is not None:
        result["structuredContent"] = outcome.structured
    if outcome.meta:
        result["_meta"] = outcome.meta
    if outcome.is_error:
        result["isError"] = True
    return result


class ViewCalls:
    """Decides and runs views' tool calls (see the module docstring)."""

    def __init__(
        self,
        host: Host,
        grants: GrantStore,
        policy: Callable[[str], ApprovalPolicy],
        ask: Ask,
        *,
        log: CallLog | None = None,
    ) -> None:
        """``policy(conversation_id)`` is the conversation's approval policy (``Routing.run_policy``)."""
        self._host = host
        self._grants = grants
        self._policy = policy
        self.ask = ask
        self._log = log
        self._ids = itertools.count(1)
        self.listeners: list[Callable[[ViewCall], None]] = []

    async def call(
        self, conversation_id: str, parent_tool_call_id: str, server: str, tool: str, arguments: dict[str, Any]
    ) -> dict[str, Any]:
        target = next(
            (
                t
                for t in self._host.tools(include_app_only=True)
                if t.server == server and t.tool == tool and not t.excluded
            ),
            None,
        )
        if target is None:
            raise ViewRefused(f"The view can only call tools of its own MCP server '{server}'; '{tool}' is not one.")
        if not target.app_visible:
            raise ViewRefused(f"Tool '{tool}' is for the model only (its visibility leaves out 'app').")
        call = ViewCall(
            f"view:{parent_tool_call_id}:{next(self._ids)}",
            conversation_id,
            parent_tool_call_id,
            server,
            tool,
            arguments,
        )
        self._record_request(call)
        policy = self._policy(conversation_id)
        decision = policy.decide_without_asking(builtin=target.builtin, read_only=target.read_only)
        if decision is None:
            identity = self._host.server_identity(server)
            grant = self._grants.find(conversation_id, server, tool, identity)
            if grant is not None:
                decision = Decision(True, f"granted earlier ({grant.scope})", "grant", grant.scope)
        if decision is None:
            self._changed(call)
            decision = await self.ask(call)
            if decision.approved and decision.scope != "once":
                self._grants.add(
                    Grant(
                        scope=decision.scope,
                        server=server,
                        tool=None if decision.scope == "server" else tool,
                        conversation_id=conversation_id if decision.scope == "conversation" else None,
                        origin=f"approved for an app view in conversation {conversation_id} ({call.id})",
                        identity=self._host.server_identity(server),
                    )
                )
        call.decision = decision
        self._record_decision(call)
        if not decision.approved:
            call.state = "denied"
            self._changed(call)
            raise ViewRefused(f"The call to '{tool}' was denied" + (f": {decision.reason}" if decision.reason else "."))
        if decision.arguments is not None:
            call.arguments = decision.arguments
        call.state = "running"
        self._changed(call)
        outcome = await self._host.call(server, tool, call.arguments)
        call.outcome, call.state = outcome, "done"
        self._changed(call)
        return result_json(outcome)

    def _changed(self, call: ViewCall) -> None:
        for listener in list(self.listeners):
            listener(call)

    def _record_request(self, call: ViewCall) -> None:
        if self._log is not None:
            self._log.record_approval_request(
                call.id,
                call.conversation_id,
                "",  # a view's call belongs to no run
                call.server,
                call.tool,
                call.arguments,
            )

    def _record_decision(self, call: ViewCall) -> None:
        if self._log is None or call.decision is None:
            return
        decision = call.decision
        self._log.record_approval_decision(
            call.id,
            call.conversation_id,
            "",  # a view's call belongs to no run
            decision="approved" if decision.approved else "denied",
            reason=f"called by the app view of tool call {call.parent_tool_call_id}"
            + (f": {decision.reason}" if decision.reason else ""),
            source=decision.source,
            scope=decision.scope,
            arguments_after=decision.arguments,
        )


__all__ = ["Ask", "CallLog", "ViewCall", "ViewCalls", "result_json"]
