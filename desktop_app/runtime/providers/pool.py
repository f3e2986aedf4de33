"""Open providers, one per distinct ``ProviderSettings``: the default one, the vision one and the ones that
conversations remember. Keys come from the environment variable the settings name, else the keyring entry
for the base URL (never a file). Settings that change retire the old provider: runs still using it finish,
and ``aclose`` closes everything.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from desktop_app.runtime.clock import RetrySleeper
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.providers.base import Provider
from desktop_app.runtime.redaction import remember
from desktop_app.runtime.secret_scope import reserve
from desktop_app.runtime.settings import ProviderSettings

ProviderFactory = Callable[[ProviderSettings, str | None], Provider]
"""Builds a provider from settings and an API key; the default is ``providers.factory.make_provider``."""


class ProviderPool:
    def __init__(
        self,
        credentials: Credentials,
        sleeper: RetrySleeper,
        *,
        factory: ProviderFactory | None = None,
        api_key_override: str | None = None,
    ) -> None:
        self._credentials = credentials
        self._sleeper = sleeper
        self._factory = factory
        self._api_key_override = api_key_override
        self._open: dict[str, Provider] = {}
        self._retired: list[Provider] = []

    @property
    def real(self) -> bool:
        """Providers are the real dialects (no test factory): they talk to the endpoint the settings name."""
        return self._factory is None

    def api_key(self, settings: ProviderSettings) -> str | None:
        """The key for ``settings``, trimmed (a pasted or file-read key often ends in a newline or CR) and
        remembered for redaction; ``None`` when there is none."""
        key = self._raw_api_key(settings)
        remember(key)
        reserve(name=settings.api_key_env, value=key)  # never handed to a server or hook (secret_scope)
        key = key.strip() if key else key
        return key or None

    def _raw_api_key(self, settings: ProviderSettings) -> str | None:
        if self._api_key_override is not None:
            return self._api_key_override
        if settings.api_key_env:
            value = os.environ.get(settings.api_key_env)
            if value and value.strip():
                return value
        return self._credentials.get(settings.key_name)

    def get(self, settings: ProviderSettings) -> Provider:
        key = settings.model_dump_json()
        provider = self._open.get(key)
        if provider is None:
            if self._factory is not None:
                provider = self._factory(settings, self.api_key(settings))
            else:
                from desktop_app.runtime.providers.factory import make_provider

                provider = make_provider(settings, self.api_key(settings), sleep=self._sleeper.sleep)
            self._open[key] = provider
        return provider

    def retire_all(self) -> None:
        """Forget every open provider (a key or setting changed); they are closed by ``aclose``."""
        self._retired.extend(self._open.values())
        self._open.clear()

    async def aclose(self) -> None:
        providers = [*self._retired, *self._open.values()]
        self._open, self._retired = {}, []
        for provider in providers:
            await provider.aclose()
