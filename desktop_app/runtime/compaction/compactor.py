"""Conversation compaction, the operation: hooks, the summary request, the mark, and the events.

``Compactor.compact`` (the user's command, or ``maybe_compact`` when the next request would pass the
threshold) does, in order:

1. plans the turns to summarise (:func:`.compaction.plan`: all but the latest ``keep_turns``);
2. runs the PreCompact hooks (payload ``messages_before``); a ``halt`` stops the compaction, and their
   ``additional_context`` goes into the summary prompt;
3. asks the conversation's own provider and model for the summary (no tools);
4. adds the :class:`.compaction.Compaction` mark to the conversation (nothing is deleted);
5. runs the PostCompact hooks (``compact_summary``, ``messages_before``, ``messages_after``);
6. emits ``ConversationCompacted`` (with the hooks' notices and the summary's usage).

Any failure (a provider error, a halting hook, an empty summary) leaves the conversation exactly as it was
and emits ``CompactionFailed`` with a sentence that says what to do; ``compact`` then raises
``CompactionError``, while ``maybe_compact`` lets the run go on uncompacted (the event shows why).
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any

from desktop_app.runtime import events as ev
from desktop_app.runtime.compaction.budget import ContextBudget, budget
from desktop_app.runtime.compaction.plan import (
    Compaction,
    Plan,
    plan,
    request_history,
    summarised_count,
    summary_request,
    user_indexes,
)
from desktop_app.runtime.conversation import Conversation, wire_messages
from desktop_app.runtime.errors import ProviderHTTPError, RunError, SwitchboardError
from desktop_app.runtime.hooks.model import post_compact_payload, pre_compact_payload
from desktop_app.runtime.hooks.notices import HookNotice
from desktop_app.runtime.hooks.runner import HookRunner, blocked_notice, failure_notices
from desktop_app.runtime.messages import Message, SystemMessage, ToolSpec
from desktop_app.runtime.providers.base import Completion, ContentChunk, Provider, UsageChunk
from desktop_app.runtime.providers.error_text import raw_details
from desktop_app.runtime.redaction import redact_known
from desktop_app.runtime.usage import add_usage

Emit = Callable[[ev.Event], None]
SUMMARY_MAX_TOKENS = 4_096


class CompactionError(RunError):
    """A compaction did not happen; the conversation is unchanged (the message says why and what to do)."""

    code = "compaction_failed"

    def __init__(self, message: str, code: str = "compaction_failed") -> None:
        super().__init__(message)
        self.code = code


class Compactor:
    """Compacts one conversation with its provider and model (see the module docstring)."""

    def __init__(
        self,
        *,
        conversation: Conversation,
        provider: Provider,
        model: str,
        emit: Emit,
        tools: Callable[[], Sequence[ToolSpec]] = tuple,
        note: Callable[[], str] = str,
        window: int | None = None,
        keep_turns: int = 2,
        threshold_percent: int = 80,
        hooks: HookRunner | None = None,
    ) -> None:
        self._conv = conversation
        self._provider = provider
        self._model = model
        self._emit = emit
        self._tools = tools
        self._note = note
        self.window = window
        self._keep = keep_turns
        self._threshold = threshold_percent
        self._hooks = hooks
        self._auto_failed = False

    # -- what the next request holds -------------------------------------------------------------------

    def request_messages(self, messages: Sequence[Message] | None = None) -> list[Message]:
        """The next request's messages as sent (compacted, wire ids, the host's system note)."""
        history = wire_messages(
            request_history(self._conv.messages if messages is None else messages, self._conv.compactions)
        )
        note = self._note()
        return [*history, *([SystemMessage(content=note)] if note else [])]

    def estimate(self) -> ContextBudget:
        return budget(self.request_messages(), self._tools(), self.window)

    def over_threshold(self) -> bool:
        """Whether the next request passes the threshold. Right after the user undid a compaction, only a
        request that would not fit the window at all compacts again (undo must not be undone at once)."""
        fraction = self.estimate().fraction
        undone = bool(self._conv.compactions) and self._conv.compactions[-1].undone
        threshold = 100 if undone else self._threshold
        return self._threshold > 0 and fraction is not None and fraction * 100 >= threshold

    # -- automatic and manual compaction -----------------------------------------------------------------

    async def maybe_compact(self, run_id: str) -> Compaction | None:
        """Before a request: compact when it would pass the threshold. A failure is shown (``CompactionFailed``)
        and the run goes on uncompacted; it is tried once per run."""
        if self._auto_failed or not self.over_threshold():
            return None
        if plan(self._conv.messages, self._conv.compactions, self._keep) is None:
            return None  # only the turns kept verbatim are left: nothing to summarise
        try:
            return await self.compact(run_id, reason="auto")
        except CompactionError:
            self._auto_failed = True
            return None

    async def compact(self, run_id: str, *, reason: ev.CompactionReason = "manual") -> Compaction:
        """Summarise the older turns now; raises ``CompactionError`` (after ``CompactionFailed``) when it cannot."""
        conv = self._conv
        compaction_id = uuid.uuid4().hex
        ids: dict[str, Any] = {"conversation_id": conv.id, "run_id": run_id, "compaction_id": compaction_id}
        notices: list[HookNotice] = []

        def fail(code: str, message: str, details: str | None = None) -> CompactionError:
            self._emit(
                ev.CompactionFailed(**ids, reason=reason, code=code, message=message, details=details, notices=notices)
            )
            return CompactionError(message, code)

        messages = list(conv.messages)
        chosen = plan(messages, conv.compactions, self._keep)
        if chosen is None:
            raise fail(
                "nothing_to_compact",
                f"Nothing to compact yet: the latest {max(1, self._keep)} turn(s) are always kept as they are. "
                "Compact again after a few more turns.",
            )
        before = self.request_messages(messages)
        tokens_before = budget(before, self._tools(), self.window).total
        self._emit(ev.CompactionStarted(**ids, reason=reason, messages_before=len(before)))
        hook_context = await self._pre_compact(len(before), notices)
        if isinstance(hook_context, HookNotice):
            raise fail("hook_blocked", f"{hook_context.message}. The conversation was left as it was.")
        try:
            summary, usage = await self._summarise(messages, chosen, hook_context)
        except SwitchboardError as exc:
            details = raw_details(exc.body) if isinstance(exc, ProviderHTTPError) else None
            raise fail(
                exc.code,
                f"The conversation could not be compacted: {exc} The conversation was left as it was; "
                "try again, or go on without compacting.",
                details,
            ) from exc
        if not summary.strip():
            raise fail(
                "empty_summary",
                "The model returned an empty summary, so nothing was compacted. Try again, or pick another model.",
            )
        if conv.messages[: len(messages)] != messages:  # pragma: no cover - the runtime refuses runs meanwhile
            raise fail("conversation_changed", "The conversation changed while it was being compacted; try again.")
        mark = Compaction(
            id=compaction_id,
            turns=chosen.turns,
            summary=redact_known(summary.strip()),
            messages_before=len(before),
            messages_after=0,
            summarised=summarised_count(messages, chosen.turns),
            created_at=time.time(),
            model=self._model,
            reason=reason,
        )
        conv.compactions.append(mark)
        after = self.request_messages()
        mark = self._replace_last(messages_after=len(after))
        if usage is not None:
            conv.usage = add_usage(conv.usage, usage)
        await self._post_compact(mark, notices)
        self._emit(
            ev.ConversationCompacted(
                **ids,
                reason=reason,
                summary=mark.summary,
                turns=mark.turns,
                kept_turns=len(user_indexes(messages)) - mark.turns,
                summarised=mark.summarised,
                messages_before=mark.messages_before,
                messages_after=mark.messages_after,
                tokens_before=tokens_before,
                tokens_after=budget(after, self._tools(), self.window).total,
                model=self._model,
                usage=usage,
                notices=notices,
            )
        )
        return mark

    def _replace_last(self, **changes: Any) -> Compaction:
        from dataclasses import replace

        mark = replace(self._conv.compactions[-1], **changes)
        self._conv.compactions[-1] = mark
        return mark

    async def _summarise(
        self, messages: list[Message], chosen: Plan, hook_context: str
    ) -> tuple[str, ev.TokenUsage | None]:
        request = summary_request(
            self._model, messages, chosen, hook_context=hook_context, max_tokens=SUMMARY_MAX_TOKENS
        )
        parts: list[str] = []
        usage: ev.TokenUsage | None = None
        completion: Completion | None = None
        async for item in self._provider.stream(request):
            if isinstance(item, ContentChunk):
                parts.append(item.text)
            elif isinstance(item, UsageChunk):
                usage = item.usage if usage is None else add_usage(usage, item.usage)
            elif isinstance(item, Completion):
                completion = item
        text = completion.content if completion is not None and completion.content else "".join(parts)
        return text, usage

    # -- hooks ---------------------------------------------------------------------------------------------

    @property
    def _cwd(self) -> str:
        return str(self._hooks.cwd or "") if self._hooks is not None else ""

    async def _pre_compact(self, messages_before: int, notices: list[HookNotice]) -> str | HookNotice:
        """The PreCompact hooks' additional context, or the notice of the hook that halted the compaction."""
        if self._hooks is None:
            return ""
        report = await self._hooks.run(
            "PreCompact", pre_compact_payload(session_id=self._conv.id, cwd=self._cwd, messages_before=messages_before)
        )
        notices.extend(failure_notices(report))
        if report.blocked:
            notice = blocked_notice(report)
            notices.append(notice)
            return notice
        if report.additional_context:
            hooks = [o.hook for o in report.outcomes if o.additional_context]
            notices.append(
                HookNotice(
                    kind="context",
                    event="PreCompact",
                    hooks=hooks,
                    message=f"PreCompact hook {', '.join(hooks)} added instructions for the summary.",
                    after=report.additional_context,
                )
            )
        return report.additional_context

    async def _post_compact(self, mark: Compaction, notices: list[HookNotice]) -> None:
        if self._hooks is None:
            return
        report = await self._hooks.run(
            "PostCompact",
            post_compact_payload(
                session_id=self._conv.id,
                cwd=self._cwd,
                summary=mark.summary,
                messages_before=mark.messages_before,
                messages_after=mark.messages_after,
            ),
        )
        notices.extend(failure_notices(report))
