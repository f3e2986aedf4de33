"""A loopback OAuth 2.1 authorization server in front of a protected MCP server, for the sign-in tests.

One ``MCPServer`` streamable-HTTP app built with the SDK's server-side auth: ``auth_server_provider``
serves ``/authorize``, ``/token``, ``/register``, ``/revoke`` and the authorization-server metadata;
``AuthSettings.resource_server_url`` adds the protected-resource metadata and the bearer-token check
on ``/mcp`` (tokens must be issued for that resource, RFC 8707). The provider auto-approves every
authorization request (the "user" always consents) and counts consents and refreshes.

:meth:`LoopbackOAuthServer.browser` is the test's stand-in for the system browser: it requests the
authorization URL and follows the redirect to the client's loopback callback.

    with LoopbackOAuthServer() as server:
        ServerConfig(url=server.mcp_url, oauth=True)
"""

from __future__ import annotations

import secrets
import socket
import threading
import time
from typing import Any

import httpx2
import uvicorn
from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    OAuthAuthorizationServerProvider,
    RefreshToken,
    TokenError,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions, RevocationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

SCOPE = "mcp"
_START_TIMEOUT = 10.0


class LoopbackAuthProvider(OAuthAuthorizationServerProvider[AuthorizationCode, RefreshToken, AccessToken]):
    """An in-memory ``OAuthAuthorizationServerProvider`` that approves every request."""

    def __init__(self, *, access_ttl: int = 3600) -> None:
        self.access_ttl = access_ttl
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.consents = 0
        self.refreshes = 0

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(32)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [SCOPE],
            expires_at=time.time() + 300,
            client_id=client.client_id,
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        self.consents += 1
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: str
    ) -> AuthorizationCode | None:
        found = self.codes.get(authorization_code)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_authorization_code(
        self, client: OAuthClientInformationFull, authorization_code: AuthorizationCode
    ) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue(client.client_id, authorization_code.scopes, authorization_code.resource)

    async def load_refresh_token(self, client: OAuthClientInformationFull, refresh_token: str) -> RefreshToken | None:
        found = self.refresh.get(refresh_token)
        return found if found is not None and found.client_id == client.client_id else None

    async def exchange_refresh_token(
        self, client: OAuthClientInformationFull, refresh_token: RefreshToken, scopes: list[str]
    ) -> OAuthToken:
        if self.refresh.pop(refresh_token.token, None) is None:
            raise TokenError(error="invalid_grant", error_description="refresh token revoked")
        self.refreshes += 1
        return self._issue(client.client_id, scopes or refresh_token.scopes, refresh_token.resource)

    async def load_access_token(self, token: str) -> AccessToken | None:
        found = self.access.get(token)
        if found is None or (found.expires_at is not None and found.expires_at < time.time()):
            return None
        return found

    async def revoke_token(self, token: AccessToken | RefreshToken) -> None:
        self.revoke_all()

    def _issue(self, client_id: str, scopes: list[str], resource: str | None) -> OAuthToken:
        access, refresh = secrets.token_urlsafe(32), secrets.token_urlsafe(32)
        expires_at = int(time.time()) + self.access_ttl
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=expires_at, resource=resource
        )
        self.refresh[refresh] = RefreshToken(token=refresh, client_id=client_id, scopes=scopes, resource=resource)
        return OAuthToken(
            access_token=access, expires_in=self.access_ttl, scope=" ".join(scopes), refresh_token=refresh
        )

    # -- test controls --

    def expire_access_tokens(self) -> None:
        """Every access token issued so far stops working (refresh tokens still do)."""
        for token in self.access.values():
            token.expires_at = int(time.time()) - 1

    def revoke_all(self) -> None:
        """Every access and refresh token stops working: only a new consent helps."""
        self.access.clear()
        self.refresh.clear()


def build_app(base_url: str, provider: LoopbackAuthProvider) -> Any:
    """The protected MCP server (tools ``add`` and ``whoami``) with its embedded authorization server."""
    server = MCPServer(
        "protected",
        log_level="WARNING",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base_url,
            resource_server_url=f"{base_url}/mcp",
            validate_token_resource=True,
            required_scopes=[SCOPE],
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=[SCOPE], default_scopes=[SCOPE]
            ),
            revocation_options=RevocationOptions(enabled=True),
        ),
    )

    @server.tool()
    def add(a: int, b: int) -> int:
        """Add two numbers."""
        return a + b

    @server.tool()
    def whoami() -> str:
        """Say who is signed in."""
        return "signed in"

    return server.streamable_http_app()


class LoopbackOAuthServer:
    """The app served by uvicorn on a free loopback port in a background thread."""

    def __init__(self, *, access_ttl: int = 3600) -> None:
        self._socket = socket.socket()
        self._socket.bind(("127.0.0.1", 0))
        self.port: int = self._socket.getsockname()[1]
        self.base_url = f"http://127.0.0.1:{self.port}"
        self.mcp_url = f"{self.base_url}/mcp"
        self.provider = LoopbackAuthProvider(access_ttl=access_ttl)
        self.opened: list[str] = []
        """Every authorization URL the "browser" was sent to."""
        self.callback_answers: list[tuple[int, str]] = []
        config = uvicorn.Config(build_app(self.base_url, self.provider), log_level="warning", lifespan="on")
        self._server = uvicorn.Server(config)
        self._thread = threading.Thread(
            target=self._server.run, kwargs={"sockets": [self._socket]}, name="oauth-server", daemon=True
        )

    def browser(self, url: str) -> bool:
        """The "system browser": consent (automatic) and follow the redirect to the loopback callback."""
        self.opened.append(url)
        with httpx2.Client(follow_redirects=True, trust_env=False, timeout=10) as http:
            answer = http.get(url)
        self.callback_answers.append((answer.status_code, answer.text))
        return True

    def start(self) -> LoopbackOAuthServer:
        self._thread.start()
        deadline = time.monotonic() + _START_TIMEOUT
        while not self._server.started:  # a bounded poll for the port, not synchronisation between tasks
            if time.monotonic() > deadline or not self._thread.is_alive():
                raise RuntimeError("the loopback OAuth server did not start")
            time.sleep(0.01)
        return self

    def close(self) -> None:
        self._server.should_exit = True
        self._thread.join(timeout=10)
        self._socket.close()

    def __enter__(self) -> LoopbackOAuthServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()
