"""Screenshots of the Tools panel from the real app under Xvfb (light and dark), as in the README.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_tools_panel.py

For each theme: a fresh home (``--home``) with six demo MCP servers (docs/examples/demo_tools/server.py:
83 tools, GitHub pinned in part, one Slack tool excluded) and the loopback LLM server as the provider
(scripted: the model calls tool_search, then answers). The real app runs through ``scripts/_shots.py``
(the scripts' one launch helper): xdotool sends a prompt, opens the panel with Ctrl+K, searches and selects
a tool; ImageMagick's ``import`` takes the screen. Output: docs/screenshots/tools-panel-{light,dark}.png.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import DEMO, OUT, App, each_theme, home_with
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
            app.wait_for("toolSearch")
            app.type("+github pull")
            app.settle(1)
            app.click("toolTree")  # a tool in the middle of the list: its description and schema below
            app.settle(1)
            return app.shot(OUT / f"tools-panel-{theme}.png")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
