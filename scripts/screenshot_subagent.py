"""Screenshots of agents in the real app under Xvfb (light and dark):

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_subagent.py [light|dark]

A fresh SWITCHBOARD_HOME with the agent ``researcher`` (agents/researcher.md: switchboard.history and the
time server), mcp-server-time, and the loopback LLM server as the provider, then ``switchboard`` itself:

* ``subagent-<theme>.png``: the default agent called ``chat-with-researcher`` (approved with Enter); the
  researcher's run is nested under that card as a sub-conversation, its own time call waiting for approval;
* ``agent-picker-<theme>.png``: the composer's agent picker open (Ctrl+Shift+A);
* ``agents-settings-<theme>.png``: Settings → Agents (the picker's "Manage agents…").
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import OUT, app_env, app_window, each_theme, focus, grab, write_settings, xdotool
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

RESEARCHER = """---
description: Tells the time and looks things up in past conversations
servers: [switchboard.history, time]
---
You are the researcher. Answer briefly.
"""
WRITER = """---
description: Turns notes into a short report
servers: []
model: demo-writer
---
You write short, plain reports.
"""


def write_home(home: Path, url: str, theme: str) -> None:
    (home / "config" / "agents").mkdir(parents=True)
    (home / "config" / "agents" / "researcher.md").write_text(RESEARCHER, encoding="utf-8")
    (home / "config" / "agents" / "writer.md").write_text(WRITER, encoding="utf-8")
    servers = {"time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]}}
    (home / "config" / "mcp.json").write_text(json.dumps({"mcpServers": servers}, indent=2) + "\n", encoding="utf-8")
    provider = {"base_url": url, "model": "demo-model", "dialect": "openai"}
    write_settings(home, theme=theme, provider=provider, context_datetime=False, context_os=False)


def shoot(theme: str, what: str) -> Path:
    replies = [
        tool_call_reply(
            [("call_r", "chat-with-researcher", {"prompt": "What time is it in Tokyo?"})],
            content="I'll ask the researcher.",
        ),
        tool_call_reply(
            [("call_t", "mcp__time__get_current_time", {"timezone": "Asia/Tokyo"})],
            reasoning="The time server knows Tokyo's time.",
        ),
        text_reply("It is evening in Tokyo."),
        text_reply("The researcher says it is evening in Tokyo."),
    ]
    with ScriptedLLMServer(replies) as llm, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        write_home(home, llm.url, theme)
        with app_window([str(Path(sys.executable).parent / "switchboard")], app_env(home=home)) as window:
            time.sleep(8)  # the runtime and the time server start
            focus(window)
            target = OUT / f"{what}-{theme}.png"
            if what == "agent-picker":
                xdotool("key", "ctrl+shift+a")
                time.sleep(1)
                return grab(target, crop="960x330+420+560")
            if what == "agents-settings":
                xdotool("key", "ctrl+shift+a")
                time.sleep(1)
                xdotool("key", "Up", "Return")  # the menu's last entry: Manage agents…
                time.sleep(3)
                return grab(target, crop="880x620+250+100")
            xdotool("type", "--delay", "20", "Ask the researcher what time it is in Tokyo.")
            xdotool("key", "Return")
            time.sleep(4)
            xdotool("key", "Return")  # approve chat-with-researcher (the card has the focus)
            time.sleep(5)  # the researcher's own call now waits for approval inside its sub-conversation
            return grab(target)


def shoot_all(theme: str) -> list[Path]:
    return [shoot(theme, what) for what in ("subagent", "agent-picker", "agents-settings")]


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot_all, sys.argv[1:]))
