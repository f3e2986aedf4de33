"""Model discovery over real sockets: the loopback LLM server lists its models; a closed port is skipped."""

from __future__ import annotations

import socket
import time

import pytest

from desktop_app.runtime.providers.discovery import ModelListError, detect_local_servers, list_models
from desktop_app.runtime.providers.presets import Preset
from tests.support.llm_server import ScriptedLLMServer


def _closed_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])  # closed again when the block ends: nothing listens there


@pytest.mark.asyncio
async def test_list_models_from_the_loopback_server(llm_server: ScriptedLLMServer) -> None:
    assert await list_models(llm_server.url, "test-key", "openai") == ["test-model"]


@pytest.mark.asyncio
async def test_list_models_on_a_closed_port_is_a_clear_error() -> None:
    with pytest.raises(ModelListError, match=r"Could not reach .*server is running"):
        await list_models(f"http://127.0.0.1:{_closed_port()}/v1", None, "openai")


@pytest.mark.asyncio
async def test_detect_finds_the_running_server_and_skips_a_closed_port_quickly(
    llm_server: ScriptedLLMServer,
) -> None:
    running = Preset("loop", "Loopback", llm_server.url, "openai", local=True, needs_key=False)
    closed = Preset("closed", "Closed", f"http://127.0.0.1:{_closed_port()}/v1", "openai", local=True)
    started = time.perf_counter()
    found = await detect_local_servers(candidates=[closed, running], timeout_s=2.0)
    elapsed = time.perf_counter() - started
    assert [(p.key, p.models) for p in found] == [("loop", ("test-model",))]
    assert elapsed < 1.5  # refused at once, never waited out
