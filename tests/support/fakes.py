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
