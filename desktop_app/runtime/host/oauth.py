"""Signing in to remote MCP servers with OAuth 2.1 (authorization code + PKCE) in the system browser.

The protocol work is the SDK's :class:`mcp.client.auth.OAuthClientProvider`, an ``httpx2.Auth``:
metadata discovery, dynamic client registration, PKCE, the token exchange, refresh and re-consent
after a 401. This module supplies what the SDK leaves to the host:

* :class:`KeyringTokenStorage` keeps the tokens and the registered client in the keyring (service
  ``switchboard``, entries ``mcp-oauth:<server>:tokens`` and ``mcp-oauth:<server>:client``), never
  in files, bound to the server's URL.
* :class:`RedirectCatcher` is a one-shot loopback HTTP server at ``http://127.0.0.1:<port>/callback``
  that captures ``code`` and ``state``, refuses a foreign ``state``, shows "You can close this tab"
  and gives up with a clear :class:`SignInError` after a timeout.
* :class:`BrowserOAuthProvider` is the SDK provider wired to the browser (:func:`open_browser`,
  injectable) and the catcher; :func:`oauth_provider` builds one from a server's ``oauth`` config.

A 401 from a server without ``oauth`` config becomes :class:`SignInRequired` (see ``transports``).
"""

from __future__ import annotations

import asyncio
import contextlib
import html
import json
import logging
import os
import secrets
import socket
import time
import webbrowser
from collections.abc import Callable
from typing import Any
from urllib.parse import parse_qs, urlsplit

import anyio.to_thread
from mcp.client.auth import AuthorizationCodeResult, OAuthClientProvider, OAuthFlowError
from mcp.client.auth.utils import union_scopes
from mcp.shared.auth import OAuthClientInformationFull, OAuthClientMetadata, OAuthToken
from pydantic import AnyUrl, PrivateAttr, ValidationError

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerStartError
from desktop_app.runtime.host.config import OAuthConfig, expand_value
from desktop_app.runtime.secret_scope import scoped_lookup

logger = logging.getLogger(__name__)

ENTRY_PREFIX = "mcp-oauth"
CALLBACK_PATH = "/callback"
LOOPBACK_HOST = "127.0.0.1"
DEFAULT_SIGN_IN_TIMEOUT = 300.0
_REQUEST_HEAD_TIMEOUT = 10.0
_REQUEST_HEAD_LIMIT = 16 * 1024
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


class SignInError(OAuthFlowError):
    """The browser sign-in did not complete: timeout, refused, foreign ``state``, busy port."""


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

_PAGE = (
    "<!doctype html><html><head><meta charset='utf-8'><title>Switchboard</title></head>"
    "<body style='font-family:sans-serif;margin:3em'><h2>{title}</h2><p>{text}</p></body></html>"
)


