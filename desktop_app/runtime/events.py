"""The one normalized event protocol: every event a run emits, discriminated by ``kind``.

Each event carries the conversation id and the run id; events about one tool call also carry
its ``tool_call_id``. The UI renders these, ``switchboard ask --events jsonl`` prints them as they
are (``model_dump_json``), and later the store persists them.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter


class TokenUsage(BaseModel):
    """Token counts of one model response. DeepSeek also reports prompt-cache hits and misses."""

    model_config = ConfigDict(frozen=True)

    prompt_tokens: int = 0
    completion_tokens: int = 0
    total_tokens: int = 0
    cache_hit_tokens: int = 0
    cache_miss_tokens: int = 0


class RetryInfo(BaseModel):
    """Why and when a request or a stream will be tried again."""

    model_config = ConfigDict(frozen=True)

    attempt: int
    max_attempts: int
    delay_s: float
    stage: Literal["request", "stream"]
    reason: str
    status_code: int | None = None
    stream_reset: bool = False


class _Event(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

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


class ReasoningDelta(_Event):
    kind: Literal["reasoning_delta"] = "reasoning_delta"
    text: str


class ContentDelta(_Event):
    kind: Literal["content_delta"] = "content_delta"
    text: str


class ToolCall(_ToolEvent):
    """The model asked for a tool. ``name`` is the model-facing name; ``server``/``tool`` the target."""

    kind: Literal["tool_call"] = "tool_call"
    name: str
    server: str
    tool: str
    arguments: dict[str, Any]


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


class RetryScheduled(_Event):
    kind: Literal["retry_scheduled"] = "retry_scheduled"
    retry: RetryInfo


class Usage(_Event):
    kind: Literal["usage"] = "usage"
    usage: TokenUsage


class RunFinished(_Event):
    """The run ended normally. ``reason`` is ``end_turn`` when the model stopped on its own."""

    kind: Literal["run_finished"] = "run_finished"
    reason: Literal["end_turn", "max_tokens", "tool_round_limit", "cancelled"] = "end_turn"
    content: str = ""


class Error(_Event):
    """The run failed. ``message`` says what happened and what to do; ``code`` is a stable class name."""

    kind: Literal["error"] = "error"
    code: str
    message: str
    retryable: bool = False


Event = Annotated[
    RunStarted
    | ReasoningDelta
    | ContentDelta
    | ToolCall
    | ApprovalRequired
    | ApprovalDecided
    | ToolResult
    | RetryScheduled
    | Usage
    | RunFinished
    | Error,
    Field(discriminator="kind"),
]

EVENT_ADAPTER: TypeAdapter[Event] = TypeAdapter(Event)


def parse_event(data: str | bytes) -> Event:
    """Parse one JSON event line, as written by ``switchboard ask --events jsonl``."""
    return EVENT_ADAPTER.validate_json(data)


# -- host-level events: about MCP servers, not about a conversation or a run ----------------------

HostServerState = Literal["idle", "disabled", "starting", "ready", "failed", "restarting", "stopped"]
"""A server's state. ``restarting``: an automatic or manual restart is connecting it again."""


class _HostEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    server: str


class ServerStateChanged(_HostEvent):
    """A server changed state. After a crash, ``failed`` carries ``restart_in_s`` (the backoff delay)
    and ``attempt`` (1, 2, … consecutive automatic restarts; 0 outside a restart sequence)."""

    kind: Literal["server_state"] = "server_state"
    state: HostServerState
    error: str | None = None
    tool_count: int = 0
    restart_in_s: float | None = None
    attempt: int = 0


class ServerLog(_HostEvent):
    """A log message a server sent (``notifications/message``)."""

    kind: Literal["server_log"] = "server_log"
    level: str
    logger: str | None = None
    data: Any = None


class ToolsChanged(_HostEvent):
    """A server's tool list was fetched again after it said the list changed."""

    kind: Literal["tools_changed"] = "tools_changed"
    tool_count: int


HostEvent = Annotated[ServerStateChanged | ServerLog | ToolsChanged, Field(discriminator="kind")]
"""Events of the MCP host (``Host.subscribe``). Separate from :data:`Event`: no conversation or run id."""

HOST_EVENT_ADAPTER: TypeAdapter[HostEvent] = TypeAdapter(HostEvent)
