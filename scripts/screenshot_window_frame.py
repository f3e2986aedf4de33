"""Screenshots of the main window's frame from the real app under Xvfb (light and dark): keyboard focus,
disabled buttons and the Servers dock in an 800 px window.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_window_frame.py

For each theme: a fresh home with two demo MCP servers and the loopback LLM server (one scripted answer).
``window-focus-{theme}.png``: after a first answer, Tab from the conversation search to the list: its accent
ring. ``servers-dock-800-{theme}.png``: the window at 800 × 600, View → Servers opened from the status bar's
indicator, a built-in server selected from the keyboard: the dock fits beside the conversation list (the
window stays 800 px), the server list shows its focus ring and Edit…/Disable/Remove look disabled.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import DEMO, OUT, SCREEN, App, each_theme, grab, home_with, place, xdotool
from tests.support.llm_server import ScriptedLLMServer, text_reply

ANSWER = "Here is the plan: **pack light**, book the 9:40 train, and keep the afternoon free for the museum."


def shoot(theme: str) -> None:
    with ScriptedLLMServer([text_reply(ANSWER, piece=12)]) as llm, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        home_with(
            home,
            theme=theme,
            provider={"base_url": llm.url, "model": "demo-model", "dialect": "openai", "api_key_env": "SB_DEMO_KEY"},
            servers={name: {"command": sys.executable, "args": [str(DEMO), name]} for name in ("github", "calendar")},
            settings={"context_datetime": False, "context_os": False},
        )
        with App(home, env={"SB_DEMO_KEY": "demo"}) as app:
            app.wait_text("mcpIndicator", "2 ready", timeout_s=90)
            app.click("composer")
            app.type("Plan my Saturday in Vienna")
            app.key("ctrl+Return")
            app.wait_text("statusText", "Ready", timeout_s=30)
            app.click("conversationSearch")
            app.key("Tab", "Tab")  # New, then the conversation list
            app.settle(1)
            app.shot(OUT / f"window-focus-{theme}.png")

            place(app.window, (800, 600))
            app.settle(1)
            app.click("mcpIndicator")  # View → Servers
            app.wait_for("serverList")
            app.click("serverList")
            app.key("End")  # the last row: a built-in server (cannot be edited, disabled or removed)
            app.settle(1)
            size = xdotool("getwindowgeometry", app.window).splitlines()[-1].split()[-1]
            if size != "800x600":
                raise SystemExit(f"opening the Servers dock resized the 800x600 window to {size}")
            grab(OUT / f"servers-dock-800-{theme}.png", crop="800x600+0+0")
            place(app.window, SCREEN)


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