class RedirectCatcher:
    """A one-shot HTTP server on ``127.0.0.1:<port>`` that waits for the authorization redirect.

    ``await start()``, send the user to the authorization URL, ``await wait()`` for the
    :class:`AuthorizationCodeResult`, ``await close()``. Only ``GET <path>`` counts; a ``state``
    other than ``expected_state``, an ``error`` answer or a missing ``code`` fails the wait.
    """

    def __init__(
        self,
        port: int = 0,
        *,
        expected_state: str | None,
        timeout: float = DEFAULT_SIGN_IN_TIMEOUT,
        path: str = CALLBACK_PATH,
        server: str = "the MCP server",
    ) -> None:
        self._port = port
        self._expected_state = expected_state
        self._timeout = timeout
        self._path = path
        self._label = server
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[AuthorizationCodeResult] | None = None

    @property
    def port(self) -> int:
        return self._port

    @property
    def redirect_uri(self) -> str:
        return f"http://{LOOPBACK_HOST}:{self._port}{self._path}"

    async def start(self) -> None:
        self._result = asyncio.get_running_loop().create_future()
        try:
            self._server = await asyncio.start_server(self._handle, LOOPBACK_HOST, self._port)
        except OSError as exc:
            raise SignInError(
                f"Could not sign in to {self._label}: port {self._port} on {LOOPBACK_HOST} is not free for the "
                f"browser's answer ({exc.strerror or exc}). Close the program using it and try again."
            ) from None
        self._port = self._server.sockets[0].getsockname()[1]

    async def wait(self) -> AuthorizationCodeResult:
        if self._result is None:
            raise RuntimeError("RedirectCatcher.wait() before start()")
        try:
            async with asyncio.timeout(self._timeout):
                return await asyncio.shield(self._result)
        except TimeoutError:
            raise SignInError(
                f"Signing in to {self._label} timed out: the browser did not come back to Switchboard within "
                f"{self._timeout:g} s. Restart the server to try again."
            ) from None

    async def close(self) -> None:
        if self._result is not None:
            if not self._result.done():
                self._result.cancel()
            elif not self._result.cancelled():
                self._result.exception()  # retrieved: no "exception was never retrieved" noise
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
            self._server = None

    async def _handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            async with asyncio.timeout(_REQUEST_HEAD_TIMEOUT):
                head = await reader.readuntil(b"\r\n\r\n")
            status, title, text = self._answer(head.split(b"\r\n", 1)[0].decode("latin-1"))
            body = _PAGE.format(title=html.escape(title), text=html.escape(text)).encode("utf-8")
            writer.write(
                f"HTTP/1.1 {status}\r\nContent-Type: text/html; charset=utf-8\r\nContent-Length: {len(body)}\r\n"
                "Cache-Control: no-store\r\nConnection: close\r\n\r\n".encode("latin-1")
                + body
            )
            await writer.drain()
        except (TimeoutError, asyncio.IncompleteReadError, asyncio.LimitOverrunError, ConnectionError):
            pass
        finally:
            writer.close()
            with contextlib.suppress(ConnectionError):
                await writer.wait_closed()

    def _answer(self, request_line: str) -> tuple[str, str, str]:
        """The response (status, title, text) to one request; settles the wait for the callback."""
        parts = request_line.split(" ")
        if len(parts) != 3 or parts[0] != "GET":
            return "405 Method Not Allowed", "Not here", "This address only takes the sign-in redirect."
        target = urlsplit(parts[1])
        if target.path != self._path:
            return "404 Not Found", "Not found", "This address only takes the sign-in redirect."
        result = self._result
        if result is None or result.done():
            return "409 Conflict", "Already answered", "This sign-in has already been answered."
        query = {name: values[0] for name, values in parse_qs(target.query).items()}
        state, code, error = query.get("state"), query.get("code"), query.get("error")
        expected = self._expected_state
        if expected is not None and (state is None or not secrets.compare_digest(state, expected)):
            result.set_exception(
                SignInError(f"Signing in to {self._label} failed: the answer did not belong to this sign-in (state).")
            )
            return "400 Bad Request", "Sign-in refused", "This answer does not belong to the sign-in Switchboard began."
        if error is not None:
            description = query.get("error_description")
            detail = f"{error}: {description}" if description else error
            result.set_exception(SignInError(f"Signing in to {self._label} failed: the server answered {detail}."))
            return "400 Bad Request", "Sign-in failed", f"The server answered: {detail}. You can close this tab."
        if not code:
            result.set_exception(SignInError(f"Signing in to {self._label} failed: no authorization code came back."))
            return "400 Bad Request", "Sign-in failed", "No authorization code came back. You can close this tab."
        result.set_result(AuthorizationCodeResult(code=code, state=state, iss=query.get("iss")))
        return "200 OK", "Signed in to Switchboard", "You can close this tab and return to Switchboard."


def free_port() -> int:
    """A currently free TCP port on the loopback interface."""
    with socket.socket() as sock:
        sock.bind((LOOPBACK_HOST, 0))
        port: int = sock.getsockname()[1]
        return port


# -- the provider ---------------------------------------------------------------------------------


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
