"""The data a run works on: conversations, run options and outcomes, and the host as the loop sees it.

Kept apart from ``run.py`` (the loop itself) so that the Runtime, the store and the UI can share these
shapes without the loop's machinery.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal, Protocol

from desktop_app.runtime.attachments import AttachmentLimits
from desktop_app.runtime.compaction.tool_digest import digest
from desktop_app.runtime.events.parts import TokenUsage
from desktop_app.runtime.messages import AssistantMessage, Message, ToolCallRequest, ToolMessage, ToolSpec
from desktop_app.runtime.settings import ProviderSettings

if TYPE_CHECKING:
    from desktop_app.runtime.compaction.plan import Compaction


class ToolTarget(Protocol):
    """What the loop needs to know of a tool the model named."""

    @property
    def server(self) -> str: ...

    @property
    def tool(self) -> str: ...

    @property
    def builtin(self) -> bool: ...

    @property
    def read_only(self) -> bool: ...


class ToolOutcome(Protocol):
    @property
    def text(self) -> str: ...

    @property
    def is_error(self) -> bool: ...

    @property
    def structured(self) -> dict[str, Any] | None: ...


class ProgressCallback(Protocol):
    """Receives a tool call's progress as the server reports it (the MCP SDK's progress signature)."""

    async def __call__(self, progress: float, total: float | None, message: str | None) -> None: ...


class ToolHost(Protocol):
    """The host as the loop sees it: the tools on offer and the one call path."""

    def tool_specs(self) -> list[ToolSpec]: ...

    def lookup(self, model_name: str) -> ToolTarget | None: ...

    async def call(
        self, server: str, tool: str, arguments: dict[str, Any], *, progress: ProgressCallback | None = None
    ) -> ToolOutcome: ...

    def server_identity(self, server: str) -> str | None:
        """What a grant for ``server`` is bound to (``Host.server_identity``); every view passes it through,
        so a grant made for another definition of the server never applies."""
        ...


class Conversation:
    """A conversation's messages and its one active run, if any.

    ``messages`` may be given as a loader instead of a list: a stored conversation reopened in the window is
    shown at once, and its whole history is read (``loader()``) only when something first needs it — the
    next run, as a rule. A 10,000-message history costs ~0.6 s to rebuild, which the window must not wait on.
    """

    def __init__(
        self,
        id: str,
        messages: list[Message] | Callable[[], list[Message]] | None = None,
        active_run: str | None = None,
        provider: ProviderSettings | None = None,
    ) -> None:
        self.id = id
        self._messages: list[Message] = [] if messages is None or callable(messages) else messages
        self._loader = messages if callable(messages) else None
        self.active_run = active_run
        self.provider = provider
        """The provider this conversation keeps (``None``: the runtime's default)."""
        self.usage = TokenUsage()
        """The token usage of all its runs (the store's totals when it was reopened), see ``runtime.usage``."""
        self.compactions: list[Compaction] = []
        """Its compactions, oldest first (undone ones too); requests send the latest one in force, see
        ``runtime.compaction``. The messages they cover stay in ``messages``."""

    @property
    def messages(self) -> list[Message]:
        if self._loader is not None:
            loader, self._loader = self._loader, None
            self._messages = list(loader())
        return self._messages

    @messages.setter
    def messages(self, value: list[Message] | Callable[[], list[Message]]) -> None:
        self._messages = [] if callable(value) else value
        self._loader = value if callable(value) else None

    def map_messages(self, change: Callable[[list[Message]], list[Message]]) -> None:
        """Apply ``change`` to the history: now, or when a lazily loaded one is first read."""
        if self._loader is None:
            self._messages = list(change(self._messages))
            return
        loader = self._loader
        self._loader = lambda: change(list(loader()))

    @property
    def loaded(self) -> bool:
        """Whether the history has been read (``False`` while it waits on its loader)."""
        return self._loader is None

    def __repr__(self) -> str:
        history = f"{len(self._messages)} messages" if self._loader is None else "history not loaded yet"
        return f"Conversation(id={self.id!r}, {history}, active_run={self.active_run!r})"


@dataclass(frozen=True)
class RunOptions:
    """What a run is allowed and asked to do: model, tool rounds, reasoning, images, limits."""

    model: str
    max_tool_rounds: int = 25
    thinking: bool | None = None
    reasoning_effort: str | None = None
    supports_images: bool | None = None
    """``False``: images go through the vision provider (or the run is refused); ``None``/``True``: sent."""
    vision_model: str = ""
    tool_result_replay_limit: int = 0
    """Tool results longer than this many characters go to the model as a head/tail digest (0: never)."""
    attachment_limits: AttachmentLimits = field(default_factory=AttachmentLimits)


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended (finished, failed or cancelled), with its answer or error."""

    run_id: str
    status: Literal["finished", "failed", "cancelled"]
    content: str = ""
    error: str | None = None


def internal_call_id(run_id: str, position: int) -> str:
    """The runtime's id of a run's ``position``-th tool call (0-based): unique, whatever id the model sent."""
    return f"{run_id}-{position}"


def wire_messages(messages: Sequence[Message]) -> tuple[Message, ...]:
    """The history as the model must see it: every tool call and result under the model's own call id.

    The runtime keys calls on its own ids (``internal_call_id``); the wire gets the model's. When a model
    reused one id twice in one response, the repeats keep the internal id there, so that every call of
    a request has its own id and its own result.
    """
    out: list[Message] = []
    to_wire: dict[str, str] = {}
    for message in messages:
        if isinstance(message, AssistantMessage) and any(c.wire_id for c in message.tool_calls):
            seen: set[str] = set()
            calls = []
            for call in message.tool_calls:
                wire = call.model_id if call.model_id not in seen else call.id
                seen.add(wire)
                to_wire[call.id] = wire
                calls.append(call.model_copy(update={"id": wire, "wire_id": ""}))
            out.append(message.model_copy(update={"tool_calls": tuple(calls)}))
        elif isinstance(message, ToolMessage):
            update: dict[str, Any] = {}
            if message.tool_call_id in to_wire:
                update["tool_call_id"] = to_wire[message.tool_call_id]
            if message.replay_limit:  # an oversized result: the request gets its digest (the store keeps it all)
                update["content"] = digest(message.content, message.replay_limit)
            out.append(message.model_copy(update=update) if update else message)
        else:
            out.append(message)
    return tuple(out)


def pending_tool_calls(messages: Sequence[Message]) -> list[ToolCallRequest]:
    """Tool calls of the last assistant message that have no result yet (a paused turn), in model order."""
    answered: set[str] = set()
    for message in reversed(messages):
        if isinstance(message, ToolMessage):
            answered.add(message.tool_call_id)
        elif isinstance(message, AssistantMessage):
            return [c for c in message.tool_calls if c.id not in answered]
        else:
            return []
    return []
