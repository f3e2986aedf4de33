"""Screenshots of the Tools panel from the real app under Xvfb (light and dark), as in docs/tools.md.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_tools_panel.py

For each theme: a fresh home (``--home``) with six demo MCP servers (docs/examples/demo_tools/server.py:
83 tools, GitHub pinned in part, one Slack tool excluded) and the loopback LLM server as the provider
(scripted: the model calls tool_search, then answers). The real app runs through ``scripts/_shots.py``
(the scripts' one launch helper): xdotool sends a prompt, opens the panel with Ctrl+K, widens the dock by
its separator, searches by words and selects a pinned tool (the states "in index" and "hidden" show what the
model sees); ImageMagick's ``import`` takes the screen. Output: docs/screenshots/tools-panel-{light,dark}.png.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import DEMO, OUT, SCREEN, App, each_theme, home_with, xdotool
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

SERVERS = ("github", "slack", "jira", "calendar", "drive", "crm")


def servers() -> dict[str, dict[str, object]]:
    found: dict[str, dict[str, object]] = {
        name: {"command": sys.executable, "args": [str(DEMO), name]} for name in SERVERS
    }
    found["github"]["pinned"] = ["create_issue", "search_issues"]
    found["slack"]["excludedTools"] = ["delete_message"]
    return found


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
        home_with(
            home,
            theme=theme,
            provider={"base_url": llm.url, "model": "demo-model", "dialect": "openai", "api_key_env": "SB_DEMO_KEY"},
            servers=servers(),
            settings={"context_datetime": False, "context_os": False},
        )
        with App(home, env={"SB_DEMO_KEY": "demo"}) as app:
            app.wait_text("mcpIndicator", f"{len(SERVERS)} ready", timeout_s=90)  # the six servers are up
            app.click("composer")
            app.type("Can you open a pull request for the release branch?")
            app.key("ctrl+Return")
            app.wait_text("statusText", "Ready", timeout_s=30)
            app.key("ctrl+k")
            x, _y = app.wait_for("toolSearch")
            # Widen the dock as a user would, by its separator (it opens at the right docks' first width).
            left = 2 * x - SCREEN[0] - 2
            xdotool("mousemove", str(left), "450", "mousedown", "1")
            for step in range(1, 11):
                xdotool("mousemove", str(left - step * (left - (SCREEN[0] - 580)) // 10), "450")
            xdotool("mouseup", "1")
            app.settle(0.5)
            app.click("toolSearch")
            app.type("issue")  # words: each in the name or the description
            app.settle(1)
            app.click("toolTree")
            app.key("Home")  # the github row, then down to its pinned create_issue: a selected row keeps
            app.key(*["Down"] * 4)  # its Pin box visible
            app.settle(1)
            return app.shot(OUT / f"tools-panel-{theme}.png")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
