"""The MCP host's events (``Host.subscribe``): a server's state and log lines, its tool list or resources
changed, and the sampling and elicitation requests it sends (and their end). About servers, not about a
conversation or a run: no conversation or run id. ``events`` re-exports every name, so ``ev.ServerLog`` is the
one spelling everywhere.

The module has no ``from __future__ import annotations``: pydantic would then make each field's type from a
string when the classes are created, on the way to ``runtime: ready`` (~1.5 ms here, issue 27).
"""

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from desktop_app.runtime.model_defaults import empty_list

HostServerState = Literal["idle", "disabled", "starting", "ready", "failed", "restarting", "stopped"]
"""A server's state. ``restarting``: an automatic or manual restart is connecting it again."""


class _HostEvent(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

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


class SamplingMessageText(BaseModel):
    """One message of a sampling request, as text (non-text content is summarised in brackets)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    role: Literal["user", "assistant"]
    text: str


class SamplingRequested(_HostEvent):
    """A server asks to use the user's model (``sampling/createMessage``).

    Answer with ``Runtime.answer_sampling(request_id, approved, reason)``; on approval the Runtime runs the
    request on the user's provider and returns the completion to the server.
    """

    kind: Literal["sampling_requested"] = "sampling_requested"
    request_id: str
    messages: list[SamplingMessageText]
    system_prompt: str | None = None
    max_tokens: int
    model_hints: list[str] = Field(default_factory=empty_list)
    temperature: float | None = None


class ElicitationRequested(_HostEvent):
    """A server asks the user for input (``elicitation/create``).

    ``mode="form"``: fill ``requested_schema`` (a flat JSON schema); ``mode="url"``: the user is asked to open
    ``url`` (accepting means consenting to open it; no content). Answer with
    ``Runtime.answer_elicitation(request_id, action, content)``.
    """

    kind: Literal["elicitation_requested"] = "elicitation_requested"
    request_id: str
    message: str
    mode: Literal["form", "url"] = "form"
    requested_schema: dict[str, Any] = Field(default_factory=dict)
    url: str | None = None
    elicitation_id: str | None = None


class ServerRequestClosed(_HostEvent):
    """A sampling or elicitation request stopped waiting: answered, or cancelled by the server or a disconnect."""

    kind: Literal["server_request_closed"] = "server_request_closed"
    request_id: str
    outcome: Literal["answered", "cancelled"]


class ResourcesChanged(_HostEvent):
    """A server said its resource list changed (``notifications/resources/list_changed``)."""

    kind: Literal["resources_changed"] = "resources_changed"


class ResourceUpdated(_HostEvent):
    """A subscribed resource changed on the server (``Host.subscribe_resource``); read it again to see how."""

    kind: Literal["resource_updated"] = "resource_updated"
    uri: str


HostEvent = Annotated[
    ServerStateChanged
    | ServerLog
    | ToolsChanged
    | SamplingRequested
    | ElicitationRequested
    | ServerRequestClosed
    | ResourcesChanged
    | ResourceUpdated,
    Field(discriminator="kind"),
]
"""Events of the MCP host (``Host.subscribe``). Separate from :data:`Event`: no conversation or run id."""

HOST_EVENT_ADAPTER: TypeAdapter[HostEvent] = TypeAdapter(HostEvent, config=ConfigDict(defer_build=True))

__all__ = [
    "HOST_EVENT_ADAPTER",
    "ElicitationRequested",
    "HostEvent",
    "HostServerState",
    "ResourceUpdated",
    "ResourcesChanged",
    "SamplingMessageText",
    "SamplingRequested",
    "ServerLog",
    "ServerRequestClosed",
    "ServerStateChanged",
    "ToolsChanged",
]
