"""Approvals as data keyed by tool-call id: the policy, the grants, and the broker of pending answers.

The run loop asks for a decision and awaits it; the UI (or the CLI) answers by tool-call id with a scope:
approve once, for this conversation, always for this tool, trust the whole server, or deny with a reason
(approved arguments may be edited). The runtime never opens a dialog and never blocks a thread: a pending
approval is just a future. Grants made with a wider scope are remembered (``GrantStore``), listed with
where they came from, and can be revoked.
"""

from __future__ import annotations

import asyncio
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from desktop_app.runtime.errors import ConfigError, UnknownToolCallError
from desktop_app.runtime.model_defaults import empty_list
from desktop_app.runtime.settings import write_text_atomically

ApprovalMode = Literal["ask", "always", "never"]
Scope = Literal["once", "conversation", "tool", "server"]
DecisionSource = Literal["user", "policy", "grant"]
ALWAYS_ASK: frozenset[tuple[str, str]] = frozenset(
    ("switchboard.tasks", tool) for tool in ("create_task", "update_task", "delete_task")
)
"""Tools the user is asked about every time: no grant, ``always`` mode or hook answers for them (``never``
still denies). Creating or changing a scheduled task must never happen unseen (#25)."""


@dataclass(frozen=True)
class Decision:
    """An answer to one pending tool call. ``arguments`` are the edited arguments, if the user edited them."""

    approved: bool
    reason: str | None = None
    source: DecisionSource = "user"
    scope: Scope = "once"
    arguments: dict[str, Any] | None = None


@dataclass(frozen=True)
class ApprovalPolicy:
    """``ask``: calls wait for an answer unless a grant covers them; ``always``/``never`` decide by themselves.

    ``auto_approve_read_only`` approves tools that declare ``readOnlyHint`` (off by default). Built-in
    read-only tools never ask, whatever the mode: ``never`` denies the calls that need an approval, and
    those do not (decisions: "Built-in tools that only read never ask").
    """

    mode: ApprovalMode = "ask"
    auto_approve_read_only: bool = False

    def decide_without_asking(self, *, builtin: bool = False, read_only: bool = False) -> Decision | None:
        if builtin and read_only:
            return Decision(True, "built-in read-only tool", "policy")
        if self.mode == "never":
            return Decision(False, "denied by policy (--approve never)", "policy")
        if self.mode == "always":
            return Decision(True, "approved by policy (--approve always)", "policy")
        if read_only and self.auto_approve_read_only:
            return Decision(True, "read-only tool (auto-approve read-only tools is on)", "policy")
        return None


class Grant(BaseModel):
    """A remembered approval: a tool (or a whole server) approved beyond one call."""

    model_config = ConfigDict(frozen=True, defer_build=True)

    scope: Literal["conversation", "tool", "server"]
    server: str
    tool: str | None = None
    conversation_id: str | None = None
    granted_at: float = Field(default_factory=time.time)
    origin: str = Field("", description="Where it came from, e.g. the conversation and tool call")
    identity: str | None = Field(
        None,
        description="What the server was when this was granted: its command and arguments, or its URL "
        "(``Host.server_identity``). A grant stops applying when the server's definition changes.",
    )

    def covers(self, conversation_id: str, server: str, tool: str, identity: str | None = None) -> bool:
        """Whether this grant decides the call. ``identity`` is the server's current definition: a grant made
        for another definition of the server (or before identities were recorded) never does."""
        if self.server != server:
            return False
        if self.identity != identity:
            return False
        if self.scope == "server":
            return True
        if self.tool != tool:
            return False
        return self.scope == "tool" or self.conversation_id == conversation_id

    @property
    def key(self) -> tuple[str, str, str | None, str | None]:
        return (self.scope, self.server, self.tool, self.conversation_id)


class _GrantFile(BaseModel):
    """``grants.json``: built when the file is first read or written (a new home has none)."""

    model_config = ConfigDict(defer_build=True)

    version: int = 1
    grants: list[Grant] = Field(default_factory=empty_list)


