"""One turn's loop: prompt → stream → tool calls → pause for approval → ``Host.call`` → continue.

The loop streams one model response, records it, and for every tool call (in model order) asks the
approval broker, calls the one host path and feeds the result back, until the model stops or the
tool-round limit is reached. Tool failures and denials go back to the model as ``is_error`` results;
provider failures end the run with an ``Error`` event, keeping any partial answer.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Callable, Sequence
from typing import Any, Literal

from desktop_app.runtime import events as ev
from desktop_app.runtime.approvals import (
    ApprovalBroker,
    ApprovalPolicy,
    Decision,
    Grant,
    GrantStore,
    denied_text,
    edited_note,
)
from desktop_app.runtime.attachments import (
    PathOrAttachment,
    attachment_name,
    describe_images,
    description_attachment,
    load_attachments,
    vision_refusal,
)
from desktop_app.runtime.clock import current_conversation
from desktop_app.runtime.context import ContextItem, file_items, render_context
from desktop_app.runtime.conversation import (
    Conversation,
    RunOptions,
    RunOutcome,
    ToolHost,
    ToolOutcome,
    ToolTarget,
    internal_call_id,
    wire_messages,
)
from desktop_app.runtime.errors import ProviderError, ProviderHTTPError, SwitchboardError
from desktop_app.runtime.hooks.context import ToolCallContext, current_tool_call
from desktop_app.runtime.hooks.lifecycle import LifecycleHooks
from desktop_app.runtime.hooks.notices import HookNotice
from desktop_app.runtime.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCallRequest,
    ToolMessage,
    UserMessage,
)
from desktop_app.runtime.providers.base import (
    ChatRequest,
    Completion,
    ContentChunk,
    Provider,
    ReasoningChunk,
    RetryChunk,
    UsageChunk,
)
from desktop_app.runtime.providers.error_text import raw_details
from desktop_app.runtime.tool_digest import replay_limit_for

Emit = Callable[[ev.Event], None]
CANCELLED_BY_USER = "Cancelled by the user: the run was stopped while the tool was running."
VisionFactory = Callable[[], Provider]
"""Builds (or returns) the vision provider, only when a run needs it."""


class RunLoop:
    """Drives one run of one conversation. Create one per run; call ``execute``."""

    def __init__(
        self,
        *,
        conversation: Conversation,
        run_id: str,
        provider: Provider,
        host: ToolHost,
        broker: ApprovalBroker,
        policy: ApprovalPolicy,
        grants: GrantStore,
        options: RunOptions,
        emit: Emit,
        vision_provider: VisionFactory | None = None,
        hooks: LifecycleHooks | None = None,
    ) -> None:
        self._conv = conversation
        self._run_id = run_id
        self._provider = provider
        self._host = host
        self._broker = broker
        self._policy = policy
        self._grants = grants
        self._options = options
        self._emit_event = emit
        self._vision = vision_provider
        self._partial_content: list[str] = []
        self._partial_reasoning: list[str] = []
        self._hooks = hooks
        self._calls_seen = 0  # tool calls this run has taken in: the position part of their internal ids

    # -- helpers ---------------------------------------------------------------------------------------

    @property
    def _ids(self) -> dict[str, str]:
        return {"conversation_id": self._conv.id, "run_id": self._run_id}

    def _emit(self, event: ev.Event) -> None:
        self._emit_event(event)

    # -- the loop --------------------------------------------------------------------------------------

    async def execute(
        self,
        prompt: str | None,
        *,
        pending: Sequence[ToolCallRequest] = (),
        attachments: Sequence[PathOrAttachment] = (),
        context: Sequence[ContextItem] | None = None,
    ) -> RunOutcome:
        """Run a turn: with a ``prompt``, a new user turn; without, continue a paused one.

        ``pending`` are tool calls of the last assistant message still without results (a run that
        paused for approvals, possibly before an app restart): they are decided and run first.
        ``attachments`` (loaded, or paths to load) and ``context`` (rendered as a ``<context>`` block, with
        the attached files listed; ``None``: no block) go with the prompt. A file that cannot be attached,
        or images for a model that cannot read them without a vision provider, fail the run before any
        request (the prompt is then not added to the conversation).
        """
        current_conversation.set(self._conv.id)  # lets "retry now" find this run's retry waits
        self._emit(
            ev.RunStarted(
                **self._ids,
                model=self._options.model,
                prompt=prompt or "",
                continued=prompt is None,
                attachments=[attachment_name(item) for item in attachments],
                context=[item.label for item in context or ()],
            )
        )
        rounds = 0
        last_content = ""
        try:
            if prompt is not None:
                hooked = await self._prompt_hooks(prompt)
                if hooked is None:
                    return RunOutcome(self._run_id, "failed", "", "blocked by a UserPromptSubmit hook")
                prompt, hook_context = hooked
                user_message = await self._user_message(prompt, attachments, context)
                if hook_context:
                    user_message = user_message.model_copy(
                        update={"context": _join(user_message.context, hook_context)}
                    )
                self._conv.messages.append(user_message)
                kept = [a.model_dump() for a in user_message.attachments if a.kind != "image"]
                if user_message.context or kept:  # the store keeps them, so a reopen sends the same history
                    self._emit(ev.PromptSent(**self._ids, context=user_message.context, attachments=kept))
            if pending:
                for call in pending:
                    await self._run_tool_call(call)
                rounds += 1
            while True:
                completion = await self._stream_once()
                last_content = completion.content
                tool_calls = self._own_ids(completion.tool_calls)
                self._conv.messages.append(
                    AssistantMessage(
                        content=completion.content,
                        reasoning=completion.reasoning,
                        reasoning_signature=completion.reasoning_signature,
                        tool_calls=tool_calls,
                    )
                )
                if not tool_calls:
                    reason: Literal["end_turn", "max_tokens", "content_filter"] = (
                        completion.finish_reason if completion.finish_reason != "tool_use" else "end_turn"
                    )
                    await self._stop_hooks(completion.content, rounds)
                    self._emit(ev.RunFinished(**self._ids, reason=reason, content=completion.content))
                    return RunOutcome(self._run_id, "finished", completion.content)
                for index, call in enumerate(tool_calls):
                    await self._run_tool_call(call, first_in_response=index == 0)
                rounds += 1
                if rounds >= self._options.max_tool_rounds:
                    self._emit(ev.RunFinished(**self._ids, reason="tool_round_limit", content=last_content))
                    return RunOutcome(self._run_id, "finished", last_content)
        except SwitchboardError as exc:
            partial = self.keep_partial()
            retryable = bool(getattr(exc, "retryable", False))
            details = raw_details(exc.body) if isinstance(exc, ProviderHTTPError) else None
            self._emit(ev.Error(**self._ids, code=exc.code, message=str(exc), retryable=retryable, details=details))
            return RunOutcome(self._run_id, "failed", partial, str(exc))
        except Exception as exc:
            # A bug, not a refusal: it still propagates (to the caller's error report), but the run ends
            # visibly and is stored as failed, instead of leaving its answer "streaming" forever.
            self.keep_partial()
            message = (
                f"The run failed unexpectedly ({type(exc).__name__}: {exc}). "
                "Try again; if it repeats, report it with the log."
            )
            self._emit(ev.Error(**self._ids, code="internal_error", message=message))
            raise

    def _own_ids(self, calls: Sequence[ToolCallRequest]) -> tuple[ToolCallRequest, ...]:
        """Give each of the model's calls the runtime's own id (run + position); the model's stays as ``wire_id``.

        Models reuse ids (``call_0`` in every turn, or twice in one response): approvals, progress,
        results, cards and stored records all key on the internal id, so no call can take another's.
        """
        owned = []
        for call in calls:
            owned.append(
                call.model_copy(
                    update={"id": internal_call_id(self._run_id, self._calls_seen), "wire_id": call.model_id}
                )
            )
            self._calls_seen += 1
        return tuple(owned)

    def keep_partial(self) -> str:
        """A failed or stopped stream keeps what it had said, so the conversation stays consistent.

        Returns the partial answer text (empty when the stream had said nothing).
        """
        content, reasoning = "".join(self._partial_content), "".join(self._partial_reasoning)
        if content or reasoning:
            self._conv.messages.append(AssistantMessage(content=content, reasoning=reasoning))
        self._partial_content.clear()
        self._partial_reasoning.clear()
        return content

    async def _user_message(
        self, prompt: str, attachments: Sequence[PathOrAttachment], context: Sequence[ContextItem] | None
    ) -> UserMessage:
        # Reading and encoding files (images up to several MB) happens off the event loop.
        loaded = await asyncio.to_thread(load_attachments, attachments, self._options.attachment_limits)
        block = render_context([*context, *file_items(loaded)]) if context is not None else ""
        images = [item for item in loaded if item.kind == "image"]
        if images and self._options.supports_images is False:
            if self._vision is None:
                raise vision_refusal(self._options.model)
            # Whale's side channel: a vision model describes the images; the description replaces them.
            model = self._options.vision_model
            text = await describe_images(
                self._vision(),
                model,
                images,
                prompt,
                on_retry=lambda info: self._emit(ev.RetryScheduled(**self._ids, retry=info)),
            )
            self._emit(ev.ImagesDescribed(**self._ids, model=model, images=[i.name for i in images], text=text))
            loaded = [item for item in loaded if item.kind != "image"] + [description_attachment(images, text, model)]
        return UserMessage(content=prompt, attachments=tuple(loaded), context=block)

    async def _stream_once(self) -> Completion:
        tools = tuple(self._host.tool_specs())
        request = ChatRequest(
            model=self._options.model,
            messages=self._request_messages(),
            tools=tools,
            thinking=self._options.thinking,
            reasoning_effort=self._options.reasoning_effort,
        )
        self._partial_content.clear()
        self._partial_reasoning.clear()
        completion: Completion | None = None
        async for item in self._provider.stream(request):
            if isinstance(item, ContentChunk):
                if item.text:
                    self._partial_content.append(item.text)
                    self._emit(ev.ContentDelta(**self._ids, text=item.text))
            elif isinstance(item, ReasoningChunk):
                if item.text:
                    self._partial_reasoning.append(item.text)
                    self._emit(ev.ReasoningDelta(**self._ids, text=item.text))
            elif isinstance(item, UsageChunk):
                self._emit(ev.Usage(**self._ids, usage=item.usage))
            elif isinstance(item, RetryChunk):
                if item.info.stream_reset:
                    self._partial_content.clear()
                    self._partial_reasoning.clear()
                self._emit(ev.RetryScheduled(**self._ids, retry=item.info))
            elif isinstance(item, Completion):
                completion = item
        if completion is None:  # a provider must end with a Completion or raise
            raise ProviderError("The model stream ended without a completion; try again.")
        self._partial_content.clear()
        self._partial_reasoning.clear()
        return completion

    def _request_messages(self) -> tuple[Message, ...]:
        """The conversation, plus the host's system note (the deferred tools block) after the system prompt."""
        system_note = getattr(self._host, "system_note", None)
        note = system_note() if system_note is not None else ""
        messages = wire_messages(self._conv.messages)
        if not note:
            return messages
        at = 0
        while at < len(messages) and isinstance(messages[at], SystemMessage):
            at += 1
        return (*messages[:at], SystemMessage(content=note), *messages[at:])

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
        outcome = await self._call_tool(call, server, tool, arguments)
        notices = list(getattr(outcome, "hooks", None) or [])
        for notice in notices:
            self._emit(ev.HookNoticeEvent(**self._ids, tool_call_id=call.id, notice=notice))
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

    async def _call_tool(self, call: ToolCallRequest, server: str, tool: str, arguments: dict[str, Any]) -> ToolOutcome:
        """The host call, with the tool's progress emitted as ``ToolProgress`` (when the host reports it).

        Stopping the run while the tool runs cancels the MCP request (the server gets
        ``notifications/cancelled``); the call is recorded as an is_error result, then the run ends."""

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            self._emit(
                ev.ToolProgress(**self._ids, tool_call_id=call.id, progress=progress, total=total, message=message)
            )

        token = current_tool_call.set(ToolCallContext(self._conv.id, call.id, call.name))
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
        if decision is None:
            identity = self._server_identity(server)
            grant = self._grants.find(self._conv.id, server, tool, identity)
            if grant is not None:
                decision = Decision(True, f"granted earlier ({grant.scope})", "grant", grant.scope)
        if decision is None and self._hooks is not None:
            blocked = await self._hooks.permission_request(
                self._conv.id, call_id, self._host_name(target, call_id), arguments, self._emit_notice(call_id)
            )
            if blocked is not None:
                decision = Decision(False, blocked, "policy")
        if decision is None:
            future = self._broker.open(call_id, self._conv.id)
            self._emit(
                ev.ApprovalRequired(**self._ids, tool_call_id=call_id, server=server, tool=tool, arguments=arguments)
            )
            try:
                decision = await future
            finally:
                self._broker.close(call_id)
            if decision.approved and decision.scope != "once":
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
        identity = getattr(self._host, "server_identity", None)
        return identity(server) if identity is not None else None

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

    # -- lifecycle hooks fired by the loop (tool hooks run inside Host.call) ---------------------------

    def _emit_notice(self, tool_call_id: str = "") -> Callable[[HookNotice], None]:
        def emit(notice: HookNotice) -> None:
            self._emit(ev.HookNoticeEvent(**self._ids, tool_call_id=tool_call_id, notice=notice))

        return emit

    def _host_name(self, target: ToolTarget, fallback: str) -> str:
        name = getattr(target, "name", None)
        return name if isinstance(name, str) else fallback

    async def _prompt_hooks(self, prompt: str) -> tuple[str, str] | None:
        """SessionStart (first prompt) and UserPromptSubmit: the prompt to send and the hooks' context,
        or ``None`` when a hook blocked the prompt (an ``Error`` event says which hook and why)."""
        if self._hooks is None:
            return prompt, ""
        first = not any(isinstance(m, UserMessage) for m in self._conv.messages)
        result = await self._hooks.prompt_submitted(self._conv.id, prompt, first, self._emit_notice())
        if result.blocked is not None:
            self._emit(ev.Error(**self._ids, code="hook_blocked", message=result.blocked))
            return None
        return result.prompt, result.context

    async def _stop_hooks(self, content: str, rounds: int) -> None:
        if self._hooks is not None:
            await self._hooks.stopped(self._conv.id, content, rounds + 1, self._emit_notice())


def _join(first: str, second: str) -> str:
    return f"{first}\n{second}" if first else second


def _media_blocks(content: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The image and embedded-resource blocks of a tool result (MCP content, as dumped by the host)."""
    return [dict(block) for block in content if block.get("type") in ("image", "resource")]
