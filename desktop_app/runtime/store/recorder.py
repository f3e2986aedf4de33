"""The event subscriber that persists every run as it happens.

Subscribe it with ``runtime.subscribe(recorder)`` (``attach_store`` does). Streaming text and reasoning are
buffered and written in small transactions: the first delta of a part at once, later ones when at least
``interval`` (200 ms) has passed since the run's last flush, when the part ends, and on every other event.
A delta that arrives after the deadline triggers the flush itself; when an event loop is running, a
one-shot ``call_later`` also flushes a buffer that no further delta would come to collect (a stream that
pauses), so no stored text is ever more than ``interval`` behind the stream.

A write that fails (disk full, read-only file, I/O error) is never only logged: every run that was being
written is reported at once through ``on_failure`` (``attach_store`` publishes it as a ``StoreFailed``
event, which the UI and ``switchboard ask`` show), and nothing more of those runs is written; their text
stays in the runtime's memory. Later runs try the store again.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from desktop_app.runtime import events as ev
from desktop_app.runtime.store.agents import link_subagent, set_agent
from desktop_app.runtime.store.db import Store
from desktop_app.runtime.store.media import storable_media
from desktop_app.runtime.store.unwritable import write_failed_message

log = logging.getLogger(__name__)

FLUSH_INTERVAL_S = 0.2
"""How often buffered text is written: stored text is never more than 250 ms of stream behind (the rest of
the bound is for delivery and scheduling)."""


@dataclass
class _RunState:
    """Where the recorder is in one run: the message and part being written."""

    conversation_id: str
    run_id: str
    message_id: int | None = None  # the assistant message being written
    in_tools: bool = False  # its stream ended and its tool calls are being recorded
    part_id: int | None = None
    part_kind: str | None = None
    part_started: float = 0.0  # the clock when the open part's first delta came (a reasoning part's time)
    buffer: list[str] = field(default_factory=list)
    last_flush: float = 0.0
    timer: asyncio.TimerHandle | None = None
    prompt_message_id: int | None = None  # this run's user message (turn-level hook notices go there)
    prompt_part_id: int | None = None


@dataclass
class FlushStats:
    """How many flushes wrote text and how long they took (seconds)."""

    count: int = 0
    total_s: float = 0.0
    max_s: float = 0.0


class Recorder:
    """Persists the events of every run it sees into a ``Store``."""

    def __init__(
        self,
        store: Store,
        *,
        clock: Callable[[], float] = time.monotonic,
        interval: float = FLUSH_INTERVAL_S,
        use_timer: bool = True,
        base_url: Callable[[str], str] | None = None,
        on_failure: Callable[[ev.StoreFailed], None] | None = None,
        agent: Callable[[str], str] | None = None,
    ) -> None:
        self.store = store
        self._on_failure = on_failure
        self.unsaved: set[str] = set()
        """Runs a write failed for: they are no longer written (their text is only in memory)."""
        self._clock = clock
        self._interval = interval
        self._use_timer = use_timer
        self._base_url = base_url  # conversation id -> the endpoint it talks to, stored with the conversation
        self._agent = agent  # conversation id -> the agent it talks to, stored with the conversation
        self._runs: dict[str, _RunState] = {}
        self.stats = FlushStats()

    # -- entry points ----------------------------------------------------------------------------------

    def __call__(self, event: ev.Event) -> None:
        if event.run_id in self.unsaved:
            return
        try:
            self._record(event)
        except (sqlite3.Error, OSError) as exc:
            self._write_failed(exc, event)

    def _record(self, event: ev.Event) -> None:
        if isinstance(event, ev.ContentDelta | ev.ReasoningDelta):
            kind = "text" if isinstance(event, ev.ContentDelta) else "reasoning"
            self._delta(self._state(event), kind, event.text)
            return
        with self.store.transaction():  # the flush and the event: one commit
            self.flush()
            handler = _handlers().get(type(event))
            if handler is not None:
                handler(self, self._state(event), event)

    def _write_failed(self, exc: BaseException, event: ev.Event | None = None) -> None:
        """A write failed: report every run it concerns (all runs being written, and ``event``'s) once."""
        log.error("store: writing to %s failed: %s", self.store.path, exc)
        runs = {run_id: (state.conversation_id, run_id) for run_id, state in self._runs.items()}
        if event is not None and event.run_id not in runs and not isinstance(event, ev.RunFinished | ev.Error):
            runs[event.run_id] = (event.conversation_id, event.run_id)
        for state in self._runs.values():
            self._cancel_timer(state)
        self._runs.clear()
        self.unsaved.update(runs)
        message = write_failed_message(self.store.path, exc)
        if self._on_failure is None:
            return
        for conversation_id, run_id in runs.values():
            self._on_failure(
                ev.StoreFailed(
                    conversation_id=conversation_id, run_id=run_id, message=message, path=str(self.store.path)
                )
            )

    def flush(self) -> None:
        """Write every buffered delta now."""
        for state in list(self._runs.values()):
            self._flush(state)

    def close(self) -> None:
        """Flush and cancel pending timers (the store stays open)."""
        try:
            self.flush()
        except (sqlite3.Error, OSError) as exc:
            self._write_failed(exc)
        for state in self._runs.values():
            self._cancel_timer(state)

    # -- streaming text --------------------------------------------------------------------------------

    def _state(self, event: ev.Event) -> _RunState:
        state = self._runs.get(event.run_id)
        if state is None:  # normally made by RunStarted; also covers a recorder attached mid-run
            state = _RunState(event.conversation_id, event.run_id, last_flush=self._clock())
            with self.store.transaction():
                self.store.ensure_conversation(event.conversation_id)
                self.store.start_run(event.run_id, event.conversation_id)
            self._runs[event.run_id] = state
        return state

    def _delta(self, state: _RunState, kind: str, text: str) -> None:
        if not text:
            return
        if state.message_id is None or state.in_tools or state.part_kind != kind:
            with self.store.transaction():
                self._end_part(state)
                if state.message_id is None or state.in_tools:
                    state.message_id = self.store.add_message(
                        state.conversation_id, "assistant", run_id=state.run_id, status="streaming"
                    )
                    state.in_tools = False
                state.part_kind = kind
                state.part_started = self._clock()
                state.buffer.append(text)
                self._flush(state)  # a new part is written at once
            return
        state.buffer.append(text)
        now = self._clock()
        if now - state.last_flush >= self._interval:
            self._flush(state)
        elif state.timer is None and self._use_timer:
            self._arm_timer(state, self._interval - (now - state.last_flush))

    def _flush(self, state: _RunState) -> None:
        self._cancel_timer(state)
        if not state.buffer or state.message_id is None or state.part_kind is None:
            state.buffer.clear()
            return
        text = "".join(state.buffer)
        started = time.perf_counter()
        with self.store.transaction():
            if state.part_id is None:
                state.part_id = self.store.add_part(state.message_id, state.part_kind, text)
            else:
                self.store.append_text(state.part_id, text)
        spent = time.perf_counter() - started
        self.stats.count += 1
        self.stats.total_s += spent
        self.stats.max_s = max(self.stats.max_s, spent)
        state.buffer.clear()
        state.last_flush = self._clock()

    def _end_part(self, state: _RunState) -> None:
        """Flush the open part and add it to the search index; a reasoning part keeps how long it took
        (``duration_s``: from its first delta to its end, which "Thought for 4 s" shows after a reopen)."""
        self._flush(state)
        if state.part_id is not None:
            self.store.index_part(state.part_id)
            if state.part_kind == "reasoning":
                seconds = round(max(0.0, self._clock() - state.part_started), 1)
                self.store.set_part_payload(state.part_id, {"duration_s": seconds})
        state.part_id = state.part_kind = None

    def _end_stream(self, state: _RunState, status: str) -> None:
        """The assistant message's stream is over: close its part and set its status."""
        with self.store.transaction():
            self._end_part(state)
            if state.message_id is not None and not state.in_tools:
                self.store.set_message_status(state.message_id, status)

    def _arm_timer(self, state: _RunState, delay: float) -> None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no loop (a plain caller): the next delta or event flushes
        state.timer = loop.call_later(max(delay, 0.0), self._on_timer, state.run_id)

    def _on_timer(self, run_id: str) -> None:
        state = self._runs.get(run_id)
        if state is None:
            return
        state.timer = None
        try:
            self._flush(state)
        except (sqlite3.Error, OSError) as exc:
            self._write_failed(exc)
        except Exception:
            log.exception("store: flushing run %s failed", run_id)

    @staticmethod
    def _cancel_timer(state: _RunState) -> None:
        if state.timer is not None:
            state.timer.cancel()
            state.timer = None

    # -- other events ----------------------------------------------------------------------------------

    def _run_started(self, state: _RunState, event: ev.RunStarted) -> None:
        base_url = self._base_url(event.conversation_id) if self._base_url else ""
        with self.store.transaction():
            self.store.ensure_conversation(event.conversation_id, base_url=base_url, model=event.model)
            if self._agent is not None:
                set_agent(self.store, event.conversation_id, self._agent(event.conversation_id))
            if not event.continued:  # a continued run carries on a paused turn: no new prompt
                message_id = self.store.add_message(
                    event.conversation_id, "user", run_id=event.run_id, status="complete"
                )
                state.prompt_part_id = self.store.add_part(message_id, "text", event.prompt, index=True)
                state.prompt_message_id = message_id
                self.store.set_title_if_empty(event.conversation_id, event.prompt)
        state.last_flush = self._clock()

    def _hook_notice(self, state: _RunState, event: ev.HookNoticeEvent) -> None:
        """A turn-level hook notice (a tool call's come with its result) is kept with the turn's prompt; a
        prompt a hook rewrote is stored as sent, so a reopened conversation gives the model what it saw."""
        if event.tool_call_id or state.prompt_message_id is None:
            return
        notice = event.notice
        with self.store.transaction():
            rewritten = notice.kind == "mutated" and notice.target == "prompt" and isinstance(notice.after, str)
            if rewritten and state.prompt_part_id is not None:
                self.store.set_part_text(state.prompt_part_id, str(notice.after))
            payload = {"hook": notice.model_dump(mode="json")}
            self.store.add_part(state.prompt_message_id, "notice", notice.message, payload=payload)

    def _prompt_sent(self, state: _RunState, event: ev.PromptSent) -> None:
        """The prompt's context block and text attachments, kept with it (``to_model_messages`` reads them)."""
        if state.prompt_message_id is None:
            return
        # An empty text part (the schema's part kinds are fixed) whose payload carries them.
        sent: dict[str, Any] = {"context": event.context, "attachments": event.attachments}
        if event.items:  # the chips it went with (an edited message is sent again with them)
            sent["items"] = event.items
        payload = {"prompt_context": sent}
        self.store.add_part(state.prompt_message_id, "text", "", payload=payload)

    def _tool_call(self, state: _RunState, event: ev.ToolCall) -> None:
        payload = {"name": event.name, "server": event.server, "tool": event.tool, "arguments": event.arguments}
        if event.model_call_id and event.model_call_id != event.tool_call_id:
            payload["wire_id"] = event.model_call_id  # the model's id, for the wire after a reopen
        with self.store.transaction():
            existing = self.store.tool_call_message(event.conversation_id, event.tool_call_id)
            if existing is not None:  # a continued run deciding a call of a paused turn: already stored
                self._end_stream(state, "complete")
                state.message_id, state.in_tools = existing, True
                return
            if event.first_in_response and state.in_tools:  # a new response that said nothing before its calls
                state.message_id, state.in_tools = None, False
            if state.message_id is None:
                state.message_id = self.store.add_message(
                    state.conversation_id, "assistant", run_id=state.run_id, status="complete"
                )
            self._end_stream(state, "complete")
            state.in_tools = True
            self.store.add_part(
                state.message_id, "tool_call", event.name, payload=payload, tool_call_id=event.tool_call_id
            )

    def _approval_required(self, state: _RunState, event: ev.ApprovalRequired) -> None:
        with self.store.transaction():
            self.store.record_approval_request(
                event.tool_call_id, event.conversation_id, event.run_id, event.server, event.tool, event.arguments
            )
            self.store.set_run_status(event.run_id, "paused")

    def _approval_decided(self, state: _RunState, event: ev.ApprovalDecided) -> None:
        with self.store.transaction():
            self.store.record_approval_decision(
                event.tool_call_id,
                event.conversation_id,
                event.run_id,
                decision="approved" if event.approved else "denied",
                reason=event.reason,
                source=event.source,
                scope=event.scope,
                arguments_after=event.edited_arguments,
            )
            self.store.set_run_status(event.run_id, "running")

    def _tool_result(self, state: _RunState, event: ev.ToolResult) -> None:
        payload = {"server": event.server, "tool": event.tool, "is_error": event.is_error}
        if event.structured is not None:
            payload["structured"] = event.structured
        if event.hooks:  # hook notices are stored with the call, so its card shows them again after a restart
            payload["hooks"] = [notice.model_dump(mode="json") for notice in event.hooks]
        if event.meta:
            payload["meta"] = event.meta
        media = storable_media(event.media)
        if media:  # images and embedded resources, shown on the card again after a restart
            payload["media"] = media
        if event.replay_limit:  # the model got a digest: a reopened conversation sends the same one
            payload["replay_limit"] = event.replay_limit
        with self.store.transaction():
            message_id = self.store.add_message(state.conversation_id, "tool", run_id=state.run_id, status="complete")
            self.store.add_part(message_id, "tool_result", event.text, payload=payload, tool_call_id=event.tool_call_id)

    def _retry(self, state: _RunState, event: ev.RetryScheduled) -> None:
        if not event.retry.stream_reset or state.message_id is None or state.in_tools:
            return
        state.buffer.clear()  # the attempt's partial output is void
        self.store.delete_message(state.message_id)
        state.message_id = state.part_id = state.part_kind = None

    def _usage(self, state: _RunState, event: ev.Usage) -> None:
        if state.in_tools:
            # Usage is reported while a response streams, before its tool calls: after tool calls it
            # means a new response, so its tool calls (even without any text) get a new message.
            state.message_id, state.in_tools = None, False
        self.store.add_usage(event.run_id, event.conversation_id, event.usage.model_dump())

    def _run_finished(self, state: _RunState, event: ev.RunFinished) -> None:
        cancelled = event.reason == "cancelled"
        run_status = "cancelled" if cancelled else "paused" if event.reason == "tool_round_limit" else "finished"
        with self.store.transaction():
            self._end_stream(state, "stopped" if cancelled else "complete")
            self.store.set_run_status(event.run_id, run_status, ended=True, reason=event.reason)
            if cancelled:
                self.store.cancel_pending_approvals(event.run_id)
            if event.content:
                self.store.set_title_if_empty(event.conversation_id, event.content)
            self.store.touch(event.conversation_id)
        self._forget(state)

    def _error(self, state: _RunState, event: ev.Error) -> None:
        with self.store.transaction():
            self._end_stream(state, "failed")
            if state.message_id is None or state.in_tools:
                state.message_id = self.store.add_message(
                    state.conversation_id, "assistant", run_id=state.run_id, status="failed"
                )
            notice = {"code": event.code, "retryable": event.retryable}
            self.store.add_part(state.message_id, "notice", event.message, payload=notice)
            self.store.set_run_status(event.run_id, "failed", ended=True, reason="error", error=event.message)
            self.store.touch(event.conversation_id)
        self._forget(state)

    def _subagent_started(self, state: _RunState, event: ev.SubagentStarted) -> None:
        """The agent's run is a child of this tool call: reached from its card, not listed on its own."""
        link_subagent(self.store, event.child_conversation_id, event.conversation_id, event.tool_call_id, event.agent)

    def _forget(self, state: _RunState) -> None:
        self._cancel_timer(state)
        self._runs.pop(state.run_id, None)


@functools.cache
def _handlers() -> dict[type, Callable[[Recorder, _RunState, ev.Event], None]]:
    """The write for each event type; made with the first event (the protocol loads then, see ``events``)."""
    return {
        ev.RunStarted: Recorder._run_started,  # type: ignore[dict-item]
        ev.PromptSent: Recorder._prompt_sent,  # type: ignore[dict-item]
        ev.ToolCall: Recorder._tool_call,  # type: ignore[dict-item]
        ev.ApprovalRequired: Recorder._approval_required,  # type: ignore[dict-item]
        ev.ApprovalDecided: Recorder._approval_decided,  # type: ignore[dict-item]
        ev.ToolResult: Recorder._tool_result,  # type: ignore[dict-item]
        ev.HookNoticeEvent: Recorder._hook_notice,  # type: ignore[dict-item]
        ev.RetryScheduled: Recorder._retry,  # type: ignore[dict-item]
        ev.Usage: Recorder._usage,  # type: ignore[dict-item]
        ev.RunFinished: Recorder._run_finished,  # type: ignore[dict-item]
        ev.Error: Recorder._error,  # type: ignore[dict-item]
        ev.SubagentStarted: Recorder._subagent_started,  # type: ignore[dict-item]
    }
