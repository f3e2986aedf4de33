"""OAuth sign-in pieces: keyring token storage, the loopback redirect catcher, config and provider wiring."""

from __future__ import annotations

import json
import socket
from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from pydantic import AnyUrl

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerStartError
from desktop_app.runtime.host.config import OAuthConfig, ServerConfig
from desktop_app.runtime.host.oauth import (
    BrowserOAuthProvider,
    KeyringTokenStorage,
    RedirectCatcher,
    SignInError,
    SignInRequired,
    free_port,
    oauth_provider,
)
from desktop_app.runtime.host.targets import http_target
from tests.conftest import MemoryKeyring

URL = "https://docs.example.com/mcp"


def _client(port: int = 40123) -> OAuthClientInformationFull:
    return OAuthClientInformationFull(
        client_id="abc", redirect_uris=[AnyUrl(f"http://127.0.0.1:{port}/callback")], token_endpoint_auth_method="none"
    )


def _files(folder: Path) -> list[Path]:
    return [path for path in folder.rglob("*") if path.is_file()]


# -- token storage -----------------------------------------------------------------------------------


@pytest.mark.asyncio
async def test_tokens_and_client_round_trip_through_the_keyring_only(
    memory_keyring: MemoryKeyring, switchboard_home: Path
) -> None:
    storage = KeyringTokenStorage("docs", URL, Credentials())
    assert await storage.get_tokens() is None and await storage.get_client_info() is None
    token = OAuthToken(access_token="secret-access", expires_in=3600, scope="mcp", refresh_token="secret-refresh")
    await storage.set_tokens(token)
    await storage.set_client_info(_client())

    again = KeyringTokenStorage("docs", URL, Credentials())
    assert await again.get_tokens() == token
    client = await again.get_client_info()
    assert client is not None and client.client_id == "abc"
    assert again.registered_port() == 40123
    expires_at = again.expires_at()
    assert expires_at is not None and expires_at > 0
    assert sorted(name for service, name in memory_keyring.store if service == "switchboard") == [
        "mcp-oauth:docs:client",
        "mcp-oauth:docs:tokens",
    ]
    assert _files(switchboard_home) == []  # nothing in SWITCHBOARD_HOME

    again.clear()
    assert memory_keyring.store == {}


@pytest.mark.asyncio
async def test_entries_of_another_url_or_garbage_are_ignored(memory_keyring: MemoryKeyring) -> None:
    await KeyringTokenStorage("docs", URL).set_tokens(OAuthToken(access_token="for-the-old-url"))
    await KeyringTokenStorage("docs", URL).set_client_info(_client())
    moved = KeyringTokenStorage("docs", "https://elsewhere.example.com/mcp")
    assert await moved.get_tokens() is None and await moved.get_client_info() is None
    assert moved.registered_port() is None

    memory_keyring.store[("switchboard", "mcp-oauth:docs:tokens")] = "{not json"
    memory_keyring.store[("switchboard", "mcp-oauth:docs:client")] = json.dumps({"url": URL, "client": {}})
    broken = KeyringTokenStorage("docs", URL)
    assert await broken.get_tokens() is None and await broken.get_client_info() is None


@pytest.mark.asyncio
async def test_a_configured_client_wins_over_storage() -> None:
    configured = _client(5000)
    storage = KeyringTokenStorage("docs", URL, configured_client=configured)
    await storage.set_client_info(_client())
    assert await storage.get_client_info() is configured


# -- the redirect catcher ----------------------------------------------------------------------------


async def _get(url: str) -> httpx2.Response:
    async with httpx2.AsyncClient(trust_env=False, timeout=10) as http:
        return await http.get(url)


@pytest.mark.asyncio
async def test_catcher_captures_code_and_state() -> None:
    catcher = RedirectCatcher(expected_state="s1", server="docs")
    await catcher.start()
    try:
        assert catcher.redirect_uri == f"http://127.0.0.1:{catcher.port}/callback"
        assert (await _get(f"http://127.0.0.1:{catcher.port}/favicon.ico")).status_code == 404
        answer = await _get(f"{catcher.redirect_uri}?code=c0de&state=s1&iss=https%3A%2F%2Fas.example.com")
        assert answer.status_code == 200 and "You can close this tab" in answer.text
        result = await catcher.wait()
        assert (result.code, result.state, result.iss) == ("c0de", "s1", "https://as.example.com")
        assert (await _get(f"{catcher.redirect_uri}?code=again&state=s1")).status_code == 409
    finally:
        await catcher.close()


@pytest.mark.asyncio
async def test_catcher_refuses_a_foreign_state() -> None:
    catcher = RedirectCatcher(expected_state="mine", server="docs")
    await catcher.start()
    try:
        answer = await _get(f"{catcher.redirect_uri}?code=c0de&state=theirs")
        assert answer.status_code == 400 and "does not belong" in answer.text
        with pytest.raises(SignInError, match="did not belong to this sign-in"):
            await catcher.wait()
    finally:
        await catcher.close()


@pytest.mark.asyncio
async def test_catcher_reports_an_error_answer() -> None:
    catcher = RedirectCatcher(expected_state="s", server="docs")
    await catcher.start()
    try:
        answer = await _get(f"{catcher.redirect_uri}?error=access_denied&error_description=no+thanks&state=s")
        assert answer.status_code == 400
        with pytest.raises(SignInError, match="access_denied: no thanks"):
            await catcher.wait()
    finally:
        await catcher.close()


