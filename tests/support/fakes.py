"""Hand-written fakes for runtime tests: a scripted provider and an in-memory tool host."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from desktop_app.runtime.messages import ToolCallRequest, ToolSpec
from desktop_app.runtime.providers.base import (
    ChatRequest,
    Completion,
    ContentChunk,
    ProviderEvent,
    ReasoningChunk,
)


def answer(text: str, reasoning: str = "") -> list[ProviderEvent]:
    items: list[ProviderEvent] = []
    if reasoning:
        items.append(ReasoningChunk(text=reasoning))
    items.append(ContentChunk(text=text))
    items.append(Completion(content=text, reasoning=reasoning))
    return items


def calls(*tool_calls: tuple[str, str, str], reasoning: str = "") -> list[ProviderEvent]:
    """A response asking for tools: ``(id, model-facing name, raw JSON arguments)`` each."""
    requests = tuple(ToolCallRequest(id=i, name=n, arguments=a) for i, n, a in tool_calls)
    items: list[ProviderEvent] = [ReasoningChunk(text=reasoning)] if reasoning else []
    items.append(Completion(reasoning=reasoning, tool_calls=requests, finish_reason="tool_use"))
    return items


class FakeProvider:
    """Plays one scripted response per ``stream`` call and records the requests."""

    def __init__(self, responses: Sequence[Sequence[ProviderEvent | Exception]] = ()) -> None:
        self.responses = [list(r) for r in responses]
        self.requests: list[ChatRequest] = []
        self.closed = False
        self.gate: asyncio.Event | None = None

    async def stream(self, request: ChatRequest) -> AsyncIterator[ProviderEvent]:
        self.requests.append(request)
        if not self.responses:
            raise AssertionError("FakeProvider: no scripted response left")
        for item in self.responses.pop(0):
            if self.gate is not None and isinstance(item, Completion):
                await self.gate.wait()
            if isinstance(item, Exception):
                raise item
            yield item

    async def aclose(self) -> None:
        self.closed = True


@dataclass(frozen=True)
class FakeTool:
    name: str
    server: str
    tool: str
    builtin: bool = False
    read_only: bool = False


@dataclass(frozen=True)
class FakeOutcome:
    text: str
    is_error: bool = False
    structured: dict[str, Any] | None = None


@dataclass
class FakeHost:
    """Tools as plain Python callables; records every ``call`` in order."""

    handlers: dict[str, Callable[[dict[str, Any]], str]] = field(default_factory=dict)
    server: str = "fake"
    log: list[tuple[str, str, dict[str, Any]]] = field(default_factory=list)
    identities: dict[str, str] = field(default_factory=dict)
    """Each server's definition, as ``Host.server_identity`` gives it (grants are bound to it)."""

    def server_identity(self, server: str) -> str | None:
        return self.identities.get(server)

    def tool_specs(self) -> list[ToolSpec]:
        return [ToolSpec(name=f"mcp__{self.server}__{t}") for t in self.handlers]

    def lookup(self, model_name: str) -> FakeTool | None:
        for tool in self.handlers:
            if model_name == f"mcp__{self.server}__{tool}":
                return FakeTool(model_name, self.server, tool)
        return None

    async def call(self, server: str, tool: str, arguments: dict[str, Any], *, progress: Any = None) -> FakeOutcome:
        self.log.append((server, tool, arguments))
        try:
            return FakeOutcome(self.handlers[tool](arguments))
        except Exception as exc:
            return FakeOutcome(f"Tool {tool} failed: {exc}", is_error=True)


class ModelIds:
    """The model's tool-call ids behind the runtime's own (``ToolCall.model_call_id``), learnt from events.

    Scripts are written with the model's ids (``calls(("c1", …))``); events carry the runtime's ids
    (run + position). Subscribe it (or feed it events) and map with ``model(id)`` / ``internal(model_id)``.
    """

    def __init__(self) -> None:
        self.by_internal: dict[str, str] = {}

    def __call__(self, event: Any) -> None:
        if getattr(event, "kind", None) == "tool_call" and event.model_call_id:
            self.by_internal[event.tool_call_id] = event.model_call_id

    def model(self, tool_call_id: str) -> str:
        return self.by_internal.get(tool_call_id, tool_call_id)

    def internal(self, model_id: str) -> str:
        return next((k for k, v in self.by_internal.items() if v == model_id), model_id)


def only_card(view: Any) -> Any:
    """The one tool card a chat view shows (``None`` before it appears): cards are keyed on the runtime's
    call ids, which a test that scripts the model's ids does not know."""
    cards = list(view.cards.values())
    assert len(cards) <= 1, f"expected one tool card, got {len(cards)}"
    return cards[0] if cards else None


def card_for(view: Any, model_id: str) -> Any:
    """The tool card of the call the model named ``model_id`` (``None`` before it appears); with a reused id,
    the latest such card."""
    found = [card for card in view.cards.values() if card.model_call_id == model_id]
    return found[-1] if found else None
