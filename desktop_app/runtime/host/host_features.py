"""The host's MCP features beyond tools: resources, prompts, subscriptions, roots, logs and server requests.

:class:`HostFeatures` is a collaborator of :class:`~desktop_app.runtime.host.host.Host`; it only needs the
host's :class:`ClientFeatures` and two lookups the host gives it. Everything here is user-initiated
(the UI browses resources, picks a prompt, grants a folder), so failures raise
:class:`~desktop_app.runtime.errors.ServerRequestError` (or ``ServerNotFoundError``) with a message for the
user, unlike :meth:`Host.call`, whose outcome goes to the model.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from desktop_app.runtime.host.client_features import ClientFeatures
from desktop_app.runtime.host.requests import ElicitationAction, RequestKind
from desktop_app.runtime.host_events import ServerLog
from desktop_app.runtime.sdk_types import mtypes

if TYPE_CHECKING:
    from desktop_app.runtime.host.connection import ServerConnection
    from desktop_app.runtime.host.resources import PromptText, ResourceRead


class HostFeatures:
    """Resources, prompts, roots, server logs and the answers to sampling/elicitation requests."""

    def __init__(
        self,
        client_features: ClientFeatures,
        connection_for: Callable[[str], Awaitable[ServerConnection]],
        live_connections: Callable[[], list[ServerConnection]],
    ) -> None:
        """``connection_for(server)``: the connection of a configured, enabled server, connected if needed
        (raises otherwise); ``live_connections()``: the connections with a live client."""
        self.client_features = client_features
        self._connection_for = connection_for
        self._live_connections = live_connections

    # -- server logs ----------------------------------------------------------------------------

    def server_log(self, server: str) -> list[ServerLog]:
        """The last (at most 1,000) log messages ``server`` sent, oldest first; kept across restarts."""
        return self.client_features.server_log(server)

    # -- roots ----------------------------------------------------------------------------------

    def roots(self) -> list[Path]:
        """The folders the user granted to servers (``roots/list`` answers them as ``file://`` URIs)."""
        return self.client_features.roots

    async def set_roots(self, paths: Iterable[Path | str]) -> None:
        """Replace the granted folders. When they changed, connected handshake-era servers are told with
        ``notifications/roots/list_changed``; 2026-07-28 servers ask for roots within each request."""
        if self.client_features.set_roots(paths):
            for connection in self._live_connections():  # connected: the SDK is loaded
                from desktop_app.runtime.host.connection_requests import notify_roots_changed

                await notify_roots_changed(connection)

    # -- sampling and elicitation answers -------------------------------------------------------

    def pending_requests(self, kind: RequestKind | None = None) -> list[str]:
        """Ids of the sampling/elicitation requests waiting for an answer, oldest first."""
        return self.client_features.pending_requests(kind)

    def answer_sampling(self, request_id: str, approved: bool, reason: str | None = None) -> None:
        """Approve or decline a ``SamplingRequested``; unknown ids raise ``UnknownServerRequestError``."""
        self.client_features.answer_sampling(request_id, approved, reason)

    def answer_elicitation(
        self, request_id: str, action: ElicitationAction, content: dict[str, Any] | None = None
    ) -> None:
        """Answer an ``ElicitationRequested``; invalid content raises ``InvalidElicitationResponseError``."""
        self.client_features.answer_elicitation(request_id, action, content)

    # -- resources ------------------------------------------------------------------------------

    async def list_resources(self, server: str) -> list[mtypes.Resource]:
        connection = await self._connection_for(server)
        from desktop_app.runtime.host import resources
        from desktop_app.runtime.host.connection_requests import server_request

        return await server_request(connection, "list its resources", resources.list_resources)

    async def list_resource_templates(self, server: str) -> list[mtypes.ResourceTemplate]:
        connection = await self._connection_for(server)
        from desktop_app.runtime.host import resources
        from desktop_app.runtime.host.connection_requests import server_request

        return await server_request(connection, "list its resource templates", resources.list_resource_templates)

    async def read_resource(self, server: str, uri: str) -> ResourceRead:
        """Read ``uri``: text parts as text, binary parts as summaries (see :class:`ResourceRead`)."""
        connection = await self._connection_for(server)
        from desktop_app.runtime.host import resources
        from desktop_app.runtime.host.connection_requests import server_request

        return await server_request(
            connection, f"read {uri}", lambda client: resources.read_resource(client, server, uri)
        )

    async def read_resource_json(self, server: str, uri: str) -> dict[str, Any]:
        """``resources/read`` as the server answered it (MCP JSON: ``contents`` with ``_meta``, blobs kept),
        for MCP App views."""
        connection = await self._connection_for(server)
        from desktop_app.runtime.host.connection_requests import server_request

        async def read(client: Any) -> dict[str, Any]:
            result = await client.read_resource(uri)
            dumped: dict[str, Any] = result.model_dump(mode="json", by_alias=True, exclude_none=True)
            return dumped

        return await server_request(connection, f"read {uri}", read)

    async def subscribe_resource(self, server: str, uri: str) -> None:
        """Follow ``uri``: each change is published as a ``ResourceUpdated`` host event. The subscription is
        remembered and renewed when the server restarts. Raises ``ServerRequestError`` if unsupported."""
        connection = await self._connection_for(server)
        from desktop_app.runtime.host.connection_requests import server_request

        wanted = self.client_features.subscriptions(server)
        await server_request(connection, f"subscribe to {uri}", lambda _client: connection.watch.subscribe(uri))
        wanted.add(uri)

    async def unsubscribe_resource(self, server: str, uri: str) -> None:
        self.client_features.subscriptions(server).discard(uri)
        connection = await self._connection_for(server)
        from desktop_app.runtime.host.connection_requests import server_request

        if connection.client is not None:
            await server_request(
                connection, f"unsubscribe from {uri}", lambda _client: connection.watch.unsubscribe(uri)
            )

    # -- prompts --------------------------------------------------------------------------------

    async def list_prompts(self, server: str) -> list[mtypes.Prompt]:
        connection = await self._connection_for(server)
        from desktop_app.runtime.host import resources
        from desktop_app.runtime.host.connection_requests import server_request

        return await server_request(connection, "list its prompts", resources.list_prompts)

    async def get_prompt(self, server: str, name: str, arguments: dict[str, str] | None = None) -> PromptText:
        """Render prompt ``name`` with ``arguments``; every message comes back as text."""
        connection = await self._connection_for(server)
        from desktop_app.runtime.host import resources
        from desktop_app.runtime.host.connection_requests import server_request

        return await server_request(
            connection,
            f"get the prompt '{name}'",
            lambda client: resources.get_prompt(client, server, name, arguments),
        )


__all__ = ["HostFeatures"]
