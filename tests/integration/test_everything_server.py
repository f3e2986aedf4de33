"""The reference server ``@modelcontextprotocol/server-everything`` over stdio, streamable HTTP and legacy SSE.

Installed by ``scripts/install-test-servers.sh`` into ``.test-servers/`` (pinned version). The tests
skip only when it is missing and ``CI`` is unset; under CI a missing install is a failure.
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import time
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_asyncio

from desktop_app.runtime.host import Host, ServerConfig

pytestmark = pytest.mark.integration

ROOT = Path(__file__).resolve().parents[2]
ENTRY = ROOT / ".test-servers" / "node_modules" / "@modelcontextprotocol" / "server-everything" / "dist" / "index.js"
LOCAL_NODE = ROOT / ".test-servers" / "node_modules" / ".bin" / "node"  # installed when the system Node is < 20
NODE = str(LOCAL_NODE) if LOCAL_NODE.exists() else shutil.which("node")

if not (ENTRY.is_file() and NODE) and not os.environ.get("CI"):
    pytest.skip(
        "server-everything is not installed: run scripts/install-test-servers.sh (needs Node >= 20)",
        allow_module_level=True,
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


def _wait_for_port(port: int, process: subprocess.Popen[bytes], timeout: float = 20) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"server-everything exited with {process.returncode} before listening")
        with socket.socket() as sock:
            sock.settimeout(0.2)
            if sock.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.05)  # a bounded poll for the port, not synchronisation between tasks
    raise TimeoutError(f"server-everything did not listen on port {port} within {timeout:g} s")


@pytest.fixture
def http_server(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[int]:
    """``node index.js <mode>`` on a free loopback port; stopped (and reaped) after the test."""
    mode = getattr(request, "param", "streamableHttp")
    assert NODE is not None
    port = _free_port()
    with (tmp_path / "server.log").open("wb") as log:
        process = subprocess.Popen(
            [NODE, str(ENTRY), mode],
            env={**os.environ, "PORT": str(port)},
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_for_port(port, process)
        yield port
    finally:
        process.terminate()
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()


async def _exercise(host: Host) -> None:
    await host.start()
    status = host.states()["everything"]
    assert status.state == "ready", status.error
    names = [tool.name for tool in host.tools()]
    assert {"mcp__everything__echo", "mcp__everything__get-sum"} <= set(names)  # "-" is legal: kept as documented
    assert all(name.startswith("mcp__everything__") for name in names)
    get_sum = host.lookup("mcp__everything__get-sum")
    assert get_sum is not None and (get_sum.server, get_sum.tool) == ("everything", "get-sum")
    echo = await host.call("everything", "echo", {"message": "hi from switchboard"})
    assert (echo.is_error, echo.text) == (False, "Echo: hi from switchboard")
    total = await host.call("everything", "get-sum", {"a": 2, "b": 3})
    assert not total.is_error and "5" in total.text
    long = await host.call("everything", "trigger-long-running-operation", {"duration": 0.3, "steps": 3})
    assert not long.is_error and "completed" in long.text


@pytest_asyncio.fixture
async def stdio_host() -> AsyncIterator[Host]:
    assert NODE is not None
    host = Host({"everything": ServerConfig(command=NODE, args=[str(ENTRY), "stdio"])}, startup_timeout=30)
    yield host
    await host.aclose()


@pytest.mark.asyncio
async def test_everything_over_stdio(stdio_host: Host) -> None:
    await _exercise(stdio_host)


@pytest.mark.asyncio
async def test_everything_over_streamable_http(http_server: int) -> None:
    url = f"http://127.0.0.1:{http_server}/mcp"
    host = Host({"everything": ServerConfig(url=url, headers={"X-Test": "1"})}, startup_timeout=30)
    try:
        await _exercise(host)
    finally:
        await host.aclose()


@pytest.mark.asyncio
@pytest.mark.parametrize("http_server", ["sse"], indirect=True)
async def test_sse_only_server_falls_back_and_is_remembered(http_server: int, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{http_server}/sse"
    cache = tmp_path / "transports.json"
    host = Host({"everything": ServerConfig(url=url)}, startup_timeout=30, transport_cache=cache)
    try:
        await _exercise(host)
    finally:
        await host.aclose()
    assert list(json.loads(cache.read_text()).values()) == ["sse"]

    again = Host({"everything": ServerConfig(url=url)}, startup_timeout=30, transport_cache=cache)
    try:
        await again.start()
        assert again.states()["everything"].state == "ready"
    finally:
        await again.aclose()
