"""One turn's loop: prompt → stream → tool calls → pause for approval → ``Host.call`` → continue.

The loop streams one model response, records it, and for every tool call (in model order) asks the
approval broker, calls the one host path and feeds the result back, until the model stops or the
tool-round limit is reached. Tool failures and denials go back to the model as ``is_error`` results;
provider failures end the run with an ``Error`` event, keeping any partial answer.

This module owns the turn (the user message with its attachments and context, the model stream, the
tool-round limit, the lifecycle hooks the loop fires); one tool call's step (decision, call, result) is
:class:`~desktop_app.runtime.run.tool_step.RunTools`, which :class:`RunLoop` builds on.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import asdict
from typing import Literal

from desktop_app.runtime import events as ev
from desktop_app.runtime.attachments import (
    PathOrAttachment,
    attachment_name,
    describe_images,
    description_attachment,
    load_attachments,
    vision_refusal,
)
from desktop_app.runtime.clock import current_conversation
from desktop_app.runtime.compaction.plan import request_history
from desktop_app.runtime.context import ContextItem, file_items, render_context
from desktop_app.runtime.conversation import (
    Conversation,
    RunOptions,
    RunOutcome,
    ToolHost,
    internal_call_id,
    wire_messages,
)
from desktop_app.runtime.errors import ProviderError, ProviderHTTPError, SwitchboardError
from desktop_app.runtime.hooks.lifecycle import LifecycleHooks
from desktop_app.runtime.hooks.notices import HookNotice
from desktop_app.runtime.messages import (
    AssistantMessage,
    Message,
    SystemMessage,
    ToolCallRequest,
    UserMessage,
)
from desktop_app.runtime.providers.base import (
    ChatRequest,
    Completion,
    ContentChunk,
    Provider,
    ReasoningChunk,
    RetryChunk,
    ToolCallChunk,
    UsageChunk,
)
from desktop_app.runtime.providers.error_text import raw_details
from desktop_app.runtime.run.approvals import (
    ApprovalBroker,
    ApprovalPolicy,
    GrantStore,
)
from desktop_app.runtime.run.tool_step import CANCELLED_BY_USER, RunTools

Emit = Callable[[ev.Event], None]
VisionFactory = Callable[[], Provider]
"""Builds (or returns) the vision provider, only when a run needs it."""


class RunLoop(RunTools):
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
        auto_compact: Callable[[str], Awaitable[object]] | None = None,
    ) -> None:
        self._conv = conversation
        self._auto_compact = auto_compact  # before each request: compacts when it would pass the threshold
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
        self._halted: str | None = None
        """Why a hook halted the turn (``continue: false``), once one did."""
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
                    items = [asdict(item) for item in context or () if item.kind != "file"]
                    sent = ev.PromptSent(**self._ids, context=user_message.context, attachments=kept, items=items)
                    self._emit(sent)
            if pending:
                for call in pending:
                    await self._run_tool_call(call)
                rounds += 1
                if self._halted is not None:
                    return self._halt()
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
                if self._halted is not None:
                    return self._halt()
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
        if self._auto_compact is not None:
            await self._auto_compact(self._run_id)
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
        calls: dict[int, tuple[str, str]] = {}  # index -> (name, model id) as far as known
        async for item in self._provider.stream(request):
            if isinstance(item, ContentChunk):
                if item.text:
                    self._partial_content.append(item.text)
                    self._emit(ev.ContentDelta(**self._ids, text=item.text))
            elif isinstance(item, ReasoningChunk):
                if item.text:
                    self._partial_reasoning.append(item.text)
                    self._emit(ev.ReasoningDelta(**self._ids, text=item.text))
            elif isinstance(item, ToolCallChunk):
                self._tool_input_delta(item, calls)
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

    def _tool_input_delta(self, item: ToolCallChunk, calls: dict[int, tuple[str, str]]) -> None:
        """Re-emit a fragment of a tool call's arguments (MCP App views fill while the model writes)."""
        name, model_id = calls.get(item.index, ("", ""))
        calls[item.index] = (name or item.name, model_id or item.id)
        name, model_id = calls[item.index]
        self._emit(
            ev.ToolInputDelta(
                **self._ids, index=item.index, name=name, model_call_id=model_id, arguments_delta=item.arguments_delta
            )
        )

    def _request_messages(self) -> tuple[Message, ...]:
        """The conversation, plus the host's system note (the deferred tools block) after the system prompt."""
        system_note = getattr(self._host, "system_note", None)
        note = system_note() if system_note is not None else ""
        messages = wire_messages(request_history(self._conv.messages, self._conv.compactions))
        if not note:
            return messages
        at = 0
        while at < len(messages) and isinstance(messages[at], SystemMessage):
            at += 1
        return (*messages[:at], SystemMessage(content=note), *messages[at:])

    # -- lifecycle hooks fired by the loop (tool hooks run inside Host.call) ---------------------------

    def _emit_notice(self, tool_call_id: str = "") -> Callable[[HookNotice], None]:
        def emit(notice: HookNotice) -> None:
            self._emit(ev.HookNoticeEvent(**self._ids, tool_call_id=tool_call_id, notice=notice))
            if notice.halted and tool_call_id:  # PermissionRequest's interrupt: the turn ends after this round
                self._halted = notice.message

        return emit

    def _halt(self) -> RunOutcome:
        """A hook halted the turn (``continue: false``): the run ends here, with the hook's reason."""
        message = self._halted or "A hook halted the turn."
        self._emit(ev.Error(**self._ids, code="hook_halted", message=message))
        return RunOutcome(self._run_id, "failed", "", message)

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


__all__ = ["CANCELLED_BY_USER", "Emit", "RunLoop", "VisionFactory"]
