"""The first-run welcome screen from the real app under Xvfb, light and dark, as a new user sees it.

    xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_welcome.py [light|dark ...]

For each theme: a fresh home (``--home``) with no provider, so the app opens the welcome screen itself, and
a Claude Desktop config with two servers where the app looks for one (``$XDG_CONFIG_HOME/Claude``); the
local-server probe runs for real (loopback only). The real app runs through ``scripts/_shots.py``; the
welcome window alone is taken once the probe has reported. Output: docs/screenshots/welcome-THEME.png.
"""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from scripts._shots import OUT, App, each_theme

SERVERS = {
    "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "~/Documents"]},
    "github": {
        "command": "npx",
        "args": ["-y", "@modelcontextprotocol/server-github"],
        "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_" + "x" * 36},
    },
}


def shoot(theme: str) -> Path:
    with tempfile.TemporaryDirectory() as tmp:
        home, xdg = Path(tmp) / "home", Path(tmp) / "xdg"
        claude = xdg / "Claude" / "claude_desktop_config.json"
        claude.parent.mkdir(parents=True)
        claude.write_text(json.dumps({"mcpServers": SERVERS}, indent=2), encoding="utf-8")
        (home / "config").mkdir(parents=True)
        settings = {"appearance": {"theme": theme}}
        (home / "config" / "settings.json").write_text(json.dumps(settings), encoding="utf-8")
        (home / "data").mkdir()
        (home / "data" / "no-tray-noticed").touch()
        with App(home, env={"XDG_CONFIG_HOME": str(xdg)}) as app:
            welcome = app.wait_window("^Welcome to Switchboard$")
            deadline = time.monotonic() + 20
            while time.monotonic() < deadline:  # the local probe reports within its timeout
                if str(app.ask(do="what", object="detectStatus").get("text", "")).startswith(("Found", "No local")):
                    break
                time.sleep(0.25)
            app.settle()
            return app.shot(OUT / f"welcome-{theme}.png", welcome)


if __name__ == "__main__":
    raise SystemExit(each_theme(shoot, sys.argv[1:]))
