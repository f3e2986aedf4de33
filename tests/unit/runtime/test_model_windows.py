"""The model's context window (#16, Deliver 3): the preset's table, else what the endpoint's model list states
(asked once per endpoint, against the loopback server), else unknown."""

from __future__ import annotations

import pytest

from desktop_app.runtime.compaction.windows import ModelWindows
from desktop_app.runtime.providers.discovery import parse_context_windows
from desktop_app.runtime.settings import ProviderSettings
from tests.support.llm_server import ScriptedLLMServer


def test_model_lists_state_windows_in_several_shapes() -> None:
    payload = {
        "data": [
            {"id": "openrouter/m", "context_length": 32_768},
            {"id": "groq-m", "context_window": 131_072},
            {"id": "lmstudio-m", "max_context_length": 8_192},
            {"id": "vllm-m", "max_model_len": 4_096},
            {"id": "nested", "top_provider": {"context_length": 65_536}},
            {"id": "silent"},
            {"id": "bogus", "context_length": True},
            "not a model",
        ]
    }
    assert parse_context_windows(payload) == {
        "openrouter/m": 32_768,
        "groq-m": 131_072,
        "lmstudio-m": 8_192,
        "vllm-m": 4_096,
        "nested": 65_536,
    }
    assert parse_context_windows({"nope": 1}) == {} and parse_context_windows([]) == {}


@pytest.mark.asyncio
async def test_an_unknown_model_gets_its_window_from_the_endpoints_list_once() -> None:
    models = [{"id": "local-7b", "context_length": 6_000}, {"id": "other"}]
    with ScriptedLLMServer(models=models) as llm:
        windows = ModelWindows()
        local = ProviderSettings(base_url=llm.url, model="local-7b")
        assert windows.window(llm.url, "local-7b") is None  # not learned yet: no preset knows it
        assert await windows.learn(local, None) == 6_000
        assert windows.window(llm.url + "/", "local-7b") == 6_000
        assert windows.window(llm.url, "local-7b-q4") == 6_000  # a variant matches its name's prefix
        assert await windows.learn(local.model_copy(update={"model": "other"}), None) is None
        assert llm.gets == ["/v1/models"]  # asked once per endpoint
    deepseek = ProviderSettings(base_url="https://api.deepseek.com", model="deepseek-chat")
    assert await ModelWindows().learn(deepseek, None) == 128_000  # the preset knows it: nothing is asked


@pytest.mark.asyncio
async def test_an_endpoint_without_a_list_leaves_the_window_unknown() -> None:
    windows = ModelWindows()
    gone = ProviderSettings(base_url="http://127.0.0.1:9/v1", model="m")  # nothing listens on port 9
    assert await windows.learn(gone, None) is None
    assert windows.window(gone.base_url, "m") is None
