"""MCP over HTTP in the real app process (``python -m desktop_app``, Qt offscreen): with ``http_host.enabled``
the app serves at start-up (it prints ``mcp-http: serving URL``), its listening socket is on 127.0.0.1 only
(read from ``/proc``), an mcp SDK client over streamable HTTP with the keyring's token lists the agents'
tools and gets 401 without it, and SIGTERM stops the app with the port closed; with the setting off, nothing
of the HTTP host is imported at start-up."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

pytestmark = pytest.mark.integration
ROOT = Path(__file__).resolve().parents[2]
TOKEN = "app-token-0123456789abcdef"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def listening_addresses(pid: int, port: int) -> set[str]:
    """The local addresses the process listens on at ``port`` (IPv4 and IPv6 tables of its namespace)."""
    found = set()
    for table in ("tcp", "tcp6"):
        for line in (Path("/proc") / str(pid) / "net" / table).read_text().splitlines()[1:]:
            local, state = line.split()[1], line.split()[3]
            address, hex_port = local.rsplit(":", 1)
            if int(hex_port, 16) == port and state == "0A":  # LISTEN
                found.add(address)
    return found


def app_env(home: Path, keyring_file: Path) -> dict[str, str]:
    env = {
        **os.environ,
        "QT_QPA_PLATFORM": "offscreen",
        "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
        "SWITCHBOARD_TEST_KEYRING_FILE": str(keyring_file),
        "PYTHONPATH": str(ROOT),
    }
    env.pop("SWITCHBOARD_HOME", None)
    return env


def write_home(tmp_path: Path, enabled: bool, port: int) -> tuple[Path, Path]:
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    settings = {
        "provider": {"base_url": "http://127.0.0.1:9/v1", "model": "m", "dialect": "openai"},
        "http_host": {"enabled": enabled, "port": port},
        "agents": [{"name": "researcher", "description": "Looks things up"}],
    }
    (home / "config" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
    keyring_file = tmp_path / "keyring.json"
    keyring_file.write_text(json.dumps({"switchboard\0serve-token": TOKEN}), encoding="utf-8")
    return home, keyring_file


def start_app(home: Path, keyring_file: Path) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "desktop_app", "--home", str(home), "--no-single-instance"],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        text=True,
        env=app_env(home, keyring_file),
    )


@pytest.mark.asyncio
async def test_the_app_serves_when_enabled_loopback_only_with_the_token_and_stops_on_sigterm(tmp_path: Path) -> None:
    port = free_port()
    home, keyring_file = write_home(tmp_path, True, port)
    proc = start_app(home, keyring_file)
    try:
        assert proc.stdout is not None
        url = f"http://127.0.0.1:{port}/mcp"
        lines = []
        for line in proc.stdout:  # start-up lines, then the host's
            lines.append(line.strip())
            if line.startswith("mcp-http:"):
                break
        assert lines[-1] == f"mcp-http: serving {url}", lines
        assert listening_addresses(proc.pid, port) == {"0100007F"}  # 127.0.0.1, and nothing else

        async with httpx.AsyncClient() as plain:
            refused = await plain.post(url, json={"jsonrpc": "2.0", "id": 1, "method": "ping"})
        assert refused.status_code == 401
        async with (
            httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=30) as http,
            Client(streamable_http_client(url, http_client=http)) as client,
        ):
            tools = {t.name for t in (await client.list_tools()).tools}
        assert tools == {"chat-with-assistant", "chat-with-researcher"}

        proc.send_signal(signal.SIGTERM)
        assert await asyncio.to_thread(proc.wait, 20) == 0
        with pytest.raises(ConnectionRefusedError), socket.create_connection(("127.0.0.1", port), timeout=2):
            pass
        leaked = [f for f in home.rglob("*") if f.is_file() and TOKEN.encode() in f.read_bytes()]
        assert not leaked  # the token is in the keyring only: no log, config or database holds it
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()


PROBE = """
import sys
from desktop_app import app as appmod
started = appmod.App._start_runtime
async def probe(self):
    await started(self)
    http = ("desktop_app.runtime.http", "desktop_app.ui.servers.http_host")
    loaded = sorted(m for m in sys.modules if m.startswith(http))
    print("loaded:", " ".join(loaded) or "-", flush=True)
    self.request_quit()
appmod.App._start_runtime = probe
raise SystemExit(appmod.main(["--home", sys.argv[1], "--no-single-instance"]))
"""


def test_nothing_of_the_http_host_is_imported_at_start_up_when_it_is_off(tmp_path: Path) -> None:
    home, keyring_file = write_home(tmp_path, False, 0)
    done = subprocess.run(
        [sys.executable, "-c", PROBE, str(home)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env=app_env(home, keyring_file),
        check=False,
    )
    loaded = [line for line in done.stdout.splitlines() if line.startswith("loaded:")]
    assert loaded == ["loaded: -"], (done.stdout, done.stderr[-2000:])
    assert done.returncode == 0
