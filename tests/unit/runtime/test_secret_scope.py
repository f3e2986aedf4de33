"""A server entry asks only for its own secrets: keyring entries scoped to the server, never the app's key/token."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from desktop_app.runtime import secret_scope
from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerStartError
from desktop_app.runtime.host import ServerConfig
from desktop_app.runtime.host.environment import expand_args, expand_env, expand_headers
from desktop_app.runtime.settings import ProviderSettings, Settings

PROVIDER_KEY = "sk-provider-0123456789abcdef"


@pytest.fixture(autouse=True)
def clean_reservations() -> Iterator[None]:
    secret_scope.forget_reserved()
    yield
    secret_scope.forget_reserved()


@pytest.fixture
def credentials() -> Credentials:
    store = Credentials()
    store.set("api-key:https://api.example.com/v1", PROVIDER_KEY)
    store.set("serve-token", "served-bearer-token-xyz")
    store.set("mcp:other:TOKEN", "other-servers-token")
    store.set("mcp:mine:TOKEN", "my-own-token")
    return store


def test_a_server_reads_its_own_keyring_entry(credentials: Credentials) -> None:
    config = ServerConfig(command="x", env={"TOKEN": "${keyring:mcp:mine:TOKEN}"})
    assert expand_env("mine", config, environ={}, credentials=credentials) == {"TOKEN": "my-own-token"}


@pytest.mark.parametrize("entry", ["api-key:https://api.example.com/v1", "serve-token", "mcp:other:TOKEN"])
def test_a_server_may_not_read_another_keyring_entry(credentials: Credentials, entry: str) -> None:
    reference = "${keyring:" + entry + "}"
    web = ServerConfig(url="https://h.example/mcp", headers={"A": f"Bearer {reference}"})
    attempts = (
        lambda: expand_env("mine", ServerConfig(command="x", env={"K": reference}), credentials=credentials),
        lambda: expand_args("mine", ServerConfig(command="x", args=[f"--key={reference}"]), credentials=credentials),
        lambda: expand_headers("mine", web, credentials=credentials),
    )
    for attempt in attempts:
        with pytest.raises(ServerStartError, match="does not belong to this server") as caught:
            attempt()
        assert "my-own-token" not in str(caught.value)
        assert PROVIDER_KEY not in str(caught.value)


def test_a_server_named_like_a_prefix_of_another_does_not_reach_its_entries(credentials: Credentials) -> None:
    config = ServerConfig(command="x", env={"K": "${keyring:mcp:mine:TOKEN}"})
    with pytest.raises(ServerStartError, match="does not belong"):
        expand_env("min", config, environ={}, credentials=credentials)


def test_the_provider_key_variable_is_never_expanded() -> None:
    secret_scope.reserve_settings(Settings(provider=ProviderSettings(api_key_env="MY_PROVIDER_KEY")))
    environ = {"MY_PROVIDER_KEY": PROVIDER_KEY, "HARMLESS": "ok"}
    with pytest.raises(ServerStartError, match=r"MY_PROVIDER_KEY.*may not read it"):
        expand_env("s", ServerConfig(command="x", env={"K": "${MY_PROVIDER_KEY}"}), environ=environ)
    assert expand_env("s", ServerConfig(command="x", env={"K": "${HARMLESS}"}), environ=environ) == {"K": "ok"}


def test_a_copy_of_a_reserved_value_under_another_name_is_refused(credentials: Credentials) -> None:
    secret_scope.reserve(value=PROVIDER_KEY)
    environ = {"COPY": PROVIDER_KEY}
    with pytest.raises(ServerStartError, match="own provider key or bearer token"):
        expand_env("s", ServerConfig(command="x", env={"K": "${COPY}"}), environ=environ)
    credentials.set("mcp:s:K", PROVIDER_KEY)  # the user pasted the provider key for this server
    with pytest.raises(ServerStartError, match="own secrets"):
        expand_env("s", ServerConfig(command="x", env={"K": "${keyring:mcp:s:K}"}), environ={}, credentials=credentials)


def test_the_provider_pool_reserves_the_key_it_hands_out() -> None:
    from desktop_app.runtime.clock import RetrySleeper
    from desktop_app.runtime.providers.pool import ProviderPool

    pool = ProviderPool(Credentials(), RetrySleeper(), api_key_override=PROVIDER_KEY)
    assert pool.api_key(ProviderSettings(api_key_env="PASSED_KEY")) == PROVIDER_KEY
    assert secret_scope.reserved_name("PASSED_KEY")
    assert secret_scope.holds_reserved_value(f"prefix {PROVIDER_KEY} suffix")
