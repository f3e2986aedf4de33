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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts import _shots as shots

TOKEN = "demo-token-not-a-real-one-0000000000"


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def write_home(home: Path, theme: str, port: int, keyring_file: Path) -> None:
    (home / "config").mkdir(parents=True)
    servers = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
    (home / "config" / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n", encoding="utf-8")
    shots.write_settings(
        home,
        theme=theme,
        provider={"base_url": "http://127.0.0.1:9/v1", "model": "demo-model", "dialect": "openai"},
        agents=[{"name": "researcher", "description": "Tells the time and looks things up"}],
        http_host={"enabled": True, "port": port, "expose": ["time"]},
    )
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
    taken = []
    with tempfile.TemporaryDirectory() as tmp:
        home, keyring_file, port = Path(tmp) / "home", Path(tmp) / "keyring.json", free_port()
        write_home(home, theme, port, keyring_file)
        command = shots.app_command("--home", str(home), "--no-single-instance")
        with shots.running(
            command, shots.app_env(keyring_file=keyring_file), 15, stdout=subprocess.PIPE, text=True
        ) as app:
            assert app.stdout is not None
            for line in app.stdout:
                if line.startswith("mcp-http:"):
                    print(line.strip())
                    break
            window = shots.wait_window("^Switchboard$")
            shots.place(window, (1400, 900))
            time.sleep(3)  # the time server starts
            answer: list[str] = []
            client = threading.Thread(
                target=lambda: answer.append(asyncio.run(call_time(f"http://127.0.0.1:{port}/mcp")))
            )
            client.start()
            dialog = shots.wait_window("An MCP client asks to run a tool")
            time.sleep(1)
            taken.append(shots.grab(shots.OUT / f"http-host-approval-{theme}.png"))
            shots.focus(dialog)
            shots.xdotool("key", "Return")  # Allow is the default button
            client.join(60)
            print("client got:", answer)
            shots.open_settings_page(window, "http_host", (1000, 820), (200, 40))
            taken.append(shots.grab(shots.OUT / f"http-host-{theme}.png"))
    return taken


if __name__ == "__main__":
    raise SystemExit(shots.each_theme(shoot, sys.argv[1:]))
