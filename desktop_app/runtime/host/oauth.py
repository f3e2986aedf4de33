"""Signing in to remote MCP servers with OAuth 2.1 (authorization code + PKCE) in the system browser.

The protocol work is the SDK's :class:`mcp.client.auth.OAuthClientProvider`, an ``httpx2.Auth``:
metadata discovery, dynamic client registration, PKCE, the token exchange, refresh and re-consent
after a 401. This module supplies what the SDK leaves to the host:

* :class:`KeyringTokenStorage` keeps the tokens and the registered client in the keyring (service
  ``switchboard``, entries ``mcp-oauth:<server>:tokens`` and ``mcp-oauth:<server>:client``), never
  in files, bound to the server's URL.
* :class:`~.oauth_redirect.RedirectCatcher` (``oauth_redirect.py``) catches the browser's redirect on loopback.
* :class:`BrowserOAuthProvider` is the SDK provider wired to the browser (:func:`open_browser`,
  injectable) and the catcher; :func:`oauth_provider` builds one from a server's ``oauth`` config.

A 401 from a server without ``oauth`` config becomes :class:`SignInRequired` (see ``transports``).
"""

from __future__ import annotations

import json
import logging
import os
import time
import webbrowser
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio.to_thread
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl, PrivateAttr, ValidationError

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerStartError
from desktop_app.runtime.host.config import OAuthConfig, expand_value
from desktop_app.runtime.host.oauth_redirect import (
    CALLBACK_PATH,
    DEFAULT_SIGN_IN_TIMEOUT,
    LOOPBACK_HOST,
    RedirectCatcher,
    SignInError,
    free_port,
)
from desktop_app.runtime.secret_scope import scoped_lookup

logger = logging.getLogger(__name__)

ENTRY_PREFIX = "mcp-oauth"
CLIENT_NAME = "Switchboard"

BrowserOpener = Callable[[str], object]
"""Opens a URL for the user (``webbrowser.open``); called in a worker thread."""


class SignInRequired(Exception):
    """A server without ``oauth`` config answered 401."""

    def __init__(self, server: str) -> None:
        super().__init__(
            f'{server} requires sign-in (HTTP 401). Add "oauth": true to its entry in mcp.json '
            "to sign in with your browser."
        )
        self.server = server


def open_browser(url: str) -> None:
    """The default :data:`BrowserOpener`: the system browser, or the address in the log if there is none."""
    if not webbrowser.open(url):
        logger.warning("Could not open a browser. To sign in, open this address: %s", url)


# -- token storage --------------------------------------------------------------------------------


class KeyringTokenStorage:
    """The SDK's ``TokenStorage`` in the keyring, for one server; entries are ignored if the URL changed.

    ``configured_client`` (a pre-registered ``clientId``) is returned as the client information
    instead of a dynamically registered one.
    """

    def __init__(
        self,
        server: str,
        server_url: str,
        credentials: Credentials | None = None,
        *,
        configured_client: OAuthClientInformationFull | None = None,
    ) -> None:
        self.server = server
        self.server_url = server_url
        self.configured_client = configured_client
        self.tokens_entry = f"{ENTRY_PREFIX}:{server}:tokens"
        self.client_entry = f"{ENTRY_PREFIX}:{server}:client"
        self._credentials = credentials or Credentials()

    def _read(self, entry: str) -> dict[str, Any] | None:
        raw = self._credentials.get(entry)
        if not raw:
            return None
        try:
            data = json.loads(raw)
        except ValueError:
            logger.warning("ignoring the unreadable keyring entry %s", entry)
            return None
        if not isinstance(data, dict) or data.get("url") != self.server_url:
            return None  # another server (the URL changed): never send its tokens here
        return data

    def _write(self, entry: str, data: dict[str, Any]) -> None:
        self._credentials.set(entry, json.dumps({"url": self.server_url, **data}, separators=(",", ":")))

    async def get_tokens(self) -> OAuthToken | None:
        data = self._read(self.tokens_entry)
        try:
            return OAuthToken.model_validate(data["token"]) if data else None
        except (KeyError, ValidationError):
            return None

    async def set_tokens(self, tokens: OAuthToken) -> None:
        expires_at = time.time() + tokens.expires_in if tokens.expires_in is not None else None
        token = tokens.model_dump(mode="json", exclude_none=True)
        self._write(self.tokens_entry, {"token": token, "expires_at": expires_at})

    def expires_at(self) -> float | None:
        """When the stored access token expires (epoch seconds), if the server said."""
        data = self._read(self.tokens_entry)
        value = data.get("expires_at") if data else None
        return float(value) if isinstance(value, int | float) else None

    async def get_client_info(self) -> OAuthClientInformationFull | None:
        if self.configured_client is not None:
            return self.configured_client
        data = self._read(self.client_entry)
        try:
            return OAuthClientInformationFull.model_validate(data["client"]) if data else None
        except (KeyError, ValidationError):
            return None

    async def set_client_info(self, client_info: OAuthClientInformationFull) -> None:
        self._write(self.client_entry, {"client": client_info.model_dump(mode="json", exclude_none=True)})

    def registered_port(self) -> int | None:
        """The loopback port the stored (dynamically registered) client's redirect URI names."""
        data = self._read(self.client_entry)
        uris = (data.get("client") or {}).get("redirect_uris") if data else None
        for uri in uris if isinstance(uris, list) else []:
            parts = urlsplit(str(uri))
            if parts.hostname in (LOOPBACK_HOST, "localhost") and parts.port:
                return parts.port
        return None

    def forget_client(self) -> None:
        self._credentials.delete(self.client_entry)

    def clear(self) -> None:
        """Sign out: forget the tokens and the registered client."""
        self._credentials.delete(self.tokens_entry)
        self.forget_client()


