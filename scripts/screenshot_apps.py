"""MCP App views (issue 26) from the real app under Xvfb, light and dark.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_apps.py [light|dark ...]

For each theme: a fresh home whose provider is the loopback SSE server from tests/ and whose one MCP server is
the probe app server (tests/support/apps/probe_server.py, over stdio). The model calls its ``greet`` tool; the
call is approved in its card; the view renders inline and asks to call its app-only ``bump`` tool, which the card
asks about (docs/screenshots/apps-approval-THEME.png); Allow, and the view shows the count
(apps-inline-THEME.png); Fullscreen shows it over the screen (apps-fullscreen-THEME.png). Driven through
``scripts/_shots.py`` (real X input with xdotool).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import OUT, App, each_theme, home_with
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

PROMPT = "Greet Ada in the probe app and count a visitor"
ARGUMENTS = {"name": "Ada Lovelace", "actions": ["size:260", "bump:1"]}


def shoot(theme: str) -> None:
    replies = [
        tool_call_reply([("c1", "mcp__probe__greet", ARGUMENTS)]),
        text_reply("Ada is greeted in the app, and the visitor counter went up.", piece=12),
    ]
    with ScriptedLLMServer(replies) as llm, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        provider = {"base_url": llm.url, "model": "test-model", "dialect": "openai"}
        servers = {"probe": {"command": sys.executable, "args": ["-m", "tests.support.apps.probe_server"]}}
        keyring_file = home_with(
            home,
            theme=theme,
            provider=provider,
            servers=servers,
            secrets={f"api-key:{llm.url}": "sk-demo-not-a-real-key-000000"},
            settings={"context_os": False},
        )
        with App(home, keyring_file=keyring_file) as app:
            app.wait_text("mcpIndicator", "MCP: 1 ready", timeout_s=60)  # the probe server is up
            app.click("composer")
            app.type(PROMPT)
            app.key("Return")
            app.wait_for("approveButton", timeout_s=60)
            app.click("approveButton")
            app.wait_for("appViewQuestionYes", timeout_s=90)  # the view asks to call bump
            app.settle(2.0)
            app.shot(OUT / f"apps-approval-{theme}.png")
            app.click("appViewQuestionYes")
            app.wait_text("statusText", "Ready", timeout_s=60)
            app.settle(2.0)
            app.shot(OUT / f"apps-inline-{theme}.png")
            app.click("appViewFullscreen")
            app.settle(2.5)
            app.shot(OUT / f"apps-fullscreen-{theme}.png")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
