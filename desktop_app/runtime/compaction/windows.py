"""A model's context window: from its preset's table, else from what the endpoint's model list says.

``ModelWindows.window(base_url, model)`` answers at once: the preset's value (``context_budget.context_window``)
or one learned earlier in this process. ``learn(settings, api_key)`` asks the endpoint's ``GET /models``
once per endpoint (bounded by ``LEARN_TIMEOUT_S``, failures only logged: many endpoints list no windows),
and only when the preset does not know the model. The runtime learns before a conversation's first request,
so that the compaction threshold and the composer's meter know the window of local and custom models too.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from desktop_app.runtime.settings import ProviderSettings

log = logging.getLogger(__name__)

LEARN_TIMEOUT_S = 3.0


class ModelWindows:
    """Context windows by (endpoint, model): the preset's, else the endpoint's model list's."""

    def __init__(self) -> None:
        self._listed: dict[str, dict[str, int]] = {}  # endpoint -> {model: window}, as its list said
        self._lock = asyncio.Lock()

    @staticmethod
    def _key(base_url: str) -> str:
        return base_url.strip().rstrip("/")

    def window(self, base_url: str, model: str) -> int | None:
        from desktop_app.runtime.compaction.budget import context_window  # the token estimates: with the first ask

        known = context_window(base_url, model)
        if known is not None:
            return known
        listed = self._listed.get(self._key(base_url), {})
        if model in listed:
            return listed[model]
        matches = [name for name in listed if model.startswith(name + "-")]
        return listed[max(matches, key=len)] if matches else None

    def remember(self, base_url: str, windows: dict[str, int]) -> None:
        """Record what an endpoint's model list said (also for the Settings' model fetch)."""
        self._listed.setdefault(self._key(base_url), {}).update(windows)

    async def learn(self, settings: ProviderSettings, api_key: str | None) -> int | None:
        """The window of ``settings``' model, asking its endpoint's model list once when the preset does not
        know it; ``None`` when nobody says."""
        known = self.window(settings.base_url, settings.model)
        key = self._key(settings.base_url)
        if known is not None or key in self._listed or not settings.base_url.strip():
            return known
        from desktop_app.runtime.providers.discovery import ModelListError, list_context_windows

        async with self._lock:
            if key not in self._listed:
                try:
                    windows = await list_context_windows(
                        settings.base_url, api_key, settings.dialect, timeout_s=LEARN_TIMEOUT_S
                    )
                except (ModelListError, OSError, ValueError) as exc:
                    log.debug("no context windows from %s: %s", settings.base_url, exc)
                    windows = {}
                self._listed[key] = windows
        return self.window(settings.base_url, settings.model)
