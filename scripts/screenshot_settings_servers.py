"""Screenshots of the Settings window and the Servers panel from the real app under Xvfb (light and dark).

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_settings_servers.py

For each theme: a fresh SWITCHBOARD_HOME whose mcp.json holds the demo GitHub server
(docs/examples/demo_tools/server.py), mcp-server-time from PyPI and a disabled server; a provider whose key
is in a file-backed test keyring (so Settings → Providers says "key stored"). The script starts
``python -m desktop_app``, opens View → Servers and selects a server, takes the screen, then opens
Settings with Ctrl+, on the Providers page and takes it again, with ImageMagick's ``import``.
Output: docs/screenshots/{servers-panel,settings-providers}-{light,dark}.png.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "docs" / "examples" / "demo_tools" / "server.py"
OUT = ROOT / "docs" / "screenshots"


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


def write_home(home: Path, theme: str, keyring_file: Path) -> None:
    (home / "config").mkdir(parents=True)
    servers = {
        "github": {
            "command": sys.executable,
            "args": [str(DEMO), "github"],
            "env": {"GITHUB_TOKEN": "${keyring:mcp:github:GITHUB_TOKEN}"},
        },
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
        "notes": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "disabled": True},
    }
    (home / "config" / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n", encoding="utf-8")
    settings = {
        "provider": {"base_url": "https://api.deepseek.com", "model": "deepseek-chat", "dialect": "deepseek"},
        "appearance": {"theme": theme, "font_size": 0},
        "context_datetime": False,
        "context_os": False,
    }
    (home / "config" / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")
    keyring_file.write_text(
        json.dumps(
            {
                "switchboard\0api-key:https://api.deepseek.com": "sk-demo-not-a-real-key-000000",
                "switchboard\0mcp:github:GITHUB_TOKEN": "ghp_demo000000000000000000000000000000",
            }
        ),
        encoding="utf-8",
    )


def shoot(theme: str) -> list[Path]:
    OUT.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        keyring_file = Path(tmp) / "keyring.json"
        write_home(home, theme, keyring_file)
        env = {
            **os.environ,
            "SWITCHBOARD_HOME": str(home),
            "PYTHON_KEYRING_BACKEND": "tests.support.file_keyring.FileKeyring",
            "SWITCHBOARD_TEST_KEYRING_FILE": str(keyring_file),
            "PYTHONPATH": str(ROOT),
        }
        env.pop("QT_QPA_PLATFORM", None)
        app = subprocess.Popen([sys.executable, "-m", "desktop_app"], cwd=ROOT, env=env)
        shots = []
        try:
            window = wait_window("^Switchboard$")
            xdotool("windowsize", window, "1400", "900")
            xdotool("windowmove", window, "0", "0")
            time.sleep(14)  # the runtime and the servers start
            xdotool("windowfocus", "--sync", window)
            xdotool("key", "alt+v")
            time.sleep(0.5)
            xdotool("key", "s")  # View → Servers
            time.sleep(1.5)
            shots.append(OUT / f"servers-panel-{theme}.png")
            subprocess.run(["import", "-window", "root", str(shots[-1])], check=True)
            xdotool("windowfocus", "--sync", window)
            xdotool("key", "ctrl+comma")
            settings = wait_window("^Settings$")
            xdotool("windowmove", settings, "260", "120")
            xdotool("windowfocus", "--sync", settings)
            time.sleep(0.5)
            xdotool("key", "Down")  # General → Providers
            time.sleep(1)
            shots.append(OUT / f"settings-providers-{theme}.png")
            subprocess.run(["import", "-window", "root", str(shots[-1])], check=True)
            return shots
        finally:
            app.terminate()
            try:
                app.wait(10)
            except subprocess.TimeoutExpired:
                app.kill()


def main() -> int:
    for theme in ("light", "dark"):
        for path in shoot(theme):
            print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
