"""Screenshot of the first-run welcome screen, as a person sees it: a real X window under Xvfb, grabbed by
ImageMagick's ``import``.

    for theme in light dark; do
        xvfb-run -a -s "-screen 0 1400x900x24" .venv/bin/python scripts/screenshot_welcome.py \
            "$theme" "docs/screenshots/welcome-$theme.png"
    done

It opens the welcome screen on a fresh home with a Claude Desktop config holding two servers, lets the local
probe run for real (loopback only), and grabs the dialog's window.
"""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> int:
    theme, out = sys.argv[1], Path(sys.argv[2]).resolve()
    home = Path(tempfile.mkdtemp(prefix="switchboard-welcome-"))
    os.environ["SWITCHBOARD_HOME"] = str(home / "home")
    claude = home / "Claude" / "claude_desktop_config.json"
    claude.parent.mkdir(parents=True)
    servers = {
        "filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", str(Path.home())]},
        "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"],
                   "env": {"GITHUB_PERSONAL_ACCESS_TOKEN": "ghp_" + "x" * 36}},
    }  # fmt: skip
    claude.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")

    import qasync
    from PySide6.QtCore import QTimer
    from PySide6.QtWidgets import QApplication

    from desktop_app.runtime.service import Runtime
    from desktop_app.runtime.settings import Settings
    from desktop_app.ui import theme as themes
    from desktop_app.ui.welcome import WelcomeDialog
    from tests.support.fakes import FakeHost

    app = QApplication([sys.argv[0]])
    app.setApplicationName("Switchboard")
    themes.apply_theme(theme, app)
    loop = qasync.QEventLoop(app)
    asyncio.set_event_loop(loop)
    runtime = Runtime(settings=Settings(), host=FakeHost(), settings_path=home / "settings.json")
    dialog = WelcomeDialog(runtime, mcp_config=lambda: home / "mcp.json", claude_config=claude)
    dialog.move(40, 40)
    dialog.show()

    def grab() -> None:
        subprocess.run(["import", "-window", str(int(dialog.winId())), str(out)], check=True)
        print(f"screenshot: {out} ({dialog.width()}x{dialog.height()}, {theme})")
        app.quit()

    # The local probe finishes within its timeout; grab once it has reported.
    def wait() -> None:
        if dialog.detect_status.text().startswith(("Found", "No local")):
            QTimer.singleShot(300, grab)
        else:
            QTimer.singleShot(100, wait)

    QTimer.singleShot(100, wait)
    with loop:
        loop.run_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
