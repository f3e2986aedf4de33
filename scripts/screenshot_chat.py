"""The main screenshots (README.md, docs/), from the real app under Xvfb, light and dark: the main window, a tool call
waiting for approval, the finished card collapsed and expanded, Settings, and the Servers panel.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_chat.py [light|dark ...]

For each theme: a fresh home (``--home``) whose ``mcp.json`` holds the demo GitHub connector
(docs/examples/demo_tools/server.py), mcp-server-time and a disabled server; the provider is the loopback
SSE server from tests/ (``tests.support.llm_server``, the real OpenAI wire format), scripted to think, ask
for ``github.create_issue`` and then answer in Markdown; its key sits in a file-backed test keyring. The app
is driven through ``scripts/_shots.py`` (real X input with xdotool). Output in docs/screenshots/:
main-window-THEME.png, THEME-tool-approval.png, THEME-tool-card-collapsed.png, THEME-tool-card-expanded.png,
settings-providers-THEME.png, servers-panel-THEME.png.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import DEMO, OUT, SCREEN, App, each_theme, home_with, xdotool
from tests.support.llm_server import ScriptedLLMServer, text_reply, tool_call_reply

PROMPT = "The settings test failed again on CI. Open an issue for it, then tell me how to make the save safe."
REASONING = (
    "The user wants an issue filed and advice on saving settings safely. I will open the issue with the "
    "GitHub tool, then explain an atomic write: a temporary file, fsync, then a rename over the old file."
)
ISSUE = {
    "target": "switchboard/switchboard",
    "text": "test_settings_save fails on CI: the file is sometimes empty after a crash mid-write",
}
ANSWER = """## Filed, and how to make the save safe

I opened the issue in **switchboard/switchboard**. The failure is a torn write: the file is truncated
first and filled later, so a crash in between leaves it empty. Write the new file beside the old one and
swap it in:

1. Write to `settings.json.tmp` in the **same folder** (a rename across file systems is not atomic).
2. Flush and `fsync` it, so the bytes are on disk before the swap.
3. `os.replace()` it over `settings.json`: readers see the old file or the new one, never half of one.

```python
def save(path: Path, data: dict) -> None:
    tmp = path.with_suffix(".json.tmp")
    with tmp.open("w", encoding="utf-8") as handle:
        json.dump(data, handle, indent=2)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)  # atomic on POSIX and Windows
```

| approach | survives a crash | cost |
|---|---|---|
| write in place | no | one write |
| temp file + rename | yes | one rename |
| temp file + fsync + rename | yes, and after a power cut | one fsync |

> Keep the old file until the rename succeeded: a failed save then loses nothing.
"""


def servers() -> dict[str, object]:
    return {
        "github": {
            "command": sys.executable,
            "args": [str(DEMO), "github"],
            "env": {"GITHUB_TOKEN": "${keyring:mcp:github:GITHUB_TOKEN}"},
        },
        "time": {"command": sys.executable, "args": ["-m", "mcp_server_time"]},
        "notes": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"], "disabled": True},
    }


def shoot(theme: str) -> None:
    replies = [
        tool_call_reply([("call_issue", "mcp__github__create_issue", ISSUE)], reasoning=REASONING),
        text_reply(ANSWER, piece=12),
    ]
    with ScriptedLLMServer(replies) as llm, tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp) / "home"
        provider = {"base_url": llm.url, "model": "test-model", "dialect": "openai"}
        keyring_file = home_with(
            home,
            theme=theme,
            provider=provider,
            servers=servers(),
            secrets={f"api-key:{llm.url}": "sk-demo-not-a-real-key-000000", "mcp:github:GITHUB_TOKEN": "ghp_demo0000"},
            settings={"context_os": False},
        )
        with App(home, keyring_file=keyring_file) as app:
            app.wait_text("mcpIndicator", "2 ready", timeout_s=60)  # github and time are up
            app.click("composer")
            app.type(PROMPT)
            app.key("Return")
            app.wait_for("approveButton")
            app.settle(1.5)
            app.shot(OUT / f"{theme}-tool-approval.png")

            app.click("approveButton")
            app.wait_text("statusText", "Ready", timeout_s=30)
            app.settle(1.5)
            app.shot(OUT / f"main-window-{theme}.png")
            xdotool("mousemove", "700", "400")  # the answer fills the view: scroll back up to the card
            for _ in range(8):
                xdotool("click", "4")
            xdotool("mousemove", str(SCREEN[0] - 2), str(SCREEN[1] - 2))
            app.settle()
            app.shot(OUT / f"{theme}-tool-card-collapsed.png")  # finished: folded to its summary line
            app.click("toolCardTitle")  # a click on the summary line unfolds it
            app.settle()
            app.shot(OUT / f"{theme}-tool-card-expanded.png")
            app.click("toolCardTitle")  # and folds it again

            app.key("ctrl+comma")
            settings = app.wait_window("^Settings$")
            app.focus(settings)
            app.settle(0.5)
            app.key("Down")  # General → Providers
            app.settle()
            app.shot(OUT / f"settings-providers-{theme}.png", settings)  # the Settings window alone
            app.key("Escape")
            app.focus()
            app.key("alt+v", "s")  # View → Servers
            app.wait_for("serverList")
            app.click("serverList")
            app.key("Home")  # the first server, github, with its tools
            app.settle(1.2)
            app.shot(OUT / f"servers-panel-{theme}.png")


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