class GrantStore:
    """Grants in memory, with the lasting ones (tool, server) saved atomically to ``path`` when given.

    Conversation grants last as long as the conversation's runtime. A broken grants file raises
    ``ConfigError`` at load and is never overwritten (the store then stays in memory only).
    """

    def __init__(self, path: Path | None = None) -> None:
        self._path = path
        self._grants: list[Grant] = []
        if path is not None and path.exists():
            try:
                from desktop_app.runtime.files import read_config_text

                data = _GrantFile.model_validate_json(read_config_text(path))
                self._grants = list(data.grants)
            except (ValidationError, ValueError) as exc:
                self._path = None  # never overwrite a file we could not read
                raise ConfigError(path, f"unreadable grants file: {exc}") from exc

    def list(self) -> list[Grant]:
        return list(self._grants)

    def find(self, conversation_id: str, server: str, tool: str, identity: str | None = None) -> Grant | None:
        return next((g for g in self._grants if g.covers(conversation_id, server, tool, identity)), None)

    def add(self, grant: Grant) -> None:
        """Remember ``grant``; one for the same scope and target made for another server definition is
        replaced (the user approved the server as it is now)."""
        same = next((g for g in self._grants if g.key == grant.key), None)
        if same is not None and same.identity == grant.identity:
            return
        self._grants = [g for g in self._grants if g.key != grant.key] + [grant]
        if grant.scope != "conversation":
            self._save()

    def confirm(self, grant: Grant, identity: str | None) -> Grant:
        """The user confirmed a stale grant for the server as it is now: it applies again."""
        confirmed = grant.model_copy(update={"identity": identity})
        self._grants = [confirmed if g.key == grant.key else g for g in self._grants]
        if grant.scope != "conversation":
            self._save()
        return confirmed

    def revoke(self, grant: Grant) -> bool:
        before = len(self._grants)
        self._grants = [g for g in self._grants if g.key != grant.key]
        if len(self._grants) != before:
            self._save()
            return True
        return False

    def _save(self) -> None:
        if self._path is None:
            return
        lasting = [g for g in self._grants if g.scope != "conversation"]
        write_text_atomically(self._path, _GrantFile(grants=lasting).model_dump_json(indent=2))


@dataclass
class _Pending:
    """An approval waiting for an answer: the future it is given to, and its conversation."""

    future: asyncio.Future[Decision]
    conversation_id: str


class ApprovalBroker:
    """Pending approvals by tool-call id. ``answer`` for an unknown or answered id raises loudly."""

    def __init__(self) -> None:
        self._pending: dict[str, _Pending] = {}

    def open(self, tool_call_id: str, conversation_id: str = "") -> asyncio.Future[Decision]:
        if tool_call_id in self._pending:
            raise UnknownToolCallError(f"Tool call {tool_call_id!r} is already waiting for an answer.")
        future: asyncio.Future[Decision] = asyncio.get_running_loop().create_future()
        self._pending[tool_call_id] = _Pending(future, conversation_id)
        return future

    def close(self, tool_call_id: str) -> None:
        pending = self._pending.pop(tool_call_id, None)
        if pending is not None and not pending.future.done():
            pending.future.cancel()

    def pending(self, conversation_id: str | None = None) -> list[str]:
        return [
            k
            for k, p in self._pending.items()
            if not p.future.done() and (conversation_id is None or p.conversation_id == conversation_id)
        ]

    def answer(self, tool_call_id: str, decision: Decision) -> None:
        pending = self._pending.get(tool_call_id)
        if pending is None or pending.future.done():
            raise UnknownToolCallError(
                f"No tool call {tool_call_id!r} is waiting for approval (unknown id, or already answered)."
            )
        if decision.arguments is not None and not decision.approved:
            raise ValueError("edited arguments only go with an approval; pass arguments=None when denying a tool call")
        pending.future.set_result(decision)


def describe_arguments(arguments: dict[str, Any]) -> str:
    return json.dumps(arguments, ensure_ascii=False, sort_keys=True)


def denied_text(reason: str | None) -> str:
    """The result a denied call gives the model (and the card): the denial, with the reason when there is one."""
    return "The user denied this tool call." + (f" Reason: {reason}" if reason else "")


def edited_note(arguments: dict[str, Any]) -> str:
    """The loop's remark in front of the result of a call whose arguments the user edited."""
    return f"[The user edited the arguments before approving; the tool ran with {describe_arguments(arguments)}]\n"