# -- the loopback redirect ------------------------------------------------------------------------


class _ClientMetadata(OAuthClientMetadata):
    """Client metadata whose ``scope`` always includes the configured scopes (the SDK replaces it on a 401)."""

    _configured_scope: str | None = PrivateAttr(default=None)

    def __setattr__(self, name: str, value: Any) -> None:
        if name == "scope" and self._configured_scope:
            value = union_scopes(value, self._configured_scope)
        super().__setattr__(name, value)


class BrowserOAuthProvider(OAuthClientProvider):
    """The SDK's OAuth provider, signing in through the browser and a :class:`RedirectCatcher`."""

    def __init__(
        self,
        server: str,
        server_url: str,
        storage: KeyringTokenStorage,
        client_metadata: OAuthClientMetadata,
        *,
        port: int,
        browser: BrowserOpener | None = None,
        timeout: float = DEFAULT_SIGN_IN_TIMEOUT,
    ) -> None:
        super().__init__(
            server_url, client_metadata, storage, redirect_handler=self._redirect, callback_handler=self._callback
        )
        self.server = server
        self.port = port
        self.storage = storage
        self._browser = browser
        self._timeout = timeout
        self._catcher: RedirectCatcher | None = None

    async def _initialize(self) -> None:
        # The SDK keeps a token's expiry in memory only; restore it so an expired stored token is
        # refreshed before use instead of costing a 401 and a new consent.
        await super()._initialize()
        expires_at = self.storage.expires_at()
        if self.context.current_tokens is not None and expires_at is not None:
            self.context.token_expiry_time = expires_at

    async def _redirect(self, authorization_url: str) -> None:
        state = parse_qs(urlsplit(authorization_url).query).get("state", [None])[0]
        catcher = RedirectCatcher(self.port, expected_state=state, timeout=self._timeout, server=self.server)
        try:
            await catcher.start()
        except SignInError:
            if self.storage.configured_client is None:
                self.storage.forget_client()  # the next attempt registers again with a free port
            raise
        self._catcher = catcher
        logger.info("MCP server '%s': opening the browser to sign in", self.server)
        opener = self._browser or open_browser
        try:
            await anyio.to_thread.run_sync(opener, authorization_url)
        except BaseException:
            self._catcher = None
            await catcher.close()
            raise

    async def _callback(self) -> AuthorizationCodeResult:
        catcher, self._catcher = self._catcher, None
        if catcher is None:
            raise SignInError(f"Signing in to {self.server} failed: the browser was not opened.")
        try:
            return await catcher.wait()
        finally:
            await catcher.close()


def oauth_provider(
    server: str,
    url: str,
    settings: OAuthConfig,
    *,
    credentials: Credentials | None = None,
    browser: BrowserOpener | None = None,
    timeout: float | None = None,
) -> BrowserOAuthProvider:
    """The auth provider for ``server`` at ``url`` per its ``oauth`` config (see :class:`OAuthConfig`).

    The redirect port is ``callbackPort``, else the port the stored dynamic registration names,
    else a free one; ``timeout`` bounds the wait for the browser (default :data:`DEFAULT_SIGN_IN_TIMEOUT`).
    ``clientSecret`` may use ``${NAME}`` / ``${keyring:NAME}``; a missing value
    raises :class:`~desktop_app.runtime.errors.ServerStartError`.
    """
    credentials = credentials or Credentials()
    storage = KeyringTokenStorage(server, url, credentials)
    preregistered = bool(settings.client_id)
    port = settings.callback_port or (None if preregistered else storage.registered_port()) or free_port()
    redirect_uri = f"http://{LOOPBACK_HOST}:{port}{CALLBACK_PATH}"
    grant_types: list[Any] = ["authorization_code", "refresh_token"]
    if settings.client_id:
        secret = _client_secret(server, settings, credentials)
        storage.configured_client = OAuthClientInformationFull(
            client_id=settings.client_id,
            client_secret=secret,
            redirect_uris=[AnyUrl(redirect_uri)],
            grant_types=grant_types,
            # RFC 6749 §2.3.1: servers must support HTTP Basic for clients with a password; it is the default.
            token_endpoint_auth_method="client_secret_basic" if secret else "none",
        )
    metadata = _ClientMetadata(
        redirect_uris=[AnyUrl(redirect_uri)],
        client_name=settings.client_name or CLIENT_NAME,
        grant_types=grant_types,
        response_types=["code"],
        token_endpoint_auth_method="none",
    )
    metadata._configured_scope = " ".join(settings.scopes) or None
    metadata.scope = metadata._configured_scope
    wait = DEFAULT_SIGN_IN_TIMEOUT if timeout is None else timeout
    return BrowserOAuthProvider(server, url, storage, metadata, port=port, browser=browser, timeout=wait)


def _client_secret(server: str, settings: OAuthConfig, credentials: Credentials) -> str | None:
    if not settings.client_secret:
        return None
    try:
        secrets = scoped_lookup(server, credentials.get)  # only this server's own keyring entries
        return expand_value(settings.client_secret, os.environ, where="oauth.clientSecret", secrets=secrets)
    except ValueError as exc:
        raise ServerStartError(f"MCP server '{server}': {exc}") from None


__all__ = [
    "CALLBACK_PATH",
    "DEFAULT_SIGN_IN_TIMEOUT",
    "BrowserOAuthProvider",
    "BrowserOpener",
    "KeyringTokenStorage",
    "RedirectCatcher",
    "SignInError",
    "SignInRequired",
    "free_port",
    "oauth_provider",
    "open_browser",
]