@pytest.mark.asyncio
async def test_catcher_times_out_with_a_clear_error() -> None:
    catcher = RedirectCatcher(expected_state="s", timeout=0.05, server="docs")
    await catcher.start()
    try:
        with pytest.raises(SignInError, match=r"Signing in to docs timed out.*within 0.05 s"):
            await catcher.wait()
    finally:
        await catcher.close()


@pytest.fixture
def busy_port() -> Iterator[int]:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        sock.listen()
        yield sock.getsockname()[1]


@pytest.mark.asyncio
async def test_catcher_on_a_busy_port_fails_clearly(busy_port: int) -> None:
    catcher = RedirectCatcher(busy_port, expected_state="s", server="docs")
    with pytest.raises(SignInError, match=f"port {busy_port} .* is not free"):
        await catcher.start()
    await catcher.close()


# -- config and provider wiring ----------------------------------------------------------------------


def test_oauth_config_shapes() -> None:
    assert ServerConfig(url=URL).oauth_settings is None
    assert ServerConfig(url=URL, oauth=False).oauth_settings is None
    assert ServerConfig(url=URL, oauth=True).oauth_settings == OAuthConfig()
    settings = ServerConfig.model_validate(
        {"url": URL, "oauth": {"clientId": "id", "scopes": ["a", "b"], "clientName": "Me", "callbackPort": 8765}}
    ).oauth_settings
    assert settings is not None
    assert (settings.client_id, settings.scopes, settings.client_name, settings.callback_port) == (
        "id",
        ["a", "b"],
        "Me",
        8765,
    )


def test_http_target_carries_the_provider_only_with_oauth() -> None:
    assert http_target("docs", ServerConfig(url=URL)).auth is None
    target = http_target("docs", ServerConfig(url=URL, oauth=True))
    assert isinstance(target.auth, BrowserOAuthProvider) and target.server == "docs"
    assert target == http_target("docs", ServerConfig(url=URL))  # auth and name are not part of equality
    metadata = target.auth.context.client_metadata
    assert metadata.redirect_uris == [AnyUrl(f"http://127.0.0.1:{target.auth.port}/callback")]
    assert metadata.client_name == "Switchboard" and metadata.scope is None


@pytest.mark.asyncio
async def test_dynamic_registration_reuses_the_registered_port() -> None:
    await KeyringTokenStorage("docs", URL).set_client_info(_client(40999))
    provider = oauth_provider("docs", URL, OAuthConfig())
    assert provider.port == 40999
    fixed = oauth_provider("docs", URL, OAuthConfig(callback_port=41000))
    assert fixed.port == 41000


@pytest.mark.asyncio
async def test_preregistered_client_with_a_keyring_secret() -> None:
    credentials = Credentials()
    credentials.set("mcp:docs:oauth-secret", "s3cret")
    settings = OAuthConfig.model_validate({"clientId": "app", "clientSecret": "${keyring:mcp:docs:oauth-secret}"})
    provider = oauth_provider("docs", URL, settings, credentials=credentials)
    client = await provider.storage.get_client_info()
    assert client is not None
    assert (client.client_id, client.client_secret, client.token_endpoint_auth_method) == (
        "app",
        "s3cret",
        "client_secret_basic",  # RFC 6749's default for clients with a password
    )
    assert client.redirect_uris == [AnyUrl(f"http://127.0.0.1:{provider.port}/callback")]
    with pytest.raises(ServerStartError, match=r"oauth\.clientSecret"):
        oauth_provider("docs", URL, OAuthConfig(client_id="app", client_secret="${keyring:mcp:docs:missing}"))


def test_a_client_secret_may_not_name_another_servers_or_the_apps_keyring_entry() -> None:
    credentials = Credentials()
    credentials.set("api-key:https://api.example.com/v1", "sk-provider-key-0123456789")
    settings = OAuthConfig(client_id="app", client_secret="${keyring:api-key:https://api.example.com/v1}")
    with pytest.raises(ServerStartError, match="does not belong to this server"):
        oauth_provider("docs", URL, settings, credentials=credentials)


def test_configured_scopes_survive_the_sdk_choosing_scopes() -> None:
    provider = oauth_provider("docs", URL, OAuthConfig(scopes=["read", "offline_access"]))
    metadata = provider.context.client_metadata
    assert metadata.scope == "read offline_access"
    metadata.scope = "mcp"  # what the SDK does after a 401 (the challenged scope)
    assert metadata.scope == "mcp read offline_access"
    metadata.scope = None
    assert metadata.scope == "read offline_access"


@pytest.mark.asyncio
async def test_a_busy_registered_port_forgets_the_dynamic_client(busy_port: int) -> None:
    storage = KeyringTokenStorage("docs", URL)
    await storage.set_client_info(_client(busy_port))
    provider = oauth_provider("docs", URL, OAuthConfig(), browser=lambda url: pytest.fail("browser opened"))
    assert provider.port == busy_port
    with pytest.raises(SignInError, match="is not free"):
        await provider._redirect(f"https://as.example.com/authorize?state=s&port={busy_port}")
    assert await storage.get_client_info() is None  # the next attempt registers with a free port


def test_sign_in_required_message() -> None:
    assert str(SignInRequired("docs")) == (
        'docs requires sign-in (HTTP 401). Add "oauth": true to its entry in mcp.json to sign in with your browser.'
    )


def test_free_port_is_a_port() -> None:
    assert 0 < free_port() < 65536
