"""No keyring, no silent loss (runtime side): the keyring is probed before a key is relied on, a hosted
provider without a key fails before sending anything, and the runtime says which provider lacks its key."""

from __future__ import annotations

import json
from pathlib import Path

import keyring
import keyring.backends.fail
import keyring.backends.null
import pytest

from desktop_app.runtime.credentials import Credentials
from desktop_app.runtime.errors import MissingKeyError
from desktop_app.runtime.host.importers import import_config
from desktop_app.runtime.messages import UserMessage
from desktop_app.runtime.providers.base import ChatRequest
from desktop_app.runtime.providers.factory import make_provider
from desktop_app.runtime.providers.openai import OpenAIProvider
from desktop_app.runtime.service import Runtime
from desktop_app.runtime.settings import ProviderSettings, Settings
from tests.support.fakes import FakeHost
from tests.support.llm_server import ScriptedLLMServer, text_reply

DEEPSEEK = ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat", dialect="deepseek")
REQUEST = ChatRequest(model="m", messages=(UserMessage(content="hi"),))


@pytest.mark.parametrize("backend", [keyring.backends.fail.Keyring, keyring.backends.null.Keyring])
def test_check_says_session_only_before_anything_is_stored(backend: type) -> None:
    keyring.set_keyring(backend())  # the memory_keyring fixture restores the test keyring afterwards
    credentials = Credentials()
    assert credentials.check() is False
    assert credentials.persistent is False
    assert "session only" in (credentials.problem or "")
    credentials.set("api-key:x", "kept-in-memory-1")
    assert credentials.get("api-key:x") == "kept-in-memory-1"  # still usable in this session


def test_check_is_true_with_a_working_keyring() -> None:
    credentials = Credentials()
    assert credentials.check() is True and credentials.problem is None


def test_a_hosted_provider_without_a_key_refuses_before_sending(llm_server: ScriptedLLMServer) -> None:
    assert make_provider(DEEPSEEK, None).requires_key is True  # type: ignore[attr-defined]
    local = ProviderSettings(base_url="http://127.0.0.1:11434/v1", model="llama3")
    assert make_provider(local, None).requires_key is False  # type: ignore[attr-defined]
    assert make_provider(ProviderSettings(base_url=llm_server.url, model="m"), None).requires_key is False  # type: ignore[attr-defined]


@pytest.mark.asyncio
async def test_no_request_with_an_empty_authorization_header(llm_server: ScriptedLLMServer) -> None:
    llm_server.enqueue(text_reply("unused"))
    provider = OpenAIProvider(base_url=llm_server.url, api_key=None)
    provider.requires_key = True
    try:
        with pytest.raises(MissingKeyError, match=r"No API key is set for http://127\.0\.0\.1:\d+/v1, so nothing"):
            async for _ in provider.stream(REQUEST):
                pass
    finally:
        await provider.aclose()
    assert llm_server.requests == []


def test_runtime_names_the_provider_whose_key_is_missing(memory_keyring: object) -> None:
    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost())
    message = runtime.missing_key()
    assert message == "DeepSeek needs an API key and none is set. Enter it to start."
    runtime.credentials.set(DEEPSEEK.key_name, "sk-deepseek-123456")
    assert runtime.missing_key() is None
    lm_studio = Settings(provider=ProviderSettings(base_url="http://127.0.0.1:1234/v1", model="m"))
    local = Runtime(settings=lm_studio, host=FakeHost())
    assert local.missing_key() is None  # LM Studio needs no key


@pytest.mark.asyncio
async def test_a_run_without_the_key_fails_with_missing_api_key(memory_keyring: object) -> None:
    runtime = Runtime(settings=Settings(provider=DEEPSEEK), host=FakeHost())
    events: list[object] = []
    runtime.subscribe(events.append)
    try:
        outcome = await runtime.run(runtime.new_conversation(), "hello")
    finally:
        await runtime.aclose()
    assert outcome.status == "failed"
    [error] = [e for e in events if getattr(e, "kind", "") == "error"]
    assert error.code == "missing_api_key"  # type: ignore[attr-defined]
    assert error.message.endswith("or pass --api-key-env VAR.")  # type: ignore[attr-defined]  # the CLI's hint


def test_an_import_without_a_keyring_is_session_only_not_lost(tmp_path: Path) -> None:
    keyring.set_keyring(keyring.backends.null.Keyring())  # accepts and forgets: today the import fails
    source = tmp_path / "claude.json"
    token = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"
    source.write_text(json.dumps({"mcpServers": {"gh": {"command": "x", "env": {"GITHUB_TOKEN": token}}}}))
    credentials = Credentials()
    report = import_config(source, tmp_path / "mcp.json", credentials)
    assert report.session_only is True and report.written
    assert credentials.get("mcp:gh:GITHUB_TOKEN") == token
    assert token not in (tmp_path / "mcp.json").read_text()
