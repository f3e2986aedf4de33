"""Which provider talks to an endpoint: one place that maps ``ProviderSettings`` to a ``Provider``."""

from __future__ import annotations

import asyncio

from desktop_app.runtime.providers._retry import Sleep
from desktop_app.runtime.providers.base import Provider
from desktop_app.runtime.settings import ProviderSettings


def make_provider(settings: ProviderSettings, api_key: str | None, *, sleep: Sleep = asyncio.sleep) -> Provider:
    """The provider for ``settings.dialect``: Anthropic Messages, or OpenAI-compatible Chat Completions.

    Both use ``settings.stall_timeout_s`` as the idle-stall timeout and ``sleep`` for retry waits (e.g. the
    Runtime's ``RetrySleeper.sleep``). The provider owns its HTTP client; close it with ``aclose()``.
    """
    if settings.dialect == "anthropic":
        from desktop_app.runtime.providers.anthropic import AnthropicProvider

        return AnthropicProvider(
            base_url=settings.base_url, api_key=api_key, idle_timeout=settings.stall_timeout_s, sleep=sleep
        )
    from desktop_app.runtime.providers.openai import OpenAIProvider

    return OpenAIProvider(
        base_url=settings.base_url,
        api_key=api_key,
        dialect=settings.dialect,
        idle_timeout=settings.stall_timeout_s,
        sleep=sleep,
    )
