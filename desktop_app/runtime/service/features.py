"""The Runtime's MCP client side: servers' sampling/elicitation requests, roots, resources and grants.

:class:`ServerFeatures` (a collaborator of the :class:`~desktop_app.runtime.service.Runtime` facade) wires the host's
:class:`~desktop_app.runtime.host.client_features.ClientFeatures` to the user's provider and policy (see
:mod:`.server_requests`), takes the user's answers to server requests by request id, grants folders as
roots, reads resources as prompt text, and revokes or re-confirms approval grants.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.runtime.errors import RunError
from desktop_app.runtime.run.approvals import Grant, GrantStore
from desktop_app.runtime.service.settings_control import SettingsControl

if TYPE_CHECKING:
    from desktop_app.runtime.host.client_features import ClientFeatures
    from desktop_app.runtime.host.requests import ElicitationAction


class ServerFeatures:
    """Server requests, roots, resources and grants; a host without them (a test fake) refuses clearly."""

    def __init__(self, *, settings: SettingsControl, host: object, grants: GrantStore | None) -> None:
        self._settings = settings
        self._host = host
        self.grants = grants or GrantStore()
        """The approval grants (persisted, revocable); the run loop consults them."""
        self._features: ClientFeatures | None = self._wire_client_features()

    def _wire_client_features(self) -> ClientFeatures | None:
        """Serve servers' sampling/elicitation requests (see :mod:`.server_requests`); a real host only."""
        features = getattr(self._host, "client_features", None)
        if features is None:
            return None
        from desktop_app.runtime.service.server_requests import wire_client_features

        settings = self._settings
        wire_client_features(
            features,
            provider=settings.get_provider,
            model=lambda: settings.settings.provider.model,
            mode=lambda: settings.policy.mode,
        )
        return features  # type: ignore[no-any-return]

    def _client_features(self) -> ClientFeatures:
        if self._features is None:
            raise RunError("This runtime's tool host is not an MCP host; it has no server requests or roots.")
        return self._features

    def answer_sampling(self, request_id: str, approved: bool, reason: str | None = None) -> None:
        """Answer a ``SamplingRequested`` host event. Approved: the request runs on the user's provider and
        the completion goes to the server; declined: the server gets a "user rejected" error with ``reason``.
        Unknown or answered ids raise ``UnknownServerRequestError``."""
        self._client_features().answer_sampling(request_id, approved, reason)

    def answer_elicitation(
        self, request_id: str, action: ElicitationAction, content: dict[str, Any] | None = None
    ) -> None:
        """Answer an ``ElicitationRequested`` host event with ``accept`` (and the form ``content``),
        ``decline`` or ``cancel``. Content that does not match the requested schema raises
        ``InvalidElicitationResponseError`` before anything is sent (the request stays open)."""
        self._client_features().answer_elicitation(request_id, action, content)

    def pending_server_requests(self) -> list[str]:
        """Ids of the sampling/elicitation requests still waiting for the user, oldest first."""
        return self._features.pending_requests() if self._features is not None else []

    def roots(self) -> list[Path]:
        """The folders granted to MCP servers."""
        return self._features.roots if self._features is not None else []

    async def set_roots(self, paths: Sequence[Path], *, save: bool = True) -> None:
        """Grant these folders to MCP servers (answered to ``roots/list`` as ``file://`` URIs); connected
        handshake-era servers are told that the list changed. ``save`` keeps them in the settings."""
        self._client_features()  # refuse before saving anything when the host has no roots
        if save:
            self._settings.change(roots=[str(p) for p in paths])
        set_roots = getattr(self._host, "set_roots", None)
        if set_roots is not None:
            await set_roots(paths)

    async def resource_prompt_text(self, server: str, uri: str) -> str:
        """Read a server's resource and return it as prompt text (to attach it to a message)."""
        read_resource = getattr(self._host, "read_resource", None)
        if read_resource is None:
            raise RunError("This runtime's tool host is not an MCP host; it cannot read resources.")
        read = await read_resource(server, uri)
        text: str = read.as_prompt_text()
        return text

    def revoke_grant(self, grant: Grant) -> bool:
        return self.grants.revoke(grant)

    def grant_is_stale(self, grant: Grant) -> bool:
        """Whether ``grant`` no longer applies because its server's definition changed (command and
        arguments, or URL) or the server is gone; it applies again once ``confirm_grant``-ed."""
        identity = getattr(self._host, "server_identity", None)
        if identity is None:
            return False  # a host without identities (test fakes): grants follow the name only
        current = identity(grant.server)
        return current is None or grant.identity != current

    def confirm_grant(self, grant: Grant) -> Grant:
        """Bind a stale grant to the server as it is now, so it applies again (the user looked at the change)."""
        identity = getattr(self._host, "server_identity", None)
        return self.grants.confirm(grant, identity(grant.server) if identity is not None else grant.identity)
