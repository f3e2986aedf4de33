"""A hand-written fake of ``desktop_app.runtime.service.Runtime`` for UI tests: scripted events per run.

Queue a script per run with ``script(*steps)``; ``run()`` emits ``RunStarted``, plays the steps and ends
with ``RunFinished`` (or the scripted ``Fail``). Steps::

    Reasoning("text")            one ReasoningDelta per piece (``pieces=`` to split)
    Content("text")              one ContentDelta per piece
    Stream(["a", "b", ...])      many ContentDeltas, yielding to the loop every ``yield_every`` deltas
    Tool(id, server, tool, args, result="...", is_error=False, policy=None)
                                 ToolCall + ApprovalRequired, waits for ``answer()``, then ApprovalDecided
                                 and ToolResult (a denial gives an is_error result, as the real loop does).
                                 As in the real loop, a grant that covers the call (``grants``) decides it
                                 without asking (source "grant"), ``policy=True/False`` decides it by policy,
                                 and an approval with a wider scope adds a grant.
    TokenUsage(prompt, completion)
    Gate()                       wait here until the test calls ``gate.open()``
    Fail(code, message)          end the run with an Error event
    RoundLimit()                 end the run with ``RunFinished(reason="tool_round_limit")``

``continue_run()`` plays the next script as a continued run (``RunStarted.continued``); to mimic a resumed
turn, script the same ``Tool`` ids again (the real runtime re-emits ToolCall + ApprovalRequired for them).
It records answers (``answers``: id, approved, reason; ``answer_log``: every keyword), cancels, continues,
retry-now requests, revoked grants, ``configure_provider`` calls and reopened conversations (``loaded``),
and never touches files or the keyring.
"""

from __future__ import annotations

import asyncio
import itertools
import uuid
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop_app.runtime import events as ev
from desktop_app.runtime.conversation import RunOutcome
from desktop_app.runtime.errors import ConversationBusyError, UnknownToolCallError
from desktop_app.runtime.run.approvals import ApprovalPolicy, Grant, GrantStore, Scope, denied_text, edited_note
from desktop_app.runtime.settings import ProviderSettings, Settings

Listener = Callable[[ev.Event], None]


@dataclass
class Reasoning:
    text: str
    pieces: int = 1


@dataclass
class Content:
    text: str
    pieces: int = 1


@dataclass
class Stream:
    deltas: Sequence[str]
    yield_every: int = 1


@dataclass
class Tool:
    tool_call_id: str
    server: str
    tool: str
    arguments: dict[str, Any]
    result: str = "ok"
    is_error: bool = False
    policy: bool | None = None


@dataclass
class TokenUsage:
    prompt: int
    completion: int
    cache_hit: int = 0


@dataclass
class Gate:
    event: asyncio.Event = field(default_factory=asyncio.Event)

    def open(self) -> None:
        self.event.set()


@dataclass
class Fail:
    code: str
    message: str
    retryable: bool = False


@dataclass
class RoundLimit:
    pass


@dataclass(frozen=True)
class _Answer:
    approved: bool
    reason: str | None
    scope: Scope
    arguments: dict[str, Any] | None


Step = Reasoning | Content | Stream | Tool | TokenUsage | Gate | Fail | RoundLimit


