"""The one normalized event protocol: every event a run emits, discriminated by ``kind``.

Each event carries the conversation id and the run id; events about one tool call also carry
its ``tool_call_id``: the runtime's own id of the call (the run and the call's position in it), never
the model's, which ``ToolCall.model_call_id`` keeps (models reuse ids such as ``call_0``). The UI
renders these, ``switchboard ask --events jsonl`` prints them as they are (``model_dump_json``), and
the store persists them. The MCP host's own events (``ServerLog``, ``SamplingRequested`` …) are defined in
``host_events`` and are ``ev.*`` here too.

The module has no ``from __future__ import annotations``: pydantic would then make each field's type from a
string when the classes are created, on the way to ``runtime: ready`` (~1.5 ms here, issue 27).
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from desktop_app.runtime.events.parts import ConversationUsage, PromotionReason, RetryInfo, TokenUsage
from desktop_app.runtime.hooks.notices import HookNotice
from desktop_app.runtime.host_events import *  # noqa: F403  (the host's events are ev.* too: ev.ServerLog …)
from desktop_app.runtime.model_defaults import empty_list


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    conversation_id: str
    run_id: str


class _ToolEvent(_Event):
    tool_call_id: str


class RunStarted(_Event):
    """A run began. ``continued`` runs carry on a paused turn (pending approvals, tool-round limit)."""

    kind: Literal["run_started"] = "run_started"
    model: str
    prompt: str
    continued: bool = False
    attachments: list[str] = Field(default_factory=empty_list)
    """The names of the files attached to the prompt."""
    context: list[str] = Field(default_factory=empty_list)
    """The labels of the context items sent with the prompt (date and time, OS, selection, files…)."""


class PromptSent(_Event):
    """What went with the run's prompt besides its text: the ``<context>`` block and the non-image attachments
    (text files, image descriptions), as sent; stored with the prompt so a reopened conversation sends the
    same history (#16). Emitted only when there is such a part."""

    kind: Literal["prompt_sent"] = "prompt_sent"
    context: str = ""
    attachments: list[dict[str, Any]] = Field(default_factory=empty_list)
    """``Attachment`` fields (``name``, ``mime_type``, ``kind``, ``size``, ``data``, ``truncated``, ``note``)."""
    items: list[dict[str, str]] = Field(default_factory=empty_list)
    """The context items the block was made from (``kind``, ``label``, ``text``; files apart): the chips the
    message went with, so an edited message is sent again with them."""


class ImagesDescribed(_Event):
    """The chosen model cannot read images: a vision model described them, and the description is sent instead."""

    kind: Literal["images_described"] = "images_described"
    model: str
    images: list[str]
    text: str


class ReasoningDelta(_Event):
    kind: Literal["reasoning_delta"] = "reasoning_delta"
    text: str


class ContentDelta(_Event):
    kind: Literal["content_delta"] = "content_delta"
    text: str


class ToolInputDelta(_Event):
    """A fragment of a tool call's arguments while the model writes them (an MCP App view fills from these).

    ``index`` counts the calls of one response (0, 1, …); ``name`` and ``model_call_id`` are the ones known so
    far (providers send them with the first fragment). The whole call follows as a :class:`ToolCall`."""

    kind: Literal["tool_input_delta"] = "tool_input_delta"
    index: int
    name: str = ""
    model_call_id: str = ""
    arguments_delta: str = ""


class ToolCall(_ToolEvent):
    """The model asked for a tool. ``name`` is the model-facing name; ``server``/``tool`` the target."""

    kind: Literal["tool_call"] = "tool_call"
    name: str
    server: str
    tool: str
    arguments: dict[str, Any]
    model_call_id: str = ""
    """The id the model gave the call (not unique: only for the wire and for diagnostics)."""
    first_in_response: bool = False
    """The first call of a model response: a new assistant message (a response may carry no text or usage)."""


class ApprovalRequired(_ToolEvent):
    """The run is paused until ``Runtime.answer(tool_call_id, ...)`` decides this call."""

    kind: Literal["approval_required"] = "approval_required"
    server: str
    tool: str
    arguments: dict[str, Any]


class ApprovalDecided(_ToolEvent):
    """How a tool call was decided: by the user (with a scope), by policy, or by an earlier grant.

    ``edited_arguments`` holds the arguments the user changed before approving (``None`` if unchanged).
    """

    kind: Literal["approval_decided"] = "approval_decided"
    approved: bool
    reason: str | None = None
    source: Literal["user", "policy", "grant"] = "user"
    scope: Literal["once", "conversation", "tool", "server"] = "once"
    edited_arguments: dict[str, Any] | None = None


class ToolResult(_ToolEvent):
    kind: Literal["tool_result"] = "tool_result"
    server: str
    tool: str
    text: str
    is_error: bool = False
    structured: dict[str, Any] | None = None
    hooks: list[HookNotice] = Field(default_factory=empty_list)
    """What hooks changed, blocked or failed on this call (stored with the call, shown on its card)."""
    meta: dict[str, Any] | None = None
    """The result's ``_meta``, e.g. ``{"ai.nanobot.hooks/mutations": {"response": {"mutated": true, …}}}``."""
    media: list[dict[str, Any]] = Field(default_factory=empty_list)
    """Image and embedded-resource content blocks (MCP shape: ``{"type": "image", "mimeType", "data"}``,
    ``{"type": "resource", "resource": {...}}``), for the UI to show inline; ``text`` summarizes them."""
    replay_limit: int = 0
    """The model gets the result as a head/tail digest of this many characters (0: whole); ``text`` is whole."""


class HookNoticeEvent(_Event):
    """A hook changed, blocked or failed something: on a tool call (``tool_call_id``) or on the turn itself
    (UserPromptSubmit, SessionStart, Stop…, with ``tool_call_id`` empty)."""

    kind: Literal["hook_notice"] = "hook_notice"
    tool_call_id: str = ""
    notice: HookNotice


class ToolProgress(_ToolEvent):
    """A running tool reported progress (``notifications/progress``); ``total`` is ``None`` when unknown."""

    kind: Literal["tool_progress"] = "tool_progress"
    progress: float
    total: float | None = None
    message: str | None = None


class RetryScheduled(_Event):
    kind: Literal["retry_scheduled"] = "retry_scheduled"
    retry: RetryInfo


class Usage(_Event):
    kind: Literal["usage"] = "usage"
    usage: TokenUsage


class RunFinished(_Event):
    """The run ended normally. ``reason`` is ``end_turn`` when the model stopped on its own; ``max_tokens``
    (cut at the token limit), ``content_filter`` (stopped by the provider's filter) and ``tool_round_limit``
    end an incomplete answer, which the UI and the CLI say."""

    kind: Literal["run_finished"] = "run_finished"
    reason: Literal["end_turn", "max_tokens", "content_filter", "tool_round_limit", "cancelled"] = "end_turn"
    content: str = ""
    conversation_usage: ConversationUsage | None = None
    """The conversation's token totals, cache hit rate and estimated cost (set by the runtime)."""


class ToolsPromoted(_Event):
    """Deferred tools were loaded into the model's tool list for the rest of the conversation.

    ``reason``: ``search`` (a ``tool_search`` matched them), ``direct_call`` (the model called a deferred tool
    by its exact name) or ``restored`` (the conversation reopened with the same catalog)."""

    kind: Literal["tools_promoted"] = "tools_promoted"
    tools: list[str]
    reason: PromotionReason
    catalog_hash: str


class Error(_Event):
    """The run failed. ``message`` says what happened and what to do; ``code`` is a stable class name."""

    kind: Literal["error"] = "error"
    code: str
    message: str
    retryable: bool = False
    details: str | None = None
    """The provider's answer as it came (an HTTP error body's head, redacted), for a details view."""


class StoreFailed(_Event):
    """The conversation store could not write this run (disk full, read-only, I/O error).

    The run goes on and keeps everything in memory (``Runtime.conversation``), so the answer can still be
    saved elsewhere; nothing more of the run is written to the store. ``message`` says what happened and
    what to do; ``path`` is the database file."""

    kind: Literal["store_failed"] = "store_failed"
    message: str
    path: str = ""


class SubagentStarted(_ToolEvent):
    """A ``chat-with-<agent>`` call in this run started that agent's run in ``child_conversation_id``.

    The child's own events carry ``child_conversation_id``; this event and ``SubagentFinished`` (both on the
    parent's conversation, run and tool call) are how a view nests them under the parent's tool card."""

    kind: Literal["subagent_started"] = "subagent_started"
    agent: str
    child_conversation_id: str
    depth: int
    """1 for an agent called by the conversation's own agent, 2 for one that agent called, …"""
    prompt: str = ""


class SubagentFinished(_ToolEvent):
    """The agent's run in ``child_conversation_id`` ended (``status`` as in ``RunOutcome``)."""

    kind: Literal["subagent_finished"] = "subagent_finished"
    agent: str
    child_conversation_id: str
    status: str
    content: str = ""


CompactionReason = Literal["manual", "auto"]


class CompactionStarted(_Event):
    """The conversation's older turns are being summarised (``reason``: the user's command, or the context
    passed the threshold before a request). ``run_id`` is the run's for an automatic compaction, else the
    compaction's own id."""

    kind: Literal["compaction_started"] = "compaction_started"
    compaction_id: str
    reason: CompactionReason = "manual"
    messages_before: int = 0


class ConversationCompacted(_Event):
    """The first ``turns`` user turns (``summarised`` messages) are now sent as ``summary``; nothing was deleted.
    ``kept_turns`` turns after them stay verbatim. ``notices``: what the PreCompact/PostCompact hooks said."""

    kind: Literal["conversation_compacted"] = "conversation_compacted"
    compaction_id: str
    reason: CompactionReason = "manual"
    summary: str
    turns: int
    kept_turns: int
    summarised: int
    messages_before: int
    messages_after: int
    tokens_before: int = 0
    tokens_after: int = 0
    """The estimated tokens of the next request before and after (``context_budget``)."""
    model: str = ""
    usage: TokenUsage | None = None
    """What the summary request cost."""
    notices: list[HookNotice] = Field(default_factory=empty_list)


class CompactionFailed(_Event):
    """A compaction did not happen (provider error, a hook halted it, nothing to compact); the conversation is
    exactly as it was. ``message`` says what happened and what to do."""

    kind: Literal["compaction_failed"] = "compaction_failed"
    compaction_id: str
    reason: CompactionReason = "manual"
    code: str
    message: str
    details: str | None = None
    notices: list[HookNotice] = Field(default_factory=empty_list)


class CompactionUndone(_Event):
    """A compaction was undone: the next request sends the history it had replaced again."""

    kind: Literal["compaction_undone"] = "compaction_undone"
    compaction_id: str


WorkflowStepStatus = Literal["pending", "running", "done", "skipped", "failed"]


class WorkflowStarted(_Event):
    """A workflow run began in this conversation (``run_id`` is the workflow run's own id); ``steps`` lists its
    step names in order, all pending."""

    kind: Literal["workflow_started"] = "workflow_started"
    workflow: str
    steps: list[str]
    inputs: dict[str, str] = {}


class WorkflowStep(_Event):
    """Step ``index`` (0-based) of a workflow run changed state. ``child_conversation_id`` holds the step's
    sub-run (running, done, failed); ``output`` is its answer; ``detail`` says why it was skipped or failed."""

    kind: Literal["workflow_step"] = "workflow_step"
    workflow: str
    index: int
    name: str
    status: WorkflowStepStatus
    child_conversation_id: str = ""
    prompt: str = ""
    """The step's text with its variables filled in (on ``running``)."""
    output: str = ""
    detail: str = ""


class WorkflowFinished(_Event):
    """The workflow run ended: ``finished`` (``output`` is the filled Output template), ``failed`` (a step failed
    under ``On error: stop``; ``error`` says which and why) or ``cancelled`` (stopped)."""

    kind: Literal["workflow_finished"] = "workflow_finished"
    workflow: str
    status: Literal["finished", "failed", "cancelled"]
    output: str = ""
    error: str = ""


Event = Annotated[
    RunStarted
    | PromptSent
    | ImagesDescribed
    | ReasoningDelta
    | ContentDelta
    | ToolInputDelta
    | ToolCall
    | ApprovalRequired
    | ApprovalDecided
    | ToolResult
    | HookNoticeEvent
    | ToolProgress
    | RetryScheduled
    | Usage
    | RunFinished
    | ToolsPromoted
    | Error
    | StoreFailed
    | SubagentStarted
    | SubagentFinished
    | CompactionStarted
    | ConversationCompacted
    | CompactionFailed
    | CompactionUndone
    | WorkflowStarted
    | WorkflowStep
    | WorkflowFinished,
    Field(discriminator="kind"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event, config=ConfigDict(defer_build=True))


def parse_event(data: str | bytes) -> Event:
    """Parse one JSON event line, as written by ``switchboard ask --events jsonl``."""
    return EVENT_ADAPTER.validate_json(data)
