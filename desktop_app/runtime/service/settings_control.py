"""The Runtime's settings collaborator: the saved settings, the provider and vision-provider keys, the
approval policy, the provider pool and the default context items.

:class:`SettingsControl` owns the settings in force, the file they are saved to (``None``: not saved), the
keyring, the approval policy and the :class:`~desktop_app.runtime.providers.pool.ProviderPool`. Saving goes
through :func:`~desktop_app.runtime.settings.save_settings` (a broken file is never overwritten); keys go to
the keyring, never a file.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from datetime import datetime
from pathlib import Path
from typing import Any

from desktop_app.runtime.context import ContextItem, default_context
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ConfigError, RunError
from desktop_app.runtime.providers.base import Provider
from desktop_app.runtime.providers.pool import ProviderPool
from desktop_app.runtime.run.approvals import ApprovalPolicy
from desktop_app.runtime.settings import ProviderSettings, Settings, save_settings


class SettingsControl:
    """Settings, provider keys, the approval policy and the provider pool."""

    def __init__(
        self,
        *,
        settings: Settings,
        credentials: Credentials,
        providers: ProviderPool,
        settings_path: Path | None,
        policy: ApprovalPolicy | None,
        now: Callable[[], datetime] | None,
        settings_problem: ConfigError | None,
    ) -> None:
        self._settings = settings
        self._credentials = credentials
        self._providers = providers
        self._settings_path = settings_path
        self._policy = policy or ApprovalPolicy("ask", auto_approve_read_only=settings.auto_approve_read_only)
        self._now = now
        self.settings_problem = settings_problem
        """The settings file is broken: the runtime runs on defaults and never saves to it."""

    @property
    def settings(self) -> Settings:
        return self._settings

    def set_in_memory(self, settings: Settings) -> None:
        """Put ``settings`` in force for this session only (nothing saved, the policy untouched)."""
        self._settings = settings

    @property
    def credentials(self) -> Credentials:
        return self._credentials

    @property
    def providers(self) -> ProviderPool:
        return self._providers

    @property
    def settings_path(self) -> Path | None:
        """The settings file this runtime saves to (``None``: not saved, e.g. a broken file or a test)."""
        return self._settings_path

    @property
    def policy(self) -> ApprovalPolicy:
        return self._policy

    def configure_provider(self, settings: ProviderSettings, api_key: str | None) -> None:
        """Save the provider settings (file) and the key (keyring; never a file). ``None`` keeps the key."""
        self._store_key(settings, api_key)
        self.change(provider=settings)
        self._providers.retire_all()

    def _store_key(self, settings: ProviderSettings, api_key: str | None) -> None:
        """Keep ``api_key`` in the keyring for ``settings``' endpoint: ``""`` deletes it, ``None`` keeps it."""
        if api_key is None:
            return
        api_key = api_key.strip()  # pasted keys often carry a newline or a CR
        if api_key:
            self._credentials.set(settings.key_name, api_key)
        else:
            self._credentials.delete(settings.key_name)

    def change(self, **update: Any) -> None:
        """Set top-level fields without validation (callers pass typed values) and save."""
        self._settings = self._settings.model_copy(update=update)
        self.save()

    def update_settings(self, settings: Settings | None = None, /, **changes: Any) -> Settings:
        """Save new settings atomically, then put them in force; returns them.

        ``settings`` replaces them all (the Settings window); ``changes`` set top-level fields (validated
        like the file). A failed write leaves the old settings in force. With a broken settings file
        (``settings_problem``) nothing is written, since that file is never overwritten: the change holds
        for this session (the Settings window refuses to save instead).
        """
        base = settings if settings is not None else self._settings
        new = Settings.model_validate({**base.model_dump(), **changes}) if changes else base
        if self._settings_path is not None:
            save_settings(self._settings_path, new)
        self._apply(new)
        return new

    def _apply(self, settings: Settings) -> None:
        old, self._settings = self._settings, settings
        self._policy = replace(self._policy, auto_approve_read_only=settings.auto_approve_read_only)
        if (old.provider, old.vision_provider) != (settings.provider, settings.vision_provider):
            self._providers.retire_all()

    def recover_settings(self, settings: Settings, path: Path) -> None:
        """A broken settings file was fixed and read again: run on it and save to it from now on."""
        self.settings_problem = None
        self._settings_path = path
        self._apply(settings)

    def save(self) -> None:
        if self._settings_path is not None:
            save_settings(self._settings_path, self._settings)

    def set_auto_approve_read_only(self, enabled: bool) -> None:
        """Turn auto-approval of ``readOnlyHint`` tools on or off (saved with the settings)."""
        self._policy = replace(self._policy, auto_approve_read_only=enabled)
        self.change(auto_approve_read_only=enabled)

    def api_key(self) -> str | None:
        """The default provider's key (environment variable, else keyring)."""
        return self._providers.api_key(self._settings.provider)

    def missing_key(self, settings: ProviderSettings | None = None) -> str | None:
        """Why ``settings`` (default: the default provider) cannot run, when it is a hosted endpoint that needs
        an API key and none is set (e.g. no keyring kept it from the last session); else ``None``."""
        from desktop_app.runtime.providers.presets import key_required, match_preset

        chosen = settings or self._settings.provider
        if not chosen.configured or not key_required(chosen.base_url) or self._providers.api_key(chosen):
            return None
        kept = "" if self._credentials.check() else " (without a working system keyring it was kept for one session)"
        return f"{match_preset(chosen.base_url).name} needs an API key and none is set{kept}. Enter it to start."

    def get_provider(self) -> Provider:
        return self._providers.get(self._settings.provider)

    def configure_vision_provider(self, settings: ProviderSettings | None, api_key: str | None = None) -> None:
        """Save (or with ``None`` remove) the provider that describes images for a model that cannot read them.

        Its key goes to the keyring like the main provider's; ``None`` keeps the stored key.
        """
        if settings is not None:
            self._store_key(settings, api_key)
        self.change(vision_provider=settings)
        self._providers.retire_all()

    def get_vision_provider(self) -> Provider:
        vision = self._settings.vision_provider
        if vision is None:  # pragma: no cover - only called when configured
            raise RunError("No vision provider is configured.")
        return self._providers.get(vision)

    def default_context(self) -> list[ContextItem]:
        """The context items a prompt gets unless the user removes them (date/time/zone and OS, per settings)."""
        return default_context(
            now=self._now() if self._now is not None else None,
            include_datetime=self._settings.context_datetime,
            include_os=self._settings.context_os,
        )
