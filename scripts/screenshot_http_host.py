"""Screenshots of MCP over HTTP from the real app under Xvfb (light and dark):

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_http_host.py

A fresh SWITCHBOARD_HOME with MCP over HTTP on (a fixed port, mcp-server-time served too), the token in a
file-backed test keyring. The script starts ``python -m desktop_app``, waits for ``mcp-http: serving``,
connects an mcp SDK client over streamable HTTP with the token and calls the time server's tool: the app
asks for approval (screenshot: docs/screenshots/http-host-approval-{theme}.png), Allow (Enter) lets it run;
then Settings (Ctrl+,) → MCP over HTTP with the client and its call listed
(docs/screenshots/http-host-{theme}.png).
"""

from __future__ import annotations

import asyncio
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx2
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "docs" / "screenshots"
TOKEN = "demo-token-not-a-real-one-0000000000"


def xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, check=False).stdout.strip()


def wait_window(name: str, timeout_s: float = 30.0) -> str:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        found = xdotool("search", "--onlyvisible", "--name", name)
        if found:
            return found.splitlines()[-1]
        time.sleep(0.25)
    raise SystemExit(f"no window named {name!r} appeared")


def page_index() -> int:
    """Where MCP over HTTP sits in the Settings sidebar (the registry's order)."""
    sys.path.insert(0, str(ROOT))
    from desktop_app.ui.settings.registry import registered_pages

    return [page.key for page in registered_pages()].index("http_host")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_home(home: Path, theme: str, port: int, keyring_file: Path) -> None:
    (home / "config").mkdir(parents=True)
    servers = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
    (home / "config" / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n", encoding="utf-8")
    settings = {
        "provider": {"base_url": "http://127.0.0.1:9/v1", "model": "demo-model", "dialect": "openai"},
        "appearance": {"theme": theme},
        "agents": [{"name": "researcher", "description": "Tells the time and looks things up"}],
        "http_host": {"enabled": True, "port": port, "expose": ["time"]},
    }
    (home / "config" / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    keyring_file.write_text(json.dumps({"switchboard\0serve-token": TOKEN}), encoding="utf-8")


async def call_time(url: str) -> str:
    async with (
        httpx2.AsyncClient(headers={"Authorization": f"Bearer {TOKEN}"}, timeout=60) as http,
        Client(streamable_http_client(url, http_client=http)) as client,
    ):
        for _ in range(120):  # until the time server has started and its tools are served
            if "mcp__time__get_current_time" in {t.name for t in (await client.list_tools()).tools}:
                break
            await asyncio.sleep(0.5)
        result = await client.call_tool("mcp__time__get_current_time", {"timezone": "Asia/Tokyo"})
        return str(result.content[0].text)  # type: ignore[union-attr]


def shoot(theme: str) -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    shots = []
    with tempfile.TemporaryDirectory() as tmp:
        home, keyring_file, port = Path(tmp) / "home", Path(tmp) / "keyring.json", free_port()
        write_home(home, theme, port, keyring_file)
        env = {
            **os.environ,
            "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
            "SWITCHBOARD_TEST_KEYRING_FILE": str(keyring_file),
            "PYTHONPATH": str(ROOT),
        }
        env.pop("QT_QPA_PLATFORM", None)
        env.pop("SWITCHBOARD_HOME", None)
        app = subprocess.Popen(
            [sys.executable, "-m", "desktop_app", "--home", str(home), "--no-single-instance"],
            cwd=ROOT,
            env=env,
            stdout=subprocess.PIPE,
            text=True,
        )
        try:
            assert app.stdout is not None
            for line in app.stdout:
                if line.startswith("mcp-http:"):
                    print(line.strip())
                    break
            window = wait_window("^Switchboard$")
            xdotool("windowsize", window, "1400", "900")
            xdotool("windowmove", window, "0", "0")
            time.sleep(3)  # the time server starts
            answer: list[str] = []
            client = threading.Thread(
                target=lambda: answer.append(asyncio.run(call_time(f"http://127.0.0.1:{port}/mcp")))
            )
            client.start()
            dialog = wait_window("An MCP client asks to run a tool")
            time.sleep(1)
            target = OUT / f"http-host-approval-{theme}.png"
            subprocess.run(["import", "-window", "root", str(target)], check=True)
            shots.append(target)
            xdotool("windowfocus", "--sync", dialog)
            xdotool("key", "Return")  # Allow is the default button
            client.join(60)
            print("client got:", answer)
            xdotool("windowfocus", "--sync", window)
            xdotool("key", "ctrl+comma")
            settings = wait_window("^Settings$")
            xdotool("windowfocus", "--sync", settings)
            xdotool("windowsize", settings, "1000", "820")
            xdotool("windowmove", settings, "200", "40")
            time.sleep(1)
            for _ in range(page_index()):
                xdotool("key", "Down")
            time.sleep(1.5)
            target = OUT / f"http-host-{theme}.png"
            subprocess.run(["import", "-window", "root", str(target)], check=True)
            shots.append(target)
        finally:
            app.terminate()
            try:
                app.wait(15)
            except subprocess.TimeoutExpired:
                app.kill()
    return shots


def main() -> int:
    for theme in sys.argv[1:] or ("light", "dark"):
        for shot in shoot(theme):
            print(shot)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
