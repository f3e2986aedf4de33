"""Screenshots of the Tools panel from the real app under Xvfb (light and dark), as in the README.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_tools_panel.py

For each theme: a fresh SWITCHBOARD_HOME with six demo MCP servers (docs/examples/demo_tools/server.py:
83 tools, GitHub pinned in part, one Slack tool excluded) and the loopback LLM server as the provider
(scripted: the model calls tool_search, then answers). The script starts ``python -m desktop_app``, sends
a prompt with xdotool, opens the panel with Ctrl+K, searches, selects a tool and takes the screenshot with
ImageMagick's ``import``. Output: docs/screenshots/tools-panel-{light,dark}.png.
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
sys.path.insert(0, str(ROOT))

from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply  # noqa: E402

SERVERS = ("github", "slack", "jira", "calendar", "drive", "crm")
DEMO = ROOT / "docs" / "examples" / "demo_tools" / "server.py"
OUT = ROOT / "docs" / "screenshots"


def xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, check=False).stdout.strip()


def write_home(home: Path, url: str, theme: str) -> None:
    (home / "config").mkdir(parents=True)
    servers: dict[str, dict[str, object]] = {
        name: {"command": sys.executable, "args": [str(DEMO), name]} for name in SERVERS
    }
    servers["github"]["pinned"] = ["create_issue", "search_issues"]
    servers["slack"]["excludedTools"] = ["delete_message"]
    (home / "config" / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n", encoding="utf-8")
    settings = {
        "provider": {"base_url": url, "model": "demo-model", "dialect": "openai"},
        "appearance": {"theme": theme},
        "context_datetime": False,
        "context_os": False,
    }
    (home / "config" / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")


def shoot(theme: str) -> Path:
    replies = [
        tool_call_reply([("call_search", "tool_search", {"query": "+github pull_request"})], content=""),
        text_reply(
            "I loaded the GitHub pull-request tools: I can open one with **create_pull_request**, read its diff "
            "with **get_pull_request_diff**, review it and merge it. Which repository?"
        ),
    ]
    with ScriptedLLMServer(replies) as llm, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        write_home(home, llm.url, theme)
        env = {**os.environ, "SWITCHBOARD_HOME": str(home), "PYTHON_KEYRING_BACKEND": "keyring.backends.null.Keyring"}
        env.pop("QT_QPA_PLATFORM", None)
        app = subprocess.Popen([sys.executable, "-m", "desktop_app"], cwd=ROOT, env=env)
        try:
            window = ""
            for _ in range(120):
                window = xdotool("search", "--onlyvisible", "--name", "^Switchboard$")
                if window:
                    break
                time.sleep(0.25)
            if not window:
                raise SystemExit("the Switchboard window did not appear")
            window = window.splitlines()[0]
            xdotool("windowsize", window, "1400", "900")
            xdotool("windowmove", window, "0", "0")
            time.sleep(12)  # the runtime and the six servers start
            xdotool("windowfocus", "--sync", window)  # no window manager: give it the input focus
            xdotool("type", "--delay", "20", "Can you open a pull request for the release branch?")
            xdotool("key", "ctrl+Return")
            time.sleep(4)
            xdotool("key", "ctrl+k")
            time.sleep(1)
            xdotool("type", "--delay", "30", "+github pull")
            time.sleep(1)
            for key in ("Tab", "Down", "Down", "Down"):
                xdotool("key", key)
                time.sleep(0.2)
            time.sleep(1)
            OUT.mkdir(parents=True, exist_ok=True)
            target = OUT / f"tools-panel-{theme}.png"
            subprocess.run(["import", "-window", "root", str(target)], check=True)
            return target
        finally:
            app.terminate()
            try:
                app.wait(10)
            except subprocess.TimeoutExpired:
                app.kill()


def main() -> int:
    for theme in ("light", "dark"):
        print(shoot(theme))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
