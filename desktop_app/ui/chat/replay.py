"""Rebuild a transcript from stored messages: what the user saw while the conversation ran, after a restart.

``replay_transcript(view, transcript)`` turns a ``Transcript`` (the store's messages, runs, approvals and
usage of one conversation, read by ``read_transcript``) into the same blocks the live stream makes:

* user messages as bubbles; answers rendered as markdown once; reasoning collapsed;
* tool cards with their arguments, the decision (who decided, edited arguments) and the result;
* notes for messages that did not end normally ("Interrupted — the app closed while this answer was
  streaming", stopped, failed) and the stored error notices;
* one usage footer per run, and a ``PausedLine`` when the last run paused after the tool-round limit.

Tool calls without a result are left for the caller: it asks the runtime which of them wait
(``pending_tool_calls``) and resumes them, or marks them with ``settle_unanswered``. Nothing here imports the
store or pydantic at module level (the window imports this before the first paint).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from desktop_app.ui.chat.blocks import AnswerBlock

if TYPE_CHECKING:
    from PySide6.QtCore import SignalInstance

    from desktop_app.runtime.events import TokenUsage
    from desktop_app.runtime.store import ConversationInfo, Store, StoredMessage, StoredPart, StoredRun
    from desktop_app.ui.chat.subagents import SubTranscript
    from desktop_app.ui.chat.tool_card import ToolCard
    from desktop_app.ui.chat.usage import UsageFooter
    from desktop_app.ui.chat.view import ChatView

INTERRUPTED_NOTE = "Interrupted — the app closed while this answer was streaming. The partial answer is kept."
STOPPED_NOTE = "Stopped — the partial answer above is kept."
FAILED_NOTE = "This answer failed."
STILL_STREAMING_NOTE = "This answer was still being written when the conversation was opened."
NOT_RUN_NOTE = "Not run"
DECISION_NOTES = {
    "interrupted": "Not answered — the app closed while it waited",
    "cancelled": "Not answered — the run was stopped",
    "pending": "Waiting for approval",
}
REPLAY_WINDOW = 24
"""Messages a reopened conversation shows at first (the latest, in whole turns); "Show earlier" shows more.
A block costs ~1–5 ms to build (widgets, markdown, highlighting), so a 10,000-message conversation shown
whole would take many seconds to open; the window keeps opening fast at any length."""
USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens", "cache_hit_tokens", "cache_miss_tokens")


@dataclass
class Transcript:
    """Everything the view needs to show one stored conversation."""

    messages: Sequence[StoredMessage]
    runs: dict[str, StoredRun] = field(default_factory=dict)
    approvals: Sequence[dict[str, Any]] = ()
    usage: Sequence[dict[str, Any]] = ()
    earlier: int = 0
    """Older messages left out of ``messages`` (a windowed read, see ``read_transcript``)."""
    more: Callable[[], Transcript] | None = None
    """Reads the transcript again with a larger window (when ``earlier`` > 0)."""
    subagents: dict[str, tuple[str, Callable[[], Transcript]]] = field(default_factory=dict)
    """Tool-call id -> (agent, reader of its whole run): the sub-agent runs its ``chat-with-`` calls started."""
    versions: dict[int, tuple[int, int]] = field(default_factory=dict)
    """``{position: (shown version, versions)}`` of the edited user messages (``‹ n/m ›``, ``store.branches``)."""


def read_transcript(store: Store, conversation_id: str, limit: int | None = REPLAY_WINDOW) -> Transcript:
    """Read one conversation's transcript from the store: its latest ``limit`` messages in whole turns
    (``None``: all of them)."""
    from desktop_app.runtime.store import branches
    from desktop_app.runtime.store.agents import subagent_runs

    start, earlier = (0, 0) if limit is None else store.tail_position(conversation_id, limit)
    children: dict[str, tuple[str, Callable[[], Transcript]]] = {
        call_id: (link.agent, functools.partial(read_transcript, store, link.conversation_id, None))
        for call_id, link in subagent_runs(store, conversation_id).items()
    }
    return Transcript(
        subagents=children,
        messages=store.messages(conversation_id, from_position=start),
        runs=store.runs(conversation_id),
        approvals=store.approvals(conversation_id),
        usage=store.usage(conversation_id),
        earlier=earlier,
        more=(lambda: read_transcript(store, conversation_id, (limit or 0) * 4)) if earlier else None,
        versions=branches.versions(store, conversation_id),
    )


class ReplayedPrompt(Protocol):
    """A replayed user message: ``UserMessageBlock`` in the window, ``PromptLine`` in a sub-run."""

    position: int | None

    def set_sent_with(self, labels: list[str]) -> None: ...
    def set_versions(self, version: int, count: int) -> None: ...


class ReplayView(Protocol):
    """What replaying writes into: ``ChatView`` (the window) and ``SubTranscript`` (a sub-agent's or a workflow
    step's run, under its card). A block that only the window has (an answer's Stopped mark) is checked for."""

    cards: dict[str, ToolCard]
    footer: UsageFooter | None

    @property
    def decided(self) -> SignalInstance: ...
    def add_user_message(self, text: str) -> ReplayedPrompt: ...
    def add_reasoning(self, text: str, seconds: float | None = None) -> object: ...
    def add_answer(self, text: str) -> object: ...
    def add_tool_card(self, tool_call_id: str, server: str, tool: str, arguments: dict[str, Any]) -> ToolCard: ...
    def add_hook_notice(self, notice: Any) -> object: ...
    def add_notice(self, text: str, kind: str = "info") -> object: ...
    def add_paused(self, text: str) -> object: ...
    def show_error(self, text: str) -> object: ...
    def add_usage(self, usage: TokenUsage) -> object: ...
    def end_segment(self) -> None: ...


class _Replayer:
    def __init__(self, view: ReplayView, transcript: Transcript) -> None:
        self.view = view
        self.transcript = transcript
        self.approvals = {row["tool_call_id"]: row for row in transcript.approvals}
        self.usage: dict[str, list[dict[str, Any]]] = {}
        for row in transcript.usage:
            self.usage.setdefault(row["run_id"], []).append(row)
        self.footer_runs: set[str] = set()
        self.incomplete_runs: set[str] = set()

    def run(self) -> None:
        from desktop_app.ui.chat.sent_with import of_message

        current_run: str | None = None
        answered_by: str | None = None  # the run of the turn's last answer: its footer (none under a bare prompt)
        for message in self.transcript.messages:
            if message.role == "user" and current_run is not None:
                self._usage(answered_by)
                self._incomplete(self.transcript.runs.get(current_run))
            if message.role == "user":
                answered_by = None
                block = self.view.add_user_message(message.text_of("text"))
                block.position = message.position
                block.set_sent_with(of_message(message).labels)
                live, count = self.transcript.versions.get(message.position, (1, 1))
                block.set_versions(live or count, count)
                self._hook_notices(message)
            elif message.role == "assistant":
                self._assistant(message)
            elif message.role == "tool":
                self._tool_results(message.parts)
            current_run = message.run_id or current_run
            if message.role != "user":
                answered_by = message.run_id or answered_by
        self.view.end_segment()
        if current_run is not None:
            self._usage(answered_by)
            self._paused(self.transcript.runs.get(current_run))

    def _hook_notices(self, message: StoredMessage) -> None:
        """Turn-level hook notices stored with the prompt (it was rewritten or blocked, a hook failed)."""
        for part in message.parts:
            hook = (part.payload or {}).get("hook") if part.kind == "notice" else None
            if isinstance(hook, dict):
                self.view.add_hook_notice(hook)

    def _assistant(self, message: StoredMessage) -> None:
        answer: object = None  # the view's answer block (an AnswerBlock in the window, a MarkdownView in a sub-run)
        has_notice = False
        for part in message.parts:
            if part.kind == "reasoning" and part.text:
                seconds = (part.payload or {}).get("duration_s")
                self.view.add_reasoning(part.text, seconds if isinstance(seconds, int | float) else None)
            elif part.kind == "text" and part.text:
                answer = self.view.add_answer(part.text)
            elif part.kind == "tool_call":
                self._tool_call(part)
            elif part.kind == "notice":
                has_notice = True
                self.view.show_error(part.text)
        self._status_note(message.status, answer, has_notice)

    def _status_note(self, status: str, answer: object, has_notice: bool) -> None:
        if status == "interrupted":
            self.view.add_notice(INTERRUPTED_NOTE, "stopped")
        elif status == "stopped":
            if isinstance(answer, AnswerBlock):  # the window's; a sub-conversation's shows the notice only
                answer.mark_stopped()
            self.view.add_notice(STOPPED_NOTE, "stopped")
        elif status == "failed" and not has_notice:
            self.view.add_notice(FAILED_NOTE, "error")
        elif status == "streaming":
            self.view.add_notice(STILL_STREAMING_NOTE)

    def _tool_call(self, part: StoredPart) -> None:
        payload = part.payload or {}
        call_id = part.tool_call_id or ""
        approval = self.approvals.get(call_id)
        arguments = payload.get("arguments")
        before = approval.get("arguments_before") if approval else None
        shown = before if isinstance(before, dict) else arguments if isinstance(arguments, dict) else {}
        tool = str(payload.get("tool") or payload.get("name") or part.text or "tool")
        card = self.view.add_tool_card(call_id, str(payload.get("server", "")), tool, shown)
        card.model_call_id = str(payload.get("wire_id") or call_id)
        child = self.transcript.subagents.get(call_id)
        if child is not None:  # a chat-with-<agent> call: its run nests under the card, read when opened
            from desktop_app.ui.chat.subagents import attach_stored

            agent, read = child

            def load(body: SubTranscript) -> None:
                _Replayer(body, read()).run()

            sub = attach_stored(card, agent, load)
            sub.body.decided.connect(self.view.decided)
        if approval is None:
            return
        decision = approval.get("decision")
        if decision in ("approved", "denied"):
            after = approval.get("arguments_after")
            edited = after if isinstance(after, dict) and after != shown else None
            card.show_decision(
                decision == "approved",
                approval.get("reason"),
                approval.get("source") or "user",
                approval.get("scope") or "once",
                edited,
            )

    def _tool_results(self, parts: Iterable[StoredPart]) -> None:
        for part in parts:
            if part.kind != "tool_result":
                continue
            payload = part.payload or {}
            call_id = part.tool_call_id or ""
            card = self.view.cards.get(call_id)
            if card is None:
                card = self.view.add_tool_card(call_id, str(payload.get("server", "")), str(payload.get("tool")), {})
            media = payload.get("media")
            card.show_result(
                part.text, is_error=bool(payload.get("is_error")), media=media if isinstance(media, list) else []
            )
            hooks = payload.get("hooks")
            if isinstance(hooks, list) and hooks:
                card.show_hook_notices(hooks)

    def _usage(self, run_id: str | None) -> None:
        rows = self.usage.get(run_id) if run_id is not None else None
        if run_id is None or not rows or run_id in self.footer_runs:
            return
        from desktop_app.runtime.events import TokenUsage  # pydantic: only once the runtime is loaded

        self.footer_runs.add(run_id)
        self.view.footer = None
        for row in rows:
            usage = TokenUsage(**{key: int(row.get(key) or 0) for key in USAGE_KEYS})
            self.view.add_usage(usage)

    def _paused(self, run: StoredRun | None) -> None:
        if run is not None and run.status == "paused" and run.reason == "tool_round_limit":
            self.view.add_paused("Paused after the tool-round limit. Continue to let the model go on.")
        else:
            self._incomplete(run)

    def _incomplete(self, run: StoredRun | None) -> None:
        """The notice of a run that ended cut short or filtered, under its answer, as it was shown live."""
        from desktop_app.ui.chat.view_stream import INCOMPLETE_NOTICES

        if run is not None and run.reason in INCOMPLETE_NOTICES and run.id not in self.incomplete_runs:
            self.incomplete_runs.add(run.id)
            self.view.add_notice(INCOMPLETE_NOTICES[run.reason])


def replay_nested(body: SubTranscript, transcript: Transcript) -> None:
    """Replay a stored sub-run (a workflow step's) into a sub-conversation's body."""
    _Replayer(body, transcript).run()


def replay_transcript(view: ChatView, transcript: Transcript) -> None:
    """Append the stored conversation to ``view`` (call ``view.clear()`` first to replace what it shows)."""
    _Replayer(view, transcript).run()
    last = transcript.messages[-1] if transcript.messages else None
    run = transcript.runs.get(last.run_id) if last is not None and last.run_id else None
    if run is not None and run.status in ("failed", "interrupted", "cancelled"):
        view.add_retry_run()  # the last run did not finish: Retry, as after a live failure
    view.last_answer = None  # a stop of the next run must not mark a replayed answer as partial
    view.footer = None  # the next run gets its own usage footer


def unanswered_cards(view: ChatView) -> list[ToolCard]:
    """Cards of replayed tool calls without a result (never run, or cut off before it came back)."""
    return [card for card in view.cards.values() if card.result.isHidden() and card.state in ("running", "approved")]


def settle_unanswered(view: ChatView, pending: Iterable[str], approvals: Sequence[dict[str, Any]]) -> None:
    """Give every replayed card without a result a status: "Resuming…" for ``pending`` calls, else why not."""
    waiting = set(pending)
    decisions = {row["tool_call_id"]: row.get("decision") for row in approvals}
    for card in unanswered_cards(view):
        if card.tool_call_id in waiting:
            note = "Resuming…"
        elif card.state == "approved":
            note = "Approved — the app closed before the result came back"
        else:
            note = DECISION_NOTES.get(str(decisions.get(card.tool_call_id)), NOT_RUN_NOTE)
        card.status.setText(note)
        if card.tool_call_id not in waiting:
            card.state = "unanswered"


class ReopenRuntime(Protocol):
    """What reopening needs of the runtime (``desktop_app.runtime.service.Runtime`` has it all)."""

    @property
    def settings(self) -> Any: ...
    @property
    def provider_settings(self) -> Any: ...
    def load_conversation(self, conversation_id: str, messages: Any) -> Any: ...
    def pending_tool_calls(self, conversation_id: str) -> list[Any]: ...
    def is_running(self, conversation_id: str) -> bool: ...
    def set_conversation_provider(self, conversation_id: str, settings: Any) -> None: ...
    def stored_provider(self, base_url: str, model: str) -> Any: ...


def provider_notice(info: ConversationInfo | None, current: Any) -> str | None:
    """'This conversation continues with <model> at <base_url>…' when it differs from the default provider."""
    if info is None or current is None or not (info.model or info.base_url):
        return None
    if (info.model, info.base_url) == (current.model, current.base_url):
        return None
    return (
        f"This conversation continues with {info.model or 'its model'} at {info.base_url or 'its address'}, "
        f"the provider it was started with (new chats use {current.model})."
    )


def reopen(store: Store, runtime: ReopenRuntime, view: ChatView, conversation_id: str) -> list[str]:
    """Load a stored conversation into the runtime (history, system prompt) and into ``view``.

    Returns the ids of tool calls that still wait for an answer; the caller resumes them with
    ``continue_run`` (their re-emitted ``ApprovalRequired`` events re-arm the cards shown here).
    """
    from desktop_app.runtime.conversation import pending_tool_calls
    from desktop_app.runtime.messages import Message, SystemMessage
    from desktop_app.runtime.store.records import to_model_messages

    info = store.get_conversation(conversation_id)
    prompt_of = getattr(runtime, "conversation_system_prompt", None)  # its agent's, the skills index included

    def history() -> list[Message]:  # the whole history, read when the next run needs it
        messages = store.load_messages(conversation_id)
        system_prompt = prompt_of(conversation_id) if prompt_of is not None else runtime.settings.system_prompt
        if system_prompt and not (messages and isinstance(messages[0], SystemMessage)):
            messages.insert(0, SystemMessage(content=system_prompt))
        return messages

    runtime.load_conversation(conversation_id, history)
    from desktop_app.runtime.store.compactions import CompactionHolder, restore

    holder: object = runtime  # (mypy does not intersect two protocols: narrow from object)
    if isinstance(holder, CompactionHolder):  # its compactions: requests and the divider go on from them (#16)
        restore(holder, store, conversation_id)
    agent_notice = None
    if info is not None and info.agent:  # it goes on with its agent (its instructions replace the prompt)
        from desktop_app.ui.chat.agent_picker import restore_agent

        agent_notice = restore_agent(runtime, conversation_id, info.agent)
    set_usage = getattr(runtime, "set_conversation_usage", None)
    if set_usage is not None:  # the conversation footer's totals go on from the stored runs' usage
        from desktop_app.runtime.usage import sum_usage_rows

        set_usage(conversation_id, sum_usage_rows(store.usage(conversation_id)))
    transcript = read_transcript(store, conversation_id)
    view.load_transcript(transcript)
    if agent_notice:
        view.add_notice(agent_notice)
    chooser = getattr(runtime, "conversation_provider", None)  # its agent's provider, else the default
    notice = provider_notice(info, chooser(conversation_id) if chooser is not None else runtime.provider_settings)
    if notice and info is not None:
        # Each conversation keeps the provider and model it was started with.
        runtime.set_conversation_provider(conversation_id, runtime.stored_provider(info.base_url, info.model))
        view.add_notice(notice)
    running = runtime.is_running(conversation_id)
    # The shown window starts at a user message, so its last turn is whole: what waits is known from it.
    tail = to_model_messages(list(transcript.messages), transcript.runs)
    pending = [] if running else [call.id for call in pending_tool_calls(tail)]
    settle_unanswered(view, pending, transcript.approvals)
    return pending


__all__ = [
    "INTERRUPTED_NOTE",
    "REPLAY_WINDOW",
    "STOPPED_NOTE",
    "ReopenRuntime",
    "Transcript",
    "provider_notice",
    "read_transcript",
    "reopen",
    "replay_nested",
    "replay_transcript",
    "settle_unanswered",
    "unanswered_cards",
]
