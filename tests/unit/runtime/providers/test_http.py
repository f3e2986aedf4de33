"""What both providers inherit from ``_http.StreamingHttpProvider``, for each dialect: the HTTP client they own
or borrow, no key header without a key, and the idle-timeout check."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import httpx
import pytest

from desktop_app.runtime.messages import UserMessage
from desktop_app.runtime.providers.anthropic import AnthropicProvider
from desktop_app.runtime.providers.base import ChatRequest, Completion
from desktop_app.runtime.providers.openai import OpenAIProvider
from tests.support.anthropic_server import anthropic_text_reply
from tests.support.llm_server import Reply, text_reply
from tests.support.provider_harness import drain, mock_provider


@dataclass(frozen=True)
class Dialect:
    make: Callable[..., OpenAIProvider | AnthropicProvider]
    endpoint: str
    """Where ``make(base_url="http://llm.test")`` posts."""
    key_header: str
    reply: Reply
    """A plain answer ``"x"`` in the dialect's wire format."""

    def body(self) -> bytes:
        return b"".join(step for step in self.reply.steps if isinstance(step, bytes))


DIALECTS = [
    pytest.param(
        Dialect(OpenAIProvider, "http://llm.test/chat/completions", "authorization", text_reply("x")), id="openai"
    ),
    pytest.param(
        Dialect(AnthropicProvider, "http://llm.test/v1/messages", "x-api-key", anthropic_text_reply("x")),
        id="anthropic",
    ),
]
REQUEST = ChatRequest(model="m", messages=(UserMessage(content="hi"),))


@pytest.mark.asyncio
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_owned_client_is_closed_by_aclose(dialect: Dialect) -> None:
    provider = dialect.make(base_url="http://llm.test", api_key="k")
    assert provider.endpoint == dialect.endpoint
    await provider.aclose()
    assert provider._client.is_closed


@pytest.mark.asyncio
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_injected_client_is_left_open(dialect: Dialect) -> None:
    client = httpx.AsyncClient()
    provider = dialect.make(base_url="http://llm.test", api_key="k", client=client)
    await provider.aclose()
    assert not client.is_closed
    await client.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize("dialect", DIALECTS)
async def test_no_key_header_without_a_key(dialect: Dialect) -> None:
    provider, seen, _ = mock_provider(dialect.make, [dialect.body()], base_url="http://llm.test", api_key=None)
    events = await drain(provider.stream(REQUEST), closing=provider)
    assert isinstance(events[-1], Completion) and events[-1].content == "x"
    [sent] = seen
    assert str(sent.url) == dialect.endpoint
    assert dialect.key_header not in sent.headers


@pytest.mark.parametrize("dialect", DIALECTS)
def test_idle_timeout_must_be_positive(dialect: Dialect) -> None:
    for bad in (0, -1.5):
        with pytest.raises(ValueError, match="idle_timeout"):
            dialect.make(base_url="http://x", api_key=None, idle_timeout=bad)
