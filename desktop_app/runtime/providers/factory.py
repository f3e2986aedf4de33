"""Which provider talks to an endpoint: one place that maps ``ProviderSettings`` to a ``Provider``."""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING

from desktop_app.runtime.providers._retry import Sleep
from desktop_app.runtime.providers.base import Provider
from desktop_app.runtime.settings import ProviderSettings

if TYPE_CHECKING:
    from desktop_app.runtime.providers.anthropic import AnthropicProvider
    from desktop_app.runtime.providers.openai import OpenAIProvider


def make_provider(settings: ProviderSettings, api_key: str | None, *, sleep: Sleep = asyncio.sleep) -> Provider:
    """The provider for ``settings.dialect``: Anthropic Messages, or OpenAI-compatible Chat Completions.

    Both use ``settings.stall_timeout_s`` as the idle-stall timeout and ``sleep`` for retry waits (e.g. the
    Runtime's ``RetrySleeper.sleep``). The provider owns its HTTP client; close it with ``aclose()``. A hosted
    endpoint (``presets.key_required``) without a key fails each request with ``MissingKeyError`` before
    anything is sent.
    """
    from desktop_app.runtime.providers.presets import key_required

    provider: AnthropicProvider | OpenAIProvider
    if settings.dialect == "anthropic":
        from desktop_app.runtime.providers.anthropic import AnthropicProvider

        provider = AnthropicProvider(
            base_url=settings.base_url, api_key=api_key, idle_timeout=settings.stall_timeout_s, sleep=sleep
        )
    else:
        from desktop_app.runtime.providers.openai import OpenAIProvider

        provider = OpenAIProvider(
            base_url=settings.base_url,
            api_key=api_key,
            dialect=settings.dialect,
            idle_timeout=settings.stall_timeout_s,
            sleep=sleep,
        )
    provider.requires_key = key_required(settings.base_url)
    return provider
