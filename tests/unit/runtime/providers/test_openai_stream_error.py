"""An ``{"error": …}`` frame in the middle of an OpenAI-compatible stream (OpenAI, DeepSeek) ends the run with an
Error event that carries the provider's own message, through the real provider and Runtime (issue 21, guard 10)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from desktop_app.runtime import events as ev
from desktop_app.runtime.providers.openai import OpenAIProvider
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeHost
from tests.support.provider_harness import mock_provider


def sse(*frames: dict[str, Any]) -> bytes:
    return b"".join(f"data: {json.dumps(f)}\n\n".encode() for f in frames)


def chunk(content: str) -> dict[str, Any]:
    return {"choices": [{"index": 0, "delta": {"content": content}, "finish_reason": None}]}


@pytest.mark.asyncio
@pytest.mark.parametrize("dialect", ["openai", "deepseek"])
async def test_an_error_frame_mid_stream_is_an_error_event_with_the_providers_message(dialect: str) -> None:
    body = sse(chunk("The answer is"), {"error": {"message": "Upstream model overloaded", "type": "server_error"}})
    provider, seen, _ = mock_provider(
        OpenAIProvider, [body], base_url="http://llm.test/v1/", api_key="sk-test", dialect=dialect
    )
    runtime = Runtime(
        settings=Settings(provider=ProviderSettings(base_url="http://llm.test/v1", model="m")),
        host=FakeHost(),
        policy=ApprovalPolicy("ask"),
        provider_factory=lambda _s, _k: provider,
    )
    events: list[ev.Event] = []
    runtime.subscribe(events.append)
    outcome = await runtime.run(runtime.new_conversation(), "hi")
    await runtime.aclose()
    assert len(seen) == 1  # an error the provider reported is not retried as a broken stream
    message = "The model provider reported an error mid-answer (server_error): Upstream model overloaded"
    errors = [(e.code, e.message) for e in events if isinstance(e, ev.Error)]
    assert errors == [("provider_stream_error", message)]
    assert (outcome.status, outcome.error, outcome.content) == ("failed", message, "The answer is")
