"""The chat's working line and a failed server's reason, from the real app under Xvfb, light and dark.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_working_and_failed_server.py \
        [light|dark ...]

For each theme: a fresh home whose provider is the loopback SSE server from tests/ (the real OpenAI wire
format), scripted to hold its answer back (a first token that does not come). A question is typed and sent; a
few seconds later the window is taken with "Working… N s" under it (docs/screenshots/working-indicator-THEME.png).
Then a second home whose mcp.json names a server with a command that is not installed: the MCP indicator in the
status bar opens View → Servers, the failed server is selected, and the window is taken with its reason written
out in its row and above its tabs (server-failed-THEME.png). Driven through ``scripts/_shots.py``
(real X input with xdotool).
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import OUT, App, each_theme, home_with
from tests.support.llm_server import Pause, Reply, ScriptedLLMServer

PROMPT = "Which of my CRM leads went quiet this month?"
SERVERS = {"crm": {"command": "crm-mcp-server", "args": ["--stdio"]}}  # not installed: it fails to start


def shoot(theme: str) -> None:
    with ScriptedLLMServer([Reply(steps=[Pause(60.0)])]) as llm, tempfile.TemporaryDirectory() as tmp:
        provider = {"base_url": llm.url, "model": "test-model", "dialect": "openai"}
        secrets = {f"api-key:{llm.url}": "sk-demo-not-a-real-key-000000"}
        home = Path(tmp) / "home"
        keyring_file = home_with(home, theme=theme, provider=provider, secrets=secrets, settings={"context_os": False})
        with App(home, keyring_file=keyring_file) as app:
            app.click("composer")
            app.type(PROMPT)
            app.key("Return")
            app.wait_for("workingLine")
            app.settle(4.5)  # long enough for the seconds to show: "Working… 4 s"
            app.shot(OUT / f"working-indicator-{theme}.png")
        home = Path(tmp) / "failed"
        keyring_file = home_with(
            home, theme=theme, provider=provider, servers=SERVERS, secrets=secrets, settings={"context_os": False}
        )
        with App(home, keyring_file=keyring_file) as app:
            app.click("mcpIndicator")
            app.wait_for("serverRow:crm")
            app.click("serverRow:crm")
            app.wait_for("serverFailure")
            app.settle(1.2)
            app.shot(OUT / f"server-failed-{theme}.png")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
