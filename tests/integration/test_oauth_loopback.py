"""Browser sign-in end to end: the host against a loopback OAuth server guarding an MCP server.

The "browser" is :meth:`LoopbackOAuthServer.browser`, which requests the authorization URL (the
server consents at once) and follows the redirect to the host's loopback callback.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator

import pytest

from desktop_app.runtime.host import Host, ServerConfig, oauth
from tests.conftest import MemoryKeyring
from tests.support.oauth_server import LoopbackOAuthServer

pytestmark = pytest.mark.integration

TOKENS = ("switchboard", "mcp-oauth:docs:tokens")


@pytest.fixture
def server(monkeypatch: pytest.MonkeyPatch) -> Iterator[LoopbackOAuthServer]:
    with LoopbackOAuthServer() as running:
        monkeypatch.setattr(oauth, "open_browser", running.browser)
        yield running


async def _connect_and_add(server: LoopbackOAuthServer) -> None:
    host = Host({"docs": ServerConfig(url=server.mcp_url, oauth=True)}, startup_timeout=30)
    try:
        await host.start()
        status = host.states()["docs"]
        assert status.state == "ready", status.error
        assert {tool.name for tool in host.tools()} == {"mcp__docs__add", "mcp__docs__whoami"}
        outcome = await host.call("docs", "add", {"a": 2, "b": 3})
        assert (outcome.is_error, outcome.text) == (False, "5")
    finally:
        await host.aclose()


@pytest.mark.asyncio
async def test_sign_in_once_then_reuse_the_stored_token(
    server: LoopbackOAuthServer, memory_keyring: MemoryKeyring
) -> None:
    await _connect_and_add(server)
    assert len(server.opened) == 1 and server.provider.consents == 1
    opened = server.opened[0]
    assert "code_challenge_method=S256" in opened and "resource=" in opened
    assert server.callback_answers == [(200, server.callback_answers[0][1])]
    assert "You can close this tab" in server.callback_answers[0][1]
    assert ("switchboard", "mcp-oauth:docs:client") in memory_keyring.store

    await _connect_and_add(server)  # a new connection: the keyring has the token
    assert len(server.opened) == 1 and server.provider.consents == 1 and server.provider.refreshes == 0


@pytest.mark.asyncio
async def test_an_expired_token_is_refreshed_without_the_browser(
    server: LoopbackOAuthServer, memory_keyring: MemoryKeyring
) -> None:
    await _connect_and_add(server)
    server.provider.expire_access_tokens()
    stored = json.loads(memory_keyring.store[TOKENS])
    stored["expires_at"] = time.time() - 1  # the stored token has expired too
    memory_keyring.store[TOKENS] = json.dumps(stored)

    await _connect_and_add(server)
    assert server.provider.refreshes == 1 and len(server.opened) == 1
    refreshed = json.loads(memory_keyring.store[TOKENS])
    assert refreshed["token"]["access_token"] != stored["token"]["access_token"]
    assert refreshed["expires_at"] > time.time()


@pytest.mark.asyncio
async def test_a_revoked_token_asks_for_consent_again(server: LoopbackOAuthServer) -> None:
    await _connect_and_add(server)
    server.provider.revoke_all()  # access and refresh tokens are gone on the server

    await _connect_and_add(server)
    assert len(server.opened) == 2 and server.provider.consents == 2


@pytest.mark.asyncio
async def test_a_protected_server_without_oauth_config_explains_how_to_sign_in(server: LoopbackOAuthServer) -> None:
    host = Host({"docs": ServerConfig(url=server.mcp_url)}, startup_timeout=30)
    try:
        await host.start()
        status = host.states()["docs"]
    finally:
        await host.aclose()
    assert status.state == "failed"
    assert status.error is not None
    assert status.error.startswith('docs requires sign-in (HTTP 401). Add "oauth": true to its entry in mcp.json')
    assert "could not connect" not in status.error  # the sign-in message stands on its own
    assert server.opened == []


@pytest.mark.asyncio
async def test_a_declined_sign_in_fails_the_connection(
    server: LoopbackOAuthServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    def decline(url: str) -> bool:
        server.opened.append(url)
        return True  # the user never answers: the callback wait times out

    monkeypatch.setattr(oauth, "open_browser", decline)
    monkeypatch.setattr(oauth, "DEFAULT_SIGN_IN_TIMEOUT", 0.2)
    host = Host({"docs": ServerConfig(url=server.mcp_url, oauth=True)}, startup_timeout=30)
    try:
        await host.start()
        status = host.states()["docs"]
    finally:
        await host.aclose()
    assert status.state == "failed" and status.error is not None
    assert "Signing in to docs timed out" in status.error
    assert len(server.opened) == 1
