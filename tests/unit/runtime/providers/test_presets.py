"""Provider presets and model discovery against ``httpx.MockTransport`` (no sockets)."""

from __future__ import annotations

import json

import httpx
import pytest

from desktop_app.runtime.providers import presets as p
from desktop_app.runtime.providers.discovery import (
    ModelListError,
    detect_local_servers,
    is_loopback_url,
    list_models,
    models_url,
)


def test_presets_carry_the_documented_endpoints() -> None:
    by_key = {preset.key: preset for preset in p.PRESETS}
    assert [preset.name for preset in p.PRESETS] == [
        "OpenAI",
        "DeepSeek",
        "Anthropic",
        "OpenRouter",
        "Ollama",
        "LM Studio",
        "Custom",
    ]
    assert (by_key["openai"].base_url, by_key["openai"].dialect) == ("https://api.openai.com/v1", "openai")
    assert (by_key["deepseek"].base_url, by_key["deepseek"].dialect) == ("https://api.deepseek.com", "deepseek")
    assert by_key["deepseek"].models == ("deepseek-chat", "deepseek-reasoner")
    assert (by_key["anthropic"].base_url, by_key["anthropic"].dialect) == ("https://api.anthropic.com", "anthropic")
    assert by_key["anthropic"].models and by_key["anthropic"].models_need_key
    assert by_key["openrouter"].base_url == "https://openrouter.ai/api/v1"
    assert by_key["ollama"].base_url == "http://127.0.0.1:11434/v1" and by_key["ollama"].local
    assert by_key["lmstudio"].base_url == "http://127.0.0.1:1234/v1" and by_key["lmstudio"].local
    assert by_key["custom"].base_url == "" and by_key["custom"].dialect == "openai"
    assert p.LOCAL_PRESETS == (p.OLLAMA, p.LM_STUDIO)
    assert all(is_loopback_url(preset.base_url) for preset in p.LOCAL_PRESETS)
    assert p.OLLAMA.label == "Ollama (local)" and p.OPENAI.label == "OpenAI"


def test_lookup_and_matching() -> None:
    assert p.preset("deepseek") is p.DEEPSEEK
    with pytest.raises(KeyError, match="known: openai"):
        p.preset("nope")
    assert p.match_preset("https://api.deepseek.com/") is p.DEEPSEEK
    assert p.match_preset("http://localhost:11434/v1") is p.OLLAMA
    assert p.match_preset("https://example.com/v1") is p.CUSTOM
    assert p.match_preset("") is p.CUSTOM


def test_models_url_per_dialect() -> None:
    assert models_url("https://api.openai.com/v1/", "openai") == "https://api.openai.com/v1/models"
    assert models_url("https://api.deepseek.com", "deepseek") == "https://api.deepseek.com/models"
    assert models_url("https://api.anthropic.com", "anthropic") == "https://api.anthropic.com/v1/models"
    assert models_url("https://api.anthropic.com/v1", "anthropic") == "https://api.anthropic.com/v1/models"


@pytest.mark.asyncio
async def test_list_models_sends_the_key_and_parses_the_openai_shape() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"data": [{"id": "b-model"}, {"id": "a-model"}, {"id": "b-model"}, {}]})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        models = await list_models("https://api.example.com/v1", "sk-1", "openai", client=client)
    assert models == ["a-model", "b-model"]
    assert str(seen[0].url) == "https://api.example.com/v1/models"
    assert seen[0].headers["authorization"] == "Bearer sk-1"


@pytest.mark.asyncio
async def test_anthropic_uses_its_own_key_headers() -> None:
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={"data": [{"id": "claude-x", "type": "model"}], "has_more": False})

    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        assert await list_models("https://api.anthropic.com", "ak", "anthropic", client=client) == ["claude-x"]
    headers = seen[0].headers
    assert headers["x-api-key"] == "ak" and headers["anthropic-version"] and "authorization" not in headers


@pytest.mark.parametrize(
    ("response", "expected"),
    [
        (httpx.Response(401, json={"error": "bad key"}), "check the API key"),
        (httpx.Response(404, text="nope"), "has no model list"),
        (httpx.Response(503, text="overloaded"), "HTTP 503): overloaded"),
        (httpx.Response(200, text="<html>"), "OpenAI-style model list"),
        (httpx.Response(200, json={"models": []}), "OpenAI-style model list"),
    ],
)
@pytest.mark.asyncio
async def test_list_models_errors_say_what_to_do(response: httpx.Response, expected: str) -> None:
    async with httpx.AsyncClient(transport=httpx.MockTransport(lambda _r: response)) as client:
        with pytest.raises(ModelListError, match=expected.replace("(", r"\(").replace(")", r"\)")):
            await list_models("https://api.example.com/v1", None, "openai", client=client)


@pytest.mark.asyncio
async def test_list_models_network_failure_and_bad_url() -> None:
    def refuse(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectError("connection refused", request=request)

    async with httpx.AsyncClient(transport=httpx.MockTransport(refuse)) as client:
        with pytest.raises(ModelListError, match=r"Could not reach .*server is running"):
            await list_models("http://127.0.0.1:9/v1", None, "openai", client=client)
        with pytest.raises(ModelListError, match="must start with http"):
            await list_models("api.example.com", None, "openai", client=client)


@pytest.mark.asyncio
async def test_detect_probes_only_loopback_and_returns_the_models() -> None:
    hosts: list[str] = []

    def handler(request: httpx.Request) -> httpx.Response:
        hosts.append(f"{request.url.host}:{request.url.port}")
        if request.url.port == 11434:
            return httpx.Response(200, content=json.dumps({"data": [{"id": "llama3"}]}).encode())
        raise httpx.ConnectError("refused", request=request)

    remote = p.Preset("remote", "Remote", "http://10.0.0.5:11434/v1", "openai", local=True)
    named = p.Preset("named", "Named", "http://localhost:1234/v1", "openai", local=True)
    async with httpx.AsyncClient(transport=httpx.MockTransport(handler)) as client:
        found = await detect_local_servers(client=client, candidates=[*p.LOCAL_PRESETS, remote, named])
    assert [(f.key, f.models) for f in found] == [("ollama", ("llama3",))]
    assert sorted(hosts) == ["127.0.0.1:11434", "127.0.0.1:1234"]  # never the remote or the name


@pytest.mark.asyncio
async def test_detect_with_no_loopback_candidate_sends_nothing() -> None:
    assert await detect_local_servers(candidates=[p.OPENAI]) == []
