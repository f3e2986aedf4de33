"""Screenshots of a sub-agent's approval in the parent's view, from the real app under Xvfb (light and dark):

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_subagent.py

A fresh SWITCHBOARD_HOME with the agent ``researcher`` (agents/researcher.md: switchboard.history and the
time server), mcp-server-time, and the loopback LLM server as the provider: the default agent calls
``chat-with-researcher`` (approved with Enter), then the researcher's own time call waits for approval in the
same view; and the Agent menu. Output: docs/screenshots/subagent-approval-{light,dark}.png and
docs/screenshots/agent-menu-{light,dark}.png.
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

OUT = ROOT / "docs" / "screenshots"
RESEARCHER = """---
description: Tells the time and looks things up in past conversations
servers: [switchboard.history, time]
---
You are the researcher. Answer briefly.
"""


def xdotool(*args: str) -> str:
    return subprocess.run(["xdotool", *args], capture_output=True, text=True, check=False).stdout.strip()


def write_home(home: Path, url: str, theme: str) -> None:
    (home / "config" / "agents").mkdir(parents=True)
    (home / "config" / "agents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    servers = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
    (home / "config" / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n", encoding="utf-8")
    settings = {
        "provider": {"base_url": url, "model": "demo-model", "dialect": "openai"},
        "appearance": {"theme": theme},
        "context_datetime": False,
        "context_os": False,
    }
    (home / "config" / "settings.json").write_text(json.dumps(settings, indent=2), encoding="utf-8")


def shoot(theme: str, *, menu: bool = False) -> Path:
    replies = [
        tool_call_reply(
            [("call_r", "chat-with-researcher", {"prompt": "What time is it in Tokyo?"})],
            content="I'll ask the researcher.",
        ),
        tool_call_reply([("call_t", "mcp__time__get_current_time", {"timezone": "Asia/Tokyo"})]),
        text_reply("It is evening in Tokyo."),
        text_reply("The researcher says it is evening in Tokyo."),
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
            time.sleep(8)  # the runtime and the time server start
            xdotool("windowfocus", "--sync", window)  # no window manager: give it the input focus
            if menu:
                xdotool("key", "alt+a")  # the Agent menu
                time.sleep(1)
                target = OUT / f"agent-menu-{theme}.png"
                subprocess.run(["import", "-window", "root", "-crop", "700x300+0+0", str(target)], check=True)
                return target
            xdotool("type", "--delay", "20", "Ask the researcher what time it is in Tokyo.")
            xdotool("key", "ctrl+Return")
            time.sleep(4)
            xdotool("key", "Return")  # approve chat-with-researcher (the card has the focus)
            time.sleep(4)  # the researcher's own call now waits for approval in the same view
            OUT.mkdir(parents=True, exist_ok=True)
            target = OUT / f"subagent-approval-{theme}.png"
            subprocess.run(["import", "-window", "root", str(target)], check=True)
            return target
        finally:
            app.terminate()
            try:
                app.wait(10)
            except subprocess.TimeoutExpired:
                app.kill()


def main() -> int:
    for theme in sys.argv[1:] or ("light", "dark"):
        print(shoot(theme))
        print(shoot(theme, menu=True))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
