"""Claude Code's ``.mcp.json`` variable syntax at start-up: ``${VAR}`` and ``${VAR:-default}`` in command, args,
env, url and headers (issue 22 item 9), under the same guard as before: a server reads only its own keyring
entries and never the app's key or token; nothing reaches a server as a literal ``${…}``."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator

import pytest

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import ServerStartError
from desktop_app.runtime.host import ServerConfig
from desktop_app.runtime.host.config import expand_value
from desktop_app.runtime.host.targets import http_target, stdio_parameters
from desktop_app.runtime.secret_scope import forget_reserved, reserve
from tests.conftest import MemoryKeyring

TOKEN = "ghp_" + "Q1w2E3r4T5y6U7i8O9p0A1s2D3f4G5h6J7k8"


@pytest.fixture
def reserved() -> Iterator[None]:
    reserve(name="SB_PROVIDER_KEY", value="sk-provider-key-0123456789")
    yield
    forget_reserved()


def test_default_applies_when_unset_or_empty_and_the_value_when_set() -> None:
    assert expand_value("${PORT:-8080}", {}, where="x") == "8080"
    assert expand_value("${PORT:-8080}", {"PORT": ""}, where="x") == "8080"
    assert expand_value("${PORT:-8080}", {"PORT": "9000"}, where="x") == "9000"
    assert expand_value("a${EMPTY}b", {"EMPTY": ""}, where="x") == "ab"
    assert expand_value("${HOST:-}", {}, where="x") == ""


def test_args_command_and_env_expand_variables_and_defaults(memory_keyring: MemoryKeyring) -> None:
    environ = {"PATH": os.defpath, "DB": "shop", "PY": sys.executable}
    config = ServerConfig(
        command="${PY}",
        args=["--db", "${DB}", "--port=${PORT:-5432}", "${MODE:-ro}"],
        env={"LEVEL": "${LEVEL:-info}"},
    )
    params = stdio_parameters(config, name="pg", environ=environ, search_path=os.defpath)
    assert params.command == sys.executable
    assert params.args == ["--db", "shop", "--port=5432", "ro"]
    assert params.env is not None and params.env["LEVEL"] == "info"


def test_an_unset_variable_in_args_is_refused_never_passed_literally(memory_keyring: MemoryKeyring) -> None:
    config = ServerConfig(command=sys.executable, args=["--dir", "${PROJECT_DIR}"])
    with pytest.raises(ServerStartError, match=r"args\[1\]: environment variable 'PROJECT_DIR' is not set"):
        stdio_parameters(config, name="s", environ={"PATH": os.defpath}, search_path=os.defpath)


def test_url_expands_variables_defaults_and_its_own_keyring_entries(memory_keyring: MemoryKeyring) -> None:
    credentials = Credentials()
    credentials.set("mcp:docs:url:query:token", TOKEN)
    os.environ.pop("DOCS_HOST", None)
    config = ServerConfig(
        url="https://${DOCS_HOST:-docs.example.com}/mcp?token=${keyring:mcp:docs:url:query:token}",
        headers={"X-Region": "${REGION:-eu}"},
    )
    target = http_target("docs", config, credentials=credentials)
    assert target.url == f"https://docs.example.com/mcp?token={TOKEN}"
    assert target.headers == {"X-Region": "eu"}


def test_the_guard_holds_for_args_and_url(memory_keyring: MemoryKeyring, reserved: None) -> None:
    credentials = Credentials()
    credentials.set("api-key:https://api.example.com", "sk-provider-key-0123456789")
    other = ServerConfig(command=sys.executable, args=["${keyring:api-key:https://api.example.com}"])
    with pytest.raises(ServerStartError, match="does not belong to this server"):
        stdio_parameters(other, name="s", credentials=credentials, environ={}, search_path=os.defpath)
    with_default = ServerConfig(command=sys.executable, args=["${SB_PROVIDER_KEY:-none}"])
    with pytest.raises(ServerStartError, match="Switchboard's own provider key"):
        stdio_parameters(with_default, name="s", environ={"SB_PROVIDER_KEY": "x"}, search_path=os.defpath)
    url = ServerConfig(url="https://h/mcp?k=${keyring:mcp:other:url:query:k}")
    with pytest.raises(ServerStartError, match="does not belong to this server"):
        http_target("docs", url, credentials=credentials)