def _split(text: str, pieces: int) -> list[str]:
    size = max(1, -(-len(text) // max(1, pieces)))
    return [text[i : i + size] for i in range(0, len(text), size)]


class FakeRuntime:
    """Implements the Runtime interface the UI uses, playing scripted runs."""

    def __init__(self, provider_settings: ProviderSettings | None = None, *, max_tool_rounds: int = 25) -> None:
        self.auto_approve_read_only = False
        self.conversation_providers: dict[str, tuple[str, str] | None] = {}
        self.provider_settings = provider_settings or ProviderSettings(
            base_url="http://127.0.0.1:9/v1", model="fake-model"
        )
        self.max_tool_rounds = max_tool_rounds
        self.grants = GrantStore()
        self.listeners: list[Listener] = []
        self.scripts: deque[list[Step]] = deque()
        self.answers: list[tuple[str, bool, str | None]] = []
        self.answer_log: list[dict[str, Any]] = []
        self.cancelled: list[str] = []
        self.continued: list[str] = []
        self.retry_nows: list[str] = []
        self.revoked: list[Grant] = []
        self.ran_with: dict[str, dict[str, Any]] = {}
        self.configured: list[tuple[ProviderSettings, str | None]] = []
        self.prompts: list[str] = []
        self.run_extras: list[tuple[list[Any], list[Any] | None]] = []
        """Per ``run()``: the attachments and the context items it was given (``None``: no context)."""
        self.loaded: dict[str, list[Any]] = {}
        self.emitted: list[ev.Event] = []
        self.closed = False
        self._ids = itertools.count(1)
        self._pending: dict[str, tuple[str, asyncio.Future[_Answer]]] = {}
        self._tasks: dict[str, asyncio.Task[RunOutcome]] = {}

    # -- scripting ---------------------------------------------------------------------------------------

    def script(self, *steps: Step) -> None:
        self.scripts.append(list(steps))

    # -- the Runtime interface ---------------------------------------------------------------------------

    @property
    def settings(self) -> Settings:
        return Settings(
            provider=self.provider_settings,
            max_tool_rounds=self.max_tool_rounds,
            auto_approve_read_only=self.auto_approve_read_only,
        )

    def set_auto_approve_read_only(self, enabled: bool) -> None:
        self.auto_approve_read_only = enabled

    def stored_provider(self, base_url: str, model: str) -> tuple[str, str]:
        return (base_url, model)

    def set_conversation_provider(self, conversation_id: str, settings: tuple[str, str] | None) -> None:
        self.conversation_providers[conversation_id] = settings

    def conversation_provider(self, conversation_id: str) -> ProviderSettings:
        """The provider a conversation talks to: the one it was given, else the default (as the Runtime)."""
        own = self.conversation_providers.get(conversation_id)
        if own is None:
            return self.provider_settings
        return self.provider_settings.model_copy(update={"base_url": own[0], "model": own[1]})

    def subscribe(self, listener: Listener) -> Callable[[], None]:
        self.listeners.append(listener)
        return lambda: self.listeners.remove(listener) if listener in self.listeners else None

    def new_conversation(self) -> str:
        return f"conv-{next(self._ids)}"

    def is_running(self, conversation_id: str) -> bool:
        return conversation_id in self._tasks

    def load_conversation(self, conversation_id: str, messages: Any) -> None:
        """Record a reopened conversation's history (``loaded``; a loader is called, as the real runtime does
        at the next run); ``pending_tool_calls`` reads it."""
        self.loaded[conversation_id] = list(messages() if callable(messages) else messages)

    def pending_tool_calls(self, conversation_id: str) -> list[Any]:
        from desktop_app.runtime.conversation import pending_tool_calls

        return pending_tool_calls(self.loaded.get(conversation_id, []))

    async def run(
        self,
        conversation_id: str,
        prompt: str,
        *,
        attachments: Sequence[Any] = (),
        context: Sequence[Any] | None = None,
    ) -> RunOutcome:
        self.prompts.append(prompt)
        self.run_extras.append((list(attachments), None if context is None else list(context)))
        return await self._start(conversation_id, prompt)

    async def continue_run(self, conversation_id: str) -> RunOutcome:
        self.continued.append(conversation_id)
        return await self._start(conversation_id, None)

    async def _start(self, conversation_id: str, prompt: str | None) -> RunOutcome:
        if conversation_id in self._tasks:
            raise ConversationBusyError("A run is already active in this conversation. Stop it first.")
        steps = self.scripts.popleft() if self.scripts else [Content("(no script)")]
        run_id = uuid.uuid4().hex
        task = asyncio.ensure_future(self._play(conversation_id, run_id, prompt, steps))
        self._tasks[conversation_id] = task
        try:
            return await asyncio.shield(task)
        except asyncio.CancelledError:
            if not task.done():
                task.cancel()
            self._emit(ev.RunFinished(conversation_id=conversation_id, run_id=run_id, reason="cancelled"))
            return RunOutcome(run_id, "cancelled")
        finally:
            self._tasks.pop(conversation_id, None)

    def answer(
        self,
        tool_call_id: str,
        *,
        approved: bool,
        reason: str | None = None,
        scope: Scope = "once",
        arguments: dict[str, Any] | None = None,
    ) -> None:
        _conv, future = self._pending.get(tool_call_id, ("", None))
        if future is None or future.done():
            raise UnknownToolCallError(f"No pending approval for tool call {tool_call_id!r}.")
        if arguments is not None and not approved:
            raise ValueError("edited arguments only go with an approval")
        del self._pending[tool_call_id]
        self.answers.append((tool_call_id, approved, reason))
        self.answer_log.append(
            {
                "tool_call_id": tool_call_id,
                "approved": approved,
                "reason": reason,
                "scope": scope,
                "arguments": arguments,
            }
        )
        future.set_result(_Answer(approved, reason, scope, arguments))

    def pending_approvals(self, conversation_id: str | None = None) -> list[str]:
        return [
            call_id
            for call_id, (conv, future) in self._pending.items()
            if not future.done() and conversation_id in (None, conv)
        ]

    def revoke_grant(self, grant: Grant) -> bool:
        self.revoked.append(grant)
        return self.grants.revoke(grant)

    def retry_now(self, conversation_id: str) -> bool:
        self.retry_nows.append(conversation_id)
        return False

    def cancel(self, conversation_id: str) -> None:
        self.cancelled.append(conversation_id)
        task = self._tasks.get(conversation_id)
        if task is not None and not task.done():
            task.cancel()

    def configure_provider(self, settings: ProviderSettings, api_key: str | None) -> None:
        self.configured.append((settings, api_key))
        self.provider_settings = settings

    async def aclose(self) -> None:
        for conversation_id in list(self._tasks):
            self.cancel(conversation_id)
        self.closed = True

    # -- playing a script --------------------------------------------------------------------------------

    def notify(self, event: ev.Event) -> None:
        """As ``Runtime.notify``: publish an event from outside a run (the store's ``StoreFailed``)."""
        self._emit(event)

    def _emit(self, event: ev.Event) -> None:
        self.emitted.append(event)
        for listener in list(self.listeners):
            listener(event)

    async def _play(self, conv: str, run_id: str, prompt: str | None, steps: list[Step]) -> RunOutcome:
        ids = {"conversation_id": conv, "run_id": run_id}
        model = self.provider_settings.model
        self._emit(ev.RunStarted(**ids, model=model, prompt=prompt or "", continued=prompt is None))
        content: list[str] = []
        for step in steps:
            await asyncio.sleep(0)
            if isinstance(step, Reasoning):
                for piece in _split(step.text, step.pieces):
                    self._emit(ev.ReasoningDelta(**ids, text=piece))
                    await asyncio.sleep(0)
            elif isinstance(step, Content):
                for piece in _split(step.text, step.pieces):
                    content.append(piece)
                    self._emit(ev.ContentDelta(**ids, text=piece))
                    await asyncio.sleep(0)
            elif isinstance(step, Stream):
                for index, piece in enumerate(step.deltas, 1):
                    content.append(piece)
                    self._emit(ev.ContentDelta(**ids, text=piece))
                    if index % step.yield_every == 0:
                        await asyncio.sleep(0)
            elif isinstance(step, Tool):
                await self._tool(ids, step)
                content.clear()
            elif isinstance(step, TokenUsage):
                usage = ev.TokenUsage(
                    prompt_tokens=step.prompt,
                    completion_tokens=step.completion,
                    total_tokens=step.prompt + step.completion,
                    cache_hit_tokens=step.cache_hit,
                )
                self._emit(ev.Usage(**ids, usage=usage))
            elif isinstance(step, Gate):
                await step.event.wait()
            elif isinstance(step, Fail):
                self._emit(ev.Error(**ids, code=step.code, message=step.message, retryable=step.retryable))
                return RunOutcome(run_id, "failed", "".join(content), step.message)
            elif isinstance(step, RoundLimit):
                text = "".join(content)
                self._emit(ev.RunFinished(**ids, reason="tool_round_limit", content=text))
                return RunOutcome(run_id, "finished", text)
        text = "".join(content)
        self._emit(ev.RunFinished(**ids, reason="end_turn", content=text))
        return RunOutcome(run_id, "finished", text)

    async def _tool(self, ids: dict[str, str], step: Tool) -> None:
        call = {"tool_call_id": step.tool_call_id, **ids}
        self._emit(ev.ToolCall(**call, name=step.tool, server=step.server, tool=step.tool, arguments=step.arguments))
        grant = self.grants.find(ids["conversation_id"], step.server, step.tool)
        if step.policy is not None:  # as the real policy decides (--approve always / never)
            decided = ApprovalPolicy("always" if step.policy else "never").decide_without_asking()
            assert decided is not None
            reason = decided.reason
            self._emit(ev.ApprovalDecided(**call, approved=step.policy, reason=reason, source="policy"))
            approved = step.policy
        elif grant is not None:
            reason = f"granted earlier ({grant.scope})"
            self._emit(ev.ApprovalDecided(**call, approved=True, reason=reason, source="grant", scope=grant.scope))
            approved = True
        else:
            approved, reason = await self._ask(ids["conversation_id"], call, step)
        edited = self.ran_with.get(step.tool_call_id)
        if approved:
            note = edited_note(edited) if edited is not None and edited != step.arguments else ""
            text, is_error = note + step.result, step.is_error
        else:
            text, is_error = denied_text(reason), True
        self._emit(ev.ToolResult(**call, server=step.server, tool=step.tool, text=text, is_error=is_error))

    async def _ask(self, conv: str, call: dict[str, str], step: Tool) -> tuple[bool, str | None]:
        future: asyncio.Future[_Answer] = asyncio.get_running_loop().create_future()
        self._pending[step.tool_call_id] = (conv, future)
        self._emit(ev.ApprovalRequired(**call, server=step.server, tool=step.tool, arguments=step.arguments))
        try:
            answer = await future
        finally:
            self._pending.pop(step.tool_call_id, None)
        if answer.approved and answer.scope != "once":
            self.grants.add(
                Grant(
                    scope=answer.scope,
                    server=step.server,
                    tool=None if answer.scope == "server" else step.tool,
                    conversation_id=conv if answer.scope == "conversation" else None,
                    origin=f"approved in conversation {conv} (tool call {step.tool_call_id})",
                )
            )
        edited = answer.arguments if answer.arguments not in (None, step.arguments) else None
        self._emit(
            ev.ApprovalDecided(
                **call,
                approved=answer.approved,
                reason=answer.reason,
                scope=answer.scope,
                edited_arguments=edited,
            )
        )
        self.ran_with[step.tool_call_id] = edited if edited is not None else step.arguments
        return answer.approved, answer.reason
